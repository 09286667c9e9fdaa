package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/client"
	"github.com/nova-recall/nova/doctor"
	"github.com/nova-recall/nova/tui"
)

const tuiHelp = `Opens the terminal UI: a status pane with the doctor checks (re-run every few
seconds), a search box with filters, the results with their citations and
quality verdict, and a detail view of one result (citation, score components,
provenance, governance, quality flags). It draws on stderr and only reads: it
searches through the running novad and changes nothing.

Keys: / search · enter run/open · ↑↓ or k/j move · f filters · esc back
(or cancel a slow search) · r refresh status · ? all keys · q or ctrl+c quit.`

// minTUIRefresh is the shortest pause --refresh accepts.
const minTUIRefresh = time.Second

func runTUI(ctx context.Context, inv *Invocation, args []string) int {
	fs := newFlags(inv, "novactl tui", "novactl tui [--refresh 5s]", tuiHelp)
	refresh := fs.Duration("refresh", tui.DefaultStatusInterval, "pause between two runs of the status checks (at least 1s)")
	pos, code := parseArgs(fs, args)
	if code >= 0 {
		return code
	}
	if len(pos) > 0 {
		fmt.Fprintf(inv.Stderr, "novactl tui: unexpected argument %q\n", pos[0])
		return ExitUsage
	}
	// Each refresh runs every doctor check: a shorter pause would keep a
	// core busy, and a negative one means nothing.
	if *refresh < minTUIRefresh {
		fmt.Fprintf(inv.Stderr, "novactl tui: --refresh must be at least %s (got %s)\n", minTUIRefresh, *refresh)
		return ExitUsage
	}
	if !IsTerminal(inv.Stderr) {
		fmt.Fprintln(inv.Stderr, "novactl tui needs an interactive terminal on stderr. For scripts, use novactl status, novactl doctor --json or novactl search --json.")
		return ExitUsage
	}
	cfg, ok := loadConfig(inv, false)
	if !ok {
		return ExitFailure
	}
	novadProbe, watcherProbe := newServiceProbes(inv)
	backend := tuiBackend{
		client:         client.ForConfig(cfg),
		environ:        inv.Environ,
		service:        novadProbe,
		watcherService: watcherProbe,
	}
	// Styles are rendered for stderr, where the program draws, with the
	// invocation's environment (TERM, COLORTERM, NO_COLOR). The profile is
	// resolved now, before Bubble Tea takes the terminal.
	renderer := lipgloss.NewRenderer(inv.Stderr, termenv.WithEnvironment(tuiEnviron(inv.Environ)))
	_ = renderer.ColorProfile()

	model := tui.New(tui.Options{Backend: backend, StatusInterval: *refresh, Renderer: renderer})
	opts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithOutput(inv.Stderr), tea.WithAltScreen()}
	if f, ok := inv.Stdin.(*os.File); ok && IsTerminal(f) {
		opts = append(opts, tea.WithInput(f))
	} else {
		// stdin is redirected: read keys from the controlling terminal.
		opts = append(opts, tea.WithInputTTY())
	}
	if _, err := tea.NewProgram(model, opts...).Run(); err != nil {
		if errors.Is(err, context.Canceled) || ctx.Err() != nil {
			return ExitOK // interrupted from outside: a clean exit
		}
		fmt.Fprintf(inv.Stderr, "novactl tui: %v\n", err)
		return ExitFailure
	}
	return ExitOK
}

// tuiBackend is the TUI's view of Nova: doctor for the status pane and the
// typed client for searches. It is safe for concurrent use.
type tuiBackend struct {
	client  *client.Client
	environ []string
	service doctor.ServiceProbe // nil skips the service check
	// watcherService probes the source watcher's job; nil means unknown.
	watcherService doctor.ServiceProbe
}

// Status implements tui.Backend.
func (b tuiBackend) Status(ctx context.Context) (doctor.Report, error) {
	return doctor.Run(ctx, doctor.Options{Environ: b.environ, Service: b.service, WatcherService: b.watcherService}), nil
}

// Search implements tui.Backend. A refused connection is reported as
// tui.ErrNotRunning, so the TUI can say how to start novad; another
// home's novad on this home's ports is not (starting this home's novad
// would not help), and the TUI shows the client's words.
func (b tuiBackend) Search(ctx context.Context, body api.SearchBody) (*api.SearchResponse, error) {
	budget := time.Duration(api.CLITimeoutMs) * time.Millisecond
	if d, ok := ctx.Deadline(); ok {
		budget = time.Until(d)
	}
	body.RemainingBudgetMs = int(budget.Milliseconds())
	resp, _, err := b.client.Search(ctx, body)
	if nr, ok := errors.AsType[*client.NotRunningError](err); ok && !nr.Other {
		return nil, fmt.Errorf("%w: %w", tui.ErrNotRunning, err)
	}
	return resp, err
}

// tuiEnviron adapts an environment list to termenv.Environ.
type tuiEnviron []string

// Environ implements termenv.Environ.
func (e tuiEnviron) Environ() []string { return e }

// Getenv implements termenv.Environ; the last assignment wins, as in
// os.Getenv.
func (e tuiEnviron) Getenv(name string) string {
	v := ""
	for _, kv := range e {
		if k, val, ok := strings.Cut(kv, "="); ok && k == name {
			v = val
		}
	}
	return v
}
