package main

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestMain runs main itself when the test binary is started as novactl (by
// the tests below): the shim's wiring of arguments, output and exit status
// is what they check.
func TestMain(m *testing.M) {
	if os.Getenv("NOVA_TEST_RUN_MAIN") == "1" {
		main()
	}
	os.Exit(m.Run())
}

func run(t *testing.T, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "NOVA_TEST_RUN_MAIN=1", "HOME="+t.TempDir(), "NOVA_HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return string(out), exit.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(out), 0
}

func TestShim(t *testing.T) {
	if out, code := run(t, "version"); code != 0 || !strings.HasPrefix(out, "novactl ") {
		t.Errorf("novactl version: exit %d, output %q", code, out)
	}
	if out, code := run(t, "no-such-command"); code != 2 {
		t.Errorf("novactl no-such-command: exit %d, want 2 (a usage error)\n%s", code, out)
	}
}
