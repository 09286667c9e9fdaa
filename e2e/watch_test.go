package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/contracttest"
	"github.com/nova-recall/nova/freshness"
	"github.com/nova-recall/nova/internal/novatest"
	"github.com/nova-recall/nova/manifest"
	"github.com/nova-recall/nova/paths"
)

// watcher is a running novactl index watch.
type watcher struct {
	t    *testing.T
	cmd  *exec.Cmd
	logs *novatest.LogBuffer
	done chan struct{}
	exit int
}

// startWatcher runs the real watcher with a short debounce and waits
// until it has published its state.
func startWatcher(t *testing.T, h *novatest.Home) *watcher {
	t.Helper()
	cmd := exec.Command(novatest.Binary(t, "novactl"), "index", "watch", "--quiet", "200ms", "--max-wait", "1s", "--log-format", "text")
	cmd.Env = h.Env()
	w := &watcher{t: t, cmd: cmd, logs: &novatest.LogBuffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = w.logs, w.logs
	novatest.Must(t, cmd.Start())
	go func() {
		err := cmd.Wait()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			w.exit = ee.ExitCode()
		}
		close(w.done)
	}()
	t.Cleanup(func() {
		select {
		case <-w.done:
		default:
			_ = cmd.Process.Kill() // already exited is fine
			<-w.done
		}
		if t.Failed() {
			t.Logf("watcher log:\n%s", w.logs.String())
		}
	})
	home := paths.Home{Root: h.Dir}
	waitFor(t, 30*time.Second, "the watcher's state", func() bool {
		st, err := freshness.Read(home)
		return err == nil && st.PID == cmd.Process.Pid && freshness.Running(home)
	})
	return w
}

// stop sends SIGTERM and returns the exit code.
func (w *watcher) stop() int {
	w.t.Helper()
	if err := w.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		w.t.Fatalf("signal the watcher: %v", err)
	}
	select {
	case <-w.done:
	case <-time.After(30 * time.Second):
		w.t.Fatalf("the watcher did not stop within 30s:\n%s", w.logs.String())
	}
	return w.exit
}

func watcherState(t *testing.T, h *novatest.Home) *freshness.State {
	t.Helper()
	st, err := freshness.Read(paths.Home{Root: h.Dir})
	novatest.Must(t, err)
	return st
}

// hits returns how many facade results contain token.
func hits(t *testing.T, d *novatest.Daemon, token string) int {
	t.Helper()
	r := search(t, d.Facade, fmt.Sprintf(`{"query":%q,"topK":10}`, token))
	if r.status != http.StatusOK {
		t.Fatalf("search %s: %d %s", token, r.status, r.body)
	}
	var env api.SearchResponse
	novatest.Must(t, json.Unmarshal(r.body, &env))
	n := 0
	for _, res := range env.Results {
		if res.Text != nil && strings.Contains(*res.Text, token) {
			n++
		}
	}
	return n
}

// waitSearchable waits until the facade returns token.
func waitSearchable(t *testing.T, d *novatest.Daemon, token, what string) {
	t.Helper()
	waitFor(t, 90*time.Second, what+" to become searchable", func() bool { return hits(t, d, token) > 0 })
}

// claudeLine is one Claude Code transcript line.
func claudeLine(n int, role, text string) string {
	msg := map[string]any{"role": role, "content": text}
	if role == "assistant" {
		msg = map[string]any{"id": fmt.Sprintf("msg_%d", n), "role": "assistant", "content": []any{map[string]any{"type": "text", "text": text}}}
	}
	b, _ := json.Marshal(map[string]any{"type": role, "cwd": "/home/dev/src/zoo", "sessionId": "5b1c2d3e-0000-4a4a-9b9b-0000000000aa",
		"uuid": fmt.Sprintf("u%05d", n), "timestamp": time.Date(2026, 11, 30, 10, 0, n%60, 0, time.UTC).Format(time.RFC3339), "message": msg})
	return string(b) + "\n"
}

// codexRollout is a small Codex rollout whose assistant answer says text.
func codexRollout(id, text string) string {
	lines := []map[string]any{
		{"timestamp": "2026-12-01T09:00:00.000Z", "type": "session_meta", "payload": map[string]any{"id": id, "timestamp": "2026-12-01T09:00:00.000Z", "cwd": "/home/dev/src/zoo", "originator": "codex_cli_rs"}},
		{"timestamp": "2026-12-01T09:00:01.000Z", "type": "response_item", "payload": map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": "What did we decide about the enclosure?"}}}},
		{"timestamp": "2026-12-01T09:00:02.000Z", "type": "response_item", "payload": map[string]any{"type": "message", "role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": text}}}},
	}
	var b strings.Builder
	for _, l := range lines {
		j, _ := json.Marshal(l)
		b.Write(j)
		b.WriteByte('\n')
	}
	return b.String()
}

func appendTo(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	novatest.Must(t, err)
	_, err = f.WriteString(text)
	novatest.Must(t, err)
	novatest.Must(t, f.Close())
}

// TestWatcherKeepsMemoryFresh runs novad and the watcher over Claude Code
// and Codex sources and changes them as agents do.
func TestWatcherKeepsMemoryFresh(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	claude := filepath.Join(root, "claude", "projects", "-home-dev-src-zoo")
	codex := filepath.Join(root, "codex", "sessions")
	novatest.Must(t, os.MkdirAll(claude, 0o755))
	novatest.Must(t, os.MkdirAll(codex, 0o755))
	transcript := filepath.Join(claude, "5b1c2d3e-0000-4a4a-9b9b-0000000000aa.jsonl")
	appendTo(t, transcript, claudeLine(1, "user", "Where should the capybara enclosure go?")+claudeLine(2, "assistant", "Next to the pond, so the capybaras can swim."))
	// The builtin model is retrained once the burst below has more than
	// doubled the corpus: at 384 dimensions that one full build took 6 s
	// of the test's 12 under -race (an eigendecomposition as wide as the
	// dimension), at 32 it takes 2 s; what the watcher does is the same.
	h := novatest.NewHome(t, fmt.Sprintf("  - {name: claude, kind: claude-code, path: %q}\n  - {name: codex, kind: codex, path: %q}\nembedding: {dimension: 32}\n",
		filepath.Join(root, "claude", "projects"), codex))
	h.Sync()
	d := h.Start()
	w := startWatcher(t, h)
	if st := watcherState(t, h); st.Watched.Dirs < 3 || st.Watched.Files < 3 {
		t.Fatalf("watched after start: %+v", st.Watched)
	}

	// An agent appends one exchange to its transcript.
	appendTo(t, transcript, claudeLine(3, "user", "What about the quokka4417 exhibit?")+claudeLine(4, "assistant", "The quokka4417 exhibit opens in spring."))
	waitSearchable(t, d, "quokka4417", "an appended line")

	// A burst of 1 000 lines, written as fast as an agent streams.
	syncsBefore := watcherState(t, h).Syncs[freshness.ResultOK]
	f, err := os.OpenFile(transcript, os.O_APPEND|os.O_WRONLY, 0)
	novatest.Must(t, err)
	for i := range 1000 {
		text := fmt.Sprintf("Feeding log entry %d: hay and pellets.", i)
		switch i {
		case 0:
			text = "The wombat1001 burrow needs a new door."
		case 999:
			text = "Decision: the numbat9999 keeper starts on Monday."
		}
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		_, err := f.WriteString(claudeLine(100+i, role, text))
		novatest.Must(t, err)
		if i%50 == 0 {
			time.Sleep(time.Millisecond)
		}
	}
	novatest.Must(t, f.Close())
	waitSearchable(t, d, "numbat9999", "the last line of a 1 000-line burst")
	waitSearchable(t, d, "wombat1001", "the first line of a 1 000-line burst")
	if n := watcherState(t, h).Syncs[freshness.ResultOK] - syncsBefore; n > 20 {
		t.Errorf("a burst of 1 000 lines took %d syncs; bursts must be coalesced", n)
	}

	// Codex opens a new day folder after the watcher started.
	day := filepath.Join(codex, "2026", "12", "01")
	novatest.Must(t, os.MkdirAll(day, 0o755))
	rollout := filepath.Join(day, "rollout-2026-12-01T09-00-00-0196c0de-7a11-7c2e-9f00-00000000beef.jsonl")
	novatest.Must(t, os.WriteFile(rollout, []byte(codexRollout("0196c0de-7a11-7c2e-9f00-00000000beef", "We settled on platypus5150 heating for the night house.")), 0o644))
	waitSearchable(t, d, "platypus5150", "a rollout in a day folder created after start")

	// A Claude Code project folder appears, with a transcript in it.
	project2 := filepath.Join(root, "claude", "projects", "-home-dev-src-aviary")
	novatest.Must(t, os.MkdirAll(project2, 0o755))
	appendTo(t, filepath.Join(project2, "5b1c2d3e-0000-4a4a-9b9b-0000000000bb.jsonl"), claudeLine(1, "user", "Order toucan3131 feed for the aviary."))
	waitSearchable(t, d, "toucan3131", "a transcript in a new project folder")

	// Facade health shows freshness and the running watcher.
	hl := do(t, http.MethodGet, d.Facade+api.PathFacadeHealth, "", nil)
	if err := contracttest.Validate(contracttest.FacadeHealth, hl.body, false); err != nil {
		t.Fatalf("facade health with a watcher: %v\n%s", err, hl.body)
	}
	var fh api.FacadeHealth
	novatest.Must(t, json.Unmarshal(hl.body, &fh))
	fr := fh.RagStatus.Freshness
	if !fr.Watcher.Running || fr.Watcher.PID != w.cmd.Process.Pid || fr.LagSeconds == nil || fr.SourcesChangedAt == nil || fr.IndexCaughtUpAt == nil || fr.Watcher.LastSyncResult != freshness.ResultOK {
		t.Fatalf("freshness: %s", hl.body)
	}

	// A deleted transcript keeps its memory, and the watcher says it is gone.
	novatest.Must(t, os.Remove(transcript))
	waitFor(t, 60*time.Second, "the deletion to be recorded", func() bool {
		st := watcherState(t, h)
		return st.Gone.Count == 1 && st.Gone.Files[0] == transcript && st.PendingSince.IsZero() && st.LastSync.Result == freshness.ResultOK
	})
	if hits(t, d, "quokka4417") == 0 {
		t.Fatal("memory of a deleted transcript was dropped")
	}

	// A renamed rollout is still searchable and is not "gone".
	renamed := filepath.Join(day, "rollout-2026-12-01T09-00-00-0196c0de-7a11-7c2e-9f00-00000000beef-renamed.jsonl")
	// The state after the deletion's sync already looks synced: the
	// rename is seen once the sources' change time moves past it.
	changed := watcherState(t, h).SourcesChangedAt
	novatest.Must(t, os.Rename(rollout, renamed))
	waitFor(t, 60*time.Second, "the rename to be synced", func() bool {
		st := watcherState(t, h)
		return st.SourcesChangedAt.After(changed) && st.Watched.Files > 0 && st.PendingSince.IsZero() && st.LastSync.FinishedAt.After(st.SourcesChangedAt)
	})
	if st := watcherState(t, h); st.Gone.Count != 1 {
		t.Fatalf("after a rename the gone files are %v; a renamed file is not gone", st.Gone.Files)
	}
	if hits(t, d, "platypus5150") == 0 {
		t.Fatal("a renamed rollout is no longer searchable")
	}

	// A manual sync while the watcher runs succeeds (it waits if needed).
	if out, errs, code := h.Novactl("index", "sync"); code != 0 {
		t.Fatalf("manual sync beside the watcher: %d\n%s\n%s", code, out, errs)
	}

	if code := w.stop(); code != 0 {
		t.Fatalf("watcher exit %d after SIGTERM:\n%s", code, w.logs.String())
	}
	st := watcherState(t, h)
	if st.StoppedAt.IsZero() || freshness.Running(paths.Home{Root: h.Dir}) {
		t.Fatalf("after stop: stoppedAt %v", st.StoppedAt)
	}
	var health api.Health
	novatest.Must(t, json.Unmarshal(do(t, http.MethodGet, d.Direct+api.PathHealth, "", nil).body, &health))
	if health.Freshness.Watcher.Running || health.Freshness.LagSeconds != nil {
		t.Fatalf("direct health after the watcher stopped: %+v", health.Freshness)
	}
}

// TestWatcherKilledDuringPromotion SIGKILLs the watcher once its
// candidate is complete, while it verifies and promotes: the manifest
// stays valid, novad keeps serving, and the next watcher catches up.
//
// The kill lands there by stopping the watcher (SIGSTOP) the moment its
// candidate record appears and checking that the manifest has not moved
// yet; a stop that came too late is undone and tried again with another
// record. The corpus is small: a 3 000-record one only made the window
// wide enough for a 25 ms poll to land in it most of the time, and its
// first sync took most of the test's time.
func TestWatcherKilledDuringPromotion(t *testing.T) {
	t.Parallel()
	h := novatest.NewHome(t, "")
	var b strings.Builder
	for i := range 100 {
		fmt.Fprintf(&b, `{"id":"bulk-%d","text":"Routine maintenance note %d for pump station %d: filters checked, pressure nominal."}`+"\n", i, i, i%97)
	}
	bulk := filepath.Join(h.Data, "bulk.jsonl")
	novatest.Must(t, os.WriteFile(bulk, []byte(b.String()), 0o644))
	h.Sync()
	d := h.Start()
	home := paths.Home{Root: h.Dir}
	before, _, err := manifest.Read(home.Manifest())
	novatest.Must(t, err)

	w := startWatcher(t, h)
	token := ""
	for attempt := 1; ; attempt++ {
		if attempt > 20 {
			t.Fatal("the watcher was never stopped between its candidate and its manifest in 20 tries")
		}
		token = fmt.Sprintf("kinkajou%d", 7070+attempt)
		appendTo(t, bulk, fmt.Sprintf(`{"id":"k-%d","text":"The %s night enclosure gets a red lamp."}`+"\n", attempt, token))
		// Polled every millisecond: the window is that of a small
		// candidate's verification, move and manifest write.
		deadline := time.Now().Add(120 * time.Second)
		for {
			if m, _ := filepath.Glob(filepath.Join(home.Candidates(), "*", "candidate.json")); len(m) > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("timed out waiting for a complete candidate")
			}
			time.Sleep(time.Millisecond)
		}
		novatest.Must(t, w.cmd.Process.Signal(syscall.SIGSTOP))
		now, _, err := manifest.Read(home.Manifest())
		novatest.Must(t, err)
		if now.RunID == before.RunID {
			t.Logf("stopped during promotion at try %d", attempt)
			break
		}
		// Too late: the candidate is promoted. Let this promotion end
		// and try with the next record.
		novatest.Must(t, w.cmd.Process.Signal(syscall.SIGCONT))
		waitFor(t, 60*time.Second, "the promotion to end", func() bool {
			m, _ := filepath.Glob(filepath.Join(home.Candidates(), "*", "candidate.json"))
			return len(m) == 0 && watcherState(t, h).PendingSince.IsZero()
		})
		before, _, err = manifest.Read(home.Manifest())
		novatest.Must(t, err)
	}
	novatest.Must(t, w.cmd.Process.Signal(syscall.SIGKILL))
	<-w.done

	after, _, err := manifest.Read(home.Manifest())
	if err != nil {
		t.Fatalf("the manifest is not valid after the kill: %v", err)
	}
	t.Logf("killed with the manifest at %s (before: %s)", after.RunID, before.RunID)
	if out, errs, code := h.Novactl("index", "verify", after.RunID); code != 0 {
		t.Fatalf("the active generation does not verify after the kill: %s %s", out, errs)
	}
	if freshness.Running(home) {
		t.Fatal("a killed watcher still holds its lock")
	}
	if r := do(t, http.MethodGet, d.Direct+api.PathHealth, "", nil); r.status != 200 {
		t.Fatalf("novad after the watcher was killed: %d", r.status)
	}

	// The next watcher recovers: it syncs at start and the record arrives.
	w2 := startWatcher(t, h)
	waitSearchable(t, d, token, "the record whose promotion was killed")
	if code := w2.stop(); code != 0 {
		t.Fatalf("second watcher exit %d", code)
	}
	if out, errs, code := h.Novactl("index", "list"); code != 0 {
		t.Fatalf("index list after recovery: %s %s", out, errs)
	}
}

// TestSecondWatcherRefused: one watcher per NOVA_HOME.
func TestSecondWatcherRefused(t *testing.T) {
	t.Parallel()
	h := novatest.NewHome(t, "")
	h.Sync()
	startWatcher(t, h)
	_, errs, code := h.Novactl("index", "watch")
	if code != 1 || !strings.Contains(errs, "already running") {
		t.Fatalf("second watcher: exit %d, %s", code, errs)
	}
}
