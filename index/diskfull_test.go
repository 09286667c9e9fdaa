package index

import (
	"errors"
	"io/fs"
	"strings"
	"syscall"
	"testing"
)

// TestDiskFullError_interruptedPromotion: when the disk filled up after
// the generation was moved into place, the one thing that finishes the
// work is named once (promote), not contradicted by "run it again" and
// a promise that the next run removes it.
func TestDiskFullError_interruptedPromotion(t *testing.T) {
	x := &Indexer{}
	x.home.Root = t.TempDir()
	full := &fs.PathError{Op: "write", Path: "index/.manifest.json.1.tmp", Err: syscall.ENOSPC}
	err := x.diskFull(x.interrupted("20260301T080005Z-000a4c28", full))
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("%v: want ENOSPC", err)
	}
	msg := err.Error()
	for _, want := range []string{"is full", "20260301T080005Z-000a4c28 waits in place to be made active", "run novactl index promote to finish it", "no space left on device"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	for _, not := range []string{"run it again", "removes what this one left"} {
		if strings.Contains(msg, not) {
			t.Errorf("message %q says %q", msg, not)
		}
	}
	if strings.Count(msg, "novactl index promote") != 1 {
		t.Errorf("message %q names promote more than once", msg)
	}
}

// TestDiskFullError_quota: a write refused by the user's disk quota
// (EDQUOT, common on shared Linux machines) gets the same guidance as a
// full disk, in words that name the quota: the disk itself may have room.
func TestDiskFullError_quota(t *testing.T) {
	x := &Indexer{}
	x.home.Root = t.TempDir()
	err := x.diskFull(&fs.PathError{Op: "write", Path: "index/segments/x/text.lex", Err: syscall.EDQUOT})
	if _, ok := errors.AsType[*DiskFullError](err); !ok || !errors.Is(err, syscall.EDQUOT) {
		t.Fatalf("%#v: want a *DiskFullError that is EDQUOT", err)
	}
	msg := err.Error()
	for _, want := range []string{"quota on the disk holding " + x.home.Root + " is used up", "index/segments/x/text.lex", "Free space within your quota and run it again"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
}
