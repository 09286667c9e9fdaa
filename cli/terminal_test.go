package cli

import (
	"bytes"
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nova-recall/nova/internal/novatest"
)

// endOfOutput is written to the terminal after the command under test
// returns, and its output is what arrived before it. Closing the
// terminal's side and reading until the reads ended lost the last bytes
// once in CI (of verify's three progress redraws only the first arrived),
// for a cause not reproduced here in 3 000 tries; with the mark the end
// needs no close, and reads that stop early say why.
const endOfOutput = "<end of the test's terminal output>"

// terminal returns the terminal side of a pseudo-terminal, which novactl
// writes to as to a person's terminal, and a function that returns all
// that was written to it once the command is done.
func terminal(t *testing.T) (*os.File, func() string) {
	t.Helper()
	master, slave := novatest.PTY(t)
	var (
		mu      sync.Mutex
		buf     bytes.Buffer
		readErr error // why the reads ended, for a test that fails
	)
	arrived := make(chan struct{}, 1)
	ended := make(chan struct{})
	go func() {
		// Reads until the test's end closes the pseudo-terminal.
		defer close(ended)
		b := make([]byte, 4096)
		for {
			n, err := master.Read(b)
			mu.Lock()
			buf.Write(b[:n])
			readErr = err
			mu.Unlock()
			select {
			case arrived <- struct{}{}:
			default:
			}
			if err != nil {
				return
			}
		}
	}()
	return slave, func() string {
		t.Helper()
		if _, err := slave.WriteString(endOfOutput); err != nil {
			t.Fatalf("mark the end of the terminal's output: %v", err)
		}
		timeout := time.After(time.Minute)
		for open := true; ; {
			mu.Lock()
			got, err := buf.String(), readErr
			mu.Unlock()
			if before, _, found := strings.Cut(got, endOfOutput); found {
				return before
			}
			if !open {
				t.Fatalf("reading the terminal stopped (%v) before its output's end arrived; it showed %q", err, got)
			}
			select {
			case <-arrived:
			case <-ended:
				open = false // and look at what the last read added
			case <-timeout:
				t.Fatalf("the terminal's output did not end within a minute; it showed %q", got)
			}
		}
	}
}

// TestIndexSync_dumbTerminalGetsNoEscapes: the live progress line is
// drawn with escape sequences (carriage return, erase line), which a
// terminal of TERM=dumb (Emacs' shell, some CI consoles) prints as
// "^[[K" clutter; there, sync shows no progress line, and its output has
// no escape sequence. On another terminal the progress is drawn.
func TestIndexSync_dumbTerminalGetsNoEscapes(t *testing.T) {
	for _, tt := range []struct {
		term        string
		wantEscapes bool
	}{
		{"dumb", false},
		{"xterm-256color", true},
	} {
		t.Run(tt.term, func(t *testing.T) {
			_, _, env := jsonlHome(t)
			pts, written := terminal(t)
			var out bytes.Buffer
			code := Run(context.Background(), []string{"index", "sync", "--in-process"},
				&Invocation{Stdin: strings.NewReader(""), Stdout: &out, Stderr: pts, Environ: append(env, "TERM="+tt.term)})
			tty := written()
			if code != ExitOK {
				t.Fatalf("exit %d\nstdout: %s\nterminal: %q", code, out.String(), tty)
			}
			if got := strings.Contains(tty, "\x1b["); got != tt.wantEscapes {
				t.Errorf("escape sequences on the terminal: %v, want %v: %q", got, tt.wantEscapes, tty)
			}
		})
	}
}

// TestRunTUI_dumbTerminal: the TUI draws a full screen with escape
// sequences, which a TERM=dumb terminal cannot show; on one, novactl-tui
// says so and points to the commands that print plain text, instead of
// filling the terminal with escape codes.
func TestRunTUI_dumbTerminal(t *testing.T) {
	pts, written := terminal(t)
	var out bytes.Buffer
	started := false
	inv := &Invocation{Stdin: strings.NewReader(""), Stdout: &out, Stderr: pts, Environ: []string{"NOVA_HOME=" + t.TempDir(), "TERM=dumb"}}
	code := RunTUI(t.Context(), nil, inv, func(context.Context, TUISession) error { started = true; return nil })
	tty := written()
	if code != ExitUsage || started || !strings.Contains(tty, "TERM=dumb") || !strings.Contains(tty, "novactl status") {
		t.Errorf("exit %d, started %v, terminal %q; want exit 2, no TUI, and why", code, started, tty)
	}
}
