package daemon

import (
	"net"
	"net/netip"
	"strconv"
	"strings"
	"testing"
)

func TestValidHost(t *testing.T) {
	v4 := netip.MustParseAddrPort("127.0.0.1:3036")
	v6 := netip.MustParseAddrPort("[::1]:3036")
	other := netip.MustParseAddrPort("127.0.0.2:3036")
	for _, tc := range []struct {
		host  string
		bound netip.AddrPort
		ok    bool
	}{
		{"127.0.0.1:3036", v4, true}, {"localhost:3036", v4, true}, {"LOCALHOST:3036", v4, true},
		// [::1] only reaches a listener on ::1, and 127.0.0.1 only one on it.
		{"[::1]:3036", v4, false}, {"[::1]:3036", v6, true}, {"localhost:3036", v6, true}, {"127.0.0.1:3036", v6, false},
		// A listener on another address of 127.0.0.0/8 accepts that address.
		{"127.0.0.2:3036", other, true}, {"localhost:3036", other, true}, {"127.0.0.1:3036", other, false},
		{"127.0.0.1:3037", v4, false}, {"127.0.0.1", v4, false}, {"localhost", v4, false}, {"evil.example:3036", v4, false},
		{"localhost.evil.com:3036", v4, false}, {"localhost.:3036", v4, false}, {"foo.localhost:3036", v4, false},
		{"0.0.0.0:3036", v4, false}, {"192.168.1.10:3036", v4, false}, {"127.0.0.2:3036", v4, false},
		{"[::ffff:127.0.0.1]:3036", v4, false}, {"[0:0:0:0:0:0:0:1]:3036", v6, false}, {"[::1%lo]:3036", v6, false},
		{"", v4, false}, {"[::1:3036", v6, false}, {"127.1:3036", v4, false}, {"127.0.0.1:03036", v4, false},
		// U+017F (long s) folds to s in Unicode, not in ASCII.
		{"localho\u017ft:3036", v4, false}, {"LOCALHO\u017fT:3036", v6, false},
	} {
		if got := validHost(tc.host, tc.bound); got != tc.ok {
			t.Errorf("validHost(%q) on %s = %v, want %v", tc.host, tc.bound, got, tc.ok)
		}
	}
}

// FuzzValidHost compares the Host check with a simple reference model:
// localhost or the bound address's own spelling, with exactly our port,
// on listeners at 127.0.0.1 and at ::1.
func FuzzValidHost(f *testing.F) {
	for _, s := range []string{"127.0.0.1:3036", "localhost:3036", "[::1]:3036", "evil:3036", "0.0.0.0:3036", "127.0.0.1:03036", "LocalHost:3036", "[::1%lo]:3036", "localho\u017ft:3036"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, host string) {
		for _, bound := range []netip.AddrPort{netip.MustParseAddrPort("127.0.0.1:3036"), netip.MustParseAddrPort("[::1]:3036")} {
			want := false
			if h, p, err := net.SplitHostPort(host); err == nil && p == strconv.Itoa(3036) {
				switch {
				// ToLower maps no non-ASCII letter to one of "localhost"'s.
				case strings.ToLower(h) == "localhost":
					want = true
				case bound.Addr().Is4():
					want = h == "127.0.0.1"
				default:
					want = h == "::1"
				}
			}
			if got := validHost(host, bound); got != want {
				t.Fatalf("validHost(%q) on %s = %v, reference says %v", host, bound, got, want)
			}
		}
	})
}

func TestRouteTablesAreSorted(t *testing.T) {
	s := &Server{}
	for name, table := range map[string][]route{"direct": s.directRouteTable(), "facade": s.facadeRouteTable()} {
		for i := 1; i < len(table); i++ {
			_, a, _ := cutMethod(table[i-1].pattern)
			_, b, _ := cutMethod(table[i].pattern)
			if a > b {
				t.Errorf("%s route table is not sorted by path: %s before %s", name, a, b)
			}
		}
	}
}
