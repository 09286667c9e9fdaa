package index_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/manifest"
)

// TestSync_historyUnwritableAfterTheManifest: when history.jsonl cannot
// be appended to after the manifest was published (a disk that filled up
// between the two writes), the promotion has happened: the sync succeeds,
// says which generation is active, and applies retention, instead of
// failing with "promotion was interrupted; run novactl index promote",
// which then found nothing to promote.
func TestSync_historyUnwritableAfterTheManifest(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "memories.jsonl")
	writeFile(t, src, jsonlLines(t, baseRecords()[:3]...))
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "notes", Kind: config.KindJSONL, Path: src})
	cfg.Index.KeepGenerations = 2
	clk := newClock(epoch)
	var first []string
	for n := 4; n <= 5; n++ {
		writeFile(t, src, jsonlLines(t, baseRecords()[:n]...))
		first = append(first, mustSync(t, index.New(cfg, index.Options{NoRemote: true, NoCompact: true, Now: clk.Now})).Build.RunID)
	}

	// The history becomes unwritable (here: a directory in its place)
	// right after the manifest names the new generation.
	writeFile(t, src, jsonlLines(t, baseRecords()...))
	ix := index.New(cfg, index.Options{NoRemote: true, NoCompact: true, Now: clk.Now, Hook: func(step string) {
		if step == index.StepManifestWritten {
			if err := os.Remove(cfg.Home.History()); err != nil {
				t.Error(err)
			}
			if err := os.Mkdir(cfg.Home.History(), 0o700); err != nil {
				t.Error(err)
			}
		}
	}})
	r, err := ix.Sync(context.Background())
	if err != nil {
		t.Fatalf("Sync: %v, want the promotion reported as done (the manifest was published)", err)
	}
	m, _, err := manifest.Read(cfg.Home.Manifest())
	if err != nil || r.Promote == nil || m.RunID != r.Promote.RunID {
		t.Fatalf("active %v (%v), result %+v: want the promoted generation active", m, err, r.Promote)
	}
	if r.Promote.PreviousRunID != first[1] {
		t.Errorf("previous %s, want %s", r.Promote.PreviousRunID, first[1])
	}
	// Retention still ran: two generations are kept, the oldest is gone.
	if _, err := os.Stat(cfg.Home.Generation(first[0])); !os.IsNotExist(err) {
		t.Errorf("generation %s beyond index.keepGenerations 2 still there (%v): retention did not run", first[0], err)
	}
	if _, err := os.Stat(cfg.Home.Generation(first[1])); err != nil {
		t.Errorf("the replaced generation %s is gone: %v", first[1], err)
	}
}

// TestSync_diskFull: a sync that fills the disk says so, in words a
// person acts on: that the disk holding NOVA_HOME is full, which
// generation is still active and served, and to free space and run it
// again. Before, it said only "write …/X.vecin: no space left on device".
// The next sync, with space again, recovers with nothing lost or doubled
// and nothing of the failed one left behind.
func TestSync_diskFull(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("no /dev/full here to fill the disk with: %v", err)
	}
	defer full.Close()
	dir := t.TempDir()
	src := filepath.Join(dir, "memories.jsonl")
	writeFile(t, src, jsonlLines(t, baseRecords()[:4]...))
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "notes", Kind: config.KindJSONL, Path: src})
	clk := newClock(epoch)
	ix := index.New(cfg, index.Options{NoRemote: true, Now: clk.Now})
	before := mustSync(t, ix).Build.RunID

	writeFile(t, src, jsonlLines(t, baseRecords()...))
	restore := index.FillDiskAtTempFiles(full)
	_, err = ix.Sync(context.Background())
	restore()
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Sync on a full disk: %v, want ENOSPC", err)
	}
	var dfe *index.DiskFullError
	if !errors.As(err, &dfe) || dfe.Active != before {
		t.Fatalf("Sync on a full disk: %#v, want a *index.DiskFullError naming %s active", err, before)
	}
	msg := err.Error()
	for _, want := range []string{"disk holding " + cfg.Home.Root + " is full", before + " is still active and served", "Free space on that disk", "run it again", "no space left on device"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	if m, _, err := manifest.Read(cfg.Home.Manifest()); err != nil || m.RunID != before {
		t.Fatalf("active %v %v, want %s still", m, err, before)
	}

	r := mustSync(t, ix)
	_, g := active(t, cfg.Home)
	if got := len(chunkByID(t, g)); r.Promote.RunID == before || got != len(baseRecords()) {
		t.Fatalf("after space came back: %s active with %d chunks, want a new generation with %d", r.Promote.RunID, got, len(baseRecords()))
	}
	if left := dirNames(t, filepath.Join(cfg.Home.IndexDir(), "tmp")); len(left) > 0 {
		t.Errorf("temporary files left after the next sync: %v", left)
	}
	if left := dirNames(t, cfg.Home.Candidates()); len(left) > 0 {
		t.Errorf("candidates left after the next sync: %v", left)
	}
}

// TestList_interruptedPromotion: a generation whose promotion a full disk
// interrupted (moved into place, never made active) is listed as such,
// not as "kept" beside the generations that were active and that
// rollback goes back to.
func TestList_interruptedPromotion(t *testing.T) {
	cfg, runs, built := interruptedPromotion(t)
	list, err := index.New(cfg, index.Options{NoRemote: true}).List(context.Background(), index.Quick)
	if err != nil {
		t.Fatal(err)
	}
	states := map[string]string{}
	for _, g := range list {
		states[g.RunID] = g.State
	}
	if states[built] != "interrupted" {
		t.Errorf("%s listed as %q, want interrupted (all: %v)", built, states[built], states)
	}
	if states[runs[2]] != "active" || states[runs[1]] != "kept" {
		t.Errorf("states %v, want %s active and %s kept", states, runs[2], runs[1])
	}
}

// TestSync_fileTooLarge: a sync whose writes fail with EFBIG (a file size
// limit, here RLIMIT_FSIZE in a child process as ulimit -f sets it, or a
// file system's largest file) fails with one line that names the file,
// says the file outgrew a limit rather than that the disk is full (there
// is space: freeing more would not help), that the active generation is
// still served, and what to do. Before, it said only "write …: file too
// large", with none of what DiskFullError tells of ENOSPC. Nothing is
// left half-made, and the next sync without the limit succeeds with
// every record once.
func TestSync_fileTooLarge(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "home")
	src := filepath.Join(dir, "memories.jsonl")
	writeFile(t, src, jsonlLines(t, baseRecords()[:4]...))
	cfg := testConfig(t, root, config.Source{Name: "notes", Kind: config.KindJSONL, Path: src})
	before := mustSync(t, index.New(cfg, index.Options{NoRemote: true, Now: newClock(epoch).Now})).Build.RunID

	writeFile(t, src, jsonlLines(t, baseRecords()...))
	cmd := childCommand(t, "sync", root, src, epoch.Add(time.Hour), "")
	cmd.Env = append(cmd.Env, "NOVA_TEST_FSIZE=512")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		// A child killed by SIGXFSZ has no exit code (-1).
		t.Fatalf("child sync past the file size limit: %v (%s), want exit 1 with the sync's error", err, stderr.String())
	}
	msg := strings.TrimSpace(strings.TrimPrefix(stderr.String(), "child sync: "))
	if strings.Contains(msg, "\n") {
		t.Errorf("message spans lines: %q", msg)
	}
	for _, want := range []string{"file too large", filepath.Join(root, "index") + "/", "grew past the largest size allowed", before + " is still active and served", "Raise that limit", "run it again"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	for _, not := range []string{"is full", "Free space"} {
		if strings.Contains(msg, not) {
			t.Errorf("message %q says %q: the disk is not full", msg, not)
		}
	}
	if m, _, err := manifest.Read(cfg.Home.Manifest()); err != nil || m.RunID != before {
		t.Fatalf("active %v %v, want %s still", m, err, before)
	}

	r := mustSync(t, index.New(cfg, index.Options{NoRemote: true, Now: newClock(epoch.Add(2 * time.Hour)).Now}))
	_, g := active(t, cfg.Home)
	if got := len(chunkByID(t, g)); r.Promote == nil || r.Promote.RunID == before || got != len(baseRecords()) {
		t.Fatalf("after the limit was lifted: %+v with %d chunks, want a new generation with %d", r.Promote, got, len(baseRecords()))
	}
	var temps []string
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".tmp") {
			temps = append(temps, p)
		}
		return nil
	})
	if len(temps) > 0 {
		t.Errorf("temporary files left after the next sync: %v", temps)
	}
	if left := dirNames(t, filepath.Join(cfg.Home.IndexDir(), "tmp")); len(left) > 0 {
		t.Errorf("build files left after the next sync: %v", left)
	}
	if left := dirNames(t, cfg.Home.Candidates()); len(left) > 0 {
		t.Errorf("candidates left after the next sync: %v", left)
	}
}

// TestSync_fileTooLargeGivesItsRoomBack: a sync that runs out of room
// removes what it wrote before it returns: the segments, space and
// source states of the generation it could not finish. They stayed until
// the next sync (minutes later when the watcher backs off), holding on a
// full disk what a large build had written, up to the size of the index,
// while the user looked for room. Tested at two limits: one cuts a first
// build's space short, the other a delta's candidate record after its
// segment and states were written.
func TestSync_fileTooLargeGivesItsRoomBack(t *testing.T) {
	for _, tc := range []struct {
		name  string
		first bool
		limit string
	}{{"first build", true, "4096"}, {"delta", false, "2048"}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			root := filepath.Join(dir, "home")
			src := filepath.Join(dir, "memories.jsonl")
			writeFile(t, src, jsonlLines(t, baseRecords()[:4]...))
			cfg := testConfig(t, root, config.Source{Name: "notes", Kind: config.KindJSONL, Path: src})
			if !tc.first {
				mustSync(t, index.New(cfg, index.Options{NoRemote: true, Now: newClock(epoch).Now}))
			}
			before := map[string]bool{}
			for _, d := range []string{"segments", "spaces", "states"} {
				for _, n := range dirNames(t, filepath.Join(cfg.Home.IndexDir(), d)) {
					before[d+"/"+n] = true
				}
			}
			writeFile(t, src, jsonlLines(t, baseRecords()...))
			cmd := childCommand(t, "sync", root, src, epoch.Add(time.Hour), "")
			cmd.Env = append(cmd.Env, "NOVA_TEST_FSIZE="+tc.limit)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			var ee *exec.ExitError
			if err := cmd.Run(); !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(stderr.String(), "file too large") {
				t.Fatalf("child sync past the file size limit: %v (%s), want it to fail with EFBIG", err, stderr.String())
			}
			for _, d := range []string{"segments", "spaces", "states", "tmp", "candidates"} {
				for _, n := range dirNames(t, filepath.Join(cfg.Home.IndexDir(), d)) {
					if !before[d+"/"+n] {
						t.Errorf("index/%s/%s is left by the failed sync", d, n)
					}
				}
			}
		})
	}
}
