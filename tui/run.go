package tui

import (
	"context"
	"errors"
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
	// Styles are rendered for Output with the invocation's environment.
	// The profile is resolved now, before Bubble Tea takes the terminal.
	renderer := lipgloss.NewRenderer(o.Output, termenv.WithEnvironment(environ(o.Environ)))
	_ = renderer.ColorProfile()
	o.Renderer = renderer

	opts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithOutput(o.Output), tea.WithAltScreen()}
	if f, ok := o.Input.(*os.File); ok && isatty.IsTerminal(f.Fd()) {
		opts = append(opts, tea.WithInput(f))
	} else {
		opts = append(opts, tea.WithInputTTY())
	}
	_, err := tea.NewProgram(New(o.Options), opts...).Run()
	if ctx.Err() != nil || errors.Is(err, context.Canceled) {
		return nil // interrupted from outside: a clean exit
	}
	return err
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
