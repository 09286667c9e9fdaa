package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestHelp_toStdout: help that is asked for (--help, -h, help as a
// subcommand, novactl help CMD) is the command's output: on stdout with
// exit 0 and nothing on stderr, for every command and every verb, so that
// "novactl search --help | less" shows it.
func TestHelp_toStdout(t *testing.T) {
	env := configHome(t, "server: {port: 0}\nfacade: {port: 0}\n")
	var lines [][]string
	for _, c := range commands() {
		lines = append(lines, []string{c.name, "--help"}, []string{c.name, "-h"}, []string{"help", c.name})
		if len(c.verbs) > 0 {
			lines = append(lines, []string{c.name, "help"})
		}
		for _, v := range c.verbs {
			lines = append(lines, []string{c.name, v.name, "--help"}, []string{c.name, "help", v.name})
		}
	}
	for _, args := range lines {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, out, errOut := runCLI(context.Background(), env, args...)
			if code != ExitOK || errOut != "" || !strings.Contains(out, "Usage: novactl") {
				t.Errorf("exit %d, stderr %q, stdout %.60q; want exit 0, the usage on stdout and nothing on stderr", code, errOut, out)
			}
		})
	}
}

// TestHelp_verbHelpIsTheVerbs: "novactl CMD help VERB" is VERB's own help,
// as "novactl CMD VERB --help" is, not the command's.
func TestHelp_verbHelpIsTheVerbs(t *testing.T) {
	env := configHome(t, "")
	_, want, _ := runCLI(context.Background(), env, "index", "list", "--help")
	code, out, errOut := runCLI(context.Background(), env, "index", "help", "list")
	if code != ExitOK || out != want || errOut != "" {
		t.Errorf("index help list: exit %d, stderr %q, stdout %q; want index list --help's %q", code, errOut, out, want)
	}
}

// TestUsageErrors_oneLineAndAPointer: a command line that is wrong is a
// usage error on stderr (exit 2, nothing on stdout): one line naming the
// problem, and a pointer to the command's --help, not the whole help.
func TestUsageErrors_oneLineAndAPointer(t *testing.T) {
	env := configHome(t, "server: {port: 0}\nfacade: {port: 0}\n")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"search", "--bogus"}, "novactl search: flag provided but not defined: -bogus"},
		{[]string{"index", "bogus"}, `novactl index: unknown subcommand "bogus"`},
		{[]string{"mcp", "bogus"}, `novactl mcp: unknown subcommand "bogus"`},
		{[]string{"skill", "bogus"}, `novactl skill: unknown subcommand "bogus"`},
		{[]string{"service", "bogus"}, `novactl service: unknown subcommand "bogus"`},
		{[]string{"rag", "bogus"}, `novactl rag: unknown subcommand "bogus"`},
		{[]string{"config", "bogus"}, `novactl config: unknown subcommand "bogus" (want show, check, get, init)`},
		{[]string{"completion", "powershell"}, `novactl completion: unknown shell "powershell"`},
		{[]string{"index", "watch", "--quiet", "0"}, "novactl index watch: --quiet must be positive"},
		{[]string{"tui", "--refresh", "1ms"}, "novactl tui: --refresh must be at least 1s"},
		// A missing argument or subcommand is one too, not the whole help.
		{[]string{"index"}, "novactl index: missing subcommand (want build, verify, promote, sync, rollback, list, watch)"},
		{[]string{"service"}, "novactl service: missing subcommand (want install, uninstall, start, stop, restart, status)"},
		{[]string{"skill"}, "novactl skill: missing subcommand (want install, uninstall, status)"},
		{[]string{"rag"}, "novactl rag: missing subcommand (want search-memory)"},
		{[]string{"completion"}, "novactl completion: missing shell (want bash, zsh, fish)"},
		{[]string{"eval"}, "novactl eval: --queries FILE is required"},
		{[]string{"eval", "locomo"}, "novactl eval locomo: the LoCoMo dataset PATH is required"},
		// search's usage errors start "Error:" (the compatibility form's).
		{[]string{"search"}, `Error: query is required: novactl search "<query>" [flags]`},
		{[]string{"rag", "search-memory", "--timeout", "0", "port"}, "Error: --timeout must be positive"},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, out, errOut := runCLI(context.Background(), env, tt.args...)
			name := "novactl " + tt.args[0]
			if len(tt.args) > 1 && (tt.args[1] == "search-memory" || tt.args[1] == "watch" || tt.args[1] == "locomo") {
				name += " " + tt.args[1]
			}
			wantErr := "Run \"" + name + " --help\""
			if code != ExitUsage || out != "" || !strings.HasPrefix(errOut, tt.want) || strings.Count(errOut, "\n") != 2 || !strings.Contains(errOut, wantErr) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and two lines: %q and %q", code, out, errOut, tt.want, wantErr)
			}
		})
	}
}

// TestHelp_topLevelAndTUI: novactl's own help, in each spelling the
// commands take (the flag package's -h, -help and --help), and
// novactl-tui's (RunTUI) are on stdout with exit 0 too.
func TestHelp_topLevelAndTUI(t *testing.T) {
	for _, arg := range []string{"-h", "-help", "--help", "help"} {
		code, out, errOut := runCLI(context.Background(), nil, arg)
		if code != ExitOK || errOut != "" || !strings.Contains(out, "Usage: novactl <command>") {
			t.Errorf("novactl %s: exit %d, stderr %q, stdout %.60q", arg, code, errOut, out)
		}
	}
	var out, errb bytes.Buffer
	inv := &Invocation{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Environ: []string{"NOVA_HOME=" + t.TempDir(), "HOME=" + t.TempDir()}}
	code := RunTUI(context.Background(), []string{"--help"}, inv, func(context.Context, TUISession) error {
		t.Error("novactl-tui --help started the TUI")
		return nil
	})
	if code != ExitOK || errb.Len() != 0 || !strings.HasPrefix(out.String(), "Usage: novactl tui") {
		t.Errorf("novactl-tui --help: exit %d, stderr %q, stdout %.60q", code, errb.String(), out.String())
	}
}
