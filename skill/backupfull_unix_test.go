//go:build linux || darwin

package skill

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// envBackupChild makes the test binary a child that saves one backup
// under a file size limit (TestBackups_saveFailsLeavingNothing).
const envBackupChild = "NOVA_TEST_SKILL_BACKUP_CHILD"

func TestMain(m *testing.M) {
	if root := os.Getenv(envBackupChild); root != "" {
		// RLIMIT_FSIZE, as ulimit -f sets it: a write past 1 KiB fails
		// with EFBIG, as one on a full disk fails with ENOSPC. Go ignores
		// SIGXFSZ, which would otherwise kill the process.
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: 1024, Max: 1024}); err != nil {
			fmt.Fprintln(os.Stderr, "limit:", err)
			os.Exit(2)
		}
		b := Backups{Root: root, Stamp: "20260102T030405.000000000Z"}
		if _, err := b.save(Target{ID: "claude-code"}, bytes.Repeat([]byte("customized skill\n"), 1000)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestBackups_saveFailsLeavingNothing: a backup of a customized skill
// that a full disk (here a file size limit) cuts short fails, and leaves
// no truncated copy in state/backups: one stayed there, named as the
// user's backup and holding only its first bytes, for whoever went
// looking for the file --force replaced.
func TestBackups_saveFailsLeavingNothing(t *testing.T) {
	root := filepath.Join(t.TempDir(), "backups")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envBackupChild+"="+root)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("child backup past the file size limit: %v (%s), want it to fail", err, stderr.String())
	}
	var left []string
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			left = append(left, p)
		}
		return nil
	})
	if len(left) > 0 {
		t.Errorf("a failed backup left %v (%s)", left, stderr.String())
	}
}
