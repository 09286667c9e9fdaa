package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nova-recall/nova/client"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/internal/novatest"
)

// TestSearch_novadStoppedMidSearch: novad stopping (SIGTERM, a restart)
// while a search is in its hands ends the search with the contract's
// search-cancelled envelope. The user cancelled nothing, yet novactl
// search said "the search was cancelled. Run it again."; it says novad
// stopped while searching, and to run it again once novad is back.
//
// A real novad serves a real index; the search reaches it through a
// relay that holds the request's last byte until novad has begun to stop
// (its listeners refuse new connections), so the search is in novad's
// hands, mid-request, when it stops.
func TestSearch_novadStoppedMidSearch(t *testing.T) {
	sample, err := filepath.Abs(filepath.Join("..", "sample", "memory"))
	novatest.Must(t, err)
	env := configHome(t, "server: {host: 127.0.0.1, port: 0}\nfacade: {port: 0}\nsources:\n"+
		"  - {name: notes, kind: markdown, path: '"+sample+"'}\n")
	if code, out, errOut := runCLI(t.Context(), env, "index", "sync", "--in-process"); code != ExitOK {
		t.Fatalf("index sync of the sample: exit %d\n%s\n%s", code, out, errOut)
	}
	cfg, err := config.Load(env)
	novatest.Must(t, err)
	stop := startNovad(t, cfg)
	waitGenerationLoaded(t, cfg)
	st, err := client.ReadState(cfg.Home)
	novatest.Must(t, err)
	facade := fmt.Sprintf("127.0.0.1:%d", st.FacadePort)

	relay, err := net.Listen("tcp", "127.0.0.1:0")
	novatest.Must(t, err)
	t.Cleanup(func() { relay.Close() })
	stopped, relayed := make(chan struct{}), make(chan error, 1)
	go func() { relayed <- relayStoppingNovad(relay, facade, func() { stop(); close(stopped) }) }()

	code, out, errOut := runCLI(context.Background(), env, "search", "dashboard port", "--facade-url", "http://"+relay.Addr().String())
	if err := <-relayed; err != nil {
		t.Fatalf("relay: %v", err)
	}
	<-stopped
	if strings.Contains(out+errOut, "the search was cancelled") || !strings.Contains(out, "novad stopped while searching") ||
		!strings.Contains(out, "once novad is back") || !strings.Contains(out, "novactl doctor") {
		t.Errorf("exit %d\nstdout %s\nstderr %s\nwant: novad stopped while searching, and to run it again once it is back", code, out, errOut)
	}
}

// relayStoppingNovad accepts one search on l and passes it to novad's
// facade, once in full and then again all but its last byte; then it stops novad (stop, in the
// background: novad waits for this request before it exits), waits until
// the facade refuses connections, by then novad has cancelled its
// searches, and sends the last byte and novad's answer back.
func relayStoppingNovad(l net.Listener, facade string, stop func()) error {
	in, err := l.Accept()
	if err != nil {
		return err
	}
	defer in.Close()
	req, err := http.ReadRequest(bufio.NewReader(in))
	if err != nil {
		return err
	}
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return err
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	// novad answers only requests for its own address (DNS rebinding).
	req.Host = facade
	var wire bytes.Buffer
	if err := req.Write(&wire); err != nil {
		return err
	}
	out, err := net.Dial("tcp", facade)
	if err != nil {
		return err
	}
	defer out.Close()
	b, from := wire.Bytes(), bufio.NewReader(out)
	// The search once in full first, on the connection kept alive after
	// it: novad has accepted it, so the stop cannot refuse it unread.
	if _, err := out.Write(b); err != nil {
		return err
	}
	first, err := http.ReadResponse(from, nil)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, first.Body)
	first.Body.Close()
	if _, err := out.Write(b[:len(b)-1]); err != nil {
		return err
	}
	// Time for novad to read the request's header: a request it has
	// begun to read is one it answers before it exits. (A loaded machine
	// needs far less; a second costs the test little.)
	time.Sleep(time.Second)
	go stop()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		probe, err := net.Dial("tcp", facade)
		if errors.Is(err, syscall.ECONNREFUSED) {
			break
		}
		if err == nil {
			probe.Close()
		}
		if time.Now().After(deadline) {
			return errors.New("novad's facade still accepts connections 10 s after the stop")
		}
	}
	if _, err := out.Write(b[len(b)-1:]); err != nil {
		return err
	}
	_, err = io.Copy(in, out)
	return err
}
