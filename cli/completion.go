package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/nova-recall/nova/agents"
	"github.com/nova-recall/nova/bench"
	"github.com/nova-recall/nova/completion"
	"github.com/nova-recall/nova/eval"
)

const completionHelp = `Prints a shell completion script for novactl: every command, subcommand and
flag, read from the command table and the flag sets novactl itself runs.

  bash   eval "$(novactl completion bash)"
         or save it as $(brew --prefix)/etc/bash_completion.d/novactl
  zsh    source <(novactl completion zsh)
         or save it as _novactl in a directory of $fpath, before compinit
  fish   novactl completion fish | source
         or save it as ~/.config/fish/completions/novactl.fish

Homebrew and the release archives install all three (completions/).`

// verb is one subcommand of a novactl command ("sync" of "index"). A
// command's verb table gates its dispatch (any other word is a usage
// error) and is what the completion scripts offer, so the two cannot
// disagree.
type verb struct {
	name    string
	summary string
}

// isVerb reports whether word names one of verbs.
func isVerb(verbs []verb, word string) bool {
	return slices.ContainsFunc(verbs, func(v verb) bool { return v.name == word })
}

// verbNames joins the verbs' names with sep ("build|verify|…" in a synopsis).
func verbNames(verbs []verb, sep string) string {
	return strings.Join(verbNameList(verbs), sep)
}

// verbNameList returns the names of verbs.
func verbNameList(verbs []verb) []string {
	names := make([]string, len(verbs))
	for i, v := range verbs {
		names[i] = v.name
	}
	return names
}

func completionVerbs() []verb {
	var vs []verb
	for _, sh := range completion.Shells {
		vs = append(vs, verb{sh, "Print the " + sh + " completion script"})
	}
	return vs
}

func runCompletion(ctx context.Context, inv *Invocation, args []string) int {
	fs := newFlags(inv, "novactl completion", "novactl completion "+verbNames(completionVerbs(), "|"), completionHelp)
	pos, code := parseArgs(inv, fs, args)
	if code >= 0 {
		return code
	}
	switch {
	case len(pos) == 0:
		return usageError(inv, fs, fmt.Sprintf("missing shell (want %s)", verbNames(completionVerbs(), ", ")))
	case !isVerb(completionVerbs(), pos[0]):
		return usageError(inv, fs, fmt.Sprintf("unknown shell %q (want %s)%s", pos[0], verbNames(completionVerbs(), ", "),
			didYouMean(pos[0], verbNameList(completionVerbs()))))
	case len(pos) > 1:
		return usageError(inv, fs, fmt.Sprintf("unexpected argument %q", pos[1]))
	}
	if err := completion.Write(inv.Stdout, pos[0], completionTree(ctx)); err != nil {
		fmt.Fprintf(inv.Stderr, "novactl completion: %v\n", err)
		return ExitFailure
	}
	return ExitOK
}

// completionTree is novactl's command tree as the completion scripts see
// it. Commands and verbs come from the command table; flags from running
// each command (and each verb) with --help under an Invocation that
// records the flag sets it defines. Every command defines its flags before
// parsing and returns at --help without acting, so this reads the flags
// the command really has, and describing runs nothing else.
func completionTree(ctx context.Context) completion.Command {
	root := completion.Command{
		Name:    "novactl",
		Summary: "Nova's operator tool",
		Flags: []completion.Flag{
			{Name: "help", Usage: "Show the commands"},
			{Name: "version", Usage: "Print the version, commit and build date"},
		},
	}
	for _, c := range commands() {
		node := completion.Command{Name: c.name, Summary: c.summary, Flags: describeFlags(ctx, c.name, c.run, nil)}
		for _, v := range c.verbs {
			node.Subcommands = append(node.Subcommands, completion.Command{
				Name: v.name, Summary: v.summary, Flags: describeFlags(ctx, c.name, c.run, []string{v.name}),
			})
		}
		root.Subcommands = append(root.Subcommands, node)
	}
	return root
}

// describeFlags runs one command line of command (args, then --help) with
// its output discarded and returns the flags of the flag sets it defined.
func describeFlags(ctx context.Context, command string, run func(context.Context, *Invocation, []string) int, args []string) []completion.Flag {
	var sets []*flag.FlagSet
	inv := &Invocation{
		Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard,
		flagSets: func(fs *flag.FlagSet) { sets = append(sets, fs) },
	}
	run(ctx, inv, append(slices.Clone(args), "--help"))
	var flags []completion.Flag
	for _, fs := range sets {
		fs.VisitAll(func(f *flag.Flag) {
			if slices.ContainsFunc(flags, func(g completion.Flag) bool { return g.Name == f.Name }) {
				return
			}
			// As --help prints it: without the backquotes that name the value.
			_, usage := flag.UnquoteUsage(f)
			values, list := flagValues(command, args, f.Name)
			flags = append(flags, completion.Flag{Name: f.Name, Usage: usage, TakesValue: !isBoolFlag(f), Values: values, List: list})
		})
	}
	return flags
}

// isBoolFlag reports whether f needs no value, the way package flag decides.
func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// flagValues is the fixed set of words a flag of command (run with args,
// its verb) takes, which the scripts offer for its value instead of file
// names (nil for a free value), and whether the value is a
// comma-separated list of them. The sets are the ones the commands check
// the value against (TestCompletion_FlagValues runs each, and a list of
// two).
func flagValues(command string, args []string, flag string) (values []string, list bool) {
	switch command + " --" + flag {
	case "bench --systems":
		if len(args) > 0 {
			// Neither bench load nor bench fresh has --systems: only
			// bench itself takes a choice.
			return nil, false
		}
		return append(slices.Clone(bench.DefaultSystems), "none"), true
	case "mcp --agent", "skill --agent":
		// agents.Select takes "codex,gemini" as well as one ID.
		return append(agents.IDs(), "all"), true
	case "eval --ablate":
		return append(eval.SortedLevers(), "all"), true
	case "index --log-format":
		return []string{"auto", "text", "json"}, false
	}
	return nil, false
}
