package novatest

import (
	"os"
	"testing"
)

// ServiceLog opens path as launchd opens a job's StandardErrorPath:
// appending, created with launchd's default mode 0644 whatever the test's
// umask. It is closed when the test ends.
func ServiceLog(t testing.TB, path string) *os.File {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Chmod(0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}
