package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/nova-recall/nova/internal/novatest"
)

// terminal returns the terminal side of a pseudo-terminal, which novactl
// writes to as to a person's terminal, and a function that closes it and
// returns all that was written to it.
func terminal(t *testing.T) (*os.File, func() string) {
	t.Helper()
	master, slave := novatest.PTY(t)
	var buf bytes.Buffer
	done := make(chan struct{})
	go func() {
		// Reads until the terminal side is closed and all it held read.
		defer close(done)
		_, _ = io.Copy(&buf, master)
	}()
	return slave, func() string {
		slave.Close()
		<-done
		return buf.String()
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
