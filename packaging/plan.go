// Package packaging describes what registering novad with a service manager
// does to the machine. The platform packages (packaging/macos for launchd,
// packaging/systemd for systemd --user) return a Plan before they act, so
// `novactl service ... --dry-run` can print exactly the files and commands
// that a real run writes and runs, and tests can compare the two.
package packaging

import (
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/nova-recall/nova/packaging/configwait"
	"github.com/nova-recall/nova/shellword"
)

// Kinds of Step.
const (
	StepMkdir  = "mkdir"
	StepWrite  = "write"
	StepRun    = "run"
	StepRemove = "remove"
)

// Plan lists the effects of one service operation, in the order they
// happen. Dry runs ask the service manager nothing, so steps that depend on
// its state carry a condition (Step.When).
type Plan struct {
	// Operation is install, uninstall, start or stop.
	Operation string `json:"operation"`
	// Manager is launchd or systemd.
	Manager string `json:"manager"`
	Steps   []Step `json:"steps"`
}

// Step is one effect: a directory created, a file written, a command run
// or a path removed.
type Step struct {
	// Kind is StepMkdir, StepWrite, StepRun or StepRemove.
	Kind string `json:"kind"`
	// Path is the directory or file of mkdir, write and remove.
	Path string `json:"path,omitempty"`
	// Mode is the permission of mkdir and write.
	Mode fs.FileMode `json:"mode,omitempty"`
	// Content is the whole text a write step writes.
	Content string `json:"content,omitempty"`
	// Argv is the program and arguments of a run step, exactly as run.
	Argv []string `json:"argv,omitempty"`
	// When is the condition under which the step happens; "" means always.
	When string `json:"when,omitempty"`
}

// Commands returns the argv of every run step, in order.
func (p Plan) Commands() [][]string {
	var out [][]string
	for _, s := range p.Steps {
		if s.Kind == StepRun {
			out = append(out, s.Argv)
		}
	}
	return out
}

// Files returns the write steps.
func (p Plan) Files() []Step {
	var out []Step
	for _, s := range p.Steps {
		if s.Kind == StepWrite {
			out = append(out, s)
		}
	}
	return out
}

// CommandLine renders argv as a shell line for people; arguments that need
// quoting are single-quoted.
func CommandLine(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		parts[i] = shellword.Quote(a)
	}
	return strings.Join(parts, " ")
}

// Print writes the plan for a person: every step in order, with the full
// text of every file. It is the whole of `--dry-run`'s text output.
func (p Plan) Print(w io.Writer) {
	fmt.Fprintf(w, "Dry run: novactl service %s (%s). Nothing was changed; a real run would:\n\n", p.Operation, p.Manager)
	for i, s := range p.Steps {
		when := ""
		if s.When != "" {
			when = "    # " + s.When
		}
		n := fmt.Sprintf("%2d.", i+1)
		switch s.Kind {
		case StepMkdir:
			fmt.Fprintf(w, "%s create directory %s (mode %04o)%s\n", n, s.Path, s.Mode.Perm(), when)
		case StepRemove:
			fmt.Fprintf(w, "%s remove %s%s\n", n, s.Path, when)
		case StepRun:
			fmt.Fprintf(w, "%s run %s%s\n", n, CommandLine(s.Argv), when)
		case StepWrite:
			fmt.Fprintf(w, "%s write %s (mode %04o)%s\n", n, s.Path, s.Mode.Perm(), when)
			fmt.Fprintln(w, "    ---------- begin ----------")
			fmt.Fprint(w, s.Content)
			if !strings.HasSuffix(s.Content, "\n") {
				fmt.Fprintln(w)
			}
			fmt.Fprintln(w, "    ----------- end -----------")
		}
	}
}

// ServiceName is novad's label with launchd and its unit name (without
// ".service") with systemd. It equals daemon.ServiceName; it is repeated
// here so that novactl does not link the daemon, and a cli test keeps the
// two equal.
const ServiceName = "dev.nova.novad"

// WatchServiceName is the source watcher's label with launchd and its unit
// name with systemd: the second job beside novad.
const WatchServiceName = "dev.nova.watch"

// WatchArgs are the novactl arguments that run the source watcher. This is
// the one place its command line is spelled: the LaunchAgent, the systemd
// unit and any package definition (a Homebrew service block) take it from
// here.
func WatchArgs() []string { return []string{"index", "watch"} }

// WatchServiceArgs are the watcher's arguments in a service definition:
// WatchArgs, and --wait-for-config (see NovadServiceArgs).
func WatchServiceArgs() []string { return append(WatchArgs(), "--"+configwait.Flag) }

// NovadServiceArgs are novad's arguments in a service definition (the
// LaunchAgent, the systemd unit, the Homebrew service block).
// --wait-for-config makes an invalid config.yaml a wait for its fix rather
// than an exit: launchd would restart novad every 10 s for as long as the
// file stays broken, and systemd (RestartPreventExitStatus=78) would leave
// it stopped after the fix (package configwait). It also makes a novad
// whose NOVA_HOME another novad serves stand by until that one stops,
// rather than exit 75, which launchd would relaunch every 10 s for as long
// as two jobs run novad for one home. Only service definitions pass it;
// novad run by hand exits at once.
func NovadServiceArgs() []string { return []string{"--" + configwait.Flag} }
