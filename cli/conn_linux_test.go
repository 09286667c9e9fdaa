//go:build linux

package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/doctor"
	"github.com/nova-recall/nova/internal/novatest"
)

// The tests in this file drive the long-lived clients of novad (novactl
// mcp, the TUI's backend) against a real novad in this process for many
// calls, and count this process's sockets and goroutines: novad's side of
// each connection is counted with the client's. What a call leaves open
// piles up over an agent's days of tool calls or a TUI's hours of status
// polls; after many calls the figures must stay within a small constant of
// those after the first few.

// connSlack is what the figures may grow by after the first calls: a
// few connections (both ends, and their read and write goroutines) that
// the client keeps for the next call, or that novad has not closed yet.
const connSlack = 8

// connFigures are the open descriptors, sockets and goroutines at one
// moment.
type connFigures struct{ fds, sockets, goroutines int }

func (f connFigures) String() string {
	return fmt.Sprintf("%d descriptors (%d sockets), %d goroutines", f.fds, f.sockets, f.goroutines)
}

// settledFigures takes the figures once goroutines that are ending (a
// connection's, a finished call's) have ended: the lowest of a few samples.
func settledFigures(t *testing.T) connFigures {
	t.Helper()
	var f connFigures
	for i := range 10 {
		if i > 0 {
			time.Sleep(20 * time.Millisecond)
		}
		open := novatest.OpenFDs(t)
		fds, sockets := len(open), novatest.Sockets(open)
		g := runtime.NumGoroutine()
		if i == 0 {
			f = connFigures{fds, sockets, g}
		}
		f = connFigures{min(f.fds, fds), min(f.sockets, sockets), min(f.goroutines, g)}
	}
	return f
}

// checkFlat fails when after is more than connSlack above base (twice
// that in goroutines: a connection has two).
func checkFlat(t *testing.T, what string, calls int, base, after connFigures) {
	t.Helper()
	t.Logf("%s: after the first calls %v; after %d more %v", what, base, calls, after)
	if after.fds > base.fds+connSlack || after.sockets > base.sockets+connSlack || after.goroutines > base.goroutines+2*connSlack {
		t.Errorf("%s: %d calls grew the process from %v to %v: each call leaves something open", what, calls, base, after)
	}
}

// connHomes are the two kinds of home a restarted novad serves: on new
// ports (port 0 in config.yaml), or on the same ones, where a connection
// kept from the novad that stopped must not be sent the next call.
var connHomes = []struct {
	name  string
	ports func(t *testing.T) (direct, facade int)
}{
	{"new ports", func(*testing.T) (int, int) { return 0, 0 }},
	{"same ports", func(t *testing.T) (int, int) {
		direct := novatest.ClosedPort(t)
		return direct, novatest.ClosedPort(t, direct)
	}},
}

// connHome is a NOVA_HOME whose novad serves on the ports ports gives,
// and the environment that names it (HOME is a temporary folder too).
func connHome(t *testing.T, ports func(*testing.T) (direct, facade int)) (*testing.T, config.Config, []string) {
	t.Helper()
	direct, facade := ports(t)
	home := t.TempDir()
	novatest.Must(t, os.WriteFile(filepath.Join(home, "config.yaml"),
		fmt.Appendf(nil, "server: {host: 127.0.0.1, port: %d}\nfacade: {port: %d}\n", direct, facade), 0o600))
	env := []string{"NOVA_HOME=" + home, "HOME=" + t.TempDir()}
	cfg, err := config.Load(env)
	novatest.Must(t, err)
	return t, cfg, env
}

// TestMCPServe_ConnectionsStayFlat: novactl mcp, which an agent keeps
// running for days, answers hundreds of tool calls through novad without
// keeping more open after them than after the first few, and survives a
// restart of novad on new ports without keeping the old novad's
// connections.
func TestMCPServe_ConnectionsStayFlat(t *testing.T) {
	for _, h := range connHomes {
		t.Run(h.name, func(t *testing.T) { testMCPConnections(connHome(t, h.ports)) })
	}
}

func testMCPConnections(t *testing.T, cfg config.Config, env []string) {
	stop := startNovad(t, cfg)

	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var errb novatest.LogBuffer
	done := make(chan int, 1)
	go func() {
		done <- Run(context.Background(), []string{"mcp"}, &Invocation{Stdin: inR, Stdout: outW, Stderr: &errb, Environ: env})
		outW.Close()
	}()
	defer func() {
		inW.Close()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("novactl mcp did not end with its input")
		}
	}()
	lines := bufio.NewScanner(outR)
	lines.Buffer(make([]byte, 1<<20), 1<<20)
	id := 0
	call := func(method, params string) string {
		t.Helper()
		id++
		if _, err := fmt.Fprintf(inW, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", id, method, params); err != nil {
			t.Fatal(err)
		}
		if !lines.Scan() {
			t.Fatalf("no response; stderr: %s", errb.String())
		}
		return lines.Text()
	}
	call("initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}`)
	if _, err := io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	// tools runs n searches and n status calls, and checks each reached
	// novad.
	tools := func(n int) {
		t.Helper()
		for range n {
			for _, c := range []string{
				`{"name":"memory_search","arguments":{"query":"dashboard port"}}`,
				`{"name":"memory_status","arguments":{}}`,
			} {
				out := call("tools/call", c)
				var m struct {
					Result json.RawMessage `json:"result"`
				}
				if err := json.Unmarshal([]byte(out), &m); err != nil || m.Result == nil {
					t.Fatalf("tools/call %s: %s", c, out)
				}
				if s := string(m.Result); strings.Contains(s, "not running") || strings.Contains(s, "closed the connection") {
					t.Fatalf("tools/call %s did not reach novad: %s", c, s)
				}
			}
		}
	}
	const calls = 100
	tools(3)
	base := settledFigures(t)
	tools(calls / 2)
	checkFlat(t, "novactl mcp", calls, base, settledFigures(t))

	// A restart (new ports, or the same ones; a new token): the next
	// call reaches the new novad, and the old one's connections are gone.
	stop()
	startNovad(t, cfg)
	tools(calls / 2)
	checkFlat(t, "novactl mcp across a novad restart", calls, base, settledFigures(t))
}

// TestTUIBackend_ConnectionsStayFlat: the TUI's backend, whose status pane
// runs the doctor checks every few seconds for hours and whose searches
// go to novad, keeps no more open after many refreshes and searches than
// after the first few, also across a restart of novad and while it is
// stopped.
func TestTUIBackend_ConnectionsStayFlat(t *testing.T) {
	for _, h := range connHomes {
		t.Run(h.name, func(t *testing.T) { testTUIConnections(connHome(t, h.ports)) })
	}
}

func testTUIConnections(t *testing.T, cfg config.Config, env []string) {
	stop := startNovad(t, cfg)
	b := newTUIBackend(&Invocation{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard, Environ: env})
	// refresh runs n status polls and searches, and checks that each
	// found novad running (up) or not.
	refresh := func(n int, up bool) {
		t.Helper()
		for range n {
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			rep, err := b.Status(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range rep.Checks {
				if c.ID == "daemon" && (c.State == doctor.Blocked) == up {
					t.Fatalf("status: novad check %+v, want novad running %v", c, up)
				}
			}
			resp, err := b.Search(ctx, api.SearchBody{Query: "dashboard port", TopK: 5})
			cancel()
			if up && (err != nil || resp == nil) || !up && !errors.Is(err, api.ErrNotRunning) {
				t.Fatalf("search: %v, want novad running %v", err, up)
			}
		}
	}
	const calls = 40
	refresh(3, true)
	base := settledFigures(t)
	refresh(calls, true)
	checkFlat(t, "TUI backend", calls, base, settledFigures(t))

	stop()
	stop = startNovad(t, cfg)
	refresh(calls, true)
	checkFlat(t, "TUI backend across a novad restart", calls, base, settledFigures(t))

	// A TUI left open while novad is stopped polls on.
	stop()
	refresh(calls, false)
	checkFlat(t, "TUI backend while novad is stopped", calls, base, settledFigures(t))
}
