package index_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/index/ingest"
)

// TestSync_fileNotOpenedForAPassingReasonIsReadAgain: a note the sync
// could not open for a reason that says nothing about the note (too many
// open files, an I/O error, a network volume's timeout) is counted as
// not read for now (Unsettled, which has the watcher sync again), keeps
// its earlier memory, and is read by the next sync once the failure
// stops, with no change to it in between.
func TestSync_fileNotOpenedForAPassingReasonIsReadAgain(t *testing.T) {
	t.Parallel() // its own home; it mostly waits for files to settle
	for _, tc := range []struct {
		name string
		err  error
		full bool
	}{
		{"too many open files", syscall.EMFILE, false},
		{"too many open files in system, full build", syscall.ENFILE, true},
		{"I/O error", syscall.EIO, false},
		{"timeout", syscall.ETIMEDOUT, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src, cfg, clk := syncedLedger(t)
			edited, added := filepath.Join(src, "ledger.md"), filepath.Join(src, "harbour.md")

			writeFile(t, edited, "# Ledger\n\nThe quarterly ledger now closes on the fifth working day, by the new controller.\n")
			writeFile(t, added, "# Harbour\n\nThe harbour crane inspection is booked for the spring tide.\n")
			r, err := index.New(cfg, index.FailOpens(index.Options{NoRemote: true, Now: clk.Now, NoCompact: true, Full: tc.full},
				func(string) error { return tc.err })).Sync(t.Context())
			if err != nil {
				t.Fatalf("the sync whose opens failed: %v", err)
			}
			if r.Build.Unsettled != 2 {
				t.Errorf("the sync whose opens failed counted %d files not read for now, want 2: the watcher must sync again", r.Build.Unsettled)
			}
			if !slices.ContainsFunc(r.Build.Problems, func(p ingest.Problem) bool {
				return p.Path == added && strings.Contains(p.Reason, tc.err.Error())
			}) {
				t.Errorf("problems %v do not say why %s was not read", r.Build.Problems, added)
			}
			if got := texts(t, cfg); !slices.Equal(got, []string{"The quarterly ledger closes on the third working day."}) {
				t.Errorf("memory after the failed opens %q, want the ledger's earlier memory", got)
			}

			r = syncOK(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now, NoCompact: true}))
			if r.Build.FilesRead != 2 || r.Build.Unsettled != 0 {
				t.Errorf("the next sync read %d files (%d unsettled), want both read", r.Build.FilesRead, r.Build.Unsettled)
			}
			want := []string{"The harbour crane inspection is booked for the spring tide.", "The quarterly ledger now closes on the fifth working day, by the new controller."}
			if got := texts(t, cfg); !slices.Equal(got, want) {
				t.Errorf("memory after the next sync %q, want %q", got, want)
			}
		})
	}
}

// TestSync_fileNotReadForALastingReasonIsNotRetried: a file that fails
// for a reason that lasts (permission denied, binary content) is
// reported, but not counted as one to read again shortly: the watcher
// would sync again and again for it. The sync after leaves it unread
// while it stays as it was, and counts its problem among those found
// earlier; once its permission is given back (a chmod, which changes
// neither its size nor its time) the next sync reads it.
func TestSync_fileNotReadForALastingReasonIsNotRetried(t *testing.T) {
	src, cfg, clk := syncedLedger(t)

	locked := filepath.Join(src, "locked.md")
	writeFile(t, locked, "# Locked\n\nA note the service may not read.\n")
	writeFile(t, filepath.Join(src, "image.md"), "\x00\x01\x02PNG\x00\x00binary\x00")
	failLocked := func(p string) error {
		if p == locked {
			return fs.ErrPermission
		}
		return nil
	}
	for i := range 2 {
		r := syncOK(t, index.New(cfg, index.FailOpens(index.Options{NoRemote: true, Now: clk.Now, NoCompact: true}, failLocked)))
		if r.Build.Unsettled != 0 {
			t.Errorf("sync %d: %d files counted to read again shortly, want none: %v", i+1, r.Build.Unsettled, r.Build.Problems)
		}
		switch s := r.Build.Sources[0]; {
		case i == 0 && !slices.ContainsFunc(r.Build.Problems, func(p ingest.Problem) bool { return p.Path == locked }):
			t.Errorf("sync 1: no problem reported for %s: %v", locked, r.Build.Problems)
		case i == 1 && (r.Build.FilesRead != 0 || s.EarlierProblems != 2):
			t.Errorf("sync 2: read %d files, %d problems found earlier; want none read and both files' problems", r.Build.FilesRead, s.EarlierProblems)
		}
	}
	if err := os.Chmod(locked, 0o640); err != nil {
		t.Fatal(err)
	}
	r := syncOK(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now, NoCompact: true}))
	if r.Build.FilesRead != 1 || !slices.Contains(texts(t, cfg), "A note the service may not read.") {
		t.Errorf("after its permission was given back: read %d files, memory %q", r.Build.FilesRead, texts(t, cfg))
	}
}

// texts is the memory of cfg's active generation, its texts sorted.
func texts(t *testing.T, cfg config.Config) []string {
	t.Helper()
	_, g := active(t, cfg.Home)
	var out []string
	for _, c := range g.All() {
		out = append(out, c.Text)
	}
	slices.Sort(out)
	return out
}

// TestSync_sourceNotListedForAPassingReasonIsListedAgain: a source whose
// folder the sync could not open for a passing reason (too many open
// files) counts as not read for now, as a file does, so that the watcher
// syncs again; the sync after lists it and reads the note written
// meanwhile. One that cannot be listed for a lasting reason (a
// permission) is only reported.
func TestSync_sourceNotListedForAPassingReasonIsListedAgain(t *testing.T) {
	for _, tc := range []struct {
		err     error
		passing bool
	}{{syscall.EMFILE, true}, {fs.ErrPermission, false}} {
		t.Run(tc.err.Error(), func(t *testing.T) {
			src, cfg, clk := syncedLedger(t)

			writeFile(t, filepath.Join(src, "harbour.md"), "# Harbour\n\nThe harbour crane inspection is booked for the spring tide.\n")
			r, err := index.New(cfg, index.FailListing(index.Options{NoRemote: true, Now: clk.Now, NoCompact: true},
				func(config.Source) error { return tc.err })).Sync(t.Context())
			if err != nil {
				t.Fatalf("the sync whose listing failed: %v", err)
			}
			if got := r.Build.Unsettled > 0; got != tc.passing {
				t.Errorf("the sync whose listing failed counted %d unsettled; want some: %v", r.Build.Unsettled, tc.passing)
			}
			if got := texts(t, cfg); !slices.Equal(got, []string{"The quarterly ledger closes on the third working day."}) {
				t.Errorf("memory after the failed listing %q, want the ledger's kept", got)
			}
			syncOK(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now, NoCompact: true}))
			want := []string{"The harbour crane inspection is booked for the spring tide.", "The quarterly ledger closes on the third working day."}
			if got := texts(t, cfg); !slices.Equal(got, want) {
				t.Errorf("memory after the next sync %q, want %q", got, want)
			}
		})
	}
}

// syncedLedger is a notes source holding ledger.md, synced once: its
// folder, configuration and clock.
func syncedLedger(t *testing.T) (src string, cfg config.Config, clk *clock) {
	t.Helper()
	dir := t.TempDir()
	src = filepath.Join(dir, "notes")
	writeFile(t, filepath.Join(src, "ledger.md"), "# Ledger\n\nThe quarterly ledger closes on the third working day.\n")
	cfg = testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "notes", Kind: config.KindMarkdown, Path: src})
	clk = newClock(epoch)
	mustSync(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now, NoCompact: true}))
	return src, cfg, clk
}
