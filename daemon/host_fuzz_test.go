package daemon

import (
	"net"
	"net/netip"
	"strconv"
	"strings"
	"testing"
)

func TestValidHost(t *testing.T) {
	for _, tc := range []struct {
		host string
		ok   bool
	}{
		{"127.0.0.1:3036", true}, {"localhost:3036", true}, {"LOCALHOST:3036", true}, {"[::1]:3036", true},
		{"127.0.0.1:3037", false}, {"127.0.0.1", false}, {"localhost", false}, {"evil.example:3036", false},
		{"localhost.evil.com:3036", false}, {"localhost.:3036", false}, {"foo.localhost:3036", false},
		{"0.0.0.0:3036", false}, {"192.168.1.10:3036", false}, {"127.0.0.2:3036", false}, {"[::ffff:127.0.0.1]:3036", false},
		{"", false}, {"[::1:3036", false}, {"127.1:3036", false},
	} {
		if got := validHost(tc.host, 3036); got != tc.ok {
			t.Errorf("validHost(%q) = %v, want %v", tc.host, got, tc.ok)
		}
	}
}

// FuzzValidHost compares the Host check with a simple reference model:
// exactly one of three names with exactly our port.
func FuzzValidHost(f *testing.F) {
	for _, s := range []string{"127.0.0.1:3036", "localhost:3036", "[::1]:3036", "evil:3036", "0.0.0.0:3036", "127.0.0.1:03036", "LocalHost:3036", "[::1%lo]:3036"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, host string) {
		want := false
		if h, p, err := net.SplitHostPort(host); err == nil && p == strconv.Itoa(3036) {
			switch {
			case strings.EqualFold(h, "localhost"), h == "127.0.0.1":
				want = true
			default:
				if a, err := netip.ParseAddr(h); err == nil && a == netip.IPv6Loopback() && h == "::1" {
					want = true
				}
			}
		}
		if got := validHost(host, 3036); got != want {
			t.Fatalf("validHost(%q) = %v, reference says %v", host, got, want)
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
