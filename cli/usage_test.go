package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// usageCase is a command line and what novactl must answer: its exit
// status and a phrase that its output must contain: stdout for help asked
// for (exit 0), stderr for a usage error.
type usageCase struct {
	args []string
	code int
	says string
}

// runUsageCases runs each case against a home with an empty config, so
// that a command line that is wrongly accepted fails fast rather than
// reaching a server.
func runUsageCases(t *testing.T, cases []usageCase) {
	t.Helper()
	env := configHome(t, "server: {port: 0}\nfacade: {port: 0}\n")
	for _, tt := range cases {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, out, errOut := runCLI(context.Background(), env, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, out, errOut)
			}
			said, quiet := errOut, out
			if tt.code == ExitOK {
				said, quiet = out, errOut
			}
			if !strings.Contains(said, tt.says) || quiet != "" {
				t.Errorf("stdout %q, stderr %q; want only the one saying %q", out, errOut, tt.says)
			}
		})
	}
}

// TestRag_usage: rag without its one subcommand, or with another, is a
// usage error naming what was wrong, as it is for every other command.
func TestRag_usage(t *testing.T) {
	runUsageCases(t, []usageCase{
		{[]string{"rag"}, ExitUsage, "novactl rag: missing subcommand (want search-memory)"},
		{[]string{"rag", "bogus"}, ExitUsage, `unknown subcommand "bogus"`},
		{[]string{"rag", "--help"}, ExitOK, "Usage: novactl rag search-memory"},
		{[]string{"rag", "search-memory"}, ExitUsage, "query is required"},
	})
}

// TestCommands_rejectOthersFlagsAndArgs: each command and verb takes only
// its own flags and its documented arguments; anything else is a usage
// error naming it, before any work is done.
func TestCommands_rejectOthersFlagsAndArgs(t *testing.T) {
	runUsageCases(t, []usageCase{
		{[]string{"index", "build", "--to", "xyz"}, ExitUsage, "flag provided but not defined: -to"},
		{[]string{"index", "build", "extra"}, ExitUsage, `novactl index build: unexpected argument "extra"`},
		{[]string{"index", "sync", "foo"}, ExitUsage, `novactl index sync: unexpected argument "foo"`},
		// A folder to index (as make run's DIR=) is a source of config.yaml.
		{[]string{"index", "sync", "notes/"}, ExitUsage, `unexpected argument "notes/": index sync reads the sources of config.yaml (novactl config init --notes DIR adds a folder of notes)`},
		{[]string{"index", "sync", "--deep"}, ExitUsage, "flag provided but not defined: -deep"},
		{[]string{"index", "list", "--retrain"}, ExitUsage, "flag provided but not defined: -retrain"},
		{[]string{"index", "list", "extra"}, ExitUsage, `novactl index list: unexpected argument "extra"`},
		{[]string{"index", "verify", "--full"}, ExitUsage, "flag provided but not defined: -full"},
		{[]string{"index", "verify", "a", "b"}, ExitUsage, `novactl index verify: unexpected argument "b"`},
		{[]string{"index", "promote", "--in-process"}, ExitUsage, "flag provided but not defined: -in-process"},
		{[]string{"index", "rollback", "-v"}, ExitUsage, "flag provided but not defined: -v"},
		{[]string{"index", "rollback", "--to", "a", "b"}, ExitUsage, "name different run ids"},
		{[]string{"index", "list", "--help"}, ExitOK, "novactl index list [--deep] [--json]"},
		// A run id that cannot be one is a usage error, not a failure to find it.
		{[]string{"index", "promote", "bogus"}, ExitUsage, `novactl index promote: "bogus" is not a run id`},
		{[]string{"index", "verify", "20261205"}, ExitUsage, `novactl index verify: "20261205" is not a run id`},
		{[]string{"index", "rollback", "--to", "../x"}, ExitUsage, `novactl index rollback: "../x" is not a run id`},
		{[]string{"index", "rollback", "latest"}, ExitUsage, `novactl index rollback: "latest" is not a run id`},
		{[]string{"doctor", "extra"}, ExitUsage, `novactl doctor: unexpected argument "extra"`},
		{[]string{"status", "extra"}, ExitUsage, `novactl status: unexpected argument "extra"`},
		{[]string{"version", "foo"}, ExitUsage, `novactl version: unexpected argument "foo"`},
		{[]string{"config", "init", "extra"}, ExitUsage, `novactl config init: unexpected argument "extra"`},
		{[]string{"config", "init", "--deep"}, ExitUsage, "flag provided but not defined: -deep"},
		{[]string{"config", "init", "--help"}, ExitOK, "novactl config init [--notes DIR]... [--exports DIR]... [--force] [--dry-run] [--json]"},
		{[]string{"config", "--json", "init", "--help"}, ExitOK, "novactl config init [--notes DIR]"},
		{[]string{"version", "--deep"}, ExitUsage, "flag provided but not defined: -deep"},
		// The compatibility form names itself, not novactl search.
		{[]string{"rag", "search-memory", "--help"}, ExitOK, `Usage: novactl rag search-memory "<query>" [flags]`},
		{[]string{"rag", "search-memory", "  "}, ExitUsage, `query is required: novactl rag search-memory "<query>" [flags]`},
		{[]string{"eval", "--queries", "cases.jsonl", "extra"}, ExitUsage, `novactl eval: unexpected argument "extra"`},
		{[]string{"bench", "extra"}, ExitUsage, `novactl bench: unexpected argument "extra"`},
		{[]string{"config", "bogus"}, ExitUsage, `novactl config: unknown subcommand "bogus"`},
		{[]string{"config", "check", "extra"}, ExitUsage, `novactl config check: unexpected argument "extra"`},
		{[]string{"completion", "powershell"}, ExitUsage, `novactl completion: unknown shell "powershell"`},
		{[]string{"completion", "bash", "extra"}, ExitUsage, `novactl completion: unexpected argument "extra"`},
		{[]string{"completion"}, ExitUsage, "novactl completion: missing shell (want bash, zsh, fish)"},
		{[]string{"eval", "locomo", "a.json", "b.json"}, ExitUsage, `novactl eval locomo: unexpected argument "b.json"`},
		// Refused before the dataset is read and indexed (a.json need not exist).
		{[]string{"eval", "locomo", "--ablate", "context,telepathy", "a.json"}, ExitUsage, `novactl eval locomo: --ablate: unknown lever "telepathy"`},
		{[]string{"eval", "locomo", "--misses", "-1", "a.json"}, ExitUsage, "novactl eval locomo: --misses must be 0 (off) to 20"},
		{[]string{"bench", "fresh", "extra"}, ExitUsage, `novactl bench fresh: unexpected argument "extra"`},
		// --command is install's: its synopsis shows it, uninstall
		// neither lists nor takes it.
		{[]string{"mcp", "install", "--help"}, ExitOK, "novactl mcp install [--agent ID[,ID...]|all] [--command PATH] [--dry-run]"},
		{[]string{"mcp", "uninstall", "--command", "/x/novactl"}, ExitUsage, "flag provided but not defined: -command"},
	})
}

// TestJSONErrors: a command that documents --json reports an error that
// stops it before a result as {"ok":false,"error":...} on stdout, with
// nothing on stderr and the exit status of the text form.
func TestJSONErrors(t *testing.T) {
	dir := t.TempDir()
	cases := filepath.Join(dir, "cases.jsonl")
	if err := os.WriteFile(cases, []byte(`{"id":"a","query":"port","expect":{"relevantIds":["x"]}}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + ln.Addr().String() // nothing listens once closed
	ln.Close()
	bad := configHome(t, "server: {port: nope}\n")
	plain := configHome(t, "")
	for _, tt := range []struct {
		name string
		env  []string
		args []string
		code int
		want string
	}{
		{"eval with novad down", nil, []string{"eval", "--queries", cases, "--facade-url", down, "--json"}, ExitFailure, "novad is not running"},
		{"eval with an invalid config", bad, []string{"eval", "--queries", cases, "--json"}, ExitFailure, "server.port: must be an integer"},
		{"eval with unreadable cases", nil, []string{"eval", "--queries", filepath.Join(dir, "none.jsonl"), "--json"}, ExitUsage, "none.jsonl"},
		{"eval with a facade URL without a scheme", nil, []string{"eval", "--queries", cases, "--facade-url", "127.0.0.1:3036", "--json"}, ExitUsage, `--facade-url must be a URL such as http://127.0.0.1:3036 (got "127.0.0.1:3036")`},
		// Seconds, as search takes them: "3" was refused as a parse error.
		{"eval with a timeout in seconds", nil, []string{"eval", "--queries", cases, "--facade-url", down, "--timeout", "3", "--json"}, ExitFailure, "novad is not running"},
		{"eval with a zero timeout", nil, []string{"eval", "--queries", cases, "--facade-url", down, "--timeout", "0", "--json"}, ExitUsage, "--timeout must be positive (got 0s)"},
		{"eval locomo with no dataset", nil, []string{"eval", "locomo", filepath.Join(dir, "none.json"), "--json"}, ExitUsage, "none.json"},
		{"index with an invalid config", bad, []string{"index", "list", "--json"}, ExitFailure, "server.port: must be an integer"},
		{"search with an invalid config", bad, []string{"search", "foo", "--json"}, ExitFailure, "server.port: must be an integer"},
		{"skill install for an unknown agent", plain, []string{"skill", "install", "--agent", "bogus", "--json"}, ExitUsage, `unknown agent "bogus"`},
		{"skill uninstall for an unknown agent", plain, []string{"skill", "uninstall", "--agent", "bogus", "--json"}, ExitUsage, `unknown agent "bogus"`},
		{"skill status for an unknown agent", plain, []string{"skill", "status", "--agent", "bogus", "--json"}, ExitUsage, `unknown agent "bogus"`},
		{"mcp status for an unknown agent", plain, []string{"mcp", "status", "--agent", "bogus", "--json"}, ExitUsage, `unknown agent "bogus"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(context.Background(), tt.env, tt.args...)
			var got struct {
				OK    *bool
				Error string
			}
			if err := json.Unmarshal([]byte(out), &got); err != nil || got.OK == nil || *got.OK || !strings.Contains(got.Error, tt.want) {
				t.Errorf("stdout %q (%v), want {\"ok\":false,\"error\":...} saying %q", out, err, tt.want)
			}
			if code != tt.code || errOut != "" {
				t.Errorf("exit %d, stderr %q; want exit %d and nothing on stderr", code, errOut, tt.code)
			}
		})
	}
}

// TestBareNovactl: novactl alone is a usage error, so its usage goes to
// stderr with exit 2; asked for (--help) it goes to stdout with exit 0.
func TestBareNovactl(t *testing.T) {
	code, out, errOut := runCLI(context.Background(), []string{"HOME=/nonexistent"})
	if code != ExitUsage || out != "" || !strings.Contains(errOut, "Usage: novactl") {
		t.Errorf("bare: exit %d, stdout %q, stderr %.40q", code, out, errOut)
	}
	code, out, errOut = runCLI(context.Background(), []string{"HOME=/nonexistent"}, "--help")
	if code != ExitOK || errOut != "" || !strings.Contains(out, "Usage: novactl") {
		t.Errorf("--help: exit %d, stdout %.40q, stderr %q", code, out, errOut)
	}
}

// TestAgentCommands_needTheUserHome: without HOME the agents' files have
// no place (~/.codex would be .codex in whatever directory novactl runs
// in), so the commands that find or write them refuse, saying so, with
// NOVA_HOME set or not.
func TestAgentCommands_needTheUserHome(t *testing.T) {
	t.Setenv("HOME", "") // what paths.UserHome falls back to
	env := []string{"NOVA_HOME=" + t.TempDir()}
	novactl := filepath.Join(t.TempDir(), "novactl")
	if err := os.WriteFile(novactl, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	// Dry runs, so that a command that goes ahead writes nothing where
	// the test runs.
	for _, args := range [][]string{
		{"skill", "install", "--agent", "codex", "--dry-run"},
		{"skill", "uninstall", "--dry-run"},
		{"skill", "status"},
		{"mcp", "install", "--agent", "codex", "--dry-run", "--command", novactl},
		{"mcp", "uninstall", "--dry-run"},
		{"mcp", "status", "--command", novactl},
		{"config", "init", "--dry-run"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, out, errOut := runCLI(context.Background(), env, args...)
			if code != ExitFailure || !strings.Contains(errOut, "cannot find your home directory") || out != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 and %q", code, out, errOut, "cannot find your home directory")
			}
			code, out, _ = runCLI(context.Background(), env, append(args, "--json")...)
			if args[0] == "mcp" && args[1] != "status" {
				return // install and uninstall print no JSON
			}
			if code != ExitFailure || !strings.Contains(out, `"ok": false`) || !strings.Contains(out, "cannot find your home directory") {
				t.Errorf("--json: exit %d, stdout %q; want exit 1 and a JSON error", code, out)
			}
		})
	}
}

// TestHelpCommand: novactl help COMMAND is COMMAND's help, as
// novactl COMMAND --help, not the list of commands; an unknown one is a
// usage error naming it.
func TestHelpCommand(t *testing.T) {
	env := []string{"HOME=/nonexistent"}
	code, out, errOut := runCLI(context.Background(), env, "help", "search")
	_, want, _ := runCLI(context.Background(), env, "search", "--help")
	if code != ExitOK || errOut != "" || want == "" || out != want {
		t.Errorf("help search: exit %d, stdout %.60q, stderr %.60q; want exit 0 and search's help %.60q", code, out, errOut, want)
	}
	code, out, errOut = runCLI(context.Background(), env, "help", "bogus")
	if code != ExitUsage || out != "" || !strings.Contains(errOut, `unknown command "bogus"`) {
		t.Errorf("help bogus: exit %d, stdout %.60q, stderr %.60q; want exit 2 naming it", code, out, errOut)
	}
}

// TestUnknownWords_suggest: a mistyped command or subcommand is a usage
// error that names the nearest one, so the person need not read the whole
// list to find the typo; a word near none gets no guess.
func TestUnknownWords_suggest(t *testing.T) {
	runUsageCases(t, []usageCase{
		{[]string{"serch", "port"}, ExitUsage, `unknown command "serch"; did you mean "search"?`},
		{[]string{"doctr"}, ExitUsage, `did you mean "doctor"?`},
		{[]string{"indx", "sync"}, ExitUsage, `did you mean "index"?`},
		{[]string{"index", "snyc"}, ExitUsage, `unknown subcommand "snyc" (want build, verify, promote, sync, rollback, list, watch); did you mean "sync"?`},
		{[]string{"config", "chek"}, ExitUsage, `did you mean "check"?`},
		{[]string{"service", "statu"}, ExitUsage, `did you mean "status"?`},
		{[]string{"skill", "instal"}, ExitUsage, `did you mean "install"?`},
		{[]string{"mcp", "unistall"}, ExitUsage, `did you mean "uninstall"?`},
		{[]string{"rag", "search"}, ExitUsage, `did you mean "search-memory"?`},
		{[]string{"completion", "zhs"}, ExitUsage, `did you mean "zsh"?`},
	})
	// A word near no verb still gets the list, as mcp and skill give it,
	// not a bare "unknown subcommand".
	runUsageCases(t, []usageCase{
		{[]string{"index", "bogus"}, ExitUsage, `novactl index: unknown subcommand "bogus" (want build, verify, promote, sync, rollback, list, watch)`},
	})
	// A flag before the command is a command line of another shape.
	runUsageCases(t, []usageCase{
		{[]string{"--json", "doctor"}, ExitUsage, `novactl: "--json" goes after the command: novactl doctor --json`},
		{[]string{"-v"}, ExitUsage, `novactl: unknown flag "-v"`},
	})
	env := configHome(t, "")
	_, _, errOut := runCLI(context.Background(), env, "xylophone")
	if strings.Contains(errOut, "did you mean") || !strings.Contains(errOut, `novactl --help`) {
		t.Errorf("a word near no command: stderr %q; want no guess and a pointer to novactl --help", errOut)
	}
}

// TestJSONUsageErrors: with --json, a command line novactl refuses (a
// flag it does not know or whose value does not parse, an argument too
// many) is answered {"ok":false,"error":...} on stdout with exit 2, where
// --json stands, before the bad flag or after it; stdout held nothing, so
// a script reading it failed to parse instead of reading the error.
func TestJSONUsageErrors(t *testing.T) {
	env := configHome(t, "server: {port: 0}\nfacade: {port: 0}\n")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"search", "--json", "--top-k", "abc", "port"}, `invalid value "abc" for flag -top-k`},
		{[]string{"search", "port", "--timeout", "soon", "--json"}, `invalid value "soon" for flag -timeout`},
		{[]string{"search", "port", "--bogus", "--json"}, "flag provided but not defined: -bogus"},
		{[]string{"search", "--json=true", "--bogus", "port"}, "flag provided but not defined: -bogus"},
		{[]string{"doctor", "--json", "extra"}, `unexpected argument "extra"`},
		{[]string{"status", "extra", "--json"}, `unexpected argument "extra"`},
		{[]string{"index", "list", "extra", "--json"}, `unexpected argument "extra"`},
		{[]string{"index", "sync", "--deep", "--json"}, "flag provided but not defined: -deep"},
		{[]string{"index", "rollback", "--to", "a", "b", "--json"}, "name different run ids"},
		{[]string{"index", "promote", "bogus", "--json"}, `"bogus" is not a run id`},
		{[]string{"config", "check", "extra", "--json"}, `unexpected argument "extra"`},
		{[]string{"config", "bogus", "--json"}, `unknown subcommand "bogus"`},
		{[]string{"eval", "--queries", "cases.jsonl", "extra", "--json"}, `unexpected argument "extra"`},
		{[]string{"eval", "locomo", "--misses", "-1", "a.json", "--json"}, "--misses must be 0 (off) to 20"},
		{[]string{"eval", "--json"}, "--queries FILE is required"},
		{[]string{"eval", "locomo", "--json"}, "PATH is required"},
		{[]string{"mcp", "status", "extra", "--json"}, `unexpected argument "extra"`},
		{[]string{"service", "status", "extra", "--json"}, `unexpected argument "extra"`},
		{[]string{"skill", "status", "--bogus", "--json"}, "flag provided but not defined: -bogus"},
		{[]string{"version", "extra", "--json"}, `unexpected argument "extra"`},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, out, errOut := runCLI(context.Background(), env, tt.args...)
			var got struct {
				OK    *bool
				Error string
			}
			if err := json.Unmarshal([]byte(out), &got); err != nil || got.OK == nil || *got.OK || !strings.Contains(got.Error, tt.want) {
				t.Errorf("stdout %q (%v), want {\"ok\":false,\"error\":...} saying %q", out, err, tt.want)
			}
			if code != ExitUsage || errOut != "" {
				t.Errorf("exit %d, stderr %q; want exit 2 and nothing on stderr", code, errOut)
			}
		})
	}
	// Asked for, the help is still the help, once: on stdout, exit 0.
	for _, args := range [][]string{{"doctor", "--json", "--help"}, {"doctor", "--help"}, {"search", "-h", "--json"}} {
		code, out, errOut := runCLI(context.Background(), env, args...)
		if code != ExitOK || errOut != "" || strings.Count(out, "Usage: novactl") != 1 || strings.Count(out, "\n  -json\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 0 and the help once on stdout, with its flags", args, code, out, errOut)
		}
	}
	// Without --json the text form is unchanged.
	code, out, errOut := runCLI(context.Background(), env, "doctor", "extra")
	if code != ExitUsage || out != "" || !strings.Contains(errOut, `novactl doctor: unexpected argument "extra"`) {
		t.Errorf("doctor extra: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestBadFlag_saysWhatAndWhere: a flag a command does not know, or whose
// value does not parse, is one error line (with the nearest flag, when
// one is close) and a pointer to the command's help, not the whole help,
// under which the error scrolled away.
func TestBadFlag_saysWhatAndWhere(t *testing.T) {
	env := configHome(t, "server: {port: 0}\nfacade: {port: 0}\n")
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"search", "--topk", "3", "port"}, []string{`flag provided but not defined: -topk; did you mean "--top-k"?`, `Run "novactl search --help" for its usage.`}},
		{[]string{"index", "sync", "--ful"}, []string{`did you mean "--full"?`, `Run "novactl index sync --help"`}},
		// The flag package's "parse error" names no kind: what the flag takes does.
		{[]string{"search", "--top-k", "many", "port"}, []string{`invalid value "many" for flag -top-k: want a whole number` + "\n", `Run "novactl search --help"`}},
		{[]string{"doctor", "--json=maybe"}, []string{`invalid boolean value "maybe" for -json: want true or false` + "\n"}},
		{[]string{"eval", "locomo", "--min-r1", "high", "a.json"}, []string{`invalid value "high" for flag -min-r1: want a number` + "\n"}},
		{[]string{"doctor", "--xyzzy"}, []string{"flag provided but not defined: -xyzzy\n"}},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, out, errOut := runCLI(context.Background(), env, tt.args...)
			if code != ExitUsage || out != "" || strings.Contains(errOut, "Flags:") {
				t.Errorf("exit %d, stdout %q; want exit 2, nothing on stdout and no full help:\n%s", code, out, errOut)
			}
			for _, w := range tt.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr does not say %q:\n%s", w, errOut)
				}
			}
		})
	}
	_, out, _ := runCLI(context.Background(), env, "search", "--topk", "3", "port", "--json")
	if !strings.Contains(out, `did you mean \"--top-k\"?`) {
		t.Errorf("--json: %s", out)
	}
}

// TestHelp_exitStatusStated: README promises that --help tells a
// command's exit status. A command whose own --help does not state it
// follows the rule novactl --help states, which must then be there and
// name the codes novactl returns.
func TestHelp_exitStatusStated(t *testing.T) {
	_, top, _ := runCLI(context.Background(), nil, "--help")
	rule := fmt.Sprintf("Exit status: %d on success, %d when the command fails, %d on a usage error", ExitOK, ExitFailure, ExitUsage)
	var silent []string
	for _, c := range commands() {
		_, out, _ := runCLI(context.Background(), nil, c.name, "--help")
		if !strings.Contains(out, "Exit status") {
			silent = append(silent, c.name)
		}
	}
	if len(silent) > 0 && !strings.Contains(top, rule) {
		t.Errorf("novactl %s --help state no exit status, and novactl --help does not give the rule they follow (%q):\n%s",
			strings.Join(silent, ", "), rule, top)
	}
}
