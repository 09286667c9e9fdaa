package daemon_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/daemon"
	"github.com/nova-recall/nova/freshness"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/internal/novatest"
	"github.com/nova-recall/nova/manifest"
	"github.com/nova-recall/nova/watch"
)

// soakFigures is what a long-running novad and watcher hold, taken in
// this process (both run in it).
type soakFigures struct {
	fds, maps, deletedMaps, goroutines int
	// inotifyWatches counts the watches of this process's inotify
	// instances (the watcher's).
	inotifyWatches                      int
	generations, candidates, stateFiles int
	homeFiles                           int
	// otherKB is the size of the files under home beside the segments and
	// spaces (which hold the memory, and grow with it): history, states,
	// caches, logs.
	otherKB  int64
	heapKB   uint64
	logLines int
}

func (f soakFigures) String() string {
	return fmt.Sprintf("fds %d, inotify watches %d, maps under home %d (deleted %d), goroutines %d, generations %d, candidates %d, state files %d, files under home %d (%d KiB beside segments), heap %d KiB, log lines %d",
		f.fds, f.inotifyWatches, f.maps, f.deletedMaps, f.goroutines, f.generations, f.candidates, f.stateFiles, f.homeFiles, f.otherKB, f.heapKB, f.logLines)
}

// TestSoak_nothingGrowsAcrossSyncsAndReloads: a novad and a source
// watcher run as for weeks of an agent's work, a transcript appended to
// every few seconds, the watcher syncing (compacting every few syncs) and
// novad reloading each time, with searches in between. After the first
// cycles nothing they hold grows: descriptors, mappings of generation
// files, goroutines, generation folders and candidates, state files,
// log lines per sync, heap. NOVA_SOAK_CYCLES makes it run longer (the
// manual soak); Linux only (/proc/self). A third of the package's time,
// it runs under make test-long (NOVA_LONG_TESTS=1) or with
// NOVA_SOAK_CYCLES.
func TestSoak_nothingGrowsAcrossSyncsAndReloads(t *testing.T) {
	if os.Getenv("NOVA_SOAK_CYCLES") == "" {
		novatest.Long(t)
	}
	if _, err := os.Stat("/proc/self/maps"); err != nil {
		t.Skip("needs /proc/self")
	}
	cycles := 32
	if s := os.Getenv("NOVA_SOAK_CYCLES"); s != "" {
		n, err := strconv.Atoi(s)
		novatest.Must(t, err)
		cycles = n
	}
	const warm = 12
	root := t.TempDir()
	t.Setenv("HOME", filepath.Join(root, "user"))
	const sessionEvery = 8
	sources := filepath.Join(root, "agent")
	src := filepath.Join(sources, "session-0", "session.jsonl")
	novatest.Must(t, os.MkdirAll(filepath.Dir(src), 0o700))
	var lines strings.Builder
	for i := range 64 { // deltas of one record stay small beside this
		fmt.Fprintf(&lines, `{"id":"r%d","text":"Runner %d of the deploy pool drained its queue."}`+"\n", i, i)
	}
	novatest.Must(t, os.WriteFile(src, []byte(lines.String()), 0o600))
	cfg := testConfig(t, filepath.Join(root, "home"), config.Source{Name: "agent", Kind: config.KindJSONL, Path: sources, SourceSet: "notes"})
	logs := &novatest.LogBuffer{}
	logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	t.Setenv("NOVA_HOME", cfg.Home.Root)
	// Every fourth delta is merged, and past six segments the generation
	// is rewritten: both kinds of compaction come within the test (the
	// segments, and with them the mapped files, grow up to MaxSegments by
	// design).
	ix := index.New(cfg, index.Options{NoRemote: true, MergeDeltas: 4, MaxSegments: 6, Logger: logger})
	_, err := ix.Sync(context.Background())
	novatest.Must(t, err)
	srv := serve(t, daemon.Options{Config: cfg, Logger: logger})
	base := "http://" + srv.DirectAddr().String()

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- watch.Run(ctx, watch.Options{Home: cfg.Home, Sources: cfg.Sources, Syncer: watch.IndexSyncer(ix), Logger: logger,
			Quiet: 20 * time.Millisecond, MaxWait: 200 * time.Millisecond, Rescan: time.Hour,
			BusyRetry: 50 * time.Millisecond, MaxBackoff: time.Second, SyncAtStart: true})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("watch.Run: %v", err)
		}
	})

	// Searches on both listeners run beside the syncs and reloads, as
	// agents' do; figures are taken between searches (pause), so that
	// none holds a retired generation then.
	var pause sync.RWMutex
	stop := make(chan struct{})
	var searchers sync.WaitGroup
	for _, url := range []string{base + api.PathSearch, "http://" + srv.FacadeAddr().String() + api.PathFacadeSearch} {
		searchers.Go(func() {
			for q := 0; ; q++ {
				select {
				case <-stop:
					return
				case <-time.After(5 * time.Millisecond):
				}
				pause.RLock()
				resp, err := http.Post(url, "application/json", strings.NewReader(fmt.Sprintf(`{"query":"canary of build %d","topK":5}`, 9000+q%100)))
				if err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				pause.RUnlock()
			}
		})
	}
	defer searchers.Wait()
	defer close(stop)
	// Figures are taken while no sync runs or waits either, and novad
	// serves what the last one promoted: a sync (a compaction after the
	// promotion novad serves) maps the generation it replaces, its heap
	// is a sync's, and novad maps the delta the compaction replaced until
	// it reloads.
	figure := func() soakFigures {
		pause.Lock()
		defer pause.Unlock()
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			st, err := freshness.Read(cfg.Home)
			m, _, merr := manifest.Read(cfg.Home.Manifest())
			var h api.Health
			getJSON(t, base+api.PathHealth, &h)
			if err == nil && st.Running == nil && st.PendingSince.IsZero() && merr == nil && h.Generation == m.RunID {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the watcher never stood idle with novad serving its last promotion: %+v, %v; %v; serving %s", st, err, merr, h.Generation)
			}
		}
		return soakFigure(t, cfg.Home.Root, logs)
	}

	var first soakFigures
	start := time.Now()
	for i := range cycles {
		// Every few cycles the agent starts a session in a folder of
		// its own, and the user deletes one from a while ago.
		if i > 0 && i%sessionEvery == 0 {
			s := i / sessionEvery
			src = filepath.Join(sources, fmt.Sprintf("session-%d", s), "session.jsonl")
			novatest.Must(t, os.MkdirAll(filepath.Dir(src), 0o700))
			novatest.Must(t, os.WriteFile(src, nil, 0o600))
			if s >= 3 {
				novatest.Must(t, os.RemoveAll(filepath.Join(sources, fmt.Sprintf("session-%d", s-3))))
			}
		}
		f, err := os.OpenFile(src, os.O_APPEND|os.O_WRONLY, 0)
		novatest.Must(t, err)
		fmt.Fprintf(f, `{"id":"s%d","text":"Soak step %d: the canary zq%dx of build %d passed."}`+"\n", i, i, i, 9000+i)
		novatest.Must(t, f.Close())
		// novad serves the appended record: the watcher synced it and
		// novad reloaded.
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			_, _, ids := searchIDs(t, base+api.PathSearch, fmt.Sprintf(`{"query":"zq%dx","topK":3}`, i))
			if slices.Contains(ids, fmt.Sprintf("s%d", i)) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("cycle %d: novad never served the appended record (got %q)", i, ids)
			}
		}
		var h api.Health
		getJSON(t, base+api.PathHealth, &h)
		if i+1 == warm {
			first = figure()
			t.Logf("after %d cycles: %v", warm, first)
		}
		if i+1 > warm && (i+1)%100 == 0 {
			t.Logf("after %d cycles (%v): %v", i+1, time.Since(start).Round(time.Second), figure())
		}
	}
	last := figure()
	t.Logf("after %d cycles (%v): %v", cycles, time.Since(start).Round(time.Second), last)
	n := cycles - warm
	check := func(what string, before, after, slack int) {
		if after > before+slack {
			t.Errorf("%s grew from %d after %d cycles to %d after %d", what, before, warm, after, cycles)
		}
	}
	check("open descriptors", first.fds, last.fds, 4)
	check("mappings of files under NOVA_HOME", first.maps, last.maps, 16)
	check("mappings of deleted files under NOVA_HOME", first.deletedMaps, last.deletedMaps, 8)
	check("inotify watches", first.inotifyWatches, last.inotifyWatches, 2)
	check("goroutines", first.goroutines, last.goroutines, 4)
	check("generation folders", first.generations, last.generations, 2)
	check("candidates", first.candidates, last.candidates, 1)
	check("state files", first.stateFiles, last.stateFiles, 1)
	check("files under NOVA_HOME", first.homeFiles, last.homeFiles, 24)
	// history.jsonl grows to its bound (256 KiB) before it is trimmed.
	if last.otherKB > first.otherKB+384 {
		t.Errorf("files beside the segments grew from %d KiB after %d cycles to %d KiB after %d", first.otherKB, warm, last.otherKB, cycles)
	}
	if first.heapKB > 0 && last.heapKB > first.heapKB*2+4096 {
		t.Errorf("heap grew from %d KiB after %d cycles to %d KiB after %d", first.heapKB, warm, last.heapKB, cycles)
	}
	// Log lines at Info per cycle stay what they were in the first ones.
	perBefore := float64(first.logLines) / warm
	perAfter := float64(last.logLines-first.logLines) / float64(n)
	if perAfter > perBefore+0.5 {
		t.Errorf("log lines at Info per cycle grew from %.1f in the first %d cycles to %.1f:\n%s", perBefore, warm, perAfter, tail(logs.String(), 40))
	}
}

// soakFigure takes the figures of this process and of the home at root,
// after a collection.
func soakFigure(t *testing.T, root string, logs *novatest.LogBuffer) soakFigures {
	t.Helper()
	// Mappings and descriptors of released generations go at a collection
	// (and their cleanups, on the runtime's goroutine): let both run.
	for range 3 {
		runtime.GC()
		time.Sleep(50 * time.Millisecond)
	}
	var f soakFigures
	fds := novatest.OpenFDs(t)
	f.fds = len(fds)
	for fd, l := range fds {
		if l == "anon_inode:inotify" {
			b, err := os.ReadFile(filepath.Join("/proc/self/fdinfo", fd))
			novatest.Must(t, err)
			f.inotifyWatches += strings.Count(string(b), "inotify wd:")
		}
	}
	mf, err := os.Open("/proc/self/maps")
	novatest.Must(t, err)
	files := map[string]bool{}
	sc := bufio.NewScanner(mf)
	for sc.Scan() {
		line := sc.Text()
		if i := strings.Index(line, root+string(filepath.Separator)); i >= 0 && !files[line[i:]] {
			files[line[i:]] = true
			f.maps++
			if strings.HasSuffix(line, " (deleted)") {
				f.deletedMaps++
			}
		}
	}
	mf.Close()
	f.goroutines = runtime.NumGoroutine()
	f.generations = countEntries(filepath.Join(root, "index", "generations"))
	f.candidates = countEntries(filepath.Join(root, "index", "candidates"))
	f.stateFiles = countEntries(filepath.Join(root, "state"))
	var other int64
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		f.homeFiles++
		rel, _ := filepath.Rel(root, p)
		if fi, err := d.Info(); err == nil && !strings.HasPrefix(rel, filepath.Join("index", "segments")) && !strings.HasPrefix(rel, filepath.Join("index", "spaces")) {
			other += fi.Size()
		}
		return nil
	})
	f.otherKB = other / 1024
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	f.heapKB = ms.HeapAlloc / 1024
	f.logLines = strings.Count(logs.String(), "\n")
	return f
}

func countEntries(dir string) int {
	es, _ := os.ReadDir(dir)
	return len(es)
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// TestSoak_syncsThroughNovadLeaveNoConnectionsOpen: with an embedding
// endpoint, every sync the watcher runs asks novad whether it serves the
// same profile and embeds through its /encode. Each sync left its
// connections to novad open (idle keep-alives of a client no one used
// again) until novad's idle timeout closed them a minute later: a
// descriptor in each process and goroutines for every sync of the last
// minute, which a sync every second or two of an agent's work made
// dozens, out of launchd's 256 descriptors per job. Linux only
// (/proc/self/fd).
func TestSoak_syncsThroughNovadLeaveNoConnectionsOpen(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("needs /proc/self/fd")
	}
	root := t.TempDir()
	t.Setenv("HOME", filepath.Join(root, "user"))
	src := filepath.Join(root, "memory.jsonl")
	novatest.Must(t, os.WriteFile(src, []byte(`{"id":"a","text":"The deploy queue stalls when the runner pool is empty."}`+"\n"), 0o600))
	cfg := testConfig(t, filepath.Join(root, "home"), config.Source{Name: "m", Kind: config.KindJSONL, Path: src, SourceSet: "notes"})
	t.Setenv("NOVA_HOME", cfg.Home.Root)
	cfg.Embedding.Provider, cfg.Embedding.Endpoint = config.ProviderOpenAI, novatest.FakeEmbeddings(t)
	cfg.Embedding.Model, cfg.Embedding.Dimension = "fake", 8
	novatest.Must(t, cfg.Validate())
	ix := index.New(cfg, index.Options{NoCompact: true})
	_, err := ix.Sync(context.Background())
	novatest.Must(t, err)
	srv := serve(t, daemon.Options{Config: cfg})
	waitServing(t, "http://"+srv.DirectAddr().String())
	sockets := func() int {
		time.Sleep(100 * time.Millisecond) // closed connections' goroutines end
		return novatest.Sockets(novatest.OpenFDs(t))
	}
	var before int
	const syncs = 12
	for i := range syncs {
		f, err := os.OpenFile(src, os.O_APPEND|os.O_WRONLY, 0)
		novatest.Must(t, err)
		fmt.Fprintf(f, `{"id":"s%d","text":"Sync %d: the canary of build %d passed."}`+"\n", i, i, 9000+i)
		novatest.Must(t, f.Close())
		r, err := ix.Sync(context.Background())
		novatest.Must(t, err)
		if r.Build.EmbeddingSource != "novad" {
			t.Fatalf("sync %d embedded %q, want through novad", i, r.Build.EmbeddingSource)
		}
		if i == 1 {
			before = sockets()
		}
	}
	if after := sockets(); after > before+2 {
		t.Errorf("%d sockets open after 2 syncs through novad, %d after %d", before, after, syncs)
	}
}
