package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/mattn/go-isatty"
	"github.com/muesli/termenv"
)

// RunOptions is what Run needs: the Model's options and the process's
// terminal.
type RunOptions struct {
	Options
	// Input gives the keys when it is a terminal; otherwise (stdin
	// redirected) the keys are read from the controlling terminal.
	Input io.Reader
	// Output is where the program draws: novactl's stderr, so that stdout
	// stays clean.
	Output io.Writer
	// Environ is the invocation's environment (TERM, COLORTERM,
	// NO_COLOR), which picks the colour profile.
	Environ []string
}

// Run runs the TUI in the alternate screen until the user quits or ctx
// ends (a nil error for both).
func Run(ctx context.Context, o RunOptions) error {
	o.Renderer = newRenderer(o.Output, o.Environ)

	in, done, err := keyboard(o.Input, openTTY)
	if err != nil {
		return err
	}
	defer done()
	opts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithOutput(o.Output), tea.WithAltScreen(), tea.WithInput(in)}
	_, err = tea.NewProgram(New(o.Options), opts...).Run()
	if ctx.Err() != nil || errors.Is(err, context.Canceled) {
		return nil // interrupted from outside: a clean exit
	}
	return err
}

// keyboard returns the terminal the keys come from: input when it is one,
// else the process's controlling terminal, opened with open (stdin
// redirected from a file or a pipe). done closes what keyboard opened.
// With neither, the error says what is missing and what to do, where
// Bubble Tea's own said "could not open a new TTY".
func keyboard(input io.Reader, open func() (*os.File, error)) (f *os.File, done func(), err error) {
	if f, ok := input.(*os.File); ok && isatty.IsTerminal(f.Fd()) {
		return f, func() {}, nil
	}
	f, err = open()
	if err != nil {
		return nil, nil, fmt.Errorf("no terminal to read keys from: stdin is not a terminal, and this process has none of its own (%w); run novactl tui in a terminal window, with stdin not redirected", err)
	}
	return f, func() { _ = f.Close() }, nil
}

// openTTY opens the process's controlling terminal for reading.
func openTTY() (*os.File, error) { return os.Open("/dev/tty") }

// newRenderer returns the renderer that draws the styles on w, for the
// invocation's environment env (TERM, COLORTERM, NO_COLOR). Its profile is
// resolved now, before Bubble Tea takes the terminal.
func newRenderer(w io.Writer, env []string) *lipgloss.Renderer {
	r := lipgloss.NewRenderer(w, termenv.WithEnvironment(environ(env)))
	if out := r.Output(); out.EnvNoColor() && out.ColorProfile() != termenv.Ascii {
		// NO_COLOR asks for no colours, and termenv drops every style
		// for it: the text cursor and the selection are reverse video.
		// newStyles leaves the colours out instead.
		r.SetColorProfile(termenv.ANSI)
	}
	_ = r.ColorProfile()
	return r
}

// environ adapts an environment list to termenv.Environ.
type environ []string

// Environ implements termenv.Environ.
func (e environ) Environ() []string { return e }

// Getenv implements termenv.Environ; the last assignment wins, as in
// os.Getenv.
func (e environ) Getenv(name string) string {
	v := ""
	for _, kv := range e {
		if k, val, ok := strings.Cut(kv, "="); ok && k == name {
			v = val
		}
	}
	return v
}
