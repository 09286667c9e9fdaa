// Package cli is novactl, the operator's tool: search, doctor and status,
// the index lifecycle, service installation, the TUI, evaluation,
// benchmarks, agent skills and the MCP server. Every command takes its
// streams and environment from an Invocation, so commands are testable
// without touching the process.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mattn/go-isatty"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/internal/version"
	"github.com/nova-recall/nova/paths"
)

// Exit codes of novactl.
const (
	ExitOK      = 0
	ExitFailure = 1 // the command ran and failed (or doctor found a Blocked check)
	ExitUsage   = 2 // bad command line or input
)

// Invocation carries one command's I/O and environment.
type Invocation struct {
	Stdin   io.Reader
	Stdout  io.Writer
	Stderr  io.Writer
	Environ []string
	// Dir is the working directory ("" when unknown): what novactl reads
	// of the project it runs in (Claude Code's .mcp.json) is read there,
	// never from the process' own.
	Dir string

	// flagSets, when set, is told of every flag set the command defines
	// (newFlags): the completion generator reads flags this way.
	flagSets func(*flag.FlagSet)
	// executable and exec, when set, stand in for os.Executable and
	// execProgram in "novactl tui", which becomes novactl-tui.
	executable func() (string, error)
	exec       func(path string, argv, env []string) error
	// standbyEvery, when set, stands in for watcherSafetyPoll, and
	// standbyTried is told of each try of a standing-by watcher (tests
	// count them).
	standbyEvery time.Duration
	standbyTried func()
}

// IsTerminal reports whether w is an interactive terminal.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && isatty.IsTerminal(f.Fd())
}

// liveProgress reports whether a command may draw a live progress line
// on inv's stderr: it must be a terminal, and one that understands the
// carriage return and erase-line sequences the line is redrawn with,
// which a TERM=dumb terminal (Emacs' shell) prints as clutter.
func liveProgress(inv *Invocation) bool {
	return IsTerminal(inv.Stderr) && paths.Lookup(inv.Environ, "TERM") != "dumb"
}

// command is one novactl subcommand.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, inv *Invocation, args []string) int
	// verbs are the command's own subcommands, if it has any.
	verbs []verb
}

// commands is the command table, sorted by name.
func commands() []command {
	return []command{
		{"bench", "Measure indexing and search speed against SQLite FTS5 and exact vector search", runBench, benchVerbs()},
		{"completion", "Print a shell completion script (bash, zsh or fish)", runCompletion, completionVerbs()},
		{"config", "Show the effective configuration or one value of it, check it, or write a first one", runConfig, configVerbs()},
		{"doctor", "Check everything Nova needs and say what is blocked", runDoctor, nil},
		{"eval", "Measure recall on your own cases or on LoCoMo", runEval, evalVerbs()},
		{"index", "Build, sync, promote, roll back and list index generations; watch the sources", runIndex, indexVerbs()},
		{"mcp", "Serve Nova's read-only memory tools over MCP (stdio), or install them into agents", runMCP, mcpVerbs()},
		{"rag", "Compatibility commands (rag search-memory)", runRag, ragVerbs()},
		{"search", "Search memory through the running novad", runSearch, nil},
		{"service", "Install, start, stop, restart or remove the novad and watcher services", runService, serviceVerbs()},
		{"skill", "Install the read-only recall skill for your agents", runSkill, skillVerbs()},
		{"status", "Show a one-screen summary of doctor", runStatus, nil},
		{"tui", "Open the terminal UI: status, test searches, evidence", runTUI, nil},
		{"version", "Print the version, commit and build date", runVersion, nil},
	}
}

// Run executes novactl with args (without the program name) and returns
// the exit code.
func Run(ctx context.Context, args []string, inv *Invocation) int {
	if len(args) == 0 {
		// A usage error: the usage goes where errors go.
		usage(inv.Stderr)
		return ExitUsage
	}
	if args[0] == "help" && len(args) > 1 {
		// novactl help search is novactl search --help, and novactl help
		// index list is novactl index list --help.
		return Run(ctx, append(slices.Clone(args[1:]), "--help"), inv)
	}
	if args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help" {
		// Every spelling a command's flags take (the flag package's).
		usage(inv.Stdout)
		return ExitOK
	}
	if args[0] == "--version" {
		return runVersion(ctx, inv, nil)
	}
	for _, c := range commands() {
		if c.name == args[0] {
			rest := args[1:]
			if len(c.verbs) > 0 && len(rest) > 0 && rest[0] == "help" {
				// novactl index help is novactl index --help, and novactl
				// index help list is novactl index list --help, for every
				// command with subcommands (one without takes "help" as
				// an argument: novactl search help is a search).
				rest = append(slices.Clone(rest[1:]), "--help")
			}
			return c.run(ctx, inv, rest)
		}
	}
	// The error and a guess, not the whole usage under which they would
	// scroll away.
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	if strings.HasPrefix(args[0], "-") {
		// Flags are each command's own: "novactl --json doctor" means
		// "novactl doctor --json".
		if len(args) > 1 && slices.Contains(names, args[1]) {
			fmt.Fprintf(inv.Stderr, "novactl: %q goes after the command: novactl %s %s\n", args[0], args[1], args[0])
		} else {
			fmt.Fprintf(inv.Stderr, "novactl: unknown flag %q\nRun \"novactl --help\" for the list of commands.\n", args[0])
		}
		return ExitUsage
	}
	fmt.Fprintf(inv.Stderr, "novactl: unknown command %q%s\nRun \"novactl --help\" for the list of commands.\n", args[0], didYouMean(args[0], names))
	return ExitUsage
}

func usage(w io.Writer) {
	fmt.Fprint(w, `novactl is the operator's tool for Nova, a local, read-only memory service for AI agents.

Usage: novactl <command> [arguments]

Commands:
`)
	cmds := commands()
	sort.Slice(cmds, func(i, j int) bool { return cmds[i].name < cmds[j].name })
	for _, c := range cmds {
		fmt.Fprintf(w, "  %-10s  %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `
Run "novactl <command> --help" for a command's flags.
Exit status: 0 on success, 1 when the command fails, 2 on a usage error; a command's --help names any other.
Nova's runtime home is NOVA_HOME (default ~/.nova); settings are in NOVA_HOME/config.yaml (novactl config init writes the first).
`)
}

func runVersion(_ context.Context, inv *Invocation, args []string) int {
	fs := newFlags(inv, "novactl version", "novactl version [--json]", `Prints the version, commit and build date.
With --json: {"program", "version", "commit", "date", "modified", "goVersion", "platform"}, for scripts and bug reports.`)
	asJSON := fs.Bool("json", false, "print the build identity as JSON")
	pos, code := parseArgs(inv, fs, args)
	if code >= 0 {
		return code
	}
	if len(pos) > 0 {
		return usageError(inv, fs, fmt.Sprintf("unexpected argument %q", pos[0]))
	}
	if *asJSON {
		printJSON(inv.Stdout, struct {
			Program string `json:"program"`
			version.Info
		}{"novactl", version.Get()})
		return ExitOK
	}
	fmt.Fprintln(inv.Stdout, version.Get().Line("novactl"))
	return ExitOK
}

// newFlags returns a flag set that reports to stderr, with a usage text
// that goes to the flag set's output: stdout when the help is asked for
// (parseArgs), stderr when a bare command line prints it as its error.
func newFlags(inv *Invocation, name, synopsis, description string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(inv.Stderr)
	if inv.flagSets != nil {
		inv.flagSets(fs)
	}
	fs.Usage = func() {
		printUsage(fs.Output(), synopsis, description)
		var any bool
		fs.VisitAll(func(*flag.Flag) { any = true })
		if any {
			fmt.Fprint(fs.Output(), "\nFlags:\n")
			fs.PrintDefaults()
		}
	}
	return fs
}

// printUsage writes a command's usage line and description: on stdout
// when the help is asked for (--help, -h, help), so that it can be paged
// or searched, and on stderr only when it stands for a usage error.
func printUsage(w io.Writer, synopsis, description string) {
	fmt.Fprintf(w, "Usage: %s\n\n%s\n", synopsis, strings.TrimSpace(description))
}

// helpPointer is the line that follows a usage error of the command name
// ("novactl index"): the whole help would bury the error.
func helpPointer(name string) string {
	return fmt.Sprintf("Run \"%s --help\" for its usage.\n", name)
}

// missingVerb reports a command line of name ("novactl index") without
// one of its subcommands: one line with the ones it takes, and the pointer
// to the help, as any usage error. It returns ExitUsage.
func missingVerb(inv *Invocation, name string, verbs []verb) int {
	fmt.Fprintf(inv.Stderr, "%s: missing subcommand (want %s)\n%s", name, verbNames(verbs, ", "), helpPointer(name))
	return ExitUsage
}

// unknownVerb reports a word that is none of the subcommands of name
// ("novactl index"), with the ones it takes, the nearest, and the
// pointer to the help. It returns ExitUsage.
func unknownVerb(inv *Invocation, name, word string, verbs []verb) int {
	fmt.Fprintf(inv.Stderr, "%s: unknown subcommand %q (want %s)%s\n%s", name, word, verbNames(verbs, ", "), didYouMean(word, verbNameList(verbs)), helpPointer(name))
	return ExitUsage
}

// parseArgs parses flags that may appear before, between or after
// positional arguments ("novactl search "query" --json"), and returns the
// positional ones. It returns ExitOK for --help, ExitUsage for bad flags,
// and -1 to go on. A bad flag is one line, with the nearest flag when one
// is close, and a pointer to the help (the whole help buried it); with
// --json (wherever it stands) it is JSON on stdout, so that a script
// reading stdout always gets JSON.
func parseArgs(inv *Invocation, fs *flag.FlagSet, args []string) ([]string, int) {
	usage, quiet := fs.Usage, jsonRequested(fs, args)
	// The flag package would print the error and the whole usage: the
	// error is reported below, and the usage only when asked for.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	defer func() { fs.SetOutput(inv.Stderr); fs.Usage = usage }()
	var pos []string
	all := args
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				// Asked for, the help is the command's output.
				fs.SetOutput(inv.Stdout)
				usage()
				return nil, ExitOK
			}
			msg := flagValueError(fs, err) + unknownFlagGuess(fs, all)
			if quiet {
				printJSONError(inv.Stdout, msg)
			} else {
				fmt.Fprintf(inv.Stderr, "%s: %s\n%s", fs.Name(), msg, helpPointer(fs.Name()))
			}
			return nil, ExitUsage
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, -1
		}
		if rest[0] == "--" {
			return append(pos, rest[1:]...), -1
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// flagValueError is the flag package's error, with the "parse error" it
// gives for a value of the wrong kind (--top-k many, --json=maybe), which
// says nothing of what was wanted, replaced by the kind the flag takes.
func flagValueError(fs *flag.FlagSet, err error) string {
	msg := err.Error()
	head, ok := strings.CutSuffix(msg, ": parse error")
	if !ok {
		return msg
	}
	// head ends with the flag: `invalid value "many" for flag -top-k`.
	f := fs.Lookup(head[strings.LastIndex(head, " -")+2:])
	if f == nil {
		return msg
	}
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return msg
	}
	switch g.Get().(type) {
	case bool:
		return head + ": want true or false"
	case int, int64, uint, uint64:
		return head + ": want a whole number"
	case float64:
		return head + ": want a number"
	case time.Duration:
		return head + ": want a duration (65s, 2m)"
	}
	return msg
}

// flagSynonyms are flags other search tools name differently, by the
// name novactl gives them: no spelling guess finds --top-k in --limit.
var flagSynonyms = map[string]string{"limit": "top-k", "n": "top-k", "k": "top-k", "max-results": "top-k", "format": "json"}

// unknownFlagGuess returns didYouMean's guess for the first flag in args
// (up to "--") that fs does not define, or "".
func unknownFlagGuess(fs *flag.FlagSet, args []string) string {
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, "--"+f.Name) })
	for _, a := range args {
		if a == "--" {
			break
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && name != "" && fs.Lookup(name) == nil {
			if other := flagSynonyms[name]; other != "" && fs.Lookup(other) != nil {
				return fmt.Sprintf("; did you mean %q?", "--"+other)
			}
			return didYouMean("--"+name, names)
		}
	}
	return ""
}

// jsonRequested reports whether fs has the boolean --json flag and args
// (up to "--") turn it on. It reads args itself, since a bad flag stops
// parsing before a --json after it is seen.
func jsonRequested(fs *flag.FlagSet, args []string) bool {
	f := jsonFlag(fs)
	if f == nil {
		return false
	}
	on := f.Value.String() == "true"
	for _, a := range args {
		if a == "--" {
			break
		}
		name, value, hasValue := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), "=")
		if !strings.HasPrefix(a, "-") || name != "json" {
			continue
		}
		on = true
		if hasValue {
			on, _ = strconv.ParseBool(value)
		}
	}
	return on
}

// jsonFlag returns fs's --json flag when it is the boolean "print JSON"
// (bench's --json names a file instead), else nil.
func jsonFlag(fs *flag.FlagSet) *flag.Flag {
	if f := fs.Lookup("json"); f != nil && isBoolFlag(f) {
		return f
	}
	return nil
}

// usageError reports a command line that fs's command refuses after its
// flags parsed (an argument too many, a bad value): with --json as
// {"ok":false,"error":msg} on stdout, else on stderr after the command's
// name. It returns ExitUsage.
func usageError(inv *Invocation, fs *flag.FlagSet, msg string) int {
	f := jsonFlag(fs)
	return commandError(inv, f != nil && f.Value.String() == "true", fs.Name(), ExitUsage, msg)
}

// commandError reports an error that stops the command name ("novactl
// eval") before it has a result: with jsonOut as {"ok":false,"error":msg}
// on stdout (printJSONError), else as "name: msg" on stderr, followed for
// a usage error (code ExitUsage) by the pointer to name's help. It
// returns code, the exit status, which is the same in both forms.
func commandError(inv *Invocation, jsonOut bool, name string, code int, msg string) int {
	switch {
	case jsonOut:
		printJSONError(inv.Stdout, msg)
	case code == ExitUsage:
		fmt.Fprintf(inv.Stderr, "%s: %s\n%s", name, msg, helpPointer(name))
	default:
		fmt.Fprintf(inv.Stderr, "%s: %s\n", name, msg)
	}
	return code
}

// loadConfig loads the configuration, printing field errors on failure:
// on stderr, or with jsonOut through printJSONError.
func loadConfig(inv *Invocation, jsonOut bool) (config.Config, bool) {
	cfg, err := config.Load(inv.Environ)
	if err != nil {
		commandError(inv, jsonOut, "novactl", ExitFailure, configInvalid(err))
		return cfg, false
	}
	return cfg, true
}

// needUserHome returns an error when the user's home directory is not
// known: the agents keep their files under it, and without it ~/.codex
// would be .codex in whatever directory novactl runs in.
func needUserHome(environ []string) error {
	if !filepath.IsAbs(paths.UserHome(environ)) {
		return errors.New("cannot find your home directory, where the agents keep their files: set HOME")
	}
	return nil
}

// configInvalid says that the configuration is invalid and why, one field
// error a line.
func configInvalid(err error) string {
	return "the configuration is invalid:\n" + indent(err.Error())
}

func indent(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = "  " + l
	}
	return strings.Join(lines, "\n")
}

// printJSONError is how a command that documents --json reports an error
// that stopped it before it had a result: {"ok":false,"error":...} on
// stdout, the form of index --json, so that a script reading stdout always
// gets JSON. The exit status stays what it is in text.
func printJSONError(w io.Writer, msg string) {
	printJSON(w, map[string]any{"ok": false, "error": msg})
}

// printJSON writes v as indented JSON.
func printJSON(w io.Writer, v any) {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

func ragVerbs() []verb {
	return []verb{{"search-memory", "Search memory (the same as novactl search)"}}
}

func runRag(ctx context.Context, inv *Invocation, args []string) int {
	if len(args) > 0 && args[0] == "search-memory" {
		return search(ctx, inv, "novactl rag search-memory", args[1:])
	}
	const synopsis = `novactl rag search-memory "<query>" [flags]`
	const description = `The compatibility form of "novactl search": same flags, output and exit codes.`
	switch {
	case len(args) == 0:
		return missingVerb(inv, "novactl rag", ragVerbs())
	case args[0] == "-h" || args[0] == "-help" || args[0] == "--help":
		printUsage(inv.Stdout, synopsis, description)
		return ExitOK
	}
	return unknownVerb(inv, "novactl rag", args[0], ragVerbs())
}

func configVerbs() []verb {
	return []verb{
		{"show", "Print the effective configuration (the default)"},
		{"check", "Only validate it, with field errors"},
		{"get", "Print one value of it, for scripts (novactl config get server.port)"},
		{"init", "Write a first config.yaml with the agent memory found on this machine"},
	}
}

func runConfig(_ context.Context, inv *Invocation, args []string) int {
	// init reads no configuration: it writes the first one, or replaces
	// one that may not even parse.
	if i := slices.Index(args, "init"); i >= 0 && !slices.ContainsFunc(args[:i], func(a string) bool { return !strings.HasPrefix(a, "-") }) {
		return runConfigInit(inv, slices.Delete(slices.Clone(args), i, i+1))
	}
	fs := newFlags(inv, "novactl config", "novactl config [show|check] [--json] | novactl config get KEY [--json] | novactl config init [flags]",
		`show prints the effective configuration (defaults, then NOVA_HOME/config.yaml, then NOVA_* variables);
with --json it prints it with the file's keys, so that it can be saved as config.yaml.
check only validates it and exits non-zero with field errors; with --json it prints
{"ok":true,"home":...,"file":...} or {"ok":false,"error":...,"errors":[{"field":...,"env":...,"file":...,"line":...,"message":...}]}.
get prints the one value of the effective configuration at KEY, a dotted key of
show --json (server.host, server.port, facade.port, sources.0.path): a string as
it is, any other value as show --json gives it; with --json {"ok":true,"key":...,"value":...}.
An unknown key exits 2 with a field error (with --json, in check's form).
init writes a first config.yaml with the agent memory found on this machine
(novactl config init --help).`)
	jsonOut := fs.Bool("json", false, "print JSON")
	pos, code := parseArgs(inv, fs, args)
	if code >= 0 {
		return code
	}
	if len(pos) > 0 && !isVerb(configVerbs(), pos[0]) {
		return usageError(inv, fs, fmt.Sprintf("unknown subcommand %q (want %s)%s", pos[0], verbNames(configVerbs(), ", "), didYouMean(pos[0], verbNameList(configVerbs()))))
	}
	if len(pos) > 0 && pos[0] == "get" {
		switch {
		case len(pos) == 1:
			return commandError(inv, *jsonOut, fs.Name()+" get", ExitUsage, "missing KEY, a dotted key of novactl config show --json (server.port, say)")
		case len(pos) > 2:
			return commandError(inv, *jsonOut, fs.Name()+" get", ExitUsage, fmt.Sprintf("unexpected argument %q", pos[2]))
		}
	} else if len(pos) > 1 {
		// Named as the subcommand it follows, as config init's are.
		return commandError(inv, *jsonOut, fs.Name()+" "+pos[0], ExitUsage, fmt.Sprintf("unexpected argument %q", pos[1]))
	}
	cfg, err := config.Load(inv.Environ)
	if err != nil {
		if *jsonOut {
			printJSON(inv.Stdout, map[string]any{"ok": false, "error": configInvalid(err), "errors": config.Problems(err)})
		} else {
			fmt.Fprintf(inv.Stderr, "novactl: %s\n", configInvalid(err))
		}
		return ExitFailure
	}
	if len(pos) > 0 && pos[0] == "get" {
		return configGet(inv, cfg, pos[1], *jsonOut)
	}
	if len(pos) > 0 && pos[0] == "check" {
		if *jsonOut {
			printJSON(inv.Stdout, map[string]any{"ok": true, "home": cfg.Home.Root, "file": cfg.File})
			return ExitOK
		}
		fmt.Fprintf(inv.Stdout, "Configuration is valid (%s).\n", orNone(cfg.File))
		return ExitOK
	}
	if *jsonOut {
		printJSON(inv.Stdout, cfg.AsMap())
		return ExitOK
	}
	fmt.Fprintf(inv.Stdout, "home:      %s\nfile:      %s\nserver:    %s:%d (direct)  facade port %d\nembedding: %s\nretrieval: topK %d, budget %ds, %d concurrent searches, recency half-life %g days, dense %s\n",
		cfg.Home.Root, orNone(cfg.File), cfg.Server.Host, cfg.Server.Port, cfg.Facade.Port, embeddingLine(cfg.Embedding),
		cfg.Retrieval.TopK, cfg.Retrieval.LatencyBudgetSeconds, cfg.Retrieval.MaxConcurrentSearches, cfg.Retrieval.RecencyHalfLifeDays, cfg.Retrieval.DenseChannel)
	fmt.Fprintf(inv.Stdout, "sources:   %d\n", len(cfg.Sources))
	for _, s := range cfg.Sources {
		fmt.Fprintf(inv.Stdout, "  - %s (%s) %s\n", s.Name, s.Kind, s.Path)
	}
	return ExitOK
}

func orNone(s string) string {
	if s == "" {
		return "none (defaults)"
	}
	return s
}

// embeddingLine describes the embedder: for openai, the model and the
// endpoint memory text is sent to, flagged when it is off this machine,
// and the variable that holds the key (never the key). The endpoint of a
// loaded configuration has no user information or query (config refuses
// them), so it holds no secret.
func embeddingLine(e config.Embedding) string {
	if e.Provider != config.ProviderOpenAI {
		return fmt.Sprintf("%s dimension %d", e.Provider, e.Dimension)
	}
	line := fmt.Sprintf("%s model %s at %s dimension %d", e.Provider, e.Model, e.Endpoint, e.Dimension)
	if u, err := url.Parse(e.Endpoint); err == nil && !config.IsLoopbackHost(u.Hostname()) {
		line += ", not loopback: memory text leaves this machine (embedding.allowRemoteEndpoint)"
	}
	if e.APIKeyEnv != "" {
		line += ", key from $" + e.APIKeyEnv
	}
	return line
}
