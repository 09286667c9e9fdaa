//go:build unix

package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"golang.org/x/sys/unix"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/internal/novatest"
)

// TestIndexSync_progressFitsNarrowTerminals: the progress line is
// redrawn in place with a carriage return and erase-line, which reach
// back over one row only; a line wider than the terminal wrapped, and
// every redraw left its first rows behind. On a terminal 40 columns wide
// each progress line fits in 39.
func TestIndexSync_progressFitsNarrowTerminals(t *testing.T) {
	_, _, env := jsonlHome(t)
	term := novatest.NewTerminal(t, nil)
	pts := term.Slave()
	if err := unix.IoctlSetWinsize(int(pts.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 24, Col: 40}); err != nil {
		t.Skipf("size the terminal: %v", err)
	}
	var out bytes.Buffer
	code := Run(context.Background(), []string{"index", "sync", "--in-process"},
		&Invocation{Stdin: strings.NewReader(""), Stdout: &out, Stderr: pts, Environ: append(env, "TERM=xterm")})
	tty := term.Output(t)
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
	term := novatest.NewTerminal(t, nil)
	pts := term.Slave()
	if err := unix.IoctlSetWinsize(int(pts.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 24, Col: 60}); err != nil {
		t.Skipf("size the terminal: %v", err)
	}
	code := Run(context.Background(), []string{"search", "port", "--facade-url", srv.URL},
		&Invocation{Stdin: strings.NewReader(""), Stdout: pts, Stderr: pts, Environ: []string{"NOVA_HOME=" + t.TempDir(), "TERM=xterm"}})
	tty := term.Output(t)
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

// TestSearch_wideTextFitsNarrowTerminals: a memory in Chinese or emoji
// has no spaces to wrap at, and each of its characters takes two cells:
// its preview was printed as one line of hundreds of cells, which the
// terminal wrapped without the indent, and its title likewise. Through a
// real novad, on a terminal 40 columns wide, each of a result's title and
// preview lines fits in 39 cells, and the preview keeps to three lines.
func TestSearch_wideTextFitsNarrowTerminals(t *testing.T) {
	root, _, env := jsonlHome(t)
	text := strings.Repeat("迁移后定时任务失败，原因是时区配置不同，已经修复。", 8) + strings.Repeat("🚀", 30)
	rec, err := json.Marshal(map[string]string{"id": "zh", "title": strings.Repeat("定时任务迁移记录", 8), "text": text})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "src", "r.jsonl"), append(rec, '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := runCLI(context.Background(), env, "index", "sync", "--in-process"); code != ExitOK {
		t.Fatalf("sync: exit %d\n%s%s", code, out, errOut)
	}
	cfg, err := config.Load(env)
	if err != nil {
		t.Fatal(err)
	}
	startNovad(t, cfg)
	// Serving, and past the index's first load.
	if _, err := novatest.WaitServing(cfg.Home.Root, os.Getpid(), nil, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	term := novatest.NewTerminal(t, nil)
	pts := term.Slave()
	if err := unix.IoctlSetWinsize(int(pts.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 24, Col: 40}); err != nil {
		t.Skipf("size the terminal: %v", err)
	}
	code := Run(context.Background(), []string{"search", "定时任务"},
		&Invocation{Stdin: strings.NewReader(""), Stdout: pts, Stderr: pts, Environ: append(env, "TERM=xterm")})
	tty := term.Output(t)
	if code != ExitOK || !strings.Contains(tty, "迁移") {
		t.Fatalf("exit %d\nterminal: %q", code, tty)
	}
	indented := 0
	for _, l := range strings.Split(strings.ReplaceAll(tty, "\r\n", "\n"), "\n") {
		// A result's title and preview are indented; its path is left
		// whole, to be copied.
		if !strings.HasPrefix(l, "   ") || strings.HasPrefix(l, "   from ") {
			continue
		}
		indented++
		if w := ansi.StringWidth(l); w > 39 {
			t.Errorf("a result line is %d cells wide on a terminal of 40: %q", w, l)
		}
	}
	// The title's line and at most three of the preview's.
	if indented < 3 || indented > 4 {
		t.Errorf("%d title and preview lines, want the title's and up to 3:\n%s", indented, tty)
	}
}

// TestIndexVerify_progress: on a terminal, index verify draws a progress
// line of the files it has checked, as sync draws its stages, and ends it
// as done: hashing a large generation on a slow disk takes a while, and
// nothing showed that it was at work. --json draws none.
func TestIndexVerify_progress(t *testing.T) {
	_, _, env := jsonlHome(t)
	if code, out, errOut := runCLI(context.Background(), env, "index", "build", "--in-process"); code != ExitOK {
		t.Fatalf("build: exit %d\n%s%s", code, out, errOut)
	}
	for _, jsonOut := range []bool{false, true} {
		term := novatest.NewTerminal(t, nil)
		pts := term.Slave()
		args := []string{"index", "verify"}
		if jsonOut {
			args = append(args, "--json")
		}
		var out bytes.Buffer
		code := Run(context.Background(), args, &Invocation{Stdin: strings.NewReader(""), Stdout: &out, Stderr: pts, Environ: append(env, "TERM=xterm")})
		tty := term.Output(t)
		if code != ExitOK {
			t.Fatalf("--json=%v: exit %d\nstdout %s\nterminal %q", jsonOut, code, out.String(), tty)
		}
		drawn := regexp.MustCompile(`verify +(\d+)/(\d+) \(100%\) · done in`).FindStringSubmatch(tty)
		switch {
		case jsonOut && tty != "":
			t.Errorf("--json: the terminal shows %q, want nothing", tty)
		case !jsonOut && (drawn == nil || drawn[1] != drawn[2] || drawn[1] == "0"):
			t.Errorf("the terminal shows %q, want a verify progress line ending done", tty)
		}
	}
}
