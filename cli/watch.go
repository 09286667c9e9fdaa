package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"syscall"
	"time"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/freshness"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/lockfile"
	"github.com/nova-recall/nova/logfile"
	"github.com/nova-recall/nova/packaging/configwait"
	"github.com/nova-recall/nova/paths"
	"github.com/nova-recall/nova/watch"
)

// ExitConfig is what novactl index watch exits with on an invalid
// configuration (EX_CONFIG, as novad), unless --wait-for-config (what its
// service definitions pass) makes it wait for config.yaml to be fixed.
const ExitConfig = 78

const watchHelp = `Keeps memory fresh by itself: watches every configured source and syncs
the index (build, verify, promote) soon after a source changes. It runs in
the foreground until SIGINT or SIGTERM; "novactl service install" runs it
beside novad as its own service job.

  - At start it syncs once, catching what changed while no watcher ran
    (an incremental sync of unchanged sources only stats each file).
  - Folders are watched recursively with file system notifications,
    including folders created after it started (a new Codex day folder, a
    new Claude Code project).
  - Bursts are coalesced: a sync starts once the sources have been quiet
    for --quiet, and no later than --max-wait after the first change, so a
    stream of appends never holds the index back for long.
  - A stat-based rescan every --rescan catches what notifications miss
    (overflowed queues, file systems without events); it runs every 30 s
    while a watch limit (inotify watches, open files) leaves folders
    unwatched. Limits are logged and shown by novactl doctor.
  - One index writer at a time: while a manual "novactl index sync" runs,
    the watcher waits and retries; a manual sync waits for the watcher's.
  - It never serves: a running novad picks up each promotion by itself.

State: NOVA_HOME/state/watcher.json (pid, last change seen, last sync, lag,
watched counts, limits hit, files gone). Logs go to stderr: text on a
terminal, JSON otherwise (--log-format).

An invalid config.yaml makes it exit 78 at once, unless --wait-for-config
is given (the service definitions give it): then it logs the error once and
waits, without watching the sources or taking the watcher lock, until
config.yaml is fixed, and starts from there.

With --wait-for-config, a watcher that already runs for this NOVA_HOME
makes it stand by (logged once) and watch when that one stops, and a
NOVA_HOME on a read-only volume makes it wait (logged once) until the
volume is writable, instead of exiting 1, which a service manager would
restart every 10 s.

Exit status: 0 after SIGINT/SIGTERM (also while waiting for a valid
config.yaml or standing by); 1 on failure (or when a watcher already runs
for this NOVA_HOME); 2 for a bad command line; 78 for an invalid
configuration.`

func runIndexWatch(ctx context.Context, inv *Invocation, args []string) int {
	fs := newFlags(inv, "novactl index watch", "novactl index watch [flags]", watchHelp)
	quiet := fs.Duration("quiet", watch.DefaultQuiet, "sync once the sources have been quiet this long")
	maxWait := fs.Duration("max-wait", watch.DefaultMaxWait, "sync no later than this after the first change, even while changes keep coming")
	rescan := fs.Duration("rescan", watch.DefaultRescan, "period of the safety-net rescan of every source")
	logFormat := fs.String("log-format", "auto", "log format: auto (text on a terminal, JSON otherwise), text or json")
	verbose := fs.Bool("v", false, "log debug detail")
	logFile := fs.String(logfile.Flag, "", logfile.FlagUsage)
	inProcess := fs.Bool("in-process", false, "embed in this process even when novad is running")
	prune := fs.Bool("prune-missing", false, "drop memory whose source file no longer exists (kept by default)")
	waitForConfig := fs.Bool(configwait.Flag, false, "when config.yaml is invalid, log why once and wait for it to be fixed instead of exiting 78 (service definitions pass it)")
	pos, code := parseArgs(inv, fs, args)
	if code >= 0 {
		return code
	}
	if len(pos) > 0 {
		return usageError(inv, fs, fmt.Sprintf("unexpected argument %q", pos[0]))
	}
	if *quiet <= 0 || *maxWait < *quiet || *rescan < time.Second {
		return usageError(inv, fs, "--quiet must be positive, --max-wait at least --quiet, --rescan at least 1s")
	}
	if f := *logFormat; f != "auto" && f != "text" && f != "json" {
		return usageError(inv, fs, fmt.Sprintf("--log-format must be auto, text or json (got %q)", f))
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	logTo, logErr := logfile.Setup(*logFile, inv.Stdout, inv.Stderr)
	log := newCLILogger(logTo, *logFormat, level)
	if logErr != nil {
		log.Warn("The log file is left as the service manager made it: neither made private nor rotated", "err", logErr.Error())
	}
	var cfg config.Config
	if *waitForConfig {
		waited := false
		var err error
		cfg, err = configwait.Load(ctx, configwait.Options{Environ: inv.Environ, Job: configwait.JobWatcher, Failed: func(err error) {
			// Logged once per distinct error, not once per retry.
			waited = true
			log.Error("Waiting: invalid configuration; the watcher starts once config.yaml is fixed (novactl config check lists every field)", "err", err.Error())
		}})
		switch {
		case configwait.Stopped(err):
			log.Info("Stopped while waiting for a valid configuration")
			return ExitOK
		case err != nil:
			log.Error("Refusing to start: invalid configuration", "err", err.Error())
			return ExitConfig
		case waited:
			log.Info("The configuration is valid now; starting", "config", cfg.File)
		}
	} else {
		var ok bool
		if cfg, ok = loadConfig(inv, false); !ok {
			return ExitConfig
		}
	}
	ix := index.New(cfg, index.Options{Environ: inv.Environ, NoRemote: *inProcess, PruneMissing: *prune, Logger: log})
	log.Info("Watcher starting", "home", cfg.Home.Root, "sources", len(cfg.Sources), "quiet", quiet.String(), "maxWait", maxWait.String(), "rescan", rescan.String())
	opts := watch.Options{
		Home: cfg.Home, Sources: cfg.Sources, Syncer: watch.IndexSyncer(ix), Logger: log,
		Quiet: *quiet, MaxWait: *maxWait, Rescan: *rescan,
		SyncAtStart: true,
	}
	err := watch.Run(ctx, opts)
	if *waitForConfig {
		run := func() error { return watch.Run(ctx, opts) }
		switch {
		case errors.Is(err, freshness.ErrRunning):
			err = watcherStandBy(ctx, inv, log, cfg.Home, err, "Standing by: another watcher runs for this home; this one watches when it stops. "+
				"Two service jobs may run the watcher (brew services and novactl service install): novactl service status and novactl doctor name them", run)
		case errors.Is(err, syscall.EROFS):
			err = watcherStandBy(ctx, inv, log, cfg.Home, err, "Waiting: this home is on a read-only volume, where the watcher cannot take its lock or write the index; it watches once the volume is writable", run)
		}
	}
	if err != nil {
		if errors.Is(err, freshness.ErrRunning) {
			// It already keeps the index synced; the person most likely
			// wants to know whether a service job runs it, or to stop it
			// to run this one in the foreground.
			fmt.Fprintf(inv.Stderr, "novactl index watch: %v; it keeps the index synced, so there is nothing to start. "+
				"To run the watcher here instead, stop that process first (novactl service status says whether a service job runs it; novactl doctor shows the watcher)\n", err)
		} else {
			log.Error("Watcher failed", "err", err)
		}
		return ExitFailure
	}
	return ExitOK
}

// watcherSafetyPoll is how often a standing-by watcher tries again when
// waiting for the other watcher's lock in the kernel cannot tell that it
// may: the home on a read-only volume (made writable again), the lock
// file removed or replaced, a platform without file locks. The other
// watcher's stop, or death, wakes it at once (lockfile.Waiter).
const watcherSafetyPoll = 30 * time.Second

// watcherStandBy waits while another watcher runs for home, or while home
// is read-only (why is which), then runs (watch.Run); it returns nil when
// ctx ends first. A service job whose watcher exited for either (a second
// job for the same home, one in a terminal, a locked volume) would be
// relaunched by launchd every 10 s for ever; waiting is logged once
// instead. It sleeps in the kernel while the other watcher runs: trying
// every second woke the process for as long as both jobs were installed.
func watcherStandBy(ctx context.Context, inv *Invocation, log *slog.Logger, home paths.Home, why error, waiting string, run func() error) error {
	log.Warn(waiting, "home", home.Root)
	w := &lockfile.Waiter{Path: home.WatcherLock(), Every: watcherSafetyPoll}
	if inv.standbyEvery > 0 {
		w.Every = inv.standbyEvery
	}
	held := errors.Is(why, freshness.ErrRunning)
	for {
		if err := w.Wait(ctx, held); err != nil {
			log.Info("Stopped while standing by")
			return nil
		}
		if inv.standbyTried != nil {
			inv.standbyTried()
		}
		err := run()
		switch {
		case errors.Is(err, freshness.ErrRunning):
			held = true
		case errors.Is(err, syscall.EROFS):
			held = false
		default:
			return err
		}
	}
}

// newCLILogger logs text on a terminal and JSON otherwise (a service
// manager's log file or journal), like novad.
func newCLILogger(w io.Writer, format string, level slog.Level) *slog.Logger {
	opts := &slog.HandlerOptions{Level: level}
	if format == "auto" {
		format = "json"
		if IsTerminal(w) {
			format = "text"
		}
	}
	if format == "text" {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}

// watcherHolds reports whether the index lock error le was caused by this
// home's source watcher.
func watcherHolds(home paths.Home, le *index.LockedError) bool {
	if le == nil || le.PID == 0 || !freshness.Running(home) {
		return false
	}
	st, err := freshness.Read(home)
	return err == nil && st.PID == le.PID
}

// waitForWatcher runs op until it does not fail because the source
// watcher holds the index lock, telling the person once that it waits.
// An operation locked out by anything else fails as before.
func waitForWatcher[T any](ctx context.Context, inv *Invocation, home paths.Home, name string, quiet bool, op func() (T, error)) (T, error) {
	told := false
	for {
		r, err := op()
		var le *index.LockedError
		if !errors.As(err, &le) || !watcherHolds(home, le) {
			return r, err
		}
		if !told && !quiet {
			fmt.Fprintf(inv.Stderr, "novactl index %s: the source watcher (novactl index watch, pid %d) is syncing; waiting for it to finish…\n", name, le.PID)
			told = true
		}
		select {
		case <-ctx.Done():
			// Interrupted while waiting (Ctrl-C): that, not the lock,
			// is what stopped it.
			return r, ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}
