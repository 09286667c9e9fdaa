package daemon_test

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/daemon"
	"github.com/nova-recall/nova/internal/novatest"
)

// rawStatus sends req as it is on a new connection to addr and returns
// the answer's status code: the requests here are ones no client library
// writes.
func rawStatus(t *testing.T, addr, req string) int {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	novatest.Must(t, err)
	defer c.Close()
	novatest.Must(t, c.SetDeadline(time.Now().Add(10*time.Second)))
	_, err = fmt.Fprint(c, req)
	novatest.Must(t, err)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	novatest.Must(t, err)
	resp.Body.Close()
	return resp.StatusCode
}

// TestHost_unicodeFoldOfLocalhostRefused: the Host allow-list compares
// "localhost" in ASCII only. A Unicode case fold took "localhoſt" (U+017F,
// long s, folds to s) for localhost: net/http refuses such a Host header,
// but in an absolute-form request (GET http://localhoſt:port/ HTTP/1.1)
// the Host is the request URI's, which it does not check.
func TestHost_unicodeFoldOfLocalhostRefused(t *testing.T) {
	srv := serve(t, daemon.Options{Config: testConfig(t, filepath.Join(t.TempDir(), "home"))})
	for addr, path := range map[string]string{srv.DirectAddr().String(): api.PathHealth, srv.FacadeAddr().String(): api.PathFacadeHealth} {
		_, port, err := net.SplitHostPort(addr)
		novatest.Must(t, err)
		get := func(host string) int {
			return rawStatus(t, addr, "GET http://"+host+":"+port+path+" HTTP/1.1\r\nHost: localhost:"+port+"\r\nConnection: close\r\n\r\n")
		}
		// The ASCII spellings still pass, upper case included.
		for _, host := range []string{"localhost", "LocalHost"} {
			if got := get(host); got != http.StatusOK {
				t.Errorf("%s: absolute-form request to %s: %d, want 200", addr, host, got)
			}
		}
		for _, host := range []string{"localho\u017ft", "LOCALHO\u017fT", "\u017f"} {
			if got := get(host); got != http.StatusForbidden {
				t.Errorf("%s: absolute-form request to %q: %d, want 403", addr, host, got)
			}
		}
	}
}

// TestRawRequests_framingAndSizeRefused: requests no client library
// writes, each answered with a refusal before any handler runs. Two
// Content-Lengths that differ are how a request is smuggled past an
// intermediary that reads the other one; headers past MaxHeaderBytes (16
// KiB, where net/http's default is 1 MiB) hold a connection's memory; a
// Host header outside ASCII is refused by net/http itself.
func TestRawRequests_framingAndSizeRefused(t *testing.T) {
	srv := serve(t, daemon.Options{Config: testConfig(t, filepath.Join(t.TempDir(), "home"))})
	addr := srv.FacadeAddr().String()
	body := `{"query":"deploy"}`
	for _, tc := range []struct {
		name string
		req  string
		want int
	}{
		{"two Content-Lengths", "POST " + api.PathFacadeSearch + " HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\n" +
			fmt.Sprintf("Content-Length: %d\r\nContent-Length: 5\r\n\r\n", len(body)) + body, http.StatusBadRequest},
		{"32 KiB of headers", "GET " + api.PathFacadeHealth + " HTTP/1.1\r\nHost: " + addr + "\r\nX-Pad: " + strings.Repeat("a", 32<<10) + "\r\n\r\n",
			http.StatusRequestHeaderFieldsTooLarge},
		{"non-ASCII Host header", "GET " + api.PathFacadeHealth + " HTTP/1.1\r\nHost: localho\u017ft:" + addr[strings.LastIndex(addr, ":")+1:] + "\r\n\r\n",
			http.StatusBadRequest},
	} {
		if got := rawStatus(t, addr, tc.req); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
}
