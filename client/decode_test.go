package client

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/nova-recall/nova/api"
)

// realEnvelope is a search envelope novad sent (a 10k bench home's
// "deploy config rollback", ten results), as its bytes came.
func realEnvelope(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "api", "testdata", "search-envelope-10.json"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDecodeResponse_realEnvelope: a real envelope of ten results
// decodes to what encoding/json makes of it, and its decoding allocates
// no copy of each string it holds: they are the body's bytes, which the
// client reads into a buffer of the response's own.
func TestDecodeResponse_realEnvelope(t *testing.T) {
	b := realEnvelope(t)
	var got, want api.SearchResponse
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	if err := decodeResponse(b, &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("decoded differently:\n got %+v\nwant %+v", got, want)
	}
	// Each string copied was an allocation of its own: 1 600 in all,
	// against under 500 for the slices, maps and pointers the envelope
	// needs.
	allocs := testing.AllocsPerRun(20, func() {
		var resp api.SearchResponse
		if err := decodeResponse(b, &resp); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("%.0f allocations to decode an envelope of %d bytes", allocs, len(b))
	if allocs > 600 {
		t.Errorf("decoding allocates %.0f times; want at most 600 (the strings are the body's bytes)", allocs)
	}
}

// BenchmarkDecodeResponse_envelope decodes a real envelope of ten
// results.
func BenchmarkDecodeResponse_envelope(b *testing.B) {
	body := realEnvelope(b)
	b.ReportAllocs()
	for b.Loop() {
		var resp api.SearchResponse
		if err := decodeResponse(body, &resp); err != nil {
			b.Fatal(err)
		}
	}
}

// TestSearch_keepsTheConnection: searches one after another go over one
// connection, the body of each read to its end so that the transport
// takes the connection back: a new one per search would add a dial and
// a handshake to each round trip, and leave sockets in TIME_WAIT.
func TestSearch_keepsTheConnection(t *testing.T) {
	body := realEnvelope(t)
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		_, _ = w.Write(body)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	c := New(srv.URL, srv.URL)
	for range 5 {
		resp, status, err := c.Search(t.Context(), api.SearchBody{Query: "deploy config rollback"})
		if err != nil || status != http.StatusOK || len(resp.Results) != 10 {
			t.Fatalf("search: %v, %d, %v", err, status, resp)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("5 searches opened %d connections; want 1", n)
	}
}
