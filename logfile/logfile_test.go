package logfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/internal/novatest"
)

func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestOpen_makesPrivate: the file launchd made 0644 becomes 0600, and so
// does the LaunchAgent's separate stdout file (novad.out.log).
func TestOpen_makesPrivate(t *testing.T) {
	dir := t.TempDir()
	path, out := filepath.Join(dir, "novad.err.log"), filepath.Join(dir, "novad.out.log")
	stderr, stdout := novatest.ServiceLog(t, path), novatest.ServiceLog(t, out)
	if _, err := Open(path, stdout, stderr, 0); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, out} {
		if m := mode(t, p); m != 0o600 {
			t.Errorf("%s mode %v, want 0600", p, m)
		}
	}
}

// TestOpen_notStderr: a --log-file naming another file than stderr's
// leaves that file alone.
func TestOpen_notStderr(t *testing.T) {
	dir := t.TempDir()
	other := filepath.Join(dir, "other.log")
	if err := os.WriteFile(other, []byte("someone else's\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(other, 0o644); err != nil {
		t.Fatal(err)
	}
	stderr := novatest.ServiceLog(t, filepath.Join(dir, "novad.log"))
	for _, c := range []struct {
		name   string
		stderr io.Writer
	}{{"another file", stderr}, {"not a file", &bytes.Buffer{}}} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Open(other, nil, c.stderr, 1)
			if !errors.Is(err, ErrNotStderr) {
				t.Fatalf("err %v, want ErrNotStderr", err)
			}
			if m := mode(t, other); m != 0o644 {
				t.Errorf("the other file's mode became %v", m)
			}
			if _, err := os.Stat(other + ".1"); err == nil {
				t.Error("the other file was rotated")
			}
		})
	}
}

// TestWriter_rotates: past the limit the file moves to .1 (one previous
// file kept) and writing goes on in a new private file, both through the
// Writer and through stderr's own descriptor (what the runtime writes on
// a crash), and through stdout when it is the same file.
func TestWriter_rotates(t *testing.T) {
	path := filepath.Join(t.TempDir(), "novad.log")
	stderr := novatest.ServiceLog(t, path)
	stdout, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer stdout.Close()
	const limit = 1000
	w, err := Open(path, stdout, stderr, limit)
	if err != nil {
		t.Fatal(err)
	}
	line := func(i int) string { return fmt.Sprintf("line %04d %s\n", i, strings.Repeat("x", 80)) }
	const n = 50 // about 4.5 limits: three rotations
	for i := range n {
		if _, err := w.Write([]byte(line(i))); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := stderr.WriteString("raw stderr\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := stdout.WriteString("raw stdout\n"); err != nil {
		t.Fatal(err)
	}
	cur, prev := read(t, path), read(t, path+".1")
	if !strings.HasSuffix(cur, line(n-1)+"raw stderr\nraw stdout\n") {
		t.Errorf("the current file does not end with the last lines:\n%s", cur)
	}
	if len(cur) > limit+len(line(0))+40 || len(prev) > limit+len(line(0)) {
		t.Errorf("files of %d and %d bytes, limit %d", len(cur), len(prev), limit)
	}
	// No line is lost between the two files: .1 ends where the current
	// file starts.
	first := strings.SplitN(cur, " ", 3)[1]
	var i int
	if _, err := fmt.Sscanf(first, "%d", &i); err != nil || !strings.HasSuffix(prev, line(i-1)) {
		t.Errorf("the current file starts at line %q and .1 does not end with the line before:\n%s", first, prev)
	}
	matches, _ := filepath.Glob(path + "*")
	if len(matches) != 2 {
		t.Errorf("files %v, want the log and one previous", matches)
	}
	for _, p := range matches {
		if m := mode(t, p); m != 0o600 {
			t.Errorf("%s mode %v, want 0600", p, m)
		}
	}
}

// TestOpen_rotatesAtStart: a file already past the limit (a long run
// before this version, a crash loop) is rotated when the process starts.
func TestOpen_rotatesAtStart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "novad.log")
	stderr := novatest.ServiceLog(t, path)
	old := strings.Repeat("old\n", 500)
	if _, err := stderr.WriteString(old); err != nil {
		t.Fatal(err)
	}
	w, err := Open(path, nil, stderr, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte("new\n")); err != nil {
		t.Fatal(err)
	}
	if got := read(t, path); got != "new\n" {
		t.Errorf("current file %q, want only the new line", got)
	}
	if got := read(t, path+".1"); got != old {
		t.Errorf(".1 holds %d bytes, want the old %d", len(got), len(old))
	}
}

func TestSetup_noPath(t *testing.T) {
	var b bytes.Buffer
	w, err := Setup("", nil, &b)
	if err != nil || w != &b {
		t.Fatalf("Setup without a path: %v, %v; want stderr itself", w, err)
	}
}

// TestWriter_retriesFailedRotation: a rotation that fails (here: a folder
// stands where the new file goes, as a full disk refuses to create it)
// is tried again after a back-off, not at every line and not never: it
// used to stop rotating for good, and the file grew without bound. While
// it fails, the file stays bounded at twice the limit and writable.
func TestWriter_retriesFailedRotation(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "novad.log")
	stderr := novatest.ServiceLog(t, path)
	const limit = 1000
	w, err := Open(path, nil, stderr, limit)
	if err != nil {
		t.Fatal(err)
	}
	clock := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	w.now = func() time.Time { return clock }
	// The file moved by hand and a folder in its place: the file is not
	// moved again, and the new one cannot be created.
	moved := filepath.Join(dir, "moved.log")
	if err := os.Rename(path, moved); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(path, 0o700); err != nil {
		t.Fatal(err)
	}
	line := strings.Repeat("x", 99) + "\n"
	for range 50 { // five limits
		if _, err := w.Write([]byte(line)); err != nil {
			t.Fatal(err)
		}
	}
	got := read(t, moved)
	if n := strings.Count(got, "trying again"); n > 1 {
		t.Errorf("the failure is written %d times before the back-off ends, want once:\n%s", n, got)
	}
	if !strings.Contains(got, "is a directory") {
		t.Errorf("the file does not say why it is not rotated:\n%s", got)
	}
	if len(got) > 2*limit+len(line)+200 {
		t.Errorf("the unrotated file grew to %d bytes, past twice the limit %d", len(got), limit)
	}
	if !strings.HasSuffix(got, line) {
		t.Errorf("the file does not end with the last line written:\n%s", got)
	}
	// The cause gone and the back-off over: the next line rotates.
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	clock = clock.Add(maxRetry)
	if _, err := w.Write([]byte(line)); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte("after\n")); err != nil {
		t.Fatal(err)
	}
	if got := read(t, path); !strings.HasSuffix(got, "after\n") {
		t.Errorf("after the retry the log file holds %q, want the new lines", got)
	}
	if m := mode(t, path); m != 0o600 {
		t.Errorf("new file mode %v, want 0600", m)
	}
}

// TestOpen_rotationFailsAtStart: a file past the limit that cannot be
// rotated at start is still managed: rotated once it can be.
func TestOpen_rotationFailsAtStart(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "novad.log")
	stderr := novatest.ServiceLog(t, path)
	if _, err := stderr.WriteString(strings.Repeat("old\n", 500)); err != nil {
		t.Fatal(err)
	}
	// .1 a folder that is not empty: the rename onto it fails.
	if err := os.MkdirAll(filepath.Join(path+".1", "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	w, err := Open(path, nil, stderr, 1000)
	if err != nil {
		t.Fatalf("Open with a rotation that fails: %v; want the file managed all the same", err)
	}
	if err := os.RemoveAll(path + ".1"); err != nil {
		t.Fatal(err)
	}
	w.now = func() time.Time { return time.Now().Add(maxRetry) }
	if _, err := w.Write([]byte("new\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte("newer\n")); err != nil {
		t.Fatal(err)
	}
	if got := read(t, path); strings.Contains(got, "old") || !strings.HasSuffix(got, "newer\n") {
		t.Errorf("current file %q, want the newer line, not the old ones", got)
	}
	if got := read(t, path+".1"); !strings.HasPrefix(got, "old\n") {
		t.Errorf(".1 holds %q, want the old lines", got[:min(len(got), 40)])
	}
}
