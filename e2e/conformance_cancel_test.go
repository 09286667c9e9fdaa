package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/internal/novatest"
)

// TestConformance_cancellation: a client that goes away while its search
// runs (here it shuts its side of the connection once the search is
// waiting on the embedding endpoint, and still reads) gets the cancelled
// envelope: 503, search-cancelled, the worker still running and holding
// its permit, never hard-cancelled; novad stops the embedding request it
// had sent, and serves the next search (conformance 5.10).
func TestConformance_cancellation(t *testing.T) {
	t.Parallel()
	stub := newEmbedStub(t)
	h := novatest.NewHome(t, stubConfig(stub, "")+"retrieval: {maxConcurrentSearches: 1}\n")
	h.Sync()
	d := h.Start()
	stub.take()

	for _, tc := range []struct{ surface, base, path string }{
		{"direct", d.Direct, api.PathSearch},
		{"facade", d.Facade, api.PathFacadeSearch},
	} {
		t.Run(tc.surface, func(t *testing.T) {
			entered, abandoned := make(chan struct{}, 1), make(chan struct{}, 1)
			stub.setFault(func(w http.ResponseWriter, r *http.Request) bool {
				entered <- struct{}{}
				select {
				case <-r.Context().Done():
					abandoned <- struct{}{}
				case <-time.After(20 * time.Second):
				}
				return true
			})
			u, err := url.Parse(tc.base)
			novatest.Must(t, err)
			conn, err := net.Dial("tcp", u.Host)
			novatest.Must(t, err)
			defer conn.Close()
			body := `{"query":"why was the dashboard port unavailable"}`
			fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", tc.path, u.Host, len(body), body)
			select {
			case <-entered:
			case <-time.After(20 * time.Second):
				t.Fatal("fixture: the search never reached the embedding endpoint")
			}
			// Gone: the server reads EOF and cancels the request.
			novatest.Must(t, conn.(*net.TCPConn).CloseWrite())
			novatest.Must(t, conn.SetReadDeadline(time.Now().Add(20*time.Second)))
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			novatest.Must(t, err)
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			novatest.Must(t, err)
			var m map[string]any
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatalf("not JSON (%d): %s", resp.StatusCode, b)
			}
			if resp.StatusCode != http.StatusServiceUnavailable || m["available"] != false || m["reason"] != "search-cancelled" || m["error"] != "cancelled" {
				t.Errorf("conformance 5.10: %d available %v reason %v error %v", resp.StatusCode, m["available"], m["reason"], m["error"])
			}
			wt, _ := m["workerTelemetry"].(map[string]any)
			if wt["workerState"] != "running_after_cancel" || wt["hardCancelled"] != false || wt["capacityPermitHeld"] != true {
				t.Errorf("conformance 5.10: workerTelemetry %v", wt)
			}
			select {
			case <-abandoned:
			case <-time.After(10 * time.Second):
				t.Errorf("conformance 5.10: novad did not stop the embedding request of a cancelled search")
			}
			stub.setFault(nil)
			// The permit comes back once the worker has ended.
			waitFor(t, 10*time.Second, "the next search", func() bool {
				return do(t, http.MethodPost, tc.base+tc.path, body, nil).status == http.StatusOK
			})
		})
	}
}
