package novatest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// ReadOnlyMount bind-mounts dir read-only at a new directory and returns
// it: a home on a locked volume or restored from a read-only backup. It
// takes root on Linux (as CI runs); elsewhere, or where bind mounts are
// refused, the test is skipped. The mount is detached lazily when the test
// ends, since a novad may still map a generation under it.
func ReadOnlyMount(t testing.TB, dir string) string {
	t.Helper()
	if runtime.GOOS != "linux" || os.Getuid() != 0 {
		t.Skip("a read-only mount needs root on Linux")
	}
	mnt := t.TempDir()
	if out, err := exec.Command("mount", "--bind", dir, mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot bind-mount: %v: %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", "-l", mnt).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", mnt, err, out)
		}
	})
	if out, err := exec.Command("mount", "-o", "remount,bind,ro", mnt).CombinedOutput(); err != nil {
		t.Fatalf("remount read-only: %v: %s", err, out)
	}
	if err := os.WriteFile(filepath.Join(mnt, "probe"), nil, 0o600); err == nil {
		t.Fatal("the read-only mount is writable")
	}
	return mnt
}
