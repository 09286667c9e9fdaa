package index_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nova-recall/nova/config"
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

// TestLive_noteDownloadedFromICloudIsIndexed: with a real watcher, a note
// iCloud Drive downloads again (its stub .Note.md.icloud removed, the note
// written in its place, in either order, or moved into place from where
// it was downloaded to) is indexed as any new file; a note evicted (the
// note removed, its stub written) keeps its memory.
func TestLive_noteDownloadedFromICloudIsIndexed(t *testing.T) {
	root := t.TempDir()
	src := filepath.Join(root, "Mobile Documents", "iCloud~md~obsidian", "Documents", "vault")
	writeFile(t, filepath.Join(src, "Ledger.md"), "# Ledger\n\nThe quarterly ledger closes on the fifth working day.\n")
	writeFile(t, filepath.Join(src, ".Harbour.md.icloud"), "bplist00\xd1\x01\x02")
	writeFile(t, filepath.Join(src, "trips", ".Visa.md.icloud"), "bplist00\xd1\x01\x02")
	cfg := testConfig(t, filepath.Join(root, "home"), config.Source{Name: "vault", Kind: config.KindMarkdown, Path: src})
	watchLive(t, cfg)
	ledger := "Ledger.md|Ledger.md#ledger|The quarterly ledger closes on the fifth working day."
	settle(t, cfg, src, "start, two notes not downloaded", ledger)

	must(t, os.Remove(filepath.Join(src, ".Harbour.md.icloud")))
	writeFile(t, filepath.Join(src, "Harbour.md"), "# Harbour\n\nThe harbour crane inspection is booked for the spring tide.\n")
	harbour := "Harbour.md|Harbour.md#harbour|The harbour crane inspection is booked for the spring tide."
	settle(t, cfg, src, "stub removed, note written", ledger, harbour)

	downloaded := filepath.Join(root, "download.tmp")
	writeFile(t, downloaded, "# Visa\n\nThe visa appointment is on the second Tuesday.\n")
	must(t, os.Rename(downloaded, filepath.Join(src, "trips", "Visa.md")))
	must(t, os.Remove(filepath.Join(src, "trips", ".Visa.md.icloud")))
	visa := "trips/Visa.md|trips/Visa.md#visa|The visa appointment is on the second Tuesday."
	settle(t, cfg, src, "note moved into place, then stub removed", ledger, harbour, visa)

	changed := time.Now()
	must(t, os.Remove(filepath.Join(src, "Ledger.md")))
	writeFile(t, filepath.Join(src, ".Ledger.md.icloud"), "bplist00\xd1\x01\x02")
	caughtUpWith(t, cfg, changed)
	settle(t, cfg, src, "note evicted", ledger, harbour, visa)
}

// TestSync_evictedFileSourceIsNotMissing: a source that is one note,
// evicted by iCloud Drive after it was read, is counted not downloaded,
// not reported missing, and keeps its memory.
func TestSync_evictedFileSourceIsNotMissing(t *testing.T) {
	dir := t.TempDir()
	note := filepath.Join(dir, "Journal.md")
	writeFile(t, note, "# Journal\n\nThe boat goes back in the water in April.\n")
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "journal", Kind: config.KindMarkdown, Path: note})
	syncOK(t, index.New(cfg, index.Options{NoRemote: true, NoCompact: true}))

	must(t, os.Remove(note))
	writeFile(t, filepath.Join(dir, ".Journal.md.icloud"), "bplist00\xd1\x01\x02")
	r := syncOK(t, index.New(cfg, index.Options{NoRemote: true, NoCompact: true}))
	if s := r.Build.Sources[0]; s.Missing || s.Error != "" || s.NotDownloaded != 1 || r.Build.ProblemCount != 0 {
		t.Errorf("source %+v, problems %v: want 1 not downloaded, not missing, no problem", s, r.Build.Problems)
	}
	if got := texts(t, cfg); !slices.Equal(got, []string{"The boat goes back in the water in April."}) {
		t.Errorf("memory with the note evicted %q, want its earlier memory", got)
	}
}
