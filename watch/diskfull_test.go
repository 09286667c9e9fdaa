package watch

import (
	"io/fs"
	"log/slog"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/internal/novatest"
)

// TestFullDiskSyncLogSaysItRetries: a sync that finds the disk full fails
// with index's DiskFullError, whose advice for a sync run by hand is to
// free space "and run it again". The watcher logged that at every failed
// sync, though it syncs again by itself, backing off: its log line now
// says to free space and that it retries in the back-off it logs.
func TestFullDiskSyncLogSaysItRetries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs novatest.LogBuffer
		h := start(t, func(o *Options, _ *fakeNotifier, s *fakeSyncer) {
			o.Logger = slog.New(slog.NewTextHandler(&logs, nil))
			full := &index.DiskFullError{Home: o.Home.Root, Active: "run-0",
				Err: &fs.PathError{Op: "write", Path: filepath.Join(o.Home.Root, "index", "manifest.json"), Err: syscall.ENOSPC}}
			s.errs = []error{full, full}
			s.took = 0
		})
		h.appendLine(filepath.Join(h.src, "a.jsonl"))
		time.Sleep(time.Hour)
		h.stop()
		var failed []string
		for line := range strings.Lines(logs.String()) {
			if strings.Contains(line, "Sync failed") {
				failed = append(failed, line)
			}
		}
		if len(failed) != 2 {
			t.Fatalf("%d failed syncs logged, want 2:\n%s", len(failed), logs.String())
		}
		for i, in := range []string{"4s", "8s"} {
			line := failed[i]
			if strings.Contains(line, "run it again") || !strings.Contains(line, "Free space on that disk") || !strings.Contains(line, "the watcher syncs again by itself in "+in) {
				t.Errorf("failed sync %d logged %q; want the advice to free space, that the watcher retries in %s, and no advice to run it again", i+1, line, in)
			}
		}
	})
}

// TestFullDiskSyncStateSaysItRetries: the watcher's state, which doctor
// shows as "Watcher sync" long after the sync failed, words a full disk
// as the log does: free space, and the watcher syncs again by itself. It
// said "Free space on that disk and run it again", beside doctor's own
// advice that the watcher retries, and sent people to run novactl index
// sync by hand on a disk still full. It names no back-off ("in 8s"): the
// state is read at any later time, when that wait means nothing.
func TestFullDiskSyncStateSaysItRetries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, func(o *Options, _ *fakeNotifier, s *fakeSyncer) {
			full := &index.DiskFullError{Home: o.Home.Root, Active: "run-0",
				Err: &fs.PathError{Op: "write", Path: filepath.Join(o.Home.Root, "index", "manifest.json"), Err: syscall.ENOSPC}}
			s.errs = []error{full, full, full}
			s.took = 0
		})
		h.appendLine(filepath.Join(h.src, "a.jsonl"))
		time.Sleep(5 * time.Second) // past the first failure, before the retry
		synctest.Wait()
		st := h.state()
		h.stop()
		if st.LastSync == nil || st.LastSync.Result != "failed" {
			t.Fatalf("last sync %+v, want the failed one", st.LastSync)
		}
		msg := st.LastSync.Error
		for _, want := range []string{"disk holding " + h.home.Root + " is full", "run-0 is still active and served", "Free space on that disk", "the watcher syncs again by itself"} {
			if !strings.Contains(msg, want) {
				t.Errorf("state's error %q lacks %q", msg, want)
			}
		}
		for _, not := range []string{"run it again", "the next run", "by itself in "} {
			if strings.Contains(msg, not) {
				t.Errorf("state's error %q says %q", msg, not)
			}
		}
	})
}

// TestQuotaSyncStateNamesTheCause: a sync that found the user's disk
// quota used up records that in the state as a field (noRoom: quota), so
// doctor, whose disk check reads the volume's free space and not the
// quota, can say what ran out instead of reporting plenty of room.
func TestQuotaSyncStateNamesTheCause(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, func(o *Options, _ *fakeNotifier, s *fakeSyncer) {
			full := &index.DiskFullError{Home: o.Home.Root, Active: "run-0",
				Err: &fs.PathError{Op: "write", Path: filepath.Join(o.Home.Root, "index", "manifest.json"), Err: syscall.EDQUOT}}
			s.errs = []error{full, full, full}
			s.took = 0
		})
		h.appendLine(filepath.Join(h.src, "a.jsonl"))
		time.Sleep(5 * time.Second)
		synctest.Wait()
		st := h.state()
		h.stop()
		if st.LastSync == nil || st.LastSync.Result != "failed" || st.LastSync.NoRoom != index.CauseQuota {
			t.Fatalf("last sync %+v, want the failed one with noRoom %q", st.LastSync, index.CauseQuota)
		}
	})
}
