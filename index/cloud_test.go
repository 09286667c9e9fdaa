package index_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/index/ingest"
)

// TestSync_iCloudStubsAreCountedAndTheDownloadedNoteIsRead: a note iCloud
// Drive evicts (before macOS Sonoma: Note.md replaced by the hidden stub
// .Note.md.icloud) is counted per source as not downloaded, is no
// problem and fails no sync, and its earlier memory is kept; once it is
// downloaded again (the stub removed, the note back), the next sync reads
// it as any new file.
func TestSync_iCloudStubsAreCountedAndTheDownloadedNoteIsRead(t *testing.T) {
	src, cfg, clk := syncedLedger(t)
	ledger, stub := filepath.Join(src, "ledger.md"), filepath.Join(src, ".ledger.md.icloud")
	harbourStub := filepath.Join(src, "harbour", ".Harbour.md.icloud")

	must(t, os.Remove(ledger))
	writeFile(t, stub, "bplist00\xd1\x01\x02")
	writeFile(t, harbourStub, "bplist00\xd1\x01\x02")
	r := syncOK(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now, NoCompact: true}))
	if n := r.Build.Sources[0].NotDownloaded; n != 2 {
		t.Errorf("the sync counted %d files not downloaded, want 2 (the two stubs)", n)
	}
	if r.Build.ProblemCount != 0 || r.Build.Unsettled != 0 {
		t.Errorf("the stubs made %d problems (%v) and %d unsettled, want none: they are counted, not errors", r.Build.ProblemCount, r.Build.Problems, r.Build.Unsettled)
	}
	if got := texts(t, cfg); !slices.Equal(got, []string{"The quarterly ledger closes on the third working day."}) {
		t.Errorf("memory with the ledger evicted %q, want its earlier memory kept", got)
	}

	must(t, os.Remove(harbourStub))
	writeFile(t, filepath.Join(src, "harbour", "Harbour.md"), "# Harbour\n\nThe harbour crane inspection is booked for the spring tide.\n")
	r = syncOK(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now, NoCompact: true}))
	if n := r.Build.Sources[0].NotDownloaded; n != 1 {
		t.Errorf("after one download the sync counted %d files not downloaded, want 1", n)
	}
	want := []string{"The harbour crane inspection is booked for the spring tide.", "The quarterly ledger closes on the third working day."}
	if got := texts(t, cfg); !slices.Equal(got, want) {
		t.Errorf("memory after the download %q, want %q", got, want)
	}
	r = syncOK(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now, NoCompact: true}))
	if n := r.Build.Sources[0].NotDownloaded; r.Build.Mode != index.ModeUnchanged || n != 1 {
		t.Errorf("a sync with nothing changed (%s) counted %d files not downloaded, want 1", r.Build.Mode, n)
	}
}

// TestSync_datalessFileThatCannotBeDownloadedKeepsItsMemory: a note a
// File Provider keeps only in the cloud (macOS Sonoma and later, Dropbox,
// Google Drive: dataless, same name and size) is read as any file, which
// has the system download it. When that read fails as an offline
// provider's does (EDEADLK when downloads are not allowed, ENETDOWN),
// the note keeps its earlier memory and is counted unsettled, so that the
// watcher tries again, instead of losing its memory or waiting for a
// change that never comes. A file on the Mac's own disk that fails so is
// only reported, as before.
func TestSync_datalessFileThatCannotBeDownloadedKeepsItsMemory(t *testing.T) {
	for _, tc := range []struct {
		name      string
		dataless  bool
		unsettled int
	}{
		{"dataless", true, 1},
		{"on the disk", false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src, cfg, clk := syncedLedger(t)
			ledger := filepath.Join(src, "ledger.md")
			writeFile(t, ledger, "# Ledger\n\nThe quarterly ledger now closes on the fifth working day.\n")
			opts := index.MarkDataless(index.Options{NoRemote: true, Now: clk.Now, NoCompact: true},
				func(p string) bool { return tc.dataless && p == ledger })
			opts = index.FailOpens(opts, func(string) error { return syscall.EDEADLK })
			r := syncOK(t, index.New(cfg, opts))
			if r.Build.Unsettled != tc.unsettled {
				t.Errorf("the sync counted %d unsettled, want %d", r.Build.Unsettled, tc.unsettled)
			}
			if !slices.ContainsFunc(r.Build.Problems, func(p ingest.Problem) bool {
				return p.Path == ledger && strings.Contains(p.Reason, syscall.EDEADLK.Error())
			}) {
				t.Errorf("problems %v do not say why the ledger was not read", r.Build.Problems)
			}
			if got := texts(t, cfg); !slices.Equal(got, []string{"The quarterly ledger closes on the third working day."}) {
				t.Errorf("memory after the failed download %q, want the ledger's earlier memory", got)
			}
		})
	}
}
