package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/nova-recall/nova/doctor"
	"github.com/nova-recall/nova/inert"
	"github.com/nova-recall/nova/paths"
)

const doctorHelp = `Checks the configuration, the loopback boundary, novad, the active index and
its embedding profile, the internal token, each source (including macOS
privacy protection of ~/Documents, ~/Desktop and ~/Downloads), the source
files whose input the last sync skipped (binary files, malformed lines:
--json lists every one), the service registration, the source watcher
(running, watch limits, files gone from sources whose memory is kept),
index freshness, Nova's MCP entry and skill in each agent found here
(current, stale: another novactl, NOVA_HOME or skill version, or not
installed; both optional, so never Blocked), whether the active
generation's files are intact (--deep hashes every file), whether other
users can read the home and whether its volume has room for a sync. Each
check is Ready, Degraded or Blocked: <code>, with one line of advice. It
only reads; it changes nothing.

Exit status: 1 when any check is Blocked, else 0.`

func runDoctor(ctx context.Context, inv *Invocation, args []string) int {
	return doctorCommand(ctx, inv, args, "novactl doctor", doctorHelp, true)
}

func runStatus(ctx context.Context, inv *Invocation, args []string) int {
	return doctorCommand(ctx, inv, args, "novactl status", "A compact view of novactl doctor: one line per check, without the advice.\n\nExit status: 1 when any check is Blocked, else 0.", false)
}

// doctorCommand runs the checks and prints them; advice adds the one-line
// remedy under each check that is not Ready.
func doctorCommand(ctx context.Context, inv *Invocation, args []string, name, help string, advice bool) int {
	fs := newFlags(inv, name, name+" [--json] [--deep]", help)
	jsonOut := fs.Bool("json", false, "print the report as JSON")
	deep := fs.Bool("deep", false, "hash every file of the active generation (default: sizes, and files changed since it was written)")
	pos, code := parseArgs(inv, fs, args)
	if code >= 0 {
		return code
	}
	if len(pos) > 0 {
		return usageError(inv, fs, fmt.Sprintf("unexpected argument %q", pos[0]))
	}
	novadProbe, watcherProbe := newServiceProbes(inv)
	rep := doctor.Run(ctx, doctor.Options{Environ: inv.Environ, Service: novadProbe, WatcherService: watcherProbe, Deep: *deep,
		Agents: doctorAgents(inv, defaultMCPDeps())})
	if rep.Interrupted {
		// Checks cut short read as problems (a --deep hash stopped part
		// way would say the index is damaged): no report rather than a
		// false one, but a program reading --json still gets a document.
		if *jsonOut {
			printJSON(inv.Stdout, rep)
		}
		fmt.Fprintf(inv.Stderr, "%s: interrupted before its checks finished: no report\n", name)
		return ExitFailure
	}
	if *jsonOut {
		printJSON(inv.Stdout, rep)
	} else {
		printDoctor(inv.Stdout, rep, advice)
	}
	if rep.Blocked > 0 {
		return ExitFailure
	}
	return ExitOK
}

// printDoctor renders a report for a person; its messages quote file
// names and lines of input, made inert first (see printSearch).
func printDoctor(w io.Writer, rep doctor.Report, advice bool) {
	inert.Value(&rep)
	fmt.Fprintf(w, "Nova · %s · home %s\n", rep.Status, rep.Home)
	for _, c := range rep.Checks {
		mark := "ok "
		switch c.State {
		case doctor.Degraded:
			mark = "!! "
		case doctor.Blocked:
			mark = "XX "
		}
		msg := c.Message
		if c.State == doctor.Ready {
			msg = "Ready · " + msg
		}
		fmt.Fprintf(w, "%s %-24s %s\n", mark, c.Title, msg)
		if advice && c.Advice != "" && c.State != doctor.Ready {
			fmt.Fprintf(w, "    %-24s → %s\n", "", c.Advice)
		}
	}
	if rep.Blocked > 0 {
		fmt.Fprintf(w, "%d blocked, %d degraded.\n", rep.Blocked, rep.Degraded)
	}
}

// doctorAgents is what doctor needs to report the agents' MCP entry and
// skill: the entry novactl mcp install would write now, as mcp status
// compares with it. Without one (this novactl cannot be found) only the
// skill is checked.
func doctorAgents(inv *Invocation, deps mcpDeps) *doctor.AgentOptions {
	opts := &doctor.AgentOptions{Dir: inv.Dir}
	home, err := paths.Resolve(inv.Environ)
	if err != nil {
		return opts
	}
	if cmd, err := novactlPath(inv.Environ, deps); err == nil {
		if e, err := mcpEntry(inv.Environ, home, cmd); err == nil {
			opts.MCPEntry = &e
		}
	}
	return opts
}
