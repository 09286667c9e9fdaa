package daemon_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/daemon"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/index/generation"
	"github.com/nova-recall/nova/paths"
)

// TestPeriodicDeepCheckFallsBack: rot that keeps a file's size and time is
// found by the periodic checksum pass (no signal, no manifest change), and
// novad falls back to the older intact generation while it keeps serving.
func TestPeriodicDeepCheckFallsBack(t *testing.T) {
	root := t.TempDir()
	src := filepath.Join(root, "memory.jsonl")
	write := func(content string) {
		if err := os.WriteFile(src, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cfg := config.Defaults()
	cfg.Home = paths.Home{Root: filepath.Join(root, "home")}
	cfg.Server.Port, cfg.Facade.Port = 0, 0
	cfg.Sources = []config.Source{{Name: "m", Kind: config.KindJSONL, Path: src, SourceSet: "notes"}}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	ix := index.New(cfg, index.Options{NoRemote: true})
	var runs []string
	for _, text := range []string{
		`{"id":"a","text":"The deploy queue stalls when the runner pool is empty."}` + "\n",
		`{"id":"a","text":"The deploy queue stalls when the runner pool is empty."}` + "\n" + `{"id":"b","text":"Rotate the signing key every ninety days."}` + "\n",
	} {
		write(text)
		r, err := ix.Sync(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, r.Active())
	}

	srv, err := daemon.New(daemon.Options{Config: cfg, CheckEvery: 20 * time.Millisecond, DeepCheckEvery: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ready, stopped := make(chan struct{}), make(chan error, 1)
	go func() { stopped <- srv.Run(ctx, ready) }()
	defer func() {
		cancel()
		if err := <-stopped; err != nil {
			t.Error(err)
		}
	}()
	<-ready
	health := func() api.Health {
		var h api.Health
		resp, err := http.Get("http://" + srv.DirectAddr().String() + api.PathHealth)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if err := json.NewDecoder(resp.Body).Decode(&h); err != nil {
			t.Fatal(err)
		}
		return h
	}
	waitUntil := func(what string, cond func(api.Health) bool) api.Health {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if h := health(); cond(h) {
				return h
			}
		}
		t.Fatalf("timed out waiting for %s: %+v", what, health())
		return api.Health{}
	}
	h := waitUntil("the active generation", func(h api.Health) bool { return h.Generation == runs[1] })
	if h.Integrity.Status != api.IntegrityVerified || h.Integrity.DeepCheckedAt == "" {
		t.Errorf("integrity after load: %+v", h.Integrity)
	}

	p := filepath.Join(cfg.Home.Generation(runs[1]), generation.FileSources)
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)-1] ^= 0x10
	if err := os.Chmod(p, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	h = waitUntil("the fallback", func(h api.Health) bool { return h.Generation == runs[0] })
	if in := h.Integrity; in.Status != api.IntegrityFallback || in.ActiveRunID != runs[1] || in.ServedRunID != runs[0] ||
		h.IndexUnavailableReason != api.ActiveIndexMissing || !h.IndexLoaded {
		t.Errorf("after the fallback: reason %s integrity %+v", h.IndexUnavailableReason, in)
	}
}
