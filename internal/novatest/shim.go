package novatest

import (
	"errors"
	"os"
	"os/exec"
	"testing"
)

// runMainEnv, set to 1, makes a test binary run the command's main instead
// of its tests (see MainOrTests).
const runMainEnv = "NOVA_TEST_RUN_MAIN"

// MainOrTests is the TestMain of a command's shim tests: started by
// RunSelf, the test binary is the command (main runs and exits);
// otherwise it runs the tests, then removes the binaries they built
// (once per test binary, not per test: -count runs them again).
func MainOrTests(m *testing.M, main func()) {
	if os.Getenv(runMainEnv) == "1" {
		main()
	}
	code := m.Run()
	Cleanup()
	os.Exit(code)
}

// RunSelf starts this test binary as the command with args, in a
// temporary HOME and NOVA_HOME, and returns its combined output and exit
// status.
func RunSelf(t testing.TB, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), runMainEnv+"=1", "HOME="+t.TempDir(), "NOVA_HOME="+t.TempDir())
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
