package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/nova-recall/nova/internal/novatest"
)

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
			term := novatest.NewTerminal(t, nil)
			var out bytes.Buffer
			code := Run(context.Background(), []string{"index", "sync", "--in-process"},
				&Invocation{Stdin: strings.NewReader(""), Stdout: &out, Stderr: term.Slave(), Environ: append(env, "TERM="+tt.term)})
			tty := term.Output(t)
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
	term := novatest.NewTerminal(t, nil)
	var out bytes.Buffer
	started := false
	inv := &Invocation{Stdin: strings.NewReader(""), Stdout: &out, Stderr: term.Slave(), Environ: []string{"NOVA_HOME=" + t.TempDir(), "TERM=dumb"}}
	code := RunTUI(t.Context(), nil, inv, func(context.Context, TUISession) error { started = true; return nil })
	tty := term.Output(t)
	if code != ExitUsage || started || !strings.Contains(tty, "TERM=dumb") || !strings.Contains(tty, "novactl status") {
		t.Errorf("exit %d, started %v, terminal %q; want exit 2, no TUI, and why", code, started, tty)
	}
}
