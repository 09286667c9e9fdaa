package daemon_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/client"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/daemon"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/internal/novatest"
	"github.com/nova-recall/nova/lockfile"
	"github.com/nova-recall/nova/paths"
)

// indexedHome builds a home under root with one memory indexed, as
// novactl index sync leaves it.
func indexedHome(t *testing.T, root string) config.Config {
	t.Helper()
	src := filepath.Join(root, "memory.jsonl")
	novatest.Must(t, os.WriteFile(src, []byte(`{"id":"port","text":"The staging deploy listens on port 42017."}`+"\n"), 0o600))
	cfg := testConfig(t, filepath.Join(root, "home"), config.Source{Name: "m", Kind: config.KindJSONL, Path: src, SourceSet: "notes"})
	if _, err := index.New(cfg, index.Options{NoRemote: true}).Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestReadOnlyHome_serves: a home a novad has served before (its
// state/novad.lock is there) on a read-only volume is served: search
// answers from it, clients see that a novad serves the home (it holds the
// lock), and /encode is refused, since the token could not be published;
// the previous run's token, still on the volume, does not pass.
func TestReadOnlyHome_serves(t *testing.T) {
	root := t.TempDir()
	cfg := indexedHome(t, root)
	l, err := lockfile.Acquire(cfg.Home.DaemonLock(), paths.FileMode, "serve", time.Now())
	novatest.Must(t, err)
	l.Release()
	old := "nova_" + strings.Repeat("a", 64)
	novatest.Must(t, os.WriteFile(cfg.Home.TokenFile(), []byte(old+"\n"), 0o600))

	cfg.Home = paths.Home{Root: novatest.ReadOnlyMount(t, cfg.Home.Root)}
	logs := &novatest.LogBuffer{}
	srv := serve(t, daemon.Options{Config: cfg, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	direct := "http://" + srv.DirectAddr().String()

	var resp api.SearchResponse
	for deadline := time.Now().Add(20 * time.Second); len(resp.Results) == 0 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		resp = api.SearchResponse{}
		postJSON(t, direct+api.PathSearch, `{"query":"staging deploy port"}`, &resp)
	}
	if len(resp.Results) == 0 || !strings.Contains(api.StringOr(resp.Results[0].Text, ""), "42017") {
		t.Fatalf("search on a read-only home: %+v", resp)
	}
	var h api.Health
	getJSON(t, direct+api.PathHealth, &h)
	if h.InternalEncodeAuthorized || h.Status != "ok" {
		t.Errorf("health on a read-only home: status %q, internalEncodeAuthorized %v", h.Status, h.InternalEncodeAuthorized)
	}
	if !lockfile.Held(cfg.Home.DaemonLock()) {
		t.Error("novad does not hold the read-only home's lock: clients would not talk to it")
	}
	req, _ := http.NewRequest(http.MethodPost, direct+"/encode", strings.NewReader(`{"texts":["x"]}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(api.HeaderInternalToken, old)
	r, err := http.DefaultClient.Do(req)
	novatest.Must(t, err)
	r.Body.Close()
	if r.StatusCode != http.StatusForbidden {
		t.Errorf("/encode with the previous run's token: %d, want 403", r.StatusCode)
	}
	if !strings.Contains(logs.String(), "read-only") {
		t.Errorf("the log does not say the home is read-only:\n%s", logs.String())
	}
	// It said it writes no server state: it must not then warn, at start
	// and at every load, that it could not.
	if strings.Contains(logs.String(), "Cannot write server state") {
		t.Errorf("novad tried to write server state on a read-only home:\n%s", logs.String())
	}
}

// TestReadOnlyHome_staleStartingRecord: a run that ended while starting
// left "starting" in the lock file of a home now on a read-only volume.
// The novad serving it cannot replace the record; clients must still talk
// to it (they refused, believing it had not bound its ports yet).
func TestReadOnlyHome_staleStartingRecord(t *testing.T) {
	root := t.TempDir()
	cfg := indexedHome(t, root)
	ended := exec.Command("true")
	novatest.Must(t, ended.Run())
	novatest.Must(t, os.MkdirAll(filepath.Dir(cfg.Home.DaemonLock()), 0o700))
	record := fmt.Sprintf(`{"operation":%q,"pid":%d,"lockedAt":"2026-12-01T09:00:00Z"}`, lockfile.Starting, ended.Process.Pid)
	novatest.Must(t, os.WriteFile(cfg.Home.DaemonLock(), []byte(record), 0o600))

	cfg.Home = paths.Home{Root: novatest.ReadOnlyMount(t, cfg.Home.Root)}
	srv := serve(t, daemon.Options{Config: cfg, Logger: slog.New(slog.DiscardHandler)})
	if h := lockfile.ReadHolder(cfg.Home.DaemonLock()); h.Operation != lockfile.Starting {
		t.Fatalf("the record changed on a read-only home: %+v", h)
	}
	// A read-only home has no server-state.json: clients use the
	// configured ports, here the ones novad bound.
	cfg.Server.Port = srv.DirectAddr().(*net.TCPAddr).Port
	cfg.Facade.Port = srv.FacadeAddr().(*net.TCPAddr).Port
	c := client.ForConfig(cfg)
	var resp *api.SearchResponse
	var err error
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		resp, _, err = c.Search(context.Background(), api.SearchBody{Query: "staging deploy port"})
		if err != nil || len(resp.Results) > 0 {
			break
		}
	}
	if err != nil || len(resp.Results) == 0 || !strings.Contains(api.StringOr(resp.Results[0].Text, ""), "42017") {
		t.Fatalf("the client did not search the read-only home's novad: %v", err)
	}
}

// TestReadOnlyHome_withoutLockFile: a read-only home no novad has served
// (no state/novad.lock, which cannot be created there) is refused with one
// clear error that names the home and what to do, not a bare
// "open lock: read-only file system".
func TestReadOnlyHome_withoutLockFile(t *testing.T) {
	root := t.TempDir()
	cfg := indexedHome(t, root)
	cfg.Home = paths.Home{Root: novatest.ReadOnlyMount(t, cfg.Home.Root)}
	srv, err := daemon.New(daemon.Options{Config: cfg})
	novatest.Must(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err = srv.Run(ctx, nil)
	if !errors.Is(err, daemon.ErrReadOnlyHome) || !strings.Contains(err.Error(), cfg.Home.Root) || !strings.Contains(err.Error(), "writable") {
		t.Fatalf("Run on a read-only home without a lock file = %v", err)
	}
}
