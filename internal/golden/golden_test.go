package golden

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// recorder captures failures so Check's own failures can be asserted.
type recorder struct {
	testing.TB
	failed []string
}

func (r *recorder) Helper()                           {}
func (r *recorder) Name() string                      { return "TestX" }
func (r *recorder) Errorf(format string, args ...any) { r.failed = append(r.failed, format) }
func (r *recorder) Fatalf(format string, args ...any) {
	r.failed = append(r.failed, format)
	runtime.Goexit() // as testing.T does: nothing after a fatal failure runs
}

// check runs Check on its own goroutine, as Fatalf ends that goroutine.
func check(t *testing.T, path string, got []byte) []string {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Check(r, path, got)
	}()
	<-done
	return r.failed
}

func TestCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.golden")
	if err := os.WriteFile(path, []byte("a\nb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if f := check(t, path, []byte("a\nb\n")); len(f) != 0 {
		t.Errorf("equal output failed: %v", f)
	}
	if f := check(t, path, []byte("a\nc\n")); len(f) != 1 {
		t.Errorf("different output: %d failures, want 1", len(f))
	}
	if f := check(t, filepath.Join(t.TempDir(), "none.golden"), []byte("a")); len(f) != 1 {
		t.Errorf("missing golden file: %d failures, want 1", len(f))
	}
}

func TestFirstDifference(t *testing.T) {
	if got := FirstDifference("a\nb\nc", "a\nB\nc"); !strings.HasPrefix(got, "line 2:") || !strings.Contains(got, "want b") || !strings.Contains(got, "got  B") {
		t.Errorf("FirstDifference = %q", got)
	}
	if got := FirstDifference("a", "a\nb"); got != "want 1 lines, got 2" {
		t.Errorf("FirstDifference = %q", got)
	}
}
