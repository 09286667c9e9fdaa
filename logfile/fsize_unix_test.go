//go:build linux || darwin

package logfile

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// envFsizeChild makes the test binary a child that logs through a Writer
// on its stderr under a file size limit (TestWriter_fileSizeLimit).
const envFsizeChild = "NOVA_TEST_LOGFILE_FSIZE_CHILD"

func TestMain(m *testing.M) {
	if path := os.Getenv(envFsizeChild); path != "" {
		os.Exit(fsizeChild(path))
	}
	os.Exit(m.Run())
}

// fsizeChild logs 100 lines of 100 bytes to path, its stderr, under a
// 4 KiB file size limit, far below the rotation limit.
func fsizeChild(path string) int {
	// A write past the limit raises SIGXFSZ, which would kill the process
	// where it is not ignored; ignored, the write fails with EFBIG.
	signal.Ignore(syscall.SIGXFSZ)
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: 4096, Max: 4096}); err != nil {
		fmt.Println("limit:", err)
		return 2
	}
	w, err := Open(path, nil, os.Stderr, DefaultLimit)
	if err != nil {
		fmt.Println(err)
		return 2
	}
	for i := range 100 {
		if _, err := fmt.Fprintf(w, "line %03d %s\n", i, strings.Repeat("x", 90)); err != nil {
			fmt.Println(err)
			return 1
		}
	}
	return 0
}

// TestWriter_fileSizeLimit: a file size limit (ulimit -f) below the
// rotation limit made every write past it fail with EFBIG: the process
// could log nothing more. The file is rotated then, and the line written
// to the new one.
func TestWriter_fileSizeLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "novad.log")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envFsizeChild+"="+path)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, f
	if err := cmd.Run(); err != nil {
		t.Fatalf("logging past the file size limit: %v: %s", err, out.String())
	}
	// 10 KB under a 4 KiB limit: rotated twice, and no line lost across
	// the last rotation (one is cut where the first file filled up).
	cur, prev := read(t, path), read(t, path+".1")
	if len(prev) > 4096 || len(cur) > 4096 {
		t.Errorf("files of %d and %d bytes, past the 4 KiB file size limit", len(prev), len(cur))
	}
	both := prev + cur
	for i := 60; i < 100; i++ {
		if line := fmt.Sprintf("line %03d %s\n", i, strings.Repeat("x", 90)); !strings.Contains(both, line) {
			t.Errorf("line %d is lost; .1 and the current file hold:\n%s", i, both)
			break
		}
	}
}
