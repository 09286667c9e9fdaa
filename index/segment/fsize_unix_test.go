//go:build unix

package segment

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/nova-recall/nova/lexical"
)

// fsizeEnv, set in a child of TestWriteError_namesFileOnce, is the file
// size limit (RLIMIT_FSIZE, as ulimit -f sets it) under which the child
// writes a segment into the folder fsizeDirEnv names.
const (
	fsizeEnv    = "NOVA_TEST_SEGMENT_FSIZE"
	fsizeDirEnv = "NOVA_TEST_SEGMENT_DIR"
)

// TestWriteError_namesFileOnce: a segment write that fails (here with
// EFBIG, past a file size limit in a child process, as a real write of a
// large corpus under ulimit -f or a full disk's ENOSPC fails) names the
// file once, with its folder, and the cause. It said "write records.bin:
// write …/records.bin: file too large", naming the file twice. The errno
// stays reachable with errors.Is, which index.DiskFullError depends on.
func TestWriteError_namesFileOnce(t *testing.T) {
	if limit := os.Getenv(fsizeEnv); limit != "" {
		// The child: Go ignores SIGXFSZ, so a write past the limit
		// fails with EFBIG instead of killing the process.
		n, err := strconv.ParseUint(limit, 10, 64)
		if err == nil {
			err = syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: n, Max: n})
		}
		if err != nil {
			t.Fatal(err)
		}
		err = sealSegment(filepath.Join(os.Getenv(fsizeDirEnv), "seg"))
		fmt.Printf("efbig=%t\nerror=%v\n", errors.Is(err, syscall.EFBIG), err)
		return
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestWriteError_namesFileOnce$", "-test.count=1")
	cmd.Env = append(os.Environ(), fsizeEnv+"=512", fsizeDirEnv+"="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	want := "efbig=true\nerror=write " + filepath.Join(dir, "seg", FileRecords) + ": file too large\n"
	if !strings.Contains(string(out), want) {
		t.Fatalf("child wrote:\n%s\nwant the error to be EFBIG and name the file once:\n%s", out, want)
	}
}

// sealSegment adds sample chunks to a new segment at seg and seals it,
// which writes its records, facets, dictionary and postings.
func sealSegment(seg string) error {
	chunks := sampleChunks(300)
	a := lexical.NewAnalyzer()
	w, err := Create(seg, 0, 0)
	if err != nil {
		return err
	}
	defer w.Abort()
	for i := range chunks {
		w.Add(&chunks[i], a.Terms(chunks[i].OwnText()), lexical.Parts{Parts: []string{chunks[i].Context}, Terms: [][]string{a.Terms(chunks[i].Context)}})
	}
	return w.Seal()
}
