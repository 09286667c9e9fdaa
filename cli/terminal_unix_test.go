//go:build unix

package cli

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"golang.org/x/sys/unix"
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
