package doctor

import (
	"context"
	"fmt"
	"strings"

	"github.com/nova-recall/nova/lockfile"
	"github.com/nova-recall/nova/packaging"
	"github.com/nova-recall/nova/paths"
	"github.com/nova-recall/nova/shellword"
)

// runner is how one of Nova's jobs ("novad" or "watcher", packaging's
// Job names) runs here, for advice that restarts it: the service
// definition on disk that runs it (Homebrew's or novactl's), or none when
// it was started by hand. novactl service restart refuses a job it did not
// install and brew services does not know novactl's, so advice naming one
// command for every install sent some users to a refusal.
type runner struct {
	def *packaging.Definition
	// pid is the running process, for the by-hand advice; 0 when unknown.
	pid int
	// home is the NOVA_HOME the job serves when it is not the default
	// ~/.nova (paths.Relocated), "" for the default: plain novad, and a
	// login service, serve ~/.nova.
	home string
	// served is the NOVA_HOME novactl's definition gives the job when it
	// is another than this home (root): starting that job serves the
	// other home, never this one; "" when it serves this home or is not
	// known.
	served, root string
}

// runnerOf is how job runs, from the definitions on disk; with both
// owners' (the service check says to keep one), Homebrew's, whose job
// novactl service cannot drive.
func runnerOf(defs []packaging.Definition, job string, pid int) runner {
	r := runner{pid: pid}
	for i, d := range defs {
		if d.Job != job {
			continue
		}
		if r.def == nil || d.Owner == packaging.OwnerHomebrew {
			r.def = &defs[i]
		}
	}
	return r
}

// serving records, for a job novactl's definition runs, the home that
// definition serves when it is another than home (probe says which):
// then the job is not how this home's process runs, and advice that
// drives it would act on the other home. A probe that cannot tell leaves
// r as it is.
func (r *runner) serving(ctx context.Context, probe ServiceProbe, home paths.Home) {
	if !r.novactl() || probe == nil {
		return
	}
	if st, err := probe.ServiceStatus(ctx); err == nil {
		r.served, r.root = servedElsewhere(st, home), home.Root
	}
}

// ours reports whether novactl's definition runs the job for this home,
// so that novactl service drives it.
func (r runner) ours() bool { return r.novactl() && r.served == "" }

// homebrew reports whether brew services runs the job.
func (r runner) homebrew() bool { return r.def != nil && r.def.Owner == packaging.OwnerHomebrew }

// novactl reports whether novactl service install's definition runs the job.
func (r runner) novactl() bool { return r.def != nil && r.def.Owner == packaging.OwnerNovactl }

// restart is the command that restarts the job so it reads config.yaml
// afresh; process names it when it runs by hand ("novad", "novactl index
// watch").
func (r runner) restart(process string) string {
	switch {
	case r.homebrew():
		return "brew services restart " + r.def.Formula
	case r.novactl() && r.served != "":
		// novactl service restart would restart the other home's job.
		return fmt.Sprintf("stop %s%s and run it again with this home: %s", process, r.pidNote(), r.byHand(process))
	case r.novactl():
		return "novactl service restart"
	case r.pid > 0:
		return fmt.Sprintf("stop %s (pid %d) and run it again", process, r.pid)
	}
	return "stop " + process + " and run it again"
}

// start is the command that starts a novad that is not running: the
// installed service's start (novactl service install refuses beside
// Homebrew's job, and would rewrite novactl's own), or install or a
// terminal when none is installed.
func (r runner) start() string {
	switch {
	case r.homebrew():
		return "brew services start " + r.def.Formula + " (brew services info " + r.def.Formula + " shows why it stopped)"
	case r.novactl() && r.served != "":
		return elsewhereStart(r.root, r.served, "novad")
	case r.novactl():
		return "novactl service start (novactl service status shows why it stopped)"
	case r.home != "":
		// A scratch home (make run's .nova-run) wants no login service,
		// which would take the place of the one that serves ~/.nova.
		return "run novad with this home in a terminal: " + paths.EnvHome + "=" + shellword.Quote(r.home) + " novad"
	}
	return "novactl service install (macOS/Linux service) or run novad in a terminal"
}

// hardRestart is the restart of a novad that does not answer: the
// service manager's stop ends it, where novactl service stop leaves
// Homebrew's job running.
func (r runner) hardRestart() string {
	switch {
	case r.homebrew():
		return "brew services restart " + r.def.Formula
	case r.novactl() && r.served != "":
		return fmt.Sprintf("end novad%s and run %s", r.pidNote(), r.byHand("novad"))
	case r.novactl():
		return "novactl service stop, then start"
	case r.pid > 0:
		return fmt.Sprintf("end pid %d and run novad", r.pid)
	}
	return "end the process and run novad"
}

// pidNote is " (pid N)" for the running process, "" when unknown.
func (r runner) pidNote() string {
	if r.pid > 0 {
		return fmt.Sprintf(" (pid %d)", r.pid)
	}
	return ""
}

// byHand is the command that runs process ("novad", "novactl index
// watch") for this home (root) in a terminal.
func (r runner) byHand(process string) string {
	return paths.EnvHome + "=" + shellword.Quote(r.root) + " " + process
}

// holderPID is the pid holding the lock at path (novad's or the
// watcher's), 0 when none does.
func holderPID(path string) int {
	if !lockfile.Held(path) {
		return 0
	}
	return lockfile.ReadHolder(path).PID
}

// upgradeAdvice is what makes novad, and the watcher where one runs, run
// the binaries of an upgrade. Homebrew's services run the formula's opt
// path, which an upgrade points at the new version, so brew services
// restart is enough. novactl's definitions may name a versioned path (one
// an older novactl resolved, or --novad's), where restart would run the
// old build again: install, which the service help gives for a new
// binary, finds the binaries afresh; but it refuses while Homebrew runs a
// job too, and restart is then what is left.
func upgradeAdvice(novad, watcher runner) string {
	var cmds []string
	// novactl's jobs that serve another home are not how this home's
	// processes run: install and restart would act on that home's.
	switch ours, brew := novad.ours() || watcher.ours(), novad.homebrew() || watcher.homebrew(); {
	case ours && !brew:
		cmds = append(cmds, "novactl service install (it points the jobs at the binaries beside this novactl and restarts them)")
	case ours:
		cmds = append(cmds, "novactl service restart")
	}
	if !novad.ours() {
		cmds = append(cmds, novad.restart("novad"))
	}
	if watcher.homebrew() || (!watcher.ours() && watcher.pid > 0) {
		cmds = append(cmds, watcher.restart("novactl index watch"))
	}
	return "restart novad (and the watcher) so they run the new binary: " + strings.Join(cmds, "; ")
}
