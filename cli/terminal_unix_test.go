//go:build unix

package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"golang.org/x/sys/unix"

	"github.com/nova-recall/nova/api"
)

// TestIndexSync_progressFitsNarrowTerminals: the progress line is
// redrawn in place with a carriage return and erase-line, which reach
// back over one row only; a line wider than the terminal wrapped, and
// every redraw left its first rows behind. On a terminal 40 columns wide
// each progress line fits in 39.
func TestIndexSync_progressFitsNarrowTerminals(t *testing.T) {
	_, _, env := jsonlHome(t)
	pts, written := terminal(t)
	if err := unix.IoctlSetWinsize(int(pts.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 24, Col: 40}); err != nil {
		t.Skipf("size the terminal: %v", err)
	}
	var out bytes.Buffer
	code := Run(context.Background(), []string{"index", "sync", "--in-process"},
		&Invocation{Stdin: strings.NewReader(""), Stdout: &out, Stderr: pts, Environ: append(env, "TERM=xterm")})
	tty := written()
	if code != ExitOK {
		t.Fatalf("exit %d\nterminal: %q", code, tty)
	}
	lines := regexp.MustCompile("\r\x1b\\[K|\r?\n").Split(tty, -1)
	if len(lines) < 3 {
		t.Fatalf("no progress drawn: %q", tty)
	}
	for _, l := range lines {
		if w := ansi.StringWidth(l); w > 39 {
			t.Errorf("a progress line is %d cells wide on a terminal of 40: %q", w, l)
		}
	}
}

// TestSearch_previewFitsNarrowTerminals: on a terminal, a result's
// preview is wrapped to the terminal's width, not to 96 columns, which an
// 80-column terminal wrapped again mid-word and without the indent.
func TestSearch_previewFitsNarrowTerminals(t *testing.T) {
	text := strings.Repeat("the firewall dropped inbound traffic on port 2096 after the move ", 6)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		resp := api.Unavailable("port", 5, "")
		resp.Available, resp.Reason = true, nil
		resp.Results = []api.Result{{ID: "a", Score: 1, TextPreview: text, Title: "Dashboard unreachable"}}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(resp)
	}))
	t.Cleanup(srv.Close)
	pts, written := terminal(t)
	if err := unix.IoctlSetWinsize(int(pts.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 24, Col: 60}); err != nil {
		t.Skipf("size the terminal: %v", err)
	}
	code := Run(context.Background(), []string{"search", "port", "--facade-url", srv.URL},
		&Invocation{Stdin: strings.NewReader(""), Stdout: pts, Stderr: pts, Environ: []string{"NOVA_HOME=" + t.TempDir(), "TERM=xterm"}})
	tty := written()
	if code != ExitOK || !strings.Contains(tty, "firewall") {
		t.Fatalf("exit %d\nterminal: %q", code, tty)
	}
	previews := 0
	for _, l := range strings.Split(strings.ReplaceAll(tty, "\r\n", "\n"), "\n") {
		if !strings.HasPrefix(l, "   ") {
			continue // a result's lines are indented
		}
		previews++
		if w := ansi.StringWidth(l); w > 59 {
			t.Errorf("a result line is %d cells wide on a terminal of 60: %q", w, l)
		}
	}
	if previews < 3 {
		t.Errorf("%d result lines, want the title and the preview's:\n%s", previews, tty)
	}
}
