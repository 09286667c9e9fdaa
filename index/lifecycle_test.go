package index_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/index/generation"
	"github.com/nova-recall/nova/manifest"
)

// writerOps are the four operations that take the writer lock.
func writerOps(ix *index.Indexer) map[string]func() error {
	ctx := context.Background()
	return map[string]func() error{
		"build":    func() error { _, err := ix.Build(ctx); return err },
		"sync":     func() error { _, err := ix.Sync(ctx); return err },
		"promote":  func() error { _, err := ix.Promote(ctx, ""); return err },
		"rollback": func() error { _, err := ix.Rollback(ctx, ""); return err },
	}
}

// checkLocked asserts err is a *LockedError naming holder op and pid.
func checkLocked(t *testing.T, name string, err error, op string, pid int) {
	t.Helper()
	le, ok := errors.AsType[*index.LockedError](err)
	if !ok || !errors.Is(err, index.ErrLocked) {
		t.Errorf("%s while locked: %v, want *index.LockedError", name, err)
		return
	}
	if le.Operation != op || le.PID != pid || le.Since == "" {
		t.Errorf("%s while locked: holder %q pid %d since %q, want %q pid %d", name, le.Operation, le.PID, le.Since, op, pid)
	}
	if msg := err.Error(); !strings.Contains(msg, op) || !strings.Contains(msg, strconv.Itoa(pid)) {
		t.Errorf("%s while locked: message %q does not name the holder", name, msg)
	}
}

// TestLock_inProcess pauses a sync mid-promotion and checks that every
// other writer is refused with the holder's name, then runs once the lock
// is free.
func TestLock_inProcess(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "memories.jsonl")
	writeFile(t, src, jsonlLines(t, baseRecords()...))
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "notes", Kind: config.KindJSONL, Path: src})
	clk := newClock(epoch)
	paused, resume := make(chan struct{}), make(chan struct{})
	holder := index.New(cfg, index.Options{NoRemote: true, Now: clk.Now, Hook: func(step string) {
		if step == index.StepGenerationMoved {
			close(paused)
			<-resume
		}
	}})
	done := make(chan error, 1)
	go func() { _, err := holder.Sync(context.Background()); done <- err }()
	select {
	case <-paused:
	case err := <-done:
		t.Fatalf("sync finished before the hook: %v", err)
	}
	other := index.New(cfg, index.Options{NoRemote: true, Now: clk.Now})
	for name, op := range writerOps(other) {
		checkLocked(t, name, op(), "sync", os.Getpid())
	}
	close(resume)
	if err := <-done; err != nil {
		t.Fatalf("held sync: %v", err)
	}
	// The lock is free again, and the holder's file no longer names it.
	syncOK(t, other)
	if b, err := os.ReadFile(cfg.Home.Lock()); err != nil || len(b) != 0 {
		t.Errorf("lock file after release: %q %v", b, err)
	}
}

// TestLock_unnamedHolderOutlasted: a lock held for a moment by something
// that does not name itself (a writer between emptying the file and
// letting go, which is where a manual sync meets the watcher's ending
// one, or a doctor probe) is waited out, not reported as a running
// operation.
func TestLock_unnamedHolderOutlasted(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "memories.jsonl")
	writeFile(t, src, jsonlLines(t, baseRecords()...))
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "notes", Kind: config.KindJSONL, Path: src})
	ix := index.New(cfg, index.Options{NoRemote: true, Now: newClock(epoch).Now})
	syncOK(t, ix)
	f, err := os.OpenFile(cfg.Home.Lock(), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	released := make(chan struct{})
	go func() {
		defer close(released)
		time.Sleep(200 * time.Millisecond)
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	}()
	_, err = ix.Sync(context.Background())
	<-released
	if err != nil {
		t.Fatalf("sync beside a holder that names nobody, for 200 ms: %v", err)
	}
}

// TestLock_otherProcess holds the lock in a child process: the parent is
// refused with the child's pid; when the child is killed the OS releases
// the lock and the parent syncs.
func TestLock_otherProcess(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "memories.jsonl")
	writeFile(t, src, jsonlLines(t, baseRecords()...))
	root := filepath.Join(dir, "home")
	cfg := testConfig(t, root, config.Source{Name: "notes", Kind: config.KindJSONL, Path: src})

	cmd := childCommand(t, "hold", root, src, epoch, index.StepCandidateVerified)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "paused" {
		t.Fatalf("child said %q, %v", line, err)
	}
	other := index.New(cfg, index.Options{NoRemote: true, Now: newClock(epoch.Add(time.Hour)).Now})
	for name, op := range writerOps(other) {
		checkLocked(t, name, op(), "sync", cmd.Process.Pid)
	}
	_ = stdin // kept open: the child waits on it
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	r := mustSync(t, other)
	if r.Promote.PreviousRunID != "" {
		t.Errorf("the killed child promoted %s", r.Promote.PreviousRunID)
	}
	// The child's verified candidate is older than the new active one and
	// retention removed it.
	if got := dirNames(t, cfg.Home.Candidates()); len(got) != 0 {
		t.Errorf("candidates left: %v", got)
	}
}

// syncVersion writes version v of the source (records whose text names
// v) and syncs.
func syncVersion(t *testing.T, ix *index.Indexer, src string, v int) *index.SyncResult {
	t.Helper()
	writeFile(t, src, jsonlLines(t, versionRecords(v)...))
	return mustSync(t, ix)
}

// threeVersions syncs three versions of one JSONL memory with an
// indexer of opts (NoRemote, a test clock and no compaction added), so
// that each sync is one generation; keep, when not 0, is
// index.keepGenerations. It returns the configuration, the indexer and
// the run ids, oldest first.
func threeVersions(t *testing.T, keep int, opts index.Options) (config.Config, *index.Indexer, []string) {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(dir, "memories.jsonl")
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "notes", Kind: config.KindJSONL, Path: src})
	if keep != 0 {
		cfg.Index.KeepGenerations = keep
	}
	opts.NoRemote, opts.Now, opts.NoCompact = true, newClock(epoch).Now, true
	ix := index.New(cfg, opts)
	var runs []string
	for v := 1; v <= 3; v++ {
		runs = append(runs, syncVersion(t, ix, src, v).Build.RunID)
	}
	return cfg, ix, runs
}

func versionRecords(v int) []rec {
	var out []rec
	for i := 0; i < 3+v; i++ {
		out = append(out, rec{
			ID:   fmt.Sprintf("v%d-%d", v, i),
			Text: fmt.Sprintf("Version %d note %d: the deploy window moved to %02d:00 UTC and the on-call rota lists engineer %d.", v, i, 10+v, i),
			Date: fmt.Sprintf("2026-02-%02d", 10+v), Project: "billing",
		})
	}
	return out
}

// chunkTexts returns the sorted chunk texts of the active generation.
func activeTexts(t *testing.T, cfg config.Config) (string, []string) {
	t.Helper()
	m, g := active(t, cfg.Home)
	var texts []string
	for _, c := range g.All() {
		texts = append(texts, c.Text)
	}
	slices.Sort(texts)
	return m.RunID, texts
}

func versionTexts(v int) []string {
	var texts []string
	for _, r := range versionRecords(v) {
		texts = append(texts, r.Text)
	}
	slices.Sort(texts)
	return texts
}

// TestRollback_retention syncs five versions, rolls back to the oldest
// kept one and forth, checks retention keeps exactly three promoted
// generations, that a pruned one cannot be rolled back to, and that every
// operation is in history.jsonl.
func TestRollback_retention(t *testing.T) {
	cfg, ix, runs := threeVersions(t, 0, index.Options{})
	src := cfg.Sources[0].Path
	ctx := context.Background()
	if got := dirNames(t, cfg.Home.Generations()); !slices.Equal(got, runs) {
		t.Fatalf("generations %v, want %v", got, runs)
	}

	t.Run("to the first", func(t *testing.T) {
		p, err := ix.Rollback(ctx, runs[0])
		if err != nil {
			t.Fatal(err)
		}
		if p.RunID != runs[0] || p.PreviousRunID != runs[2] || len(p.Deleted) != 0 {
			t.Errorf("rollback result %+v", p)
		}
		m, _, err := manifest.Read(cfg.Home.Manifest())
		if err != nil {
			t.Fatal(err)
		}
		if m.PromotedBy != "rollback" || m.PreviousRunID != runs[2] || m.Status != manifest.StatusActive {
			t.Errorf("manifest after rollback: by %q previous %q", m.PromotedBy, m.PreviousRunID)
		}
		if id, texts := activeTexts(t, cfg); id != runs[0] || !slices.Equal(texts, versionTexts(1)) {
			t.Errorf("active %s serves %q, want version 1", id, texts)
		}
	})

	t.Run("back to the previous", func(t *testing.T) {
		// runs[0] is the oldest promotion: a plain rollback steps back,
		// never forward to the generation the last one left.
		if p, err := ix.Rollback(ctx, ""); !errors.Is(err, index.ErrNotFound) {
			t.Fatalf("plain rollback from the oldest: %+v %v, want ErrNotFound", p, err)
		}
		p, err := ix.Rollback(ctx, runs[2])
		if err != nil || p.RunID != runs[2] {
			t.Fatalf("rollback to the previous: %+v %v, want %s", p, err, runs[2])
		}
		if _, err := ix.Rollback(ctx, runs[2]); err == nil {
			t.Errorf("rollback to the active generation succeeded")
		}
	})

	t.Run("retention keeps three", func(t *testing.T) {
		for v := 4; v <= 5; v++ {
			runs = append(runs, syncVersion(t, ix, src, v).Build.RunID)
		}
		// Activations, newest first: 5, 4, 3 (rolled forward), 1, 2.
		want := []string{runs[2], runs[3], runs[4]}
		if got := dirNames(t, cfg.Home.Generations()); !slices.Equal(got, want) {
			t.Errorf("generations %v, want %v", got, want)
		}
		list, err := ix.List(context.Background(), index.Quick)
		if err != nil {
			t.Fatal(err)
		}
		var states []string
		for _, g := range list {
			states = append(states, g.RunID+"="+g.State)
		}
		if wantStates := []string{runs[4] + "=active", runs[3] + "=kept", runs[2] + "=kept"}; !slices.Equal(states, wantStates) {
			t.Errorf("list %v, want %v", states, wantStates)
		}
		for _, pruned := range runs[:2] {
			if _, err := ix.Rollback(ctx, pruned); !errors.Is(err, index.ErrNotFound) {
				t.Errorf("rollback to pruned %s: %v, want ErrNotFound", pruned, err)
			}
		}
		if _, err := ix.Rollback(ctx, "not-a-run-id"); !errors.Is(err, index.ErrNotFound) {
			t.Errorf("rollback to a malformed id: %v, want ErrNotFound", err)
		}
		if id, texts := activeTexts(t, cfg); id != runs[4] || !slices.Equal(texts, versionTexts(5)) {
			t.Errorf("active %s serves %q, want version 5", id, texts)
		}
	})

	t.Run("history", func(t *testing.T) {
		ev := history(t, cfg.Home)
		var got []string
		var deleted []string
		for _, e := range ev {
			if e.Time.IsZero() {
				t.Errorf("event without time: %+v", e)
			}
			if e.Event == index.EventPrune {
				deleted = append(deleted, e.Deleted...)
				continue
			}
			got = append(got, e.Event+":"+e.RunID)
		}
		want := []string{
			"build:" + runs[0], "promote:" + runs[0],
			"build:" + runs[1], "promote:" + runs[1],
			"build:" + runs[2], "promote:" + runs[2],
			"rollback:" + runs[0], "rollback:" + runs[2],
			"build:" + runs[3], "promote:" + runs[3],
			"build:" + runs[4], "promote:" + runs[4],
		}
		if !slices.Equal(got, want) {
			t.Errorf("history:\n got %v\nwant %v", got, want)
		}
		slices.Sort(deleted)
		if !slices.Equal(deleted, runs[:2]) {
			t.Errorf("prune events deleted %v, want %v", deleted, runs[:2])
		}
		for _, e := range ev {
			if e.Event == index.EventBuild && (e.Chunks == 0 || e.Records == 0 || e.Embedded+e.Cached != e.Chunks) {
				t.Errorf("build event without counts: %+v", e)
			}
		}
	})
}

// TestBuildVerifyPromote runs the three steps that sync combines.
func TestBuildVerifyPromote(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "memories.jsonl")
	writeFile(t, src, jsonlLines(t, baseRecords()...))
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "notes", Kind: config.KindJSONL, Path: src})
	ix := index.New(cfg, index.Options{NoRemote: true, Now: newClock(epoch).Now})
	ctx := context.Background()

	if _, err := ix.Promote(ctx, ""); !errors.Is(err, index.ErrNotFound) {
		t.Errorf("promote without a candidate: %v, want ErrNotFound", err)
	}
	first, err := ix.Build(ctx)
	if err != nil {
		t.Fatal(err)
	}
	second, err := ix.Build(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := manifest.Read(cfg.Home.Manifest()); !errors.Is(err, manifest.ErrNoManifest) {
		t.Errorf("a build alone wrote a manifest: %v", err)
	}
	v, err := ix.Verify(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if v.RunID != second.RunID || v.Where != "candidate" || v.Chunks != 6 || !v.ProfileMatches {
		t.Errorf("verify newest candidate: %+v, want %s", v, second.RunID)
	}
	if v, err := ix.Verify(ctx, first.RunID); err != nil || v.RunID != first.RunID {
		t.Errorf("verify %s: %+v %v", first.RunID, v, err)
	}
	p, err := ix.Promote(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if p.RunID != second.RunID {
		t.Errorf("promoted %s, want the newest candidate %s", p.RunID, second.RunID)
	}
	// Promotion removed the older candidate.
	if got := dirNames(t, cfg.Home.Candidates()); len(got) != 0 {
		t.Errorf("candidates after promote: %v", got)
	}
	if _, err := ix.Promote(ctx, second.RunID); err == nil || !strings.Contains(err.Error(), "already the active") {
		t.Errorf("promote of an active generation: %v", err)
	}
	if v, err := ix.Verify(ctx, second.RunID); err != nil || v.Where != "generation" {
		t.Errorf("verify the active generation: %+v %v", v, err)
	}

	// A candidate whose files were damaged is not promoted.
	third, err := index.New(cfg, index.Options{NoRemote: true, Now: newClock(epoch.Add(time.Hour)).Now, Full: true}).Build(ctx)
	if err != nil {
		t.Fatal(err)
	}
	flipByte(t, filepath.Join(third.Path, generation.FileSources), 10)
	if _, err := ix.Promote(ctx, third.RunID); !errors.Is(err, generation.ErrCorrupt) {
		t.Errorf("promote of a corrupt candidate: %v, want ErrCorrupt", err)
	}
	if m, _, err := manifest.Read(cfg.Home.Manifest()); err != nil || m.RunID != second.RunID {
		t.Errorf("manifest after a refused promote: %v %v", m, err)
	}
}

// flipByte inverts the bits of the byte at off (negative: from the end).
func flipByte(t testing.TB, path string, off int64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if off < 0 {
		off += int64(len(b))
	}
	b[off] ^= 0xff
	overwrite(t, path, b)
}

// overwrite replaces a (read-only) generation file's content in place,
// as damage on disk would.
func overwrite(t testing.TB, path string, b []byte) {
	t.Helper()
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// childCommand re-runs the test binary as a helper (see runChild).
func childCommand(t *testing.T, mode, root, src string, start time.Time, step string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(),
		envChild+"="+mode,
		"NOVA_TEST_ROOT="+root,
		"NOVA_TEST_SRC="+src,
		"NOVA_TEST_STEP="+step,
		"NOVA_TEST_CLOCK="+start.UTC().Format(time.RFC3339),
	)
	cmd.Stderr = os.Stderr
	return cmd
}

// TestHistory_tornLine: a writer killed mid-append leaves a line without
// its newline; the next events are still recorded and read.
func TestHistory_tornLine(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "memories.jsonl")
	writeFile(t, src, jsonlLines(t, baseRecords()...))
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "notes", Kind: config.KindJSONL, Path: src})
	writeFile(t, cfg.Home.History(), `{"time":"2026-03-01T07:00:00Z","event":"build","runId":"20260301T070000Z-00000000"}`+"\n"+`{"time":"2026-03-01T07:00:01Z","event":"prom`)
	r := mustSync(t, index.New(cfg, index.Options{NoRemote: true, Now: newClock(epoch).Now}))
	ev := history(t, cfg.Home)
	if !hasEvent(ev, index.EventBuild, r.Build.RunID) || !hasEvent(ev, index.EventPromote, r.Build.RunID) || len(ev) != 3 {
		t.Errorf("history after a torn line: %v", eventSummary(ev))
	}
}
