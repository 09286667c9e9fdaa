//go:build linux

package manifest

import (
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestEvictWritten writes and fsyncs a file, evicts it, and checks with
// mincore that none of its pages are left in the page cache. tmpfs keeps
// its pages (they are the file), so the test needs a disk-backed
// directory.
func TestEvictWritten(t *testing.T) {
	dir := t.TempDir()
	var fs unix.Statfs_t
	if err := unix.Statfs(dir, &fs); err != nil {
		t.Fatal(err)
	}
	if fs.Type == unix.TMPFS_MAGIC {
		t.Skip("the test directory is on tmpfs, whose pages cannot be evicted")
	}
	path := filepath.Join(dir, "f")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(make([]byte, 1<<20)); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	resident := func() int {
		b, err := unix.Mmap(int(f.Fd()), 0, 1<<20, unix.PROT_READ, unix.MAP_SHARED)
		if err != nil {
			t.Fatal(err)
		}
		defer func() {
			if err := unix.Munmap(b); err != nil {
				t.Error(err)
			}
		}()
		vec := make([]byte, (1<<20)/os.Getpagesize())
		// x/sys/unix has no mincore wrapper on Linux.
		if _, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), uintptr(unsafe.Pointer(&vec[0]))); errno != 0 {
			t.Fatal(errno)
		}
		n := 0
		for _, v := range vec {
			n += int(v & 1)
		}
		return n
	}
	if n := resident(); n == 0 {
		t.Skip("the written pages were not cached to begin with")
	}
	evictWritten(f)
	if n := resident(); n != 0 {
		t.Fatalf("%d pages of the written file still in the page cache", n)
	}
}
