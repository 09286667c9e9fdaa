package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/bench"
	"github.com/nova-recall/nova/completion"
	"github.com/nova-recall/nova/eval"
)

// TestCompletion_TreeIsTheCommandTable checks that the tree the scripts are
// generated from is the command table novactl dispatches on: the same
// commands in the same order, each verb accepted by its command and named
// in its help, any other verb refused, and the flags the commands define.
func TestCompletion_TreeIsTheCommandTable(t *testing.T) {
	tree := completionTree(t.Context())
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	var got []string
	for _, c := range tree.Subcommands {
		got = append(got, c.Name)
	}
	if !slices.Equal(got, names) {
		t.Fatalf("tree commands %v, command table %v", got, names)
	}
	env := []string{"NOVA_HOME=" + t.TempDir(), "HOME=" + t.TempDir()}
	for _, c := range commands() {
		if len(c.verbs) == 0 {
			continue
		}
		_, help, _ := runCLI(t.Context(), env, c.name, "--help")
		for _, v := range c.verbs {
			if !regexp.MustCompile(`\b` + regexp.QuoteMeta(v.name) + `\b`).MatchString(help) {
				t.Errorf("novactl %s --help does not name its verb %q:\n%s", c.name, v.name, help)
			}
			if code, _, errOut := runCLI(t.Context(), env, c.name, v.name, "--help"); code != ExitOK {
				t.Errorf("novactl %s %s --help: exit %d, want 0 (is the verb dispatched?)\n%s", c.name, v.name, code, errOut)
			}
		}
	}
	for _, name := range []string{"index", "service", "skill", "mcp", "config", "completion"} {
		if code, _, _ := runCLI(t.Context(), env, name, "no-such-verb"); code != ExitUsage {
			t.Errorf("novactl %s no-such-verb: exit %d, want %d", name, code, ExitUsage)
		}
	}

	flagsOf := func(path ...string) map[string]bool {
		n := tree
		for _, w := range path {
			i := slices.IndexFunc(n.Subcommands, func(c completion.Command) bool { return c.Name == w })
			if i < 0 {
				t.Fatalf("no node %v", path)
			}
			n = n.Subcommands[i]
		}
		m := map[string]bool{}
		for _, f := range n.Flags {
			m[f.Spelling()] = f.TakesValue
		}
		return m
	}
	for _, c := range []struct {
		path  []string
		flag  string
		value bool
	}{
		{[]string{"index", "sync"}, "--prune-missing", false},
		{[]string{"index", "rollback"}, "--to", true},
		{[]string{"index", "build"}, "-v", false},
		{[]string{"search"}, "--top-k", true},
		{[]string{"search"}, "--tag", true},
		{[]string{"search"}, "--json", false},
		{[]string{"rag", "search-memory"}, "--project", true},
		{[]string{"service", "install"}, "--novad", true},
		{[]string{"service", "status"}, "--dry-run", false},
		{[]string{"skill", "install"}, "--force", false},
		{[]string{"mcp"}, "-v", false},
		{[]string{"mcp", "install"}, "--agent", true},
		{[]string{"tui"}, "--refresh", true},
		{[]string{"eval", "locomo"}, "--json", false},
	} {
		value, ok := flagsOf(c.path...)[c.flag]
		if !ok || value != c.value {
			t.Errorf("%v: flag %s present=%v takesValue=%v, want present, takesValue=%v", c.path, c.flag, ok, value, c.value)
		}
	}
	if _, ok := flagsOf("skill", "uninstall")["--force"]; ok {
		t.Errorf("skill uninstall offers --force, which only install defines")
	}
}

// TestCompletion_FlagValues checks the fixed value sets the scripts offer
// for a flag's value: each flag that takes one of a few words has them,
// and running the command shows that they are exactly what it accepts:
// every offered value passes the flag's check, a word outside the set is
// a usage error.
func TestCompletion_FlagValues(t *testing.T) {
	tree := completionTree(t.Context())
	// The command line that exercises each flag without changing
	// anything, and the error that refuses a value outside the set.
	type probe struct {
		args   []string
		config string // written to NOVA_HOME/config.yaml first
	}
	// A dataset of two turns: a valid lever runs on it (0) in a moment,
	// where a missing one would be a usage error (2) like the lever's.
	locomo := filepath.Join(t.TempDir(), "locomo.json")
	if err := os.WriteFile(locomo, []byte(`[{"sample_id":"c1","conversation":{"session_1":[{"speaker":"A","dia_id":"D1:1","text":"I adopted a puppy."},`+
		`{"speaker":"B","dia_id":"D1:2","text":"Nice."}]},"qa":[{"question":"What did A adopt?","evidence":["D1:1"],"category":4}]}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	probes := map[string]probe{
		"mcp install --agent":      {args: []string{"--dry-run"}},
		"mcp uninstall --agent":    {args: []string{"--dry-run"}},
		"mcp status --agent":       {args: []string{"--json"}},
		"skill install --agent":    {args: []string{"--dry-run"}},
		"skill uninstall --agent":  {args: []string{"--dry-run"}},
		"skill status --agent":     {args: []string{"--json"}},
		"index watch --log-format": {config: "sources: [\n"}, // a valid format reaches the config, which fails (78)
		"eval locomo --ablate":     {args: []string{locomo}},
		// Valid systems reach the CPU profile, whose folder is missing
		// (1), before any benchmark starts.
		"bench --systems": {args: []string{"--no-daemon", "--cpuprofile", "/nonexistent/nova-bench.prof"}},
	}
	var valued []string
	var walk func(path []string, c completion.Command)
	walk = func(path []string, c completion.Command) {
		for _, f := range c.Flags {
			if len(f.Values) == 0 {
				continue
			}
			key := strings.Join(append(slices.Clone(path), f.Spelling()), " ")
			valued = append(valued, key)
			p, ok := probes[key]
			if !ok {
				t.Errorf("%s offers %v and this test has no way to run it", key, f.Values)
				continue
			}
			if !f.TakesValue {
				t.Errorf("%s offers values but takes none", key)
			}
			run := func(value string) (int, string) {
				home := t.TempDir()
				nova := filepath.Join(home, ".nova")
				if p.config != "" {
					if err := os.MkdirAll(nova, 0o700); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(filepath.Join(nova, "config.yaml"), []byte(p.config), 0o600); err != nil {
						t.Fatal(err)
					}
				}
				args := append(append(slices.Clone(path), f.Spelling(), value), p.args...)
				code, _, errOut := runCLI(t.Context(), []string{"HOME=" + home, "NOVA_HOME=" + nova}, args...)
				return code, errOut
			}
			for _, v := range f.Values {
				if code, errOut := run(v); code == ExitUsage {
					t.Errorf("%s %s: the script offers it, the command refuses it (exit %d): %s", key, v, code, errOut)
				}
			}
			if code, _ := run("no-such-value"); code != ExitUsage {
				t.Errorf("%s no-such-value: exit %d, want %d: is the set of values really fixed?", key, code, ExitUsage)
			}
			if f.List {
				// A list: two offered values together pass, and one
				// word outside the set among them is refused.
				if code, errOut := run(f.Values[0] + "," + f.Values[1]); code == ExitUsage {
					t.Errorf("%s %s,%s: the script offers a list, the command refuses it: %s", key, f.Values[0], f.Values[1], errOut)
				}
				if code, _ := run(f.Values[0] + ",no-such-value"); code != ExitUsage {
					t.Errorf("%s %s,no-such-value: exit %d, want %d", key, f.Values[0], code, ExitUsage)
				}
			}
		}
		for _, s := range c.Subcommands {
			walk(append(slices.Clone(path), s.Name), s)
		}
	}
	walk(nil, tree)
	for key := range probes {
		if !slices.Contains(valued, key) {
			t.Errorf("%s offers no values; it takes one of a fixed set", key)
		}
	}
}

// completionScript writes novactl's script for shell to a temp file.
func completionScript(t *testing.T, shell string) string {
	t.Helper()
	code, out, errOut := runCLI(t.Context(), nil, "completion", shell)
	if code != ExitOK || out == "" {
		t.Fatalf("novactl completion %s: exit %d, stderr %s", shell, code, errOut)
	}
	p := filepath.Join(t.TempDir(), "novactl."+shell)
	if err := os.WriteFile(p, []byte(out), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// shellCmd runs a shell found on PATH (skipping the test when it is not
// installed) in a private HOME, with a time limit.
func shellCmd(t *testing.T, shell string, args ...string) *exec.Cmd {
	t.Helper()
	bin, err := exec.LookPath(shell)
	if err != nil {
		t.Skipf("%s is not installed (.ci/run installs it)", shell)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, bin, args...)
	home := t.TempDir()
	// An empty working directory: a completion that falls back to file
	// names must not pass for the script's (cli's own index.go completes
	// "novactl ind").
	cmd.Dir = home
	cmd.Env = []string{"HOME=" + home, "ZDOTDIR=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local/share"), "PATH=" + os.Getenv("PATH"), "TERM=dumb", "LANG=C.UTF-8"}
	return cmd
}

func runShell(t *testing.T, shell string, args ...string) string {
	t.Helper()
	out, err := shellCmd(t, shell, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", shell, args, err, out)
	}
	return string(out)
}

func TestCompletion_Bash(t *testing.T) {
	script := completionScript(t, "bash")
	runShell(t, "bash", "-n", script)

	// Every node of the tree, as the script's own lookup returns it.
	var probe strings.Builder
	probe.WriteString("source \"$1\"\n")
	var want []string
	var walk func(path string, c completion.Command)
	walk = func(path string, c completion.Command) {
		probe.WriteString("__novactl_node '" + path + "'; printf '%s|%s|%s\\n' \"$subs\" \"$flags\" \"$vflags\"\n")
		var subs, flags, vflags []string
		for _, s := range c.Subcommands {
			subs = append(subs, s.Name)
		}
		for _, f := range c.Flags {
			flags = append(flags, f.Spelling())
			if f.TakesValue {
				vflags = append(vflags, f.Spelling())
			}
		}
		want = append(want, strings.Join(subs, " ")+"|"+strings.Join(flags, " ")+"|"+strings.Join(vflags, " "))
		for _, s := range c.Subcommands {
			walk(strings.TrimSpace(path+" "+s.Name), s)
		}
	}
	walk("", completionTree(t.Context()))
	got := strings.Split(strings.TrimRight(runShell(t, "bash", "--norc", "--noprofile", "-c", probe.String(), "bash", script), "\n"), "\n")
	if !slices.Equal(got, want) {
		t.Fatalf("bash script nodes differ from the tree:\n got %q\nwant %q", got, want)
	}

	// Completion as bash runs it: COMP_WORDS/COMP_CWORD in, COMPREPLY out.
	drive := `source "$1"; complete -p novactl
shift
for line in "$@"; do
  read -ra COMP_WORDS <<<"$line"
  [[ "$line" == *" " ]] && COMP_WORDS+=("")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMPREPLY=()
  _novactl
  echo "${line}=>${COMPREPLY[*]}"
done`
	out := runShell(t, "bash", "--norc", "--noprofile", "-c", drive, "bash", script,
		"novactl ind", "novactl index s", "novactl index sync --pr", "novactl search --project index --js",
		"novactl service install --novad ", "novactl completion ", "novactl bogus ", "novactl search why --js",
		"novactl mcp install --agent ", "novactl index watch --log-format j",
		// --agent=co and --agent= as bash splits them (= breaks words).
		"novactl mcp status --agent = co", "novactl skill status --agent =",
		// Comma-separated lists complete the word after the last comma.
		"novactl mcp install --agent claude-code,co", "novactl skill install --agent=codex,g",
		"novactl mcp status --agent = codex,", "novactl eval locomo --ablate ", "novactl bench --systems nova,")
	for _, want := range []string{
		"complete -o default -F _novactl novactl",
		"novactl ind=>index\n",
		"novactl index s=>sync\n",
		"novactl index sync --pr=>--prune-missing\n",
		"novactl search --project index --js=>--json\n", // "index" is --project's value, not the command
		"novactl service install --novad =>\n",          // a path: bash's default completes it
		"novactl completion =>bash zsh fish\n",
		"novactl bogus =>\n", // an argument: no command can follow it
		"novactl search why --js=>--json\n",
		"novactl mcp install --agent =>claude-code codex gemini openclaw hermes cursor windsurf all\n",
		"novactl index watch --log-format j=>json\n",
		"novactl mcp status --agent = co=>codex\n",
		"novactl skill status --agent ==>claude-code codex gemini openclaw hermes cursor windsurf all\n",
		"novactl mcp install --agent claude-code,co=>claude-code,codex\n",
		"novactl skill install --agent=codex,g=>--agent=codex,gemini\n",
		"novactl mcp status --agent = codex,=>codex,claude-code codex,codex codex,gemini codex,openclaw codex,hermes codex,cursor codex,windsurf codex,all\n",
		"novactl eval locomo --ablate =>" + strings.Join(append(eval.SortedLevers(), "all"), " ") + "\n",
		"novactl bench --systems nova,=>nova," + strings.Join(append(slices.Clone(bench.DefaultSystems), "none"), " nova,") + "\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("bash completion lacks %q:\n%s", want, out)
		}
	}
}

// TestCompletion_BashLoadLine runs the line novactl completion --help
// gives for loading the bash script now, in bash, and checks that it
// registers the completion. The line must also work in bash 3.2, macOS's
// /bin/bash, where "source <(...)" reads nothing (bash reads a sourced
// file by its size, which is 0 for a pipe; fixed in 4.0): it may not
// source a process substitution.
func TestCompletion_BashLoadLine(t *testing.T) {
	_, help, _ := runCLI(t.Context(), nil, "completion", "--help")
	var line string
	for l := range strings.SplitSeq(help, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(l), "bash "); ok {
			line = strings.TrimSpace(rest)
		}
	}
	if line == "" {
		t.Fatalf("novactl completion --help gives no bash line:\n%s", help)
	}
	if strings.Contains(strings.ReplaceAll(line, " ", ""), "<(") {
		t.Errorf("the bash line %q sources a process substitution, which bash 3.2 (macOS) reads as empty", line)
	}
	// novactl on PATH: a stand-in that prints this novactl's script.
	script := completionScript(t, "bash")
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "novactl"), []byte("#!/bin/sh\nexec cat '"+script+"'\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	cmd := shellCmd(t, "bash", "--norc", "--noprofile", "-c", line+"\ncomplete -p novactl")
	cmd.Env = append(cmd.Env, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "complete -o default -F _novactl novactl") {
		t.Errorf("bash -c %q: %v\n%s", line, err, out)
	}
}

// zshDriver types into an interactive zsh on a pseudo-terminal (zpty), so
// zsh's own completion system (compinit, _describe, _files) runs the
// script: it runs $1 (the shell's setup, as a ~/.zshrc would, with
// SCRIPT for the script's path), then for each line it types the line and
// a TAB, and prints the edited buffer behind the marker "GOT2:".
const zshDriver = `zmodload zsh/zpty
setup=$1; shift
zpty -b z 'zsh -f -i'
zpty -w z "PS1='> '; $setup; novactl() { :; }"
for line in "$@"; do
  zpty -w -n z "$line"$'\t'
  zpty -w -n z $'\x01print -r -- GOT$((1+1)): \x05\n'
  zpty -r z out '*GOT2: *'$'\r'
  print -r -- "${${out##*GOT2: }%%$'\r'*}"
done
zpty -d z
`

func TestCompletion_Zsh(t *testing.T) {
	script := completionScript(t, "zsh")
	runShell(t, "zsh", "-n", script)
	driver := filepath.Join(t.TempDir(), "drive.zsh")
	if err := os.WriteFile(driver, []byte(zshDriver), 0o600); err != nil {
		t.Fatal(err)
	}
	lines := []string{"novactl ind", "novactl index sync --pr", "novactl completion f", "novactl search --project index --js", "novactl service sta", "novactl search why --js",
		"novactl index watch --log-format j", "novactl mcp install --agent=cod", "novactl skill status --agent clau",
		"novactl mcp install --agent codex,clau", "novactl skill status --agent=codex,gem"}
	got := strings.Split(strings.TrimRight(runShell(t, "zsh", append([]string{"-f", driver, "autoload -Uz compinit; compinit -u -D; source " + script}, lines...)...), "\n"), "\n")
	want := []string{"novactl index ", "novactl index sync --prune-missing ", "novactl completion fish ", "novactl search --project index --json ", "novactl service sta", "novactl search why --json ",
		"novactl index watch --log-format json ", "novactl mcp install --agent=codex ", "novactl skill status --agent claude-code ",
		"novactl mcp install --agent codex,claude-code ", "novactl skill status --agent=codex,gemini "}
	// "sta" is ambiguous (start, status): zsh completes no further.
	if len(got) != len(want) {
		t.Fatalf("zsh completion: got %q, want %q", got, want)
	}
	for i := range want {
		if strings.TrimRight(got[i], " ") != strings.TrimRight(want[i], " ") {
			t.Errorf("zsh: %q<TAB> gave %q, want %q", lines[i], got[i], want[i])
		}
	}
}

// TestCompletion_ZshBeforeCompinit sources the script in a zsh whose
// completion system is not loaded yet, as "source <(novactl completion
// zsh)" does in a ~/.zshrc without compinit (macOS's default) or with
// compinit further down: it loads without an error, and TAB completes.
func TestCompletion_ZshBeforeCompinit(t *testing.T) {
	script := completionScript(t, "zsh")
	cmd := shellCmd(t, "zsh", "-f", "-c", `source "$1"`, "zsh", script)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil || stderr.Len() > 0 {
		t.Fatalf("sourcing the zsh script before compinit: %v, stderr %q; want no error", err, stderr.String())
	}
	driver := filepath.Join(t.TempDir(), "drive.zsh")
	if err := os.WriteFile(driver, []byte(zshDriver), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, setup := range map[string]string{
		"no compinit":    "source " + script,
		"compinit after": "source " + script + "; autoload -Uz compinit; compinit -u", // with its dump file, as a ~/.zshrc runs it
	} {
		got := strings.TrimRight(runShell(t, "zsh", "-f", driver, setup, "novactl ind"), "\n ")
		if got != "novactl index" {
			t.Errorf("zsh, %s: \"novactl ind\"<TAB> gave %q, want \"novactl index\"", name, got)
		}
	}
}

func TestCompletion_Fish(t *testing.T) {
	script := completionScript(t, "fish")
	runShell(t, "fish", "--no-execute", script)
	out := runShell(t, "fish", "--no-config", "-c", `source $argv[1]
for line in $argv[2..-1]
  echo "== $line"
  complete -C"$line"
end`, script, "novactl ind", "novactl index sync --pr", "novactl completion ", "novactl search --project index --js", "novactl service sta",
		"novactl search why --js", "novactl bogus ", "novactl mcp install --agent ", "novactl index watch --log-format=j",
		"novactl mcp install --agent codex,clau", "novactl skill status --agent=codex,gem")
	for _, want := range []string{
		"== novactl ind\nindex\tBuild, sync, promote, roll back and list index generations; watch the sources\n",
		"== novactl index sync --pr\n--prune-missing\t",
		"== novactl completion \nbash\tPrint the bash completion script\nfish\tPrint the fish completion script\nzsh\tPrint the zsh completion script\n",
		"== novactl search --project index --js\n--json\t",
		"== novactl service sta\nstart\tStart novad and the source watcher\nstatus\t",
		"== novactl search why --js\n--json\t",
		"== novactl index watch --log-format=j\n--log-format=json\t",
		"== novactl mcp install --agent codex,clau\ncodex,claude-code\t",
		"== novactl skill status --agent=codex,gem\n--agent=codex,gemini\t",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("fish completion lacks %q:\n%s", want, out)
		}
	}
	if _, after, _ := strings.Cut(out, "== novactl bogus \n"); strings.Contains(after, "index\t") {
		t.Errorf("fish offers commands after an argument:\n%s", after)
	}
	// The agents and nothing else (no file names): fish sorts them.
	_, agents, _ := strings.Cut(out, "== novactl mcp install --agent \n")
	agents, _, _ = strings.Cut(agents, "== ")
	var got []string
	for _, l := range strings.Split(strings.TrimRight(agents, "\n"), "\n") {
		name, _, _ := strings.Cut(l, "\t")
		got = append(got, name)
	}
	if want := []string{"all", "claude-code", "codex", "cursor", "gemini", "hermes", "openclaw", "windsurf"}; !slices.Equal(got, want) {
		t.Errorf("fish: novactl mcp install --agent <TAB> offers %q, want %q", got, want)
	}
}

// TestCompletion_FlagUsageUnquoted: a flag's description in the scripts
// is its help as --help prints it, without the backquotes that name its
// value (`DIR`, `K`); zsh and fish showed them.
func TestCompletion_FlagUsageUnquoted(t *testing.T) {
	var walk func(c completion.Command, path string)
	seen := 0
	walk = func(c completion.Command, path string) {
		for _, f := range c.Flags {
			seen++
			if strings.Contains(f.Usage, "`") {
				t.Errorf("%s --%s: description %q keeps a backquote", path, f.Name, f.Usage)
			}
		}
		for _, s := range c.Subcommands {
			walk(s, path+" "+s.Name)
		}
	}
	walk(completionTree(t.Context()), "novactl")
	if seen == 0 {
		t.Fatal("no flags in the completion tree")
	}
	for _, shell := range []string{"zsh", "fish"} {
		_, out, _ := runCLI(t.Context(), nil, "completion", shell)
		if !strings.Contains(out, "also index DIR, a folder") {
			t.Errorf("completion %s: no description \"also index DIR, a folder\" for config init --notes", shell)
		}
	}
}
