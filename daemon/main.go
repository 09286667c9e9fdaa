package daemon

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/kardianos/service"
	"github.com/mattn/go-isatty"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/internal/version"
	"github.com/nova-recall/nova/logfile"
	"github.com/nova-recall/nova/packaging/configwait"
	"github.com/nova-recall/nova/paths"
)

// Exit codes of novad. launchd and systemd restart a process that exits
// non-zero; the codes tell an operator (and doctor) why it stopped. With
// --wait-for-config (what the service definitions pass) an invalid or
// non-loopback configuration is waited out instead of exiting 77 or 78,
// and so is another novad serving the same home instead of exiting 75.
const (
	ExitOK             = 0  // clean stop
	ExitFailure        = 1  // runtime failure
	ExitUsage          = 2  // bad command line
	ExitPortInUse      = 75 // a port is taken (EX_TEMPFAIL: may succeed later); with --wait-for-config it waits instead
	ExitAlreadyServing = 75 // another novad serves the same home (EX_TEMPFAIL); with --wait-for-config it stands by instead
	ExitReadOnlyHome   = 73 // NOVA_HOME is read-only and holds no novad lock file (EX_CANTCREAT); with --wait-for-config it waits instead
	ExitNonLoopback    = 77 // configuration asks for a non-loopback address (EX_NOPERM)
	ExitConfig         = 78 // invalid configuration (EX_CONFIG)
)

// Main is novad's entry point: it parses args, loads the configuration
// from environ, runs the server until ctx is cancelled (SIGINT/SIGTERM) and
// returns the exit code. SIGHUP reloads the manifest. stdout carries only
// what was asked for (--version); logs go to stderr.
func Main(ctx context.Context, args []string, environ []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("novad", flag.ContinueOnError)
	logFormat := fs.String("log-format", "auto", "log format: auto (text when logging to a terminal, JSON otherwise: a pipe, a file, --log-file), text or json")
	verbose := fs.Bool("v", false, "log every request (method, route, status, latency; never query text)")
	logFile := fs.String(logfile.Flag, "", logfile.FlagUsage)
	showVersion := fs.Bool("version", false, "print the version, commit and build date, and exit")
	waitForConfig := fs.Bool(configwait.Flag, false, "when config.yaml is invalid or not loopback, log why once and wait for it to be fixed instead of exiting 78 or 77; when another novad serves this NOVA_HOME, or another program holds a port, wait until it stops instead of exiting 75 (service definitions pass it)")
	usage := func() {
		fmt.Fprintf(fs.Output(), `novad serves Nova's read-only recall API on loopback.

Usage: novad [flags]

It reads NOVA_HOME (default ~/.nova) and NOVA_HOME/config.yaml, serves the
direct server (server.port, default 3037) and the external-agent facade
(facade.port, default 3036) on 127.0.0.1, and reloads the active index
whenever novactl promotes a new one. SIGHUP forces a reload; SIGTERM stops.

An invalid config.yaml makes it exit at once (78; 77 for a non-loopback
host) unless --wait-for-config is given: then it logs the error once and
waits, binding nothing, until config.yaml is fixed, and serves from then on.
A NOVA_HOME on a read-only volume is served read-only (search works,
/encode is refused) when a novad has served it before; without its
state/novad.lock it exits 73 (waits, with --wait-for-config).
Another novad serving the same NOVA_HOME makes it exit 75, unless
--wait-for-config is given: then it logs that once and stands by, binding
nothing, until that novad stops, and serves from then on. A port another
program (or another home's novad) holds makes it exit 75 after 5 s of
retries, unless --wait-for-config is given: then it logs that once and
waits, holding neither port, until the port is free.

Flags:
`)
		fs.PrintDefaults()
	}
	// The flag package would print the error and the whole usage: the
	// error is one line and a pointer to the help, which the whole help
	// buried, and the help, asked for, is the output (stdout).
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stdout)
			usage()
			return ExitOK
		}
		fmt.Fprintf(stderr, "novad: %v\nRun \"novad --help\" for its usage.\n", err)
		return ExitUsage
	}
	if fs.NArg() > 0 {
		// "novad ~/other-home" would serve ~/.nova: the home is NOVA_HOME,
		// never an argument.
		fmt.Fprintf(stderr, "novad: unexpected argument %q: novad takes no arguments; its home is NOVA_HOME (NOVA_HOME=%s novad)\n", fs.Arg(0), fs.Arg(0))
		return ExitUsage
	}
	if *showVersion {
		fmt.Fprintln(stdout, version.Get().Line("novad"))
		return ExitOK
	}
	if f := *logFormat; f != "auto" && f != "text" && f != "json" {
		fmt.Fprintf(stderr, "novad: --log-format must be auto, text or json (got %q)\n", f)
		return ExitUsage
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	logTo, logErr := logfile.Setup(*logFile, stdout, stderr)
	logger := newLogger(logTo, *logFormat, level)
	if logErr != nil {
		logger.Warn("The log file is left as the service manager made it: neither made private nor rotated", "err", logErr.Error())
	}
	// SIGHUP is caught from here on, not only once serving: its default
	// action ends the process, and novad may wait for a valid config.yaml
	// or for the home for days, while its help and doctor give SIGHUP as
	// the way to make it reload. One that comes before serving is
	// dropped: the first load reads the manifest anyway.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	// novad is a background service: it collects at 50% heap growth, not
	// the default 100%, to keep its anonymous memory near its live heap.
	// The generation is mapped, not heap, so what grows is each search's
	// garbage, and a smaller live heap means more frequent collections at
	// the same percentage. Measured at 100k chunks under the bench's
	// 2-client load test: 50 held 54 MiB of anonymous memory after the
	// queries at 172 requests/s (9.7 ms of CPU a request); 25 held 47 MiB
	// but answered 146-153 requests/s (11 ms); 100, before the model was
	// kept as float16, held 102 MiB. A GOGC in the environment wins.
	if paths.Lookup(environ, "GOGC") == "" {
		debug.SetGCPercent(50)
	}
	var cfg config.Config
	var err error
	if *waitForConfig {
		waited := false
		cfg, err = configwait.Load(ctx, configwait.Options{Environ: environ, Job: configwait.JobNovad, Failed: func(err error) {
			waited = true
			// Logged once per distinct error, not once per retry.
			var nl *config.NonLoopbackError
			if errors.As(err, &nl) {
				logger.Error("Waiting: the configured server host is not loopback; novad serves once config.yaml names a loopback host", "code", "rag-server-non-loopback", "err", err.Error())
				return
			}
			logger.Error("Waiting: invalid configuration; novad serves once config.yaml is fixed (novactl config check lists every field)", "err", err.Error())
		}})
		switch {
		case err == nil && waited:
			logger.Info("The configuration is valid now; starting", "config", cfg.File)
		case configwait.Stopped(err):
			logger.Info("Stopped while waiting for a valid configuration")
			return ExitOK
		}
	} else {
		cfg, err = config.Load(environ)
	}
	if err != nil {
		var nl *config.NonLoopbackError
		if errors.As(err, &nl) {
			logger.Error("Refusing to start: the configured server host is not loopback", "code", "rag-server-non-loopback", "err", err.Error())
			return ExitNonLoopback
		}
		logger.Error("Refusing to start: invalid configuration (novactl doctor explains)", "err", err.Error())
		return ExitConfig
	}
	srv, err := New(Options{Config: cfg, Logger: logger, Environ: environ, WaitForHome: *waitForConfig})
	if err != nil {
		logger.Error("Refusing to start", "err", err.Error())
		if errors.Is(err, ErrNonLoopback) {
			return ExitNonLoopback
		}
		return ExitConfig
	}
	serve := func(ctx context.Context) int {
		select {
		case <-hup:
		default:
		}
		go func() {
			for range hup {
				srv.Reload()
			}
		}()
		if err := srv.Run(ctx, nil); err != nil {
			switch {
			case errors.Is(err, ErrPortInUse):
				logger.Error("Refusing to start: port in use", "err", err.Error())
				return ExitPortInUse
			case errors.Is(err, ErrHomeLockLost):
				logger.Error("Stopped: another process took this home while its lock file was gone", "err", err.Error())
				return ExitAlreadyServing
			case errors.Is(err, ErrAlreadyServing):
				logger.Error("Refusing to start: another novad serves this home", "err", err.Error())
				return ExitAlreadyServing
			case errors.Is(err, ErrNonLoopback):
				logger.Error("Refusing to serve on a non-loopback address", "err", err.Error())
				return ExitNonLoopback
			case errors.Is(err, ErrReadOnlyHome):
				logger.Error("Refusing to start: NOVA_HOME is read-only", "err", err.Error())
				return ExitReadOnlyHome
			}
			logger.Error("novad stopped on an error", "err", err.Error())
			return ExitFailure
		}
		return ExitOK
	}
	// launchd and systemd stop a service with SIGTERM, which cancels ctx
	// (cmd/novad); the same path serves a terminal's Ctrl-C.
	return serve(ctx)
}

// ServiceName is the service's name with launchd and systemd.
const ServiceName = "dev.nova.novad"

// newLogger returns, for format auto, text logs when w is a terminal and
// JSON logs otherwise (a pipe, a file, a service manager's log), where a
// machine reads them.
func newLogger(w io.Writer, format string, level slog.Level) *slog.Logger {
	opts := &slog.HandlerOptions{Level: level}
	if format == "auto" {
		format = "json"
		if f, ok := w.(*os.File); ok && isatty.IsTerminal(f.Fd()) || service.Interactive() && isTerminalWriter(w) {
			format = "text"
		}
	}
	if format == "text" {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}

func isTerminalWriter(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && isatty.IsTerminal(f.Fd())
}
