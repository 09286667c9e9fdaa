package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nova-recall/nova/doctor"
	"github.com/nova-recall/nova/internal/novatest"
	"github.com/nova-recall/nova/mcpserver/agentconf"
	"github.com/nova-recall/nova/paths"
)

// mcpAgentFiles are realistic user-level MCP configuration files of every
// supported agent, with comments where the format allows them and other
// servers, keyed by their path under HOME.
var mcpAgentFiles = map[string]string{
	".claude.json": `{
  "numStartups": 12,
  "installMethod": "native",
  "projects": {
    "/Users/ada/src/app": {
      "allowedTools": [],
      "mcpServers": {}
    }
  },
  "mcpServers": {
    "github": {
      "type": "stdio",
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_example"}
    }
  }
}
`,
	".codex/config.toml": `# Codex settings
model = "gpt-5-codex"

[mcp_servers.context7]
command = "npx"
args = ["-y", "@upstash/context7-mcp"] # docs lookup

[projects."/Users/ada/src/app"]
trust_level = "trusted"
`,
	".gemini/settings.json": `{
  // UI
  "theme": "GitHub",
  "mcpServers": {
    /* the filesystem server */
    "fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/ada"]}
  }
}
`,
	".openclaw/openclaw.json": `// OpenClaw
{
  gateway: { port: 18789 },
  mcp: {
    servers: {
      context7: { command: 'npx', args: ['-y', '@upstash/context7-mcp'] },
    },
  },
}
`,
	".hermes/config.yaml": `# Hermes
model:
  default: anthropic/claude-sonnet-4

mcp_servers:
  time:
    command: "uvx"
    args: ["mcp-server-time"]

terminal:
  backend: local
`,
	".cursor/mcp.json": `{
  "mcpServers": {
    "playwright": {
      "command": "npx",
      "args": ["-y", "@playwright/mcp@latest"]
    },
    "context7": {
      "url": "https://mcp.context7.com/mcp",
      "headers": {"CONTEXT7_API_KEY": "${env:CONTEXT7_API_KEY}"}
    }
  }
}
`,
	".codeium/windsurf/mcp_config.json": `{
  "mcpServers": {
    "github": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "${env:GITHUB_TOKEN}"}
    }
  }
}
`,
}

// mcpAgentHome writes mcpAgentFiles under a fresh HOME and returns the
// environment (HOME and NOVA_HOME) for it.
func mcpAgentHome(t *testing.T) (string, []string) {
	t.Helper()
	home := t.TempDir()
	for rel, content := range mcpAgentFiles {
		p := filepath.Join(home, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	nova := filepath.Join(home, "nova-home")
	return home, []string{"HOME=" + home, "NOVA_HOME=" + nova}
}

// fakeNovactl returns the path of an executable file to install as
// --command.
func fakeNovactl(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "bin", "novactl")
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	return p
}

func mcpRun(t *testing.T, env []string, args ...string) (string, string, int) {
	t.Helper()
	return mcpRunIn(t, "", env, args...)
}

// mcpRunIn runs novactl with dir as its working directory.
func mcpRunIn(t *testing.T, dir string, env []string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Run(context.Background(), args, &Invocation{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Environ: env, Dir: dir})
	return out.String(), errb.String(), code
}

func mcpSnapshot(t *testing.T, home string) map[string]string {
	t.Helper()
	m := map[string]string{}
	for rel := range mcpAgentFiles {
		b, err := os.ReadFile(filepath.Join(home, rel))
		if err != nil {
			t.Fatal(err)
		}
		m[rel] = string(b)
	}
	return m
}

func TestMCPInstall_AllAgentsRoundTrip(t *testing.T) {
	novactl := fakeNovactl(t)
	home, env := mcpAgentHome(t)
	before := mcpSnapshot(t, home)

	out, errs, code := mcpRun(t, env, "mcp", "install", "--command", novactl)
	if code != ExitOK {
		t.Fatalf("install exited %d: %s %s", code, out, errs)
	}
	for _, name := range []string{"Claude Code", "Codex", "Gemini CLI", "OpenClaw", "Hermes", "Cursor", "Windsurf"} {
		if !strings.Contains(out, name) || !strings.Contains(out, "added Nova") {
			t.Errorf("output lacks %s: %s", name, out)
		}
	}
	installed := mcpSnapshot(t, home)
	novaHome := filepath.Join(home, "nova-home")
	for rel, content := range installed {
		if !strings.Contains(content, novactl) || !strings.Contains(content, novaHome) {
			t.Errorf("%s lacks the entry:\n%s", rel, content)
		}
		// Everything that was there is still there, in order.
		if !mcpContainsInOrder(content, before[rel]) {
			t.Errorf("%s was disturbed:\n%s", rel, content)
		}
	}
	var claude map[string]any
	if err := json.Unmarshal([]byte(installed[".claude.json"]), &claude); err != nil {
		t.Fatalf("~/.claude.json is no longer JSON: %v", err)
	}
	nova := claude["mcpServers"].(map[string]any)["nova"].(map[string]any)
	if nova["command"] != novactl || nova["args"].([]any)[0] != "mcp" || nova["env"].(map[string]any)["NOVA_HOME"] != novaHome {
		t.Errorf("claude entry %v", nova)
	}
	if _, err := os.Stat(filepath.Join(novaHome, "state", "mcp-installs.json")); err != nil {
		t.Errorf("no install record: %v", err)
	}

	// Idempotent.
	out, _, code = mcpRun(t, env, "mcp", "install", "--command", novactl)
	if code != ExitOK || strings.Count(out, "already installed") != 7 {
		t.Fatalf("second install (%d): %s", code, out)
	}
	if again := mcpSnapshot(t, home); !mcpEqualMaps(again, installed) {
		t.Fatal("a second install changed files")
	}

	out, errs, code = mcpRun(t, env, "mcp", "uninstall")
	if code != ExitOK || strings.Count(out, "removed Nova") != 7 {
		t.Fatalf("uninstall exited %d: %s %s", code, out, errs)
	}
	after := mcpSnapshot(t, home)
	for rel := range before {
		if after[rel] != before[rel] {
			t.Errorf("%s is not byte-identical after install then uninstall:\n--- before\n%s\n--- after\n%s", rel, before[rel], after[rel])
		}
	}
	if _, err := os.Stat(filepath.Join(novaHome, "state", "mcp-installs.json")); !os.IsNotExist(err) {
		t.Errorf("the install record outlived the installs: %v", err)
	}
	out, _, _ = mcpRun(t, env, "mcp", "uninstall")
	if strings.Count(out, "nothing to remove") != 7 {
		t.Errorf("second uninstall: %s", out)
	}
}

// mcpContainsInOrder reports whether every non-blank line of sub appears in s,
// in order (a comma may follow a value).
func mcpContainsInOrder(s, sub string) bool {
	rest := s
	for _, l := range strings.Split(sub, "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		i := strings.Index(rest, l)
		if i < 0 {
			return false
		}
		rest = rest[i+len(l):]
	}
	return true
}

func mcpEqualMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestMCPInstall_DryRun(t *testing.T) {
	novactl := fakeNovactl(t)
	home, env := mcpAgentHome(t)
	before := mcpSnapshot(t, home)
	out, errs, code := mcpRun(t, env, "mcp", "install", "--dry-run", "--agent", "codex,hermes", "--command", novactl)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"would add Nova", "+[mcp_servers.nova]", `+command = "` + novactl + `"`, "+  nova:", "--- a" + filepath.Join(home, ".codex/config.toml")} {
		if !strings.Contains(out, want) {
			t.Errorf("dry run lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "Claude Code") {
		t.Errorf("an agent that was not asked for was planned:\n%s", out)
	}
	if !mcpEqualMaps(mcpSnapshot(t, home), before) {
		t.Fatal("--dry-run wrote a file")
	}
	if _, err := os.Stat(filepath.Join(home, "nova-home")); !os.IsNotExist(err) {
		t.Fatal("--dry-run wrote the install record")
	}
}

func TestMCPInstall_Detection(t *testing.T) {
	novactl := fakeNovactl(t)
	home := t.TempDir()
	env := []string{"HOME=" + home}
	// Nothing installed: nothing configured, and it says how to force it.
	out, _, code := mcpRun(t, env, "mcp", "install", "--command", novactl)
	if code != ExitOK || !strings.Contains(out, "skipped: not found") || !strings.Contains(out, "No supported agent was found") {
		t.Fatalf("(%d) %s", code, out)
	}
	if entries, _ := os.ReadDir(home); len(entries) != 0 {
		t.Fatalf("files were created: %v", entries)
	}
	// Named explicitly, the file is created; uninstall deletes it again.
	out, errs, code := mcpRun(t, env, "mcp", "install", "--agent", "gemini", "--command", novactl)
	if code != ExitOK {
		t.Fatalf("(%d) %s %s", code, out, errs)
	}
	p := filepath.Join(home, ".gemini", "settings.json")
	b, err := os.ReadFile(p)
	if err != nil || !strings.Contains(string(b), `"command": "`+novactl+`"`) || strings.Contains(string(b), "NOVA_HOME") {
		t.Fatalf("created file: %v\n%s", err, b)
	}
	out, _, code = mcpRun(t, env, "mcp", "uninstall", "--agent", "gemini")
	if code != ExitOK || !strings.Contains(out, "and the file, which install had created") {
		t.Fatalf("(%d) %s", code, out)
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Fatal("the created file is still there")
	}
}

func TestMCPInstall_Usage(t *testing.T) {
	novactl := fakeNovactl(t)
	home, env := mcpAgentHome(t)
	if _, errs, code := mcpRun(t, env, "mcp", "install", "--agent", "vim"); code != ExitUsage || !strings.Contains(errs, `unknown agent "vim"`) {
		t.Errorf("unknown agent: %d %s", code, errs)
	}
	if _, errs, code := mcpRun(t, env, "mcp", "install", "--command", "novactl"); code != ExitUsage || !strings.Contains(errs, "absolute path") {
		t.Errorf("relative command: %d %s", code, errs)
	}
	// A --command that names no executable file (a typo) is refused: the
	// agents would fail to start it, and say so only there.
	missing := filepath.Join(home, "bin", "novactl")
	if _, errs, code := mcpRun(t, env, "mcp", "install", "--command", missing); code != ExitUsage || !strings.Contains(errs, "not an executable file") {
		t.Errorf("missing command: %d %s", code, errs)
	}
	if after := mcpSnapshot(t, home); after[".codex/config.toml"] != mcpAgentFiles[".codex/config.toml"] {
		t.Error("a missing command was installed")
	}
	if _, errs, code := mcpRun(t, env, "mcp", "frobnicate"); code != ExitUsage || !strings.Contains(errs, "unknown subcommand") {
		t.Errorf("unknown subcommand: %d %s", code, errs)
	}
	if help, errs, code := mcpRun(t, env, "mcp", "install", "--help"); code != ExitOK || errs != "" || !strings.Contains(help, "~/.codex/config.toml") {
		t.Errorf("help: %d, stderr %q\n%s", code, errs, help)
	}
	// A foreign "nova" entry is refused and left alone; the others go on.
	p := filepath.Join(home, ".gemini", "settings.json")
	foreign := `{"mcpServers": {"nova": {"command": "/usr/bin/nova-notes", "args": []}}}`
	if err := os.WriteFile(p, []byte(foreign), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errs, code := mcpRun(t, env, "mcp", "install", "--command", novactl)
	if code != ExitFailure || !strings.Contains(errs, "did not install") || strings.Count(out, "added Nova") != 6 {
		t.Errorf("foreign entry (%d): %s %s", code, out, errs)
	}
	if b, _ := os.ReadFile(p); string(b) != foreign {
		t.Error("the foreign entry was touched")
	}
}

// TestMCPInstall_WritesThroughSymlink: ~/.claude.json kept in a dotfiles
// repository and linked into place gets Nova's entry in the repository's
// file, and the link stays; uninstall restores that file byte for byte.
func TestMCPInstall_WritesThroughSymlink(t *testing.T) {
	novactl := fakeNovactl(t)
	home, env := mcpAgentHome(t)
	real := filepath.Join(home, "dotfiles-claude.json")
	link := filepath.Join(home, ".claude.json")
	if err := os.Rename(link, real); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Skip(err)
	}
	isLink := func() {
		t.Helper()
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Fatalf("the link was replaced: %v %v", fi, err)
		}
	}
	before, _ := os.ReadFile(real)
	out, errs, code := mcpRun(t, env, "mcp", "install", "--agent", "claude-code", "--command", novactl)
	if code != ExitOK || !strings.Contains(out, "added Nova") {
		t.Fatalf("install (%d): %s%s", code, out, errs)
	}
	isLink()
	if after, _ := os.ReadFile(real); !strings.Contains(string(after), novactl) {
		t.Fatalf("the entry is not in the file the link points to:\n%s", after)
	}
	if out, errs, code := mcpRun(t, env, "mcp", "uninstall", "--agent", "claude-code"); code != ExitOK {
		t.Fatalf("uninstall (%d): %s%s", code, out, errs)
	}
	isLink()
	if after, _ := os.ReadFile(real); !bytes.Equal(before, after) {
		t.Fatalf("not byte-identical after uninstall:\n%s", after)
	}
}

// TestMCPInstall_GeminiCLIHome: with GEMINI_CLI_HOME set, Gemini CLI
// reads $GEMINI_CLI_HOME/.gemini/settings.json and never ~/.gemini; the
// entry goes there, and the settings in ~/.gemini are not touched.
func TestMCPInstall_GeminiCLIHome(t *testing.T) {
	novactl := fakeNovactl(t)
	home, env := mcpAgentHome(t)
	gemHome := filepath.Join(home, "profiles", "work")
	settings := filepath.Join(gemHome, ".gemini", "settings.json")
	novatest.Must(t, os.MkdirAll(filepath.Dir(settings), 0o700))
	const src = "{\n  // work profile\n  \"theme\": \"Dracula\"\n}\n"
	novatest.Must(t, os.WriteFile(settings, []byte(src), 0o600))
	env = append(env, "GEMINI_CLI_HOME="+gemHome)
	before := mcpSnapshot(t, home)
	out, errs, code := mcpRun(t, env, "mcp", "install", "--agent", "gemini", "--command", novactl)
	if code != ExitOK {
		t.Fatalf("install (%d): %s%s", code, out, errs)
	}
	if after, _ := os.ReadFile(settings); !strings.Contains(string(after), novactl) || !strings.HasPrefix(string(after), "{\n  // work profile\n  \"theme\": \"Dracula\",\n") {
		t.Fatalf("the entry is not in $GEMINI_CLI_HOME/.gemini/settings.json:\n%s", after)
	}
	if got := mcpSnapshot(t, home)[".gemini/settings.json"]; got != before[".gemini/settings.json"] {
		t.Errorf("~/.gemini/settings.json changed although GEMINI_CLI_HOME is set:\n%s", got)
	}
	if out, errs, code := mcpRun(t, env, "mcp", "uninstall", "--agent", "gemini"); code != ExitOK {
		t.Fatalf("uninstall (%d): %s%s", code, out, errs)
	}
	if after, _ := os.ReadFile(settings); string(after) != src {
		t.Fatalf("not byte-identical after uninstall:\n%s", after)
	}
}

func TestMCPServe_InProcess(t *testing.T) {
	// novactl mcp wired to pipes, with no novad: the handshake works and a
	// search says novad is not running.
	home := t.TempDir()
	novatest.DownHome(t, filepath.Join(home, "nova"))
	env := []string{"HOME=" + home, "NOVA_HOME=" + filepath.Join(home, "nova")}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var errb bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- Run(context.Background(), []string{"mcp"}, &Invocation{Stdin: inR, Stdout: outW, Stderr: &errb, Environ: env})
		outW.Close()
	}()
	lines := bufio.NewScanner(outR)
	lines.Buffer(make([]byte, 1<<20), 1<<20)
	send := func(s string) {
		if _, err := io.WriteString(inW, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	recv := func() map[string]any {
		if !lines.Scan() {
			t.Fatalf("no response; stderr: %s", errb.String())
		}
		var m map[string]any
		if err := json.Unmarshal(lines.Bytes(), &m); err != nil {
			t.Fatalf("stdout carried a non-JSON line: %q", lines.Text())
		}
		return m
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if m := recv(); m["result"].(map[string]any)["protocolVersion"] != "2025-06-18" {
		t.Fatalf("initialize: %v", m)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory_search","arguments":{"query":"anything"}}}`)
	m := recv()
	b, _ := json.Marshal(m)
	if !strings.Contains(string(b), "(novad) is not running") || !strings.Contains(string(b), `"available":false`) {
		t.Fatalf("search without novad: %s", b)
	}
	inW.Close()
	select {
	case code := <-done:
		if code != ExitOK {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("novactl mcp did not end with its input")
	}
}

// TestMCPInstall_CommandSurvivesUpgrade: novactl started through a
// package manager's link (Homebrew: bin/novactl ->
// ../Cellar/nova/<version>/bin/novactl) records the link, not the
// versioned file os.Executable resolves to, which an upgrade removes.
func TestMCPInstall_CommandSurvivesUpgrade(t *testing.T) {
	prefix := t.TempDir()
	keg := func(version string) string { return filepath.Join(prefix, "Cellar", "nova", version, "bin", "novactl") }
	link := filepath.Join(prefix, "bin", "novactl")
	for _, dir := range []string{filepath.Dir(keg("0.1.0")), filepath.Dir(link)} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(keg("0.1.0"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../Cellar/nova/0.1.0/bin/novactl", link); err != nil {
		t.Fatal(err)
	}
	// os.Executable resolves the link, as /proc/self/exe does.
	executable := func() (string, error) { return filepath.EvalSymlinks(link) }
	other := filepath.Join(prefix, "other-novactl")
	if err := os.WriteFile(other, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	resolved, _ := executable()

	for _, c := range []struct {
		name, arg0, path, want string
	}{
		{"absolute link", link, "", link},
		{"found on PATH", "novactl", "/nonexistent:" + filepath.Dir(link), link},
		{"relative path", "./bin/novactl", "", resolved},
		{"not on PATH", "novactl", "/nonexistent", resolved},
		{"another binary", other, "", resolved},
	} {
		t.Run(c.name, func(t *testing.T) {
			home := t.TempDir()
			env := []string{"HOME=" + home, "NOVA_HOME=" + filepath.Join(home, "nova-home"), "PATH=" + c.path}
			if err := os.MkdirAll(filepath.Join(home, ".codex"), 0o700); err != nil {
				t.Fatal(err)
			}
			var out, errb bytes.Buffer
			inv := &Invocation{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Environ: env}
			if code := runMCPConfig(inv, []string{"--agent", "codex"}, true, mcpDeps{arg0: c.arg0, executable: executable}); code != ExitOK {
				t.Fatalf("install exited %d: %s %s", code, out.String(), errb.String())
			}
			b, err := os.ReadFile(filepath.Join(home, ".codex", "config.toml"))
			if err != nil {
				t.Fatal(err)
			}
			if want := "command = \"" + c.want + "\"\n"; !strings.Contains(string(b), want) {
				t.Fatalf("config lacks %q:\n%s", want, b)
			}
		})
	}

	// "brew upgrade": the link points to the new keg, the old one is gone;
	// the recorded link still starts novactl.
	if err := os.MkdirAll(filepath.Dir(keg("0.2.0")), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(keg("0.1.0"), keg("0.2.0")); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(prefix, "Cellar", "nova", "0.1.0")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../Cellar/nova/0.2.0/bin/novactl", link); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(link); err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("the recorded command does not survive the upgrade: %v", err)
	}
	if _, err := os.Stat(resolved); !os.IsNotExist(err) {
		t.Fatalf("the resolved path outlived the upgrade: %v", err)
	}
}

// TestMCPUninstall_RecordedPaths: uninstall also cleans the files install
// recorded, when the agent's location now resolves elsewhere (install ran
// with CODEX_HOME set, uninstall without).
func TestMCPUninstall_RecordedPaths(t *testing.T) {
	novactl := fakeNovactl(t)
	home := t.TempDir()
	codexHome := filepath.Join(t.TempDir(), "codex")
	if err := os.MkdirAll(filepath.Join(home, ".codex"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(codexHome, 0o700); err != nil {
		t.Fatal(err)
	}
	orig := "model = \"o3\"\n"
	cfg := filepath.Join(codexHome, "config.toml")
	if err := os.WriteFile(cfg, []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + home, "NOVA_HOME=" + filepath.Join(home, "nova")}
	if out, errs, code := mcpRun(t, append(env, "CODEX_HOME="+codexHome), "mcp", "install", "--agent", "codex", "--command", novactl); code != ExitOK {
		t.Fatalf("install (%d): %s %s", code, out, errs)
	}
	out, errs, code := mcpRun(t, env, "mcp", "uninstall")
	if code != ExitOK || !strings.Contains(out, "removed Nova") {
		t.Fatalf("uninstall (%d): %s %s", code, out, errs)
	}
	if b, _ := os.ReadFile(cfg); string(b) != orig {
		t.Errorf("the recorded file keeps Nova:\n%s", b)
	}
	if _, err := os.Stat(filepath.Join(home, "nova", "state", "mcp-installs.json")); !os.IsNotExist(err) {
		t.Errorf("the install record is left: %v", err)
	}
}

// TestMCPUninstall_UnreadableRecord: a damaged install record does not
// block uninstall (or install): entries are found by their command, and
// the user is told.
func TestMCPUninstall_UnreadableRecord(t *testing.T) {
	novactl := fakeNovactl(t)
	home, env := mcpAgentHome(t)
	if out, errs, code := mcpRun(t, env, "mcp", "install", "--agent", "codex", "--command", novactl); code != ExitOK {
		t.Fatalf("install (%d): %s %s", code, out, errs)
	}
	rec := filepath.Join(home, "nova-home", "state", "mcp-installs.json")
	if err := os.WriteFile(rec, []byte("{oops"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errs, code := mcpRun(t, env, "mcp", "uninstall", "--agent", "codex")
	if code != ExitOK || !strings.Contains(out, "removed Nova") || !strings.Contains(errs, "unreadable") {
		t.Fatalf("uninstall (%d): %s %s", code, out, errs)
	}
	if b, _ := os.ReadFile(filepath.Join(home, ".codex", "config.toml")); string(b) != mcpAgentFiles[".codex/config.toml"] {
		t.Errorf("not restored:\n%s", b)
	}
	// A run that changes nothing replaces the damaged record too.
	if err := os.WriteFile(rec, []byte("{oops"), 0o600); err != nil {
		t.Fatal(err)
	}
	mcpRun(t, env, "mcp", "uninstall", "--agent", "codex")
	if _, errs, _ := mcpRun(t, env, "mcp", "uninstall", "--agent", "codex"); strings.Contains(errs, "unreadable") {
		t.Errorf("the damaged record is still there: %s", errs)
	}
}

// TestMCPStatus_ProjectEntries: Claude Code keeps a per-project "nova"
// entry beside the user-level one novactl installs, and starts it in that
// project instead. mcp status (and mcp install) name such an entry whose
// command or NOVA_HOME differ, with the project and the command that
// removes it, and neither touches it.
func TestMCPStatus_ProjectEntries(t *testing.T) {
	novactl := fakeNovactl(t)
	home, env := mcpAgentHome(t)
	nova := filepath.Join(home, "nova-home")
	if _, errs, code := mcpRun(t, env, "mcp", "install", "--agent", "claude-code", "--command", novactl); code != ExitOK {
		t.Fatalf("install: %s", errs)
	}
	p := filepath.Join(home, ".claude.json")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	stale := `"mcpServers": {"nova": {"type": "stdio", "command": "/usr/local/old/novactl", "args": ["mcp"], "env": {"NOVA_HOME": "/Users/ada/.nova-old"}}}`
	edited := strings.Replace(string(b), `"mcpServers": {}`, stale, 1)
	if edited == string(b) {
		t.Fatal("the fixture has no empty project mcpServers")
	}
	if err := os.WriteFile(p, []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}

	out, errs, code := mcpRun(t, env, "mcp", "status", "--agent", "claude-code", "--command", novactl)
	for _, want := range []string{"installed, current", "/Users/ada/src/app", "command /usr/local/old/novactl, not " + novactl,
		"NOVA_HOME /Users/ada/.nova-old, not " + nova, "cd /Users/ada/src/app && claude mcp remove nova -s local"} {
		if code != ExitOK || !strings.Contains(out, want) {
			t.Errorf("status (%d) lacks %q:\n%s%s", code, want, out, errs)
		}
	}
	out, _, code = mcpRun(t, env, "mcp", "status", "--agent", "claude-code", "--command", novactl, "--json")
	var doc struct {
		Agents []struct {
			Agent          string `json:"agent"`
			State          string `json:"state"`
			ProjectEntries []struct {
				Project  string `json:"project"`
				Command  string `json:"command"`
				NovaHome string `json:"novaHome"`
				Remove   string `json:"remove"`
			} `json:"projectEntries"`
		} `json:"agents"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != ExitOK {
		t.Fatalf("status --json (%d): %v\n%s", code, err, out)
	}
	if len(doc.Agents) != 1 || doc.Agents[0].State != "current" || len(doc.Agents[0].ProjectEntries) != 1 ||
		doc.Agents[0].ProjectEntries[0].NovaHome != "/Users/ada/.nova-old" || !strings.Contains(doc.Agents[0].ProjectEntries[0].Remove, "claude mcp remove") {
		t.Errorf("status --json: %+v", doc)
	}

	// Install says it too, and leaves the project's entry alone.
	out, _, code = mcpRun(t, env, "mcp", "install", "--agent", "claude-code", "--command", novactl)
	if code != ExitOK || !strings.Contains(out, "already installed") || !strings.Contains(out, "/Users/ada/src/app") {
		t.Errorf("install (%d):\n%s", code, out)
	}
	if b, _ := os.ReadFile(p); string(b) != edited {
		t.Error("status or install changed the file")
	}
}

// TestDoctor_AgentsMCPAndSkill: doctor reports each agent's MCP entry and
// skill, in text and JSON: a current entry and skill as such, an entry of
// another novactl as stale (Degraded, not Blocked) with the command that
// updates it.
func TestDoctor_AgentsMCPAndSkill(t *testing.T) {
	home, env := mcpAgentHome(t)
	novatest.DownHome(t, filepath.Join(home, "nova-home"))
	self, err := novactlPath(env, defaultMCPDeps())
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"mcp", "install", "--agent", "claude-code", "--command", self},
		{"mcp", "install", "--agent", "codex", "--command", fakeNovactl(t)},
		{"skill", "install", "--agent", "claude-code"},
	} {
		if _, errs, code := mcpRun(t, env, args...); code != ExitOK {
			t.Fatalf("%v: %s", args, errs)
		}
	}

	out, _, _ := mcpRun(t, env, "doctor", "--json")
	var rep doctor.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("doctor --json: %v\n%s", err, out)
	}
	if rep.Agents == nil {
		t.Fatalf("doctor --json has no agents:\n%s", out)
	}
	states := map[string]string{}
	for _, a := range rep.Agents.MCP {
		states[a.Agent] = string(a.State)
	}
	if states["claude-code"] != "current" || states["codex"] != "stale" || states["gemini"] != "absent" || states["cursor"] != "absent" || states["windsurf"] != "absent" || len(states) != 7 {
		t.Errorf("mcp states: %v", states)
	}
	if len(rep.Agents.Skills) == 0 || rep.Agents.Skills[0].Target != "claude-code" || rep.Agents.Skills[0].State != "current" {
		t.Errorf("skills: %+v", rep.Agents.Skills)
	}
	for _, c := range rep.Checks {
		switch c.ID {
		case "mcp":
			if c.State != doctor.Degraded || c.Code != doctor.CodeMCPStale || !strings.Contains(c.Advice, self+" mcp install --agent codex") {
				t.Errorf("mcp check: %+v", c)
			}
		case "skill":
			if c.State != doctor.Ready || !strings.Contains(c.Message, "Claude Code: current") {
				t.Errorf("skill check: %+v", c)
			}
		}
	}

	out, _, _ = mcpRun(t, env, "doctor")
	for _, want := range []string{"MCP server in agents", "Codex: stale", self + " mcp install --agent codex", "Skill in agents"} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor lacks %q:\n%s", want, out)
		}
	}
}

// TestMCPUninstall_NamesProjectEntries: uninstall removes the user-level
// entry only, as `claude mcp remove nova -s user` would, and names every
// Claude Code project that keeps its own "nova" (one like the removed
// entry too: Claude Code goes on starting it there), with the command that
// removes each; those entries stay as they are.
func TestMCPUninstall_NamesProjectEntries(t *testing.T) {
	novactl := fakeNovactl(t)
	home, env := mcpAgentHome(t)
	nova := filepath.Join(home, "nova-home")
	if _, errs, code := mcpRun(t, env, "mcp", "install", "--agent", "claude-code", "--command", novactl); code != ExitOK {
		t.Fatalf("install: %s", errs)
	}
	p := filepath.Join(home, ".claude.json")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	same := `{"type": "stdio", "command": "` + novactl + `", "args": ["mcp"], "env": {"NOVA_HOME": "` + nova + `"}}`
	edited := strings.Replace(string(b), `"/Users/ada/src/app": {`,
		`"/Users/ada/src/lib": {"mcpServers": {"nova": `+same+`}},
    "/Users/ada/src/my app": {"mcpServers": {"nova": {"command": "/usr/local/old/novactl", "args": ["mcp"]}}},
    "/Users/ada/src/app": {`, 1)
	if edited == string(b) {
		t.Fatal("the fixture has no /Users/ada/src/app project")
	}
	if err := os.WriteFile(p, []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}

	for _, args := range [][]string{{"--dry-run"}, {}} {
		out, errs, code := mcpRun(t, env, append([]string{"mcp", "uninstall", "--agent", "claude-code"}, args...)...)
		for _, want := range []string{"cd /Users/ada/src/lib && claude mcp remove nova -s local", "cd '/Users/ada/src/my app' && claude mcp remove nova -s local",
			"/usr/local/old/novactl"} {
			if code != ExitOK || !strings.Contains(out, want) {
				t.Errorf("uninstall %v (%d) lacks %q:\n%s%s", args, code, want, out, errs)
			}
		}
	}
	b, err = os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"/Users/ada/src/lib": {"mcpServers": {"nova": `+same) || !strings.Contains(string(b), "/usr/local/old/novactl") ||
		strings.Count(string(b), `"nova"`) != 2 {
		t.Errorf("uninstall did not leave exactly the project entries:\n%s", b)
	}

	// Nothing left at user level: uninstall still names them.
	out, _, code := mcpRun(t, env, "mcp", "uninstall", "--agent", "claude-code")
	if code != ExitOK || !strings.Contains(out, "nothing to remove") || !strings.Contains(out, "/Users/ada/src/lib") {
		t.Errorf("second uninstall (%d):\n%s", code, out)
	}
}

// TestMCPStatus_ProjectMCPJSON: a "nova" entry in the .mcp.json of the
// directory novactl runs in (Claude Code's project scope, which it starts
// there instead of the user-level entry) is reported by status, install
// and doctor when it differs, with the command that removes it; one that
// matches is not.
func TestMCPStatus_ProjectMCPJSON(t *testing.T) {
	novactl := fakeNovactl(t)
	home, env := mcpAgentHome(t)
	novatest.DownHome(t, filepath.Join(home, "nova-home"))
	project := filepath.Join(t.TempDir(), "my app")
	if err := os.MkdirAll(project, 0o700); err != nil {
		t.Fatal(err)
	}
	mcpJSON := filepath.Join(project, ".mcp.json")
	stale := `{"mcpServers": {"nova": {"command": "novactl", "args": ["mcp"]}, "other": {"command": "x"}}}`
	if err := os.WriteFile(mcpJSON, []byte(stale), 0o600); err != nil {
		t.Fatal(err)
	}
	remove := "cd '" + project + "' && claude mcp remove nova -s project"

	out, errs, code := mcpRunIn(t, project, env, "mcp", "install", "--agent", "claude-code", "--command", novactl)
	if code != ExitOK || !strings.Contains(out, remove) || !strings.Contains(out, ".mcp.json") {
		t.Errorf("install (%d) does not name the .mcp.json entry:\n%s%s", code, out, errs)
	}
	out, errs, code = mcpRunIn(t, project, env, "mcp", "status", "--agent", "claude-code", "--command", novactl)
	if code != ExitOK || !strings.Contains(out, remove) || !strings.Contains(out, "command novactl, not "+novactl) {
		t.Errorf("status (%d):\n%s%s", code, out, errs)
	}
	out, _, _ = mcpRunIn(t, project, env, "mcp", "status", "--agent", "claude-code", "--command", novactl, "--json")
	var doc struct {
		Agents []struct {
			ProjectEntries []struct{ Project, Scope, File, Remove string } `json:"projectEntries"`
		} `json:"agents"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Agents) != 1 || len(doc.Agents[0].ProjectEntries) != 1 || doc.Agents[0].ProjectEntries[0].Scope != "project" ||
		doc.Agents[0].ProjectEntries[0].File != mcpJSON || doc.Agents[0].ProjectEntries[0].Remove != remove {
		t.Errorf("status --json: %+v", doc)
	}
	out, _, _ = mcpRunIn(t, project, env, "doctor")
	if !strings.Contains(out, remove) {
		t.Errorf("doctor does not name the .mcp.json entry:\n%s", out)
	}
	// Uninstall names it too, and leaves it.
	if out, _, code = mcpRunIn(t, project, env, "mcp", "uninstall", "--agent", "claude-code"); code != ExitOK || !strings.Contains(out, remove) {
		t.Errorf("uninstall (%d) does not name the .mcp.json entry:\n%s", code, out)
	}
	if b, _ := os.ReadFile(mcpJSON); string(b) != stale {
		t.Error("uninstall changed .mcp.json")
	}
	// Elsewhere, the project's file is not this directory's business.
	if out, _, _ = mcpRunIn(t, t.TempDir(), env, "mcp", "status", "--agent", "claude-code", "--command", novactl); strings.Contains(out, ".mcp.json") {
		t.Errorf("status in another directory:\n%s", out)
	}

	// A matching entry is not reported.
	nova := filepath.Join(home, "nova-home")
	current := `{"mcpServers": {"nova": {"command": "` + novactl + `", "args": ["mcp"], "env": {"NOVA_HOME": "` + nova + `"}}}}`
	if err := os.WriteFile(mcpJSON, []byte(current), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, _, _ = mcpRunIn(t, project, env, "mcp", "status", "--agent", "claude-code", "--command", novactl); strings.Contains(out, ".mcp.json") {
		t.Errorf("status names a current .mcp.json entry:\n%s", out)
	}
	if b, _ := os.ReadFile(mcpJSON); string(b) != current {
		t.Error("status changed .mcp.json")
	}
}

// TestMCPInstall_DryRunHidesSecrets: the diff --dry-run prints shows the
// lines around Nova's entry, which in an agent's file are often another
// server's credentials (Claude Code's "env" of the GitHub server, a
// Codex env table): they are redacted, not printed. An agent that runs
// the command has its output in its transcript, sent to its model.
func TestMCPInstall_DryRunHidesSecrets(t *testing.T) {
	novactl := fakeNovactl(t)
	home, env := mcpAgentHome(t)
	const token = "ghp_q8Rz3kWm5Tn0Vb7Yc2Xl9Pd4Hf6Js1Ga8K3e"
	files := map[string]string{
		".claude.json":       "{\n  \"mcpServers\": {\n    \"github\": {\n      \"command\": \"npx\",\n      \"env\": {\"GITHUB_PERSONAL_ACCESS_TOKEN\": \"" + token + "\"}\n    }\n  }\n}\n",
		".codex/config.toml": "[mcp_servers.github]\ncommand = \"npx\"\n[mcp_servers.github.env]\nGITHUB_PERSONAL_ACCESS_TOKEN = \"" + token + "\"\n",
	}
	for rel, content := range files {
		if err := os.WriteFile(filepath.Join(home, rel), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	out, errs, code := mcpRun(t, env, "mcp", "install", "--dry-run", "--agent", "claude-code,codex", "--command", novactl)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if strings.Contains(out, token) || !strings.Contains(out, "+[mcp_servers.nova]") {
		t.Errorf("dry run:\n%s", out)
	}
}

// TestMCPInstall_Cursor: Cursor is found by ~/.cursor alone, before it
// has an mcp.json: install (for every agent found) creates
// ~/.cursor/mcp.json, private, with Nova in mcpServers; status says it is
// current; uninstall deletes the file install created. In a home without
// ~/.cursor it is skipped, and nothing is created.
func TestMCPInstall_Cursor(t *testing.T) {
	novactl := fakeNovactl(t)
	home := t.TempDir()
	env := []string{"HOME=" + home, "NOVA_HOME=" + filepath.Join(home, "nova-home")}
	out, errs, code := mcpRun(t, env, "mcp", "install", "--command", novactl)
	if code != ExitOK || !strings.Contains(out, "Cursor") || !strings.Contains(out, "--agent cursor") {
		t.Fatalf("without ~/.cursor (%d): %s %s", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(home, ".cursor")); !os.IsNotExist(err) {
		t.Fatalf("~/.cursor was created: %v", err)
	}

	if err := os.Mkdir(filepath.Join(home, ".cursor"), 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(home, ".cursor", "mcp.json")
	out, errs, code = mcpRun(t, env, "mcp", "install", "--command", novactl)
	if code != ExitOK || !strings.Contains(out, "Cursor") || !strings.Contains(out, "added Nova") {
		t.Fatalf("install (%d): %s %s", code, out, errs)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("no ~/.cursor/mcp.json: %v\n%s", err, out)
	}
	var doc map[string]map[string]struct {
		Command string            `json:"command"`
		Args    []string          `json:"args"`
		Env     map[string]string `json:"env"`
	}
	if err := json.Unmarshal(b, &doc); err != nil || doc["mcpServers"]["nova"].Command != novactl ||
		strings.Join(doc["mcpServers"]["nova"].Args, " ") != "mcp" || doc["mcpServers"]["nova"].Env["NOVA_HOME"] != filepath.Join(home, "nova-home") {
		t.Fatalf("~/.cursor/mcp.json (%v):\n%s", err, b)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	out, _, code = mcpRun(t, env, "mcp", "status", "--agent", "cursor", "--command", novactl)
	if code != ExitOK || !strings.Contains(out, "Cursor") || !strings.Contains(out, "~/.cursor/mcp.json: installed, current") {
		t.Errorf("status (%d): %s", code, out)
	}
	out, _, code = mcpRun(t, env, "mcp", "uninstall", "--agent", "cursor")
	if code != ExitOK || !strings.Contains(out, "and the file, which install had created") {
		t.Fatalf("uninstall (%d): %s", code, out)
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Errorf("~/.cursor/mcp.json outlived the uninstall: %v", err)
	}
}

// TestMCPStatus_GeminiProjectSettings: Gemini CLI merges a project's
// .gemini/settings.json over the user's, server by server, so a stale
// "nova" there is the one it starts in that project: status and install
// name it, as they name Cursor's .cursor/mcp.json, and leave it as it is.
func TestMCPStatus_GeminiProjectSettings(t *testing.T) {
	novactl := fakeNovactl(t)
	home, env := mcpAgentHome(t)
	novatest.DownHome(t, filepath.Join(home, "nova-home"))
	project := filepath.Join(t.TempDir(), "app")
	file := filepath.Join(project, ".gemini", "settings.json")
	novatest.Must(t, os.MkdirAll(filepath.Dir(file), 0o700))
	stale := "{\n  // project settings\n  \"mcpServers\": {\"nova\": {\"command\": \"/usr/local/old/novactl\", \"args\": [\"mcp\"]}}\n}\n"
	novatest.Must(t, os.WriteFile(file, []byte(stale), 0o600))
	for _, args := range [][]string{
		{"mcp", "install", "--agent", "gemini", "--command", novactl},
		{"mcp", "status", "--agent", "gemini", "--command", novactl},
	} {
		out, errs, code := mcpRunIn(t, project, env, args...)
		if code != ExitOK || !strings.Contains(out, file) || !strings.Contains(out, "Gemini CLI starts there instead") {
			t.Errorf("%v (%d) does not name Gemini CLI's project entry:\n%s%s", args, code, out, errs)
		}
	}
	if b, _ := os.ReadFile(file); string(b) != stale {
		t.Error("the project's .gemini/settings.json was changed")
	}
	// In the home directory, ~/.gemini/settings.json is the user's file.
	if out, errs, _ := mcpRunIn(t, home, env, "mcp", "status", "--agent", "gemini", "--command", novactl); strings.Contains(out+errs, "instead") {
		t.Errorf("status in the home directory names the user's settings as a project's:\n%s%s", out, errs)
	}
}

// TestMCPStatus_CodexProjectConfig: Codex reads [mcp_servers] from a
// trusted project's .codex/config.toml over the user's, so a stale "nova"
// there is the one it starts in that project: status names it, and the
// file stays as it is.
func TestMCPStatus_CodexProjectConfig(t *testing.T) {
	novactl := fakeNovactl(t)
	home, env := mcpAgentHome(t)
	novatest.DownHome(t, filepath.Join(home, "nova-home"))
	project := filepath.Join(t.TempDir(), "app")
	file := filepath.Join(project, ".codex", "config.toml")
	novatest.Must(t, os.MkdirAll(filepath.Dir(file), 0o700))
	stale := "# project\n[mcp_servers.nova]\ncommand = \"/usr/local/old/novactl\"\nargs = [\"mcp\"]\n"
	novatest.Must(t, os.WriteFile(file, []byte(stale), 0o600))
	for _, args := range [][]string{
		{"mcp", "install", "--agent", "codex", "--command", novactl},
		{"mcp", "status", "--agent", "codex", "--command", novactl},
	} {
		out, errs, code := mcpRunIn(t, project, env, args...)
		if code != ExitOK || !strings.Contains(out, file) || !strings.Contains(out, "Codex starts there instead") {
			t.Errorf("%v (%d) does not name Codex's project entry:\n%s%s", args, code, out, errs)
		}
	}
	if b, _ := os.ReadFile(file); string(b) != stale {
		t.Error("the project's .codex/config.toml was changed")
	}
	// In the home directory, ~/.codex/config.toml is the user's file.
	if out, errs, _ := mcpRunIn(t, home, env, "mcp", "status", "--agent", "codex", "--command", novactl); strings.Contains(out+errs, "instead") {
		t.Errorf("status in the home directory names the user's config as a project's:\n%s%s", out, errs)
	}
}

// TestMCP_CursorInHomeDirectory: run in the home directory (where a new
// terminal starts), the ".cursor/mcp.json of the current directory" is
// Cursor's user-level file itself, not a project's. status, install,
// uninstall and doctor used to report its entry as a project's own that
// Cursor starts instead, and to say to delete it, which would remove the
// very entry install writes.
func TestMCP_CursorInHomeDirectory(t *testing.T) {
	novactl := fakeNovactl(t)
	home, env := mcpAgentHome(t)
	novatest.DownHome(t, filepath.Join(home, "nova-home"))
	file := filepath.Join(home, ".cursor", "mcp.json")
	stale := `{"mcpServers": {"nova": {"command": "/usr/local/old/novactl", "args": ["mcp"]}}}`
	novatest.Must(t, os.WriteFile(file, []byte(stale), 0o600))
	for _, args := range [][]string{
		{"mcp", "status", "--agent", "cursor", "--command", novactl},
		{"mcp", "install", "--agent", "cursor", "--command", novactl},
		{"doctor"},
		{"mcp", "uninstall", "--agent", "cursor"},
	} {
		out, errs, _ := mcpRunIn(t, home, env, args...)
		if strings.Contains(out+errs, "project") || strings.Contains(out+errs, "delete mcpServers.nova") {
			t.Errorf("%v names the user-level file as a project's:\n%s%s", args, out, errs)
		}
	}
	// A foreign entry there is left alone, and not named as a project's.
	novatest.Must(t, os.WriteFile(file, []byte(`{"mcpServers": {"nova": {"command": "/usr/bin/other"}}}`), 0o600))
	if out, errs, _ := mcpRunIn(t, home, env, "mcp", "uninstall", "--agent", "cursor"); strings.Contains(out+errs, "delete mcpServers.nova") {
		t.Errorf("uninstall says to delete the user-level entry:\n%s%s", out, errs)
	}
}

// TestMCPStatus_CursorProjectMCPJSON: Cursor starts a project's own
// "nova" in .cursor/mcp.json instead of the user-level one: in the
// directory novactl runs in, status, install, uninstall and doctor name
// one that differs, as Cursor's (not Claude Code's), with how to remove
// it, and leave the file alone.
func TestMCPStatus_CursorProjectMCPJSON(t *testing.T) {
	novactl := fakeNovactl(t)
	home, env := mcpAgentHome(t)
	novatest.DownHome(t, filepath.Join(home, "nova-home"))
	project := filepath.Join(t.TempDir(), "my app")
	if err := os.MkdirAll(filepath.Join(project, ".cursor"), 0o700); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(project, ".cursor", "mcp.json")
	stale := `{"mcpServers": {"nova": {"command": "/usr/local/old/novactl", "args": ["mcp"]}, "other": {"command": "x"}}}`
	if err := os.WriteFile(file, []byte(stale), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"mcp", "install", "--agent", "cursor", "--command", novactl},
		{"mcp", "status", "--agent", "cursor", "--command", novactl},
		{"mcp", "uninstall", "--agent", "cursor"},
	} {
		out, errs, code := mcpRunIn(t, project, env, args...)
		if code != ExitOK || !strings.Contains(out, file) || !strings.Contains(out, "Cursor") || strings.Contains(out, "Claude Code") || strings.Contains(out, "claude mcp") {
			t.Errorf("%v (%d) does not name Cursor's project entry:\n%s%s", args, code, out, errs)
		}
	}
	if _, _, code := mcpRunIn(t, project, env, "mcp", "install", "--agent", "cursor", "--command", novactl); code != ExitOK {
		t.Fatal("install")
	}
	out, _, _ := mcpRunIn(t, project, env, "doctor")
	if !strings.Contains(out, file) || strings.Contains(out, "Claude Code starts") || strings.Contains(out, "claude mcp") {
		t.Errorf("doctor does not name Cursor's project entry as Cursor's:\n%s", out)
	}
	if b, _ := os.ReadFile(file); string(b) != stale {
		t.Error("the project's .cursor/mcp.json was changed")
	}
	// Claude Code does not read .cursor/mcp.json.
	if out, _, _ := mcpRunIn(t, project, env, "mcp", "status", "--agent", "claude-code", "--command", novactl); strings.Contains(out, file) {
		t.Errorf("Claude Code's status names .cursor/mcp.json:\n%s", out)
	}
}

// TestMCPInstall_JSON: mcp install and uninstall take --json, as skill
// install does: one JSON document on stdout (the command, each agent's
// file and what was done to it, ok), nothing on stderr, the same exit
// status as the text form; a dry run's diff in it is redacted as the
// text's is, and a usage error is {"ok":false,"error"} with exit 2.
func TestMCPInstall_JSON(t *testing.T) {
	novactl := fakeNovactl(t)
	home, env := mcpAgentHome(t)
	const token = "ghp_q8Rz3kWm5Tn0Vb7Yc2Xl9Pd4Hf6Js1Ga8K3e"
	novatest.Must(t, os.WriteFile(filepath.Join(home, ".codex/config.toml"),
		[]byte("[mcp_servers.github]\ncommand = \"npx\"\n[mcp_servers.github.env]\nGITHUB_PERSONAL_ACCESS_TOKEN = \""+token+"\"\n"), 0o600))
	type report struct {
		Command string
		DryRun  bool
		OK      bool
		Targets []struct {
			Agent, Name, Config, Action, Summary, Diff, Skipped, Error string
			Changed                                                    bool
		}
	}
	decode := func(args []string, out, errs string) report {
		t.Helper()
		var r report
		dec := json.NewDecoder(strings.NewReader(out))
		if err := dec.Decode(&r); err != nil || dec.More() {
			t.Fatalf("%v: stdout is not one JSON document (%v):\n%s", args, err, out)
		}
		if errs != "" {
			t.Errorf("%v: stderr %q; want nothing", args, errs)
		}
		return r
	}
	before := mcpSnapshot(t, home)
	args := []string{"mcp", "install", "--json", "--dry-run", "--agent", "codex", "--command", novactl}
	out, errs, code := mcpRun(t, env, args...)
	r := decode(args, out, errs)
	if code != ExitOK || !r.OK || !r.DryRun || r.Command != "install" || len(r.Targets) != 1 || r.Targets[0].Agent != "codex" ||
		r.Targets[0].Config != filepath.Join(home, ".codex/config.toml") || !strings.Contains(r.Targets[0].Diff, "+[mcp_servers.nova]") ||
		strings.Contains(out, token) {
		t.Errorf("%v: exit %d, %+v", args, code, r)
	}
	if !mcpEqualMaps(mcpSnapshot(t, home), before) {
		t.Fatal("--dry-run --json wrote a file")
	}
	args = []string{"mcp", "install", "--json", "--agent", "codex", "--command", novactl}
	out, errs, code = mcpRun(t, env, args...)
	r = decode(args, out, errs)
	if code != ExitOK || !r.OK || r.DryRun || len(r.Targets) != 1 || r.Targets[0].Action != "install" || r.Targets[0].Summary != "added Nova" || !r.Targets[0].Changed {
		t.Errorf("%v: exit %d, %+v", args, code, r)
	}
	args = []string{"mcp", "uninstall", "--json", "--agent", "codex"}
	out, errs, code = mcpRun(t, env, args...)
	r = decode(args, out, errs)
	if code != ExitOK || !r.OK || r.Command != "uninstall" || len(r.Targets) != 1 || r.Targets[0].Action != "remove" || !strings.HasPrefix(r.Targets[0].Summary, "removed Nova") {
		t.Errorf("%v: exit %d, %+v", args, code, r)
	}
	// Every agent, in a home that has none of them: each skipped.
	bare := []string{"HOME=" + t.TempDir()}
	args = []string{"mcp", "install", "--json", "--command", novactl}
	out, errs, code = mcpRun(t, bare, args...)
	r = decode(args, out, errs)
	if code != ExitOK || !r.OK || len(r.Targets) == 0 || r.Targets[0].Skipped == "" {
		t.Errorf("%v: exit %d, %+v", args, code, r)
	}
	args = []string{"mcp", "install", "--json", "--agent", "vim"}
	out, errs, code = mcpRun(t, env, args...)
	var e struct {
		OK    *bool
		Error string
	}
	if err := json.Unmarshal([]byte(out), &e); err != nil || e.OK == nil || *e.OK || !strings.Contains(e.Error, `unknown agent "vim"`) ||
		code != ExitUsage || errs != "" {
		t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and {\"ok\":false,...}", args, code, out, errs)
	}
}

// TestMCPStatus_JSONUnreadableProjectFile: a .mcp.json in the current
// directory that does not parse is named in mcp status --json's
// document (the agent's projectError), not on stderr beside it; the text
// form says it on stderr, and both exit 1.
func TestMCPStatus_JSONUnreadableProjectFile(t *testing.T) {
	novactl := fakeNovactl(t)
	_, env := mcpAgentHome(t)
	project := t.TempDir()
	novatest.Must(t, os.WriteFile(filepath.Join(project, ".mcp.json"), []byte(`{"mcpServers": {`), 0o600))
	out, errs, code := mcpRunIn(t, project, env, "mcp", "status", "--agent", "claude-code", "--command", novactl, "--json")
	var doc struct {
		Agents []struct {
			ProjectError string `json:"projectError"`
		} `json:"agents"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != ExitFailure || errs != "" ||
		len(doc.Agents) != 1 || !strings.Contains(doc.Agents[0].ProjectError, ".mcp.json") {
		t.Errorf("--json: exit %d, stdout %q (%v), stderr %q; want exit 1, the error in the JSON and nothing on stderr", code, out, err, errs)
	}
	out, errs, code = mcpRunIn(t, project, env, "mcp", "status", "--agent", "claude-code", "--command", novactl)
	if code != ExitFailure || !strings.Contains(errs, ".mcp.json") {
		t.Errorf("text: exit %d, stdout %q, stderr %q; want exit 1 and the error on stderr", code, out, errs)
	}
}

// TestMCP_verbHelpSaysWhatTheVerbDoes: novactl mcp install --help (and
// uninstall's, status's) opened with "Without a subcommand, serves Nova's
// read-only memory tools...": serving, which that command does not do.
// Each verb's help opens with what it does and keeps the agents' files;
// the serve text stays in novactl mcp --help.
func TestMCP_verbHelpSaysWhatTheVerbDoes(t *testing.T) {
	env := []string{"HOME=" + t.TempDir()}
	for verb, opening := range map[string]string{
		"install":   `Adds Nova ("nova": novactl mcp) to agents' MCP configuration files`,
		"uninstall": "Removes exactly what install added",
		"status":    "Shows each agent's entry",
	} {
		help, _, code := mcpRun(t, env, "mcp", verb, "--help")
		_, body, _ := strings.Cut(help, "\n\n")
		if code != ExitOK || !strings.HasPrefix(body, opening) || strings.Contains(help, "Without a subcommand") || !strings.Contains(help, "~/.codex/config.toml") {
			t.Errorf("mcp %s --help: exit %d; want it to open with %q, name the agents' files and not describe serving:\n%s", verb, code, opening, help)
		}
	}
	for _, args := range [][]string{{"mcp", "--help"}, {"mcp", "serve", "--help"}, {"mcp", "help"}} {
		if help, _, code := mcpRun(t, env, args...); code != ExitOK || !strings.Contains(help, "Without a subcommand, serves") || !strings.Contains(help, "  install ") {
			t.Errorf("%v: exit %d:\n%s", args, code, help)
		}
	}
}

// TestMCPInstall_concurrentInstallsKeepEveryRecord: novactl mcp install
// for several agents run at once (an agent's setup script per agent, two
// terminals) records every install. Each used to read the record store
// first and write it back whole at the end, dropping the records the
// others wrote meanwhile; uninstall then finds no record of those files
// (one moved with CODEX_HOME is left with Nova's entry).
func TestMCPInstall_concurrentInstallsKeepEveryRecord(t *testing.T) {
	novactl := fakeNovactl(t)
	agents := []string{"claude-code", "codex", "hermes", "gemini"}
	for round := range 5 {
		home, env := mcpAgentHome(t)
		var wg sync.WaitGroup
		for _, a := range agents {
			wg.Go(func() {
				if out, errs, code := mcpRun(t, env, "mcp", "install", "--agent", a, "--command", novactl); code != ExitOK {
					t.Errorf("install --agent %s: exit %d\n%s\n%s", a, code, out, errs)
				}
			})
		}
		wg.Wait()
		recs, err := agentconf.LoadRecords(agentconf.RecordsFile(paths.Home{Root: filepath.Join(home, "nova-home")}))
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range agents {
			if len(recs.Paths(a)) != 1 {
				t.Errorf("round %d: the install record of %s is lost; records: %v", round, a, recs.Installs)
			}
		}
	}
}
