package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/client"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/doctor"
	"github.com/nova-recall/nova/internal/version"
	"github.com/nova-recall/nova/paths"
)

const tuiHelp = `Opens the terminal UI: a status pane with the doctor checks (re-run every few
seconds), a search box with filters, the results with their citations and
quality verdict, and a detail view of one result (citation, score components,
provenance, governance, quality flags). It draws on stderr and only reads: it
searches through the running novad and changes nothing.

Keys: / search · enter run/open · ↑↓ or k/j move · pgup/pgdn page ·
home/end (g/G) first/last · f filters · esc back (or cancel a slow search) ·
r refresh status · ? all keys · ctrl+z suspend · q or ctrl+c quit.

The TUI is the program novactl-tui, installed beside novactl from the same build
(it refuses to start for a novactl of another build, and says so).`

// minTUIRefresh is the shortest pause --refresh accepts.
const minTUIRefresh = time.Second

// TUIBinary is the program that draws the TUI, installed beside novactl.
// It is a program of its own because Bubble Tea v1 queries the terminal
// for its background colour from a package init, in every program that
// links it: novactl would send that query with every command, and where
// nothing answers it (a pseudo-terminal that an agent's shell tool, a git
// hook or "ssh -tt" opens) wait 5 s before doing anything.
const TUIBinary = "novactl-tui"

// envParentBuild carries the build of the novactl that runs novactl-tui
// (version.Info.Build) in novactl-tui's environment. The two are separate
// programs, so updating one and not the other (a copied binary, a build
// of one target) pairs a novactl with another build's TUI, which then
// draws another version's checks and options without a word; novactl-tui
// refuses to start then. Not NOVA_*: those are configuration keys.
const envParentBuild = "NOVACTL_BUILD"

// TUISession is what the TUI program gets from RunTUI: a checked command
// line, the configuration's backend and the invocation's terminal.
type TUISession struct {
	// Backend answers the TUI's status and search calls.
	Backend TUIBackend
	// Refresh is the pause between two runs of the status checks.
	Refresh time.Duration
	// Stdin, Stderr and Environ are the invocation's.
	Stdin   io.Reader
	Stderr  io.Writer
	Environ []string
}

// RunTUI is novactl-tui: it checks the command line, the terminal and the
// configuration as "novactl tui" does, then runs program (tui.Run, in
// novactl-tui's main) and returns the exit code. "--version" alone prints
// the version line, as novad --version does.
func RunTUI(ctx context.Context, args []string, inv *Invocation, program func(context.Context, TUISession) error) int {
	if len(args) == 1 && args[0] == "--version" {
		fmt.Fprintln(inv.Stdout, version.Get().Line(TUIBinary))
		return ExitOK
	}
	if parent, own := paths.Lookup(inv.Environ, envParentBuild), version.Get().Build(); parent != "" && parent != own {
		fmt.Fprintf(inv.Stderr, "novactl tui: the terminal UI and novactl come from two builds: %s %s, novactl %s. "+
			"Install both from one build: reinstall Nova (brew reinstall nova, or the release archive's novactl and %s together), or run make build in a clone and use its bin/.\n",
			TUIBinary, own, parent, TUIBinary)
		return ExitFailure
	}
	return tuiCommand(ctx, inv, args, func(s TUISession) int {
		if err := program(ctx, s); err != nil {
			fmt.Fprintf(inv.Stderr, "novactl tui: %v\n", err)
			return ExitFailure
		}
		return ExitOK
	})
}

// runTUI is "novactl tui": once the command line, the terminal and the
// configuration are checked, it becomes novactl-tui (TUIBinary).
func runTUI(ctx context.Context, inv *Invocation, args []string) int {
	return tuiCommand(ctx, inv, args, func(TUISession) int { return execTUI(inv, args) })
}

// tuiCommand checks a tui command line and hands a session to start.
func tuiCommand(_ context.Context, inv *Invocation, args []string, start func(TUISession) int) int {
	fs := newFlags(inv, "novactl tui", "novactl tui [--refresh 5s]", tuiHelp)
	// The default is tui.DefaultStatusInterval, which novactl does not
	// link (TUIBinary says why).
	refresh := fs.Duration("refresh", 5*time.Second, "pause between two runs of the status checks (at least 1s)")
	pos, code := parseArgs(inv, fs, args)
	if code >= 0 {
		return code
	}
	if len(pos) > 0 {
		return usageError(inv, fs, fmt.Sprintf("unexpected argument %q", pos[0]))
	}
	// Each refresh runs every doctor check: a shorter pause would keep a
	// core busy, and a negative one means nothing.
	if *refresh < minTUIRefresh {
		return usageError(inv, fs, fmt.Sprintf("--refresh must be at least %s (got %s)", minTUIRefresh, *refresh))
	}
	if !IsTerminal(inv.Stderr) {
		fmt.Fprintln(inv.Stderr, "novactl tui needs an interactive terminal on stderr. For scripts, use novactl status, novactl doctor --json or novactl search --json.")
		return ExitUsage
	}
	if paths.Lookup(inv.Environ, "TERM") == "dumb" {
		// The TUI moves the cursor and redraws: a dumb terminal would
		// show the escape sequences instead.
		fmt.Fprintln(inv.Stderr, "novactl tui cannot draw on this terminal (TERM=dumb). Use novactl status, novactl doctor or novactl search, which print plain text.")
		return ExitUsage
	}
	if _, ok := loadConfig(inv, false); !ok {
		return ExitFailure
	}
	return start(TUISession{
		Backend: newTUIBackend(inv),
		Refresh: *refresh,
		Stdin:   inv.Stdin,
		Stderr:  inv.Stderr,
		Environ: inv.Environ,
	})
}

// execTUI replaces novactl with novactl-tui, found beside novactl's
// executable (or, when novactl was started through a link, beside the
// file the link names), with the same arguments and environment.
func execTUI(inv *Invocation, args []string) int {
	executable, exec := os.Executable, execProgram
	if inv.executable != nil {
		executable = inv.executable
	}
	if inv.exec != nil {
		exec = inv.exec
	}
	self, err := executable()
	if err != nil {
		fmt.Fprintf(inv.Stderr, "novactl tui: cannot find novactl's own executable, to run %s beside it: %v\n", TUIBinary, err)
		return ExitFailure
	}
	var tried []string
	dirs := []string{filepath.Dir(self)}
	if resolved, err := filepath.EvalSymlinks(self); err == nil && filepath.Dir(resolved) != dirs[0] {
		dirs = append(dirs, filepath.Dir(resolved))
	}
	for _, dir := range dirs {
		path := filepath.Join(dir, TUIBinary)
		tried = append(tried, path)
		if _, err := os.Stat(path); err != nil {
			continue
		}
		env := slices.DeleteFunc(slices.Clone(inv.Environ), func(kv string) bool { return strings.HasPrefix(kv, envParentBuild+"=") })
		env = append(env, envParentBuild+"="+version.Get().Build())
		err := exec(path, append([]string{TUIBinary}, args...), env)
		fmt.Fprintf(inv.Stderr, "novactl tui: cannot run %s: %v\n", path, err)
		return ExitFailure
	}
	fmt.Fprintf(inv.Stderr, "novactl tui: the terminal UI is the program %s, installed beside novactl, and it is not there (looked for %s); reinstall Nova, or run make build in a clone\n", TUIBinary, joinOr(tried))
	return ExitFailure
}

// joinOr lists paths as "a" or "a or b".
func joinOr(paths []string) string {
	if len(paths) == 2 {
		return paths[0] + " or " + paths[1]
	}
	return paths[0]
}

// TUIBackend is the TUI's view of Nova: doctor for the status pane and the
// typed client for searches. It implements tui.Backend and is safe for
// concurrent use.
type TUIBackend struct {
	// connect returns a client for the novad that serves the home now. A
	// TUI session outlives novad: it may restart on other ports (port 0
	// picks new ones at each start), or the configuration may change.
	connect func() (*client.Client, error)
	environ []string
	service doctor.ServiceProbe // nil skips the service check
	// watcherService probes the source watcher's job; nil means unknown.
	watcherService doctor.ServiceProbe
}

// newTUIBackend is the backend of a TUI session for inv's home. Like the
// status pane's doctor checks, each search reads the configuration and
// the ports novad published afresh.
func newTUIBackend(inv *Invocation) TUIBackend {
	novadProbe, watcherProbe := newServiceProbes(inv)
	return TUIBackend{
		connect: func() (*client.Client, error) {
			cfg, err := config.Load(inv.Environ)
			if err != nil {
				return nil, fmt.Errorf("read the configuration: %w", err)
			}
			return client.ForConfig(cfg), nil
		},
		environ:        inv.Environ,
		service:        novadProbe,
		watcherService: watcherProbe,
	}
}

// Status implements tui.Backend. Checks cut short by ctx (the poll's
// bound) are an error, so the TUI keeps the report it showed before.
func (b TUIBackend) Status(ctx context.Context) (doctor.Report, error) {
	rep := doctor.Run(ctx, doctor.Options{Environ: b.environ, Service: b.service, WatcherService: b.watcherService})
	if rep.Interrupted {
		return rep, fmt.Errorf("the status checks did not finish: %w", context.Cause(ctx))
	}
	return rep, nil
}

// Search implements tui.Backend. A refused connection is an error that
// matches api.ErrNotRunning, so the TUI can say how to start novad; another
// home's novad on this home's ports is not (starting this home's novad
// would not help), and the TUI shows the client's words.
func (b TUIBackend) Search(ctx context.Context, body api.SearchBody) (*api.SearchResponse, error) {
	budget := time.Duration(api.CLITimeoutMs) * time.Millisecond
	if d, ok := ctx.Deadline(); ok {
		budget = time.Until(d)
	}
	body.RemainingBudgetMs = int(budget.Milliseconds())
	c, err := b.connect()
	if err != nil {
		return nil, err
	}
	resp, _, err := c.Search(ctx, body)
	return resp, err
}
