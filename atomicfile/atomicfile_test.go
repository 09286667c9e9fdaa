package atomicfile_test

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"

	"github.com/nova-recall/nova/atomicfile"
)

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// entries lists a directory's names, to show temporary files left behind.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestWrite_createsAndReplacesWithTheExactMode(t *testing.T) {
	old := syscall.Umask(0o077) // a umask that would hide a missing chmod
	defer syscall.Umask(old)
	dir := t.TempDir()
	path := filepath.Join(dir, "f.json")
	for _, tt := range []struct {
		data string
		perm fs.FileMode
	}{{"one\n", 0o644}, {"two\n", 0o600}, {"three\n", 0o640}} {
		if err := atomicfile.Write(path, []byte(tt.data), tt.perm); err != nil {
			t.Fatal(err)
		}
		if got := readFile(t, path); got != tt.data {
			t.Errorf("content %q, want %q", got, tt.data)
		}
		fi, err := os.Lstat(path)
		if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != tt.perm {
			t.Errorf("mode %v (%v), want a regular file with %v", fi.Mode(), err, tt.perm)
		}
	}
	if names := entries(t, dir); !slices.Equal(names, []string{"f.json"}) {
		t.Errorf("directory holds %v, want only f.json", names)
	}
}

func TestWrite_hookStepsInOrder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	var steps []atomicfile.Step
	if err := atomicfile.Write(path, []byte("x"), 0o600, atomicfile.WithHook(func(s atomicfile.Step) { steps = append(steps, s) })); err != nil {
		t.Fatal(err)
	}
	want := []atomicfile.Step{atomicfile.StepTempWritten, atomicfile.StepTempSynced, atomicfile.StepRenamed}
	if !slices.Equal(steps, want) {
		t.Errorf("steps %v, want %v", steps, want)
	}
}

// TestWrite_unsynced: an unsynced write skips the fsync step and still
// replaces the file whole, with its mode, leaving no temporary file.
func TestWrite_unsynced(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	var steps []atomicfile.Step
	hook := atomicfile.WithHook(func(s atomicfile.Step) { steps = append(steps, s) })
	for _, data := range []string{"old", "new"} {
		steps = nil
		if err := atomicfile.Write(path, []byte(data), 0o600, atomicfile.Unsynced(), hook); err != nil {
			t.Fatal(err)
		}
	}
	if want := []atomicfile.Step{atomicfile.StepTempWritten, atomicfile.StepRenamed}; !slices.Equal(steps, want) {
		t.Errorf("steps %v, want %v (no fsync)", steps, want)
	}
	b, err := os.ReadFile(path)
	if err != nil || string(b) != "new" {
		t.Errorf("content %q %v, want new", b, err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v %v, want 0600", fi.Mode(), err)
	}
	if names := entries(t, dir); !slices.Equal(names, []string{"state.json"}) {
		t.Errorf("directory holds %v, want only state.json", names)
	}
}

// TestWrite_refusesSymlink: a link at the path, pointing at a file or at
// nothing, is neither followed nor replaced.
func TestWrite_refusesSymlink(t *testing.T) {
	for _, dangling := range []bool{false, true} {
		dir := t.TempDir()
		victim := filepath.Join(dir, "victim")
		if !dangling {
			if err := os.WriteFile(victim, []byte("do not touch\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		path := filepath.Join(dir, "f")
		if err := os.Symlink(victim, path); err != nil {
			t.Fatal(err)
		}
		err := atomicfile.Write(path, []byte("new"), 0o600)
		if !errors.Is(err, atomicfile.ErrSymlink) {
			t.Fatalf("dangling %v: err %v, want ErrSymlink", dangling, err)
		}
		if fi, err := os.Lstat(path); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("dangling %v: the link was replaced", dangling)
		}
		b, err := os.ReadFile(victim)
		switch {
		case dangling && !errors.Is(err, fs.ErrNotExist):
			t.Errorf("the dangling link's target was created: %v", err)
		case !dangling && string(b) != "do not touch\n":
			t.Errorf("written through the link: %q", b)
		}
		if names := entries(t, dir); len(names) != map[bool]int{false: 2, true: 1}[dangling] {
			t.Errorf("dangling %v: directory holds %v", dangling, names)
		}
	}
}

func TestWrite_replaceSymlinkReplacesTheLinkNotItsTarget(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("do not touch\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "f")
	if err := os.Symlink(victim, path); err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.Write(path, []byte("new"), 0o600, atomicfile.ReplaceSymlink()); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, victim); got != "do not touch\n" {
		t.Errorf("written through the link: %q", got)
	}
	if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() || readFile(t, path) != "new" {
		t.Errorf("path is not the new regular file: %v %v", fi.Mode(), err)
	}
}

// TestWrite_failuresKeepTheOldFile: a failing writer, a failing check and
// a failing rename each leave the old file and no temporary file.
func TestWrite_failuresKeepTheOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := atomicfile.Write(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := atomicfile.WriteFunc(path, 0o600, func(w io.Writer) error {
		_, _ = w.Write([]byte("half"))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Errorf("failing writer: %v", err)
	}
	err = atomicfile.Write(path, []byte("new"), 0o600, atomicfile.WithCheck(func(fi fs.FileInfo) error {
		if fi.Mode().Perm() != 0o600 || fi.Size() != 3 {
			t.Errorf("check saw %v size %d", fi.Mode(), fi.Size())
		}
		return boom
	}))
	if !errors.Is(err, boom) {
		t.Errorf("failing check: %v", err)
	}
	if got := readFile(t, path); got != "old" {
		t.Errorf("content %q after failed writes, want old", got)
	}
	if names := entries(t, dir); !slices.Equal(names, []string{"f"}) {
		t.Errorf("directory holds %v", names)
	}

	// A non-empty directory at the path: the rename fails.
	blocked := filepath.Join(dir, "d")
	if err := os.MkdirAll(filepath.Join(blocked, "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.Write(blocked, []byte("new"), 0o600); err == nil {
		t.Error("write over a non-empty directory succeeded")
	}
	if names := entries(t, dir); !slices.Equal(names, []string{"d", "f"}) {
		t.Errorf("directory holds %v after a failed rename", names)
	}
}

func TestRemoveTemps(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "manifest.json")
	for _, name := range []string{".manifest.json.123.tmp", ".manifest.json.x.tmp", ".other.json.1.tmp", "manifest.json", ".manifest.json.keep"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	atomicfile.RemoveTemps(path)
	want := []string{".manifest.json.keep", ".other.json.1.tmp", "manifest.json"}
	if names := entries(t, dir); !slices.Equal(names, want) {
		t.Errorf("after RemoveTemps: %v, want %v", names, want)
	}
}

func TestRemove(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := atomicfile.Write(path, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.Remove(path); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("after Remove: %v", err)
	}
	if err := atomicfile.Remove(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("second Remove: %v, want not-exist", err)
	}
}

// TestWrite_crash kills a writer (a child process, SIGKILL) at every step:
// the path then holds the old or the new content, whole, and RemoveTemps
// clears what the writer left.
func TestWrite_crash(t *testing.T) {
	if step := os.Getenv("ATOMICFILE_CRASH_AT"); step != "" {
		path := os.Getenv("ATOMICFILE_PATH")
		_ = atomicfile.Write(path, []byte("new content\n"), 0o600, atomicfile.WithHook(func(s atomicfile.Step) {
			if string(s) == step {
				_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
				select {}
			}
		}))
		os.Exit(3) // the step was never reached
	}
	for _, tt := range []struct {
		step    atomicfile.Step
		wantNew bool
	}{{atomicfile.StepTempWritten, false}, {atomicfile.StepTempSynced, false}, {atomicfile.StepRenamed, true}} {
		t.Run(string(tt.step), func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "f")
			if err := atomicfile.Write(path, []byte("old content\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestWrite_crash$")
			cmd.Env = append(os.Environ(), "ATOMICFILE_CRASH_AT="+string(tt.step), "ATOMICFILE_PATH="+path)
			err := cmd.Run()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
				t.Fatalf("child: %v, want death by SIGKILL", err)
			}
			want := map[bool]string{false: "old content\n", true: "new content\n"}[tt.wantNew]
			if got := readFile(t, path); got != want {
				t.Errorf("after a crash at %s: %q, want %q", tt.step, got, want)
			}
			atomicfile.RemoveTemps(path)
			if names := entries(t, dir); !slices.Equal(names, []string{"f"}) {
				t.Errorf("after RemoveTemps: %v", names)
			}
		})
	}
}

// An ordered write syncs before its rename like a full one: the steps are
// the same, and the file is published whole with its mode.
func TestWrite_orderedSyncsBeforeTheRename(t *testing.T) {
	path := filepath.Join(t.TempDir(), "candidate.json")
	var steps []atomicfile.Step
	err := atomicfile.Write(path, []byte("{}\n"), 0o600, atomicfile.Ordered(), atomicfile.WithHook(func(s atomicfile.Step) { steps = append(steps, s) }))
	if err != nil {
		t.Fatal(err)
	}
	want := []atomicfile.Step{atomicfile.StepTempWritten, atomicfile.StepTempSynced, atomicfile.StepRenamed}
	if !slices.Equal(steps, want) {
		t.Errorf("steps %v, want %v", steps, want)
	}
	if got := readFile(t, path); got != "{}\n" {
		t.Errorf("content %q", got)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := atomicfile.SyncOrdered(f); err != nil {
		t.Errorf("SyncOrdered: %v", err)
	}
	if err := atomicfile.SyncDirOrdered(filepath.Dir(path)); err != nil {
		t.Errorf("SyncDirOrdered: %v", err)
	}
}

// TestWrite_fileTooLarge: a write that finds no room (here EFBIG, from a
// file size limit set in a child process as ulimit -f sets it; a full
// disk's ENOSPC takes the same path) fails with the path it replaces and
// the cause, not the name of a temporary file already removed, which sent
// a reader looking for it; the old content stays, and nothing is left
// beside it.
func TestWrite_fileTooLarge(t *testing.T) {
	if path := os.Getenv("ATOMICFILE_FSIZE_PATH"); path != "" {
		// Go ignores SIGXFSZ: past the limit, write returns EFBIG.
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: 64, Max: 64}); err != nil {
			os.Exit(2)
		}
		err := atomicfile.Write(path, make([]byte, 4096), 0o600)
		fmt.Print(err)
		var pe *fs.PathError
		if !errors.Is(err, syscall.EFBIG) || !errors.As(err, &pe) {
			os.Exit(4)
		}
		os.Exit(1)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := atomicfile.Write(path, []byte("old content\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestWrite_fileTooLarge$")
	cmd.Env = append(os.Environ(), "ATOMICFILE_FSIZE_PATH="+path)
	out, err := cmd.Output()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("child: %v (%q), want exit 1 with an error that is EFBIG and a *fs.PathError", err, out)
	}
	if want := "write " + path + ": file too large"; string(out) != want {
		t.Errorf("error %q, want %q", out, want)
	}
	if got := readFile(t, path); got != "old content\n" {
		t.Errorf("after the failed write: %q, want the old content", got)
	}
	if names := entries(t, dir); !slices.Equal(names, []string{"f"}) {
		t.Errorf("left beside it: %v", names)
	}
}
