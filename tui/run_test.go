package tui

import (
	"errors"
	"os"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/nova-recall/nova/internal/novatest"
)

func TestEnviron(t *testing.T) {
	e := environ{"TERM=xterm", "NO_COLOR=1", "TERM=xterm-256color", "EMPTY="}
	for name, want := range map[string]string{"TERM": "xterm-256color", "NO_COLOR": "1", "EMPTY": "", "MISSING": ""} {
		if got := e.Getenv(name); got != want {
			t.Errorf("Getenv(%q) = %q, want %q", name, got, want)
		}
	}
	if len(e.Environ()) != 4 {
		t.Errorf("Environ() = %v", e.Environ())
	}
}

// TestNewRenderer_NoColor: NO_COLOR takes the colours away, not bold and
// reverse video. Under NO_COLOR every style was dropped, and with it the
// reverse video that draws the text cursor: the search box and the filter
// fields showed no cursor at all.
func TestNewRenderer_NoColor(t *testing.T) {
	_, term := novatest.PTY(t)
	for _, c := range []struct {
		name   string
		env    []string
		colour bool
	}{
		{"colours", []string{"TERM=xterm-256color"}, true},
		{"NO_COLOR", []string{"TERM=xterm-256color", "NO_COLOR=1"}, false},
		{"CLICOLOR=0", []string{"TERM=xterm-256color", "CLICOLOR=0"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := New(Options{Backend: &fakeBackend{report: blockedReport()}, StatusInterval: time.Hour, Renderer: newRenderer(term, c.env)})
			m = update(t, m, tea.WindowSizeMsg{Width: 80, Height: 24})
			m = drain(t, m, m.Init())
			m = press(t, m, "/", "dashboard")
			view := m.View()
			if !strings.Contains(view, "\x1b[7m") {
				t.Errorf("the search box's cursor is not drawn (no reverse video):\n%q", view)
			}
			if got := hasColour(view); got != c.colour {
				t.Errorf("colours drawn: %v, want %v:\n%q", got, c.colour, view)
			}
		})
	}
}

// hasColour reports whether s sets a foreground or background colour.
func hasColour(s string) bool {
	for _, m := range regexp.MustCompile(`\x1b\[([0-9;]*)m`).FindAllStringSubmatch(s, -1) {
		for _, p := range strings.Split(m[1], ";") {
			if n, err := strconv.Atoi(p); err == nil && (n >= 30 && n <= 49 || n >= 90 && n <= 107) {
				return true
			}
		}
	}
	return false
}

// TestKeyboard: the keys come from stdin when it is a terminal, else from
// the controlling terminal; with neither (stdin redirected in a process
// started without a terminal: a launchd job, an agent's shell tool) the
// TUI refuses, saying what is missing and what to do. Bubble Tea's own
// refusal read "could not open a new TTY: open /dev/tty: no such device
// or address".
func TestKeyboard(t *testing.T) {
	_, slave := novatest.PTY(t)
	noTTY := func() (*os.File, error) {
		return nil, &os.PathError{Op: "open", Path: "/dev/tty", Err: syscall.ENXIO}
	}
	if f, done, err := keyboard(slave, noTTY); err != nil || f != slave {
		t.Errorf("stdin a terminal: %v, %v; want stdin", f, err)
	} else {
		done()
	}
	opened := false
	tty := func() (*os.File, error) { opened = true; return slave, nil }
	if f, _, err := keyboard(strings.NewReader(""), tty); err != nil || f != slave || !opened {
		t.Errorf("stdin redirected: %v, %v; want the controlling terminal", f, err)
	}
	_, _, err := keyboard(strings.NewReader(""), noTTY)
	if err == nil || !errors.Is(err, syscall.ENXIO) {
		t.Fatalf("no terminal at all: err = %v, want the cause wrapped", err)
	}
	for _, want := range []string{"no terminal to read keys from", "stdin is not a terminal", "run novactl tui in a terminal window"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the refusal %q lacks %q", err, want)
		}
	}
}
