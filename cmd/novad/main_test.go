package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/daemon"
	"github.com/nova-recall/nova/internal/novatest"
)

// TestMain lets the tests below start this test binary as novad: the
// shim's wiring of arguments, output and exit status is what they check.
func TestMain(m *testing.M) { novatest.MainOrTests(m, main) }

func TestShim(t *testing.T) {
	if out, code := novatest.RunSelf(t, "--version"); code != 0 || !strings.HasPrefix(out, "novad ") {
		t.Errorf("novad --version: exit %d, output %q", code, out)
	}
	if out, code := novatest.RunSelf(t, "--no-such-flag"); code != 2 {
		t.Errorf("novad --no-such-flag: exit %d, want 2 (a usage error)\n%s", code, out)
	}
}

// novadRun runs novad's entry point with args in a temporary home whose
// ports are 0, and returns its exit status, stdout and stderr.
func novadRun(t *testing.T, home string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	// A deadline: a novad that went on to serve would do so on free
	// ports until then, never on the default ones.
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	env := []string{"NOVA_HOME=" + home, "HOME=" + t.TempDir(), "NOVA_SERVER_PORT=0", "NOVA_FACADE_PORT=0"}
	code := daemon.Main(ctx, args, env, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// TestHelp_toStdout: novad --help (or -h) is what was asked for: on
// stdout with exit 0, so that novad --help | less shows it.
func TestHelp_toStdout(t *testing.T) {
	for _, arg := range []string{"--help", "-h", "-help"} {
		code, out, errOut := novadRun(t, t.TempDir(), arg)
		if code != daemon.ExitOK || errOut != "" || !strings.HasPrefix(out, "novad serves") || !strings.Contains(out, "Usage: novad [flags]") || !strings.Contains(out, "  -log-format") {
			t.Errorf("novad %s: exit %d, stderr %q, stdout %.80q; want exit 0 and the help with its flags on stdout", arg, code, errOut, out)
		}
	}
}

// TestBadFlag_oneLineAndAPointer: a flag novad does not know is a usage
// error of one line and a pointer to --help, as novactl gives it, not the
// whole help, under which the error scrolled away.
func TestBadFlag_oneLineAndAPointer(t *testing.T) {
	for _, tt := range []struct{ args, want []string }{
		{[]string{"--bogus"}, []string{"novad: flag provided but not defined: -bogus", `Run "novad --help" for its usage.`}},
		{[]string{"-v=maybe"}, []string{`novad: invalid boolean value "maybe" for -v: parse error`, `Run "novad --help" for its usage.`}},
	} {
		code, out, errOut := novadRun(t, t.TempDir(), tt.args...)
		if want := strings.Join(tt.want, "\n") + "\n"; code != daemon.ExitUsage || out != "" || errOut != want {
			t.Errorf("novad %s: exit %d, stdout %q, stderr %q; want exit 2 and %q", strings.Join(tt.args, " "), code, out, errOut, want)
		}
	}
}

// TestLogFormatAuto_saysWhatItDoes: --log-format auto logs JSON whenever
// stderr is not a terminal (a pipe, a file, --log-file), not only under a
// service manager as its help said: the help says so, and a novad whose
// stderr is a pipe logs JSON.
func TestLogFormatAuto_saysWhatItDoes(t *testing.T) {
	_, help, _ := novadRun(t, t.TempDir(), "--help")
	_, line, _ := strings.Cut(help, "  -log-format")
	line, _, _ = strings.Cut(line, "\n  -")
	if strings.Contains(line, "service manager") || !strings.Contains(line, "JSON otherwise") {
		t.Errorf("novad --help's --log-format says %q; want text on a terminal, JSON otherwise", line)
	}
	// An invalid config.yaml: novad logs why and exits 78, before serving.
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte("retrieval: {topK: nope}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, logs := novadRun(t, home)
	var rec map[string]any
	if code != daemon.ExitConfig || json.Unmarshal([]byte(strings.TrimSpace(logs)), &rec) != nil || rec["level"] != "ERROR" {
		t.Errorf("novad with stderr a pipe: exit %d, logs %q; want exit 78 and a JSON log line", code, logs)
	}
}
