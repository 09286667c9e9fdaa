// Package configwait is what Nova's service jobs (novad, and the source
// watcher, novactl index watch) do when NOVA_HOME/config.yaml is invalid
// and they run with --wait-for-config, as their service definitions start
// them: wait for the file to be fixed instead of exiting.
//
// Exiting is right in a terminal, where the person sees the error and the
// exit status at once. Under a service manager it is wrong both ways:
// launchd restarts a job that exits non-zero every ThrottleInterval (10 s)
// and cannot exempt an exit code, so a broken config.yaml logs the same
// error every 10 s for as long as it stays broken; systemd is told not to
// restart 77 and 78 (RestartPreventExitStatus), so once the person fixes
// the file the job stays stopped until someone starts it by hand. A job
// that waits logs the error once, holds nothing a client could mistake for
// a serving novad (no port, no novad.lock), and starts by itself as soon as
// the file is valid.
package configwait

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/lockfile"
	"github.com/nova-recall/nova/manifest"
	"github.com/nova-recall/nova/paths"
)

// Flag is the command-line flag (without its dashes) that makes novad and
// novactl index watch wait for a valid configuration. Only service
// definitions pass it; it is never inferred from the environment, so a
// person running either by hand gets the error and the exit status at once.
const Flag = "wait-for-config"

// Jobs that wait, as packaging.Definition names them.
const (
	JobNovad   = "novad"
	JobWatcher = "watcher"
)

// operation is what a waiting job records in its lock file.
const operation = "wait-for-config"

// Waiting reports whether a job of that name waits for a valid
// configuration of home now. It only reads, and a crashed waiter never
// counts: the kernel releases its lock.
func Waiting(home paths.Home, job string) bool { return lockfile.Held(home.WaitingLock(job)) }

// Options configure Load. Environ and Job are required.
type Options struct {
	// Environ is the process environment (NOVA_HOME and NOVA_ overrides).
	Environ []string
	// Job names the waiting job for its lock file: JobNovad or JobWatcher.
	Job string
	// Failed is called with the first error, and again whenever a later
	// load fails differently, never twice in a row for the same error: a
	// file that stays broken is logged once. Optional.
	Failed func(err error)
	// Poll is how often the file is re-read even without a change
	// notification (config.yaml may be a symlink into a folder nobody
	// watches, or the file system may not notify). Optional: 0 means 30 s.
	Poll time.Duration
	// Debounce is how long after the last change the file is re-read, so
	// that an editor's truncate-then-write is not read half written.
	// Optional: 0 means 200 ms.
	Debounce time.Duration
}

// Load returns the configuration of the home named by opts.Environ. When
// it is invalid, Load reports the error (Options.Failed), then waits,
// holding paths.Home.WaitingLock and nothing else, until NOVA_HOME/config.yaml changes
// into a valid one, and returns that. It watches NOVA_HOME itself, not
// the file, because editors and atomic writers replace the file by
// rename. An error that no change to config.yaml can fix (NOVA_HOME
// itself is unusable) is returned at once, as is ctx's error when ctx
// ends while it waits.
func Load(ctx context.Context, opts Options) (config.Config, error) {
	home, err := paths.Resolve(opts.Environ)
	if err != nil {
		return config.Config{}, err
	}
	cfg, err := config.Load(opts.Environ)
	if err == nil {
		return cfg, nil
	}
	failed := opts.Failed
	if failed == nil {
		failed = func(error) {}
	}
	failed(err)
	last := err.Error()
	// Being seen to wait is a courtesy to novactl service status: a lock
	// that cannot be taken (another waiter of the same job, a read-only
	// state folder) does not stop the wait.
	if paths.MkdirPrivate(home.StateDir()) == nil {
		if l, err := lockfile.AcquireOutlastingProbes(home.WaitingLock(opts.Job), paths.FileMode, operation, time.Now()); err == nil {
			defer l.Release()
		}
	}
	w := manifest.Watch(home.Root, filepath.Base(home.Config()), manifest.WatchOptions{Poll: opts.Poll, Debounce: opts.Debounce})
	defer w.Close()
	for {
		// Read once more right after the watch is armed: a fix made
		// between the first read and the watch must not wait for a poll.
		if cfg, err = config.Load(opts.Environ); err == nil {
			return cfg, nil
		}
		if msg := err.Error(); msg != last {
			failed(err)
			last = msg
		}
		select {
		case <-ctx.Done():
			return config.Config{}, fmt.Errorf("stopped while waiting for a valid %s: %w", home.Config(), ctx.Err())
		case <-w.C:
		}
	}
}

// Stopped reports whether err is Load's return when its context ended
// while it waited: a clean stop, not a failure.
func Stopped(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
