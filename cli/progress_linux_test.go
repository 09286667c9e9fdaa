package cli

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal and returns its terminal side, which
// novactl writes to as to a person's terminal, and a function that returns
// all that was written to it so far.
func openPTY(t *testing.T) (*os.File, func() string) {
	t.Helper()
	ptm, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { ptm.Close() })
	if err := unix.IoctlSetPointerInt(int(ptm.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("unlock the pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetInt(int(ptm.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Skipf("pseudo-terminal number: %v", err)
	}
	pts, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("open the terminal side: %v", err)
	}
	t.Cleanup(func() { pts.Close() })
	if !IsTerminal(pts) {
		t.Skip("the terminal side is not a terminal")
	}
	var mu sync.Mutex
	var buf bytes.Buffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		b := make([]byte, 4096)
		for {
			n, err := ptm.Read(b)
			mu.Lock()
			buf.Write(b[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return pts, func() string {
		// Closing the terminal side ends the reader once it has read
		// everything written before.
		pts.Close()
		<-done
		mu.Lock()
		defer mu.Unlock()
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
			pts, written := openPTY(t)
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
	pts, written := openPTY(t)
	var out bytes.Buffer
	started := false
	inv := &Invocation{Stdin: strings.NewReader(""), Stdout: &out, Stderr: pts, Environ: []string{"NOVA_HOME=" + t.TempDir(), "TERM=dumb"}}
	code := RunTUI(t.Context(), nil, inv, func(context.Context, TUISession) error { started = true; return nil })
	tty := written()
	if code != ExitUsage || started || !strings.Contains(tty, "TERM=dumb") || !strings.Contains(tty, "novactl status") {
		t.Errorf("exit %d, started %v, terminal %q; want exit 2, no TUI, and why", code, started, tty)
	}
}
