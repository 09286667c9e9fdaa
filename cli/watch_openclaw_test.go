//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nova-recall/nova/paths"
)

// TestIndexWatch_openclawAppend: novactl index watch over an OpenClaw
// state directory indexes its session at start, and a turn OpenClaw
// appends to the session afterwards, without any rescan.
func TestIndexWatch_openclawAppend(t *testing.T) {
	root := t.TempDir()
	home := paths.Home{Root: filepath.Join(root, "nova")}
	state := filepath.Join(root, ".openclaw")
	session := filepath.Join(state, "agents", "main", "sessions", "s1.jsonl")
	if err := os.MkdirAll(filepath.Dir(session), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(home.Root, 0o700); err != nil {
		t.Fatal(err)
	}
	head := `{"type":"session","version":3,"id":"s1","timestamp":"2026-03-02T08:00:00.000Z","cwd":"` + state + `/workspace"}` + "\n" +
		`{"type":"message","id":"a1","timestamp":"2026-03-02T08:00:05.000Z","message":{"role":"user","content":[{"type":"text","text":"Where do the heron photos go?"}]}}` + "\n"
	if err := os.WriteFile(session, []byte(head), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := "server: {host: 127.0.0.1, port: 0}\nfacade: {port: 0}\nsources:\n  - {name: openclaw, kind: openclaw, path: ~/.openclaw}\n"
	if err := os.WriteFile(home.Config(), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + root, "NOVA_HOME=" + home.Root}

	watcher := startWatcher(t, home, env, "--quiet", "50ms", "--max-wait", "200ms", "--rescan", "1h")
	watcher.indexed("s1:2", "openclaw", "the session at start")
	time.Sleep(200 * time.Millisecond) // the start sync is promoted and the folders watched
	f, err := os.OpenFile(session, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"type":"message","id":"a2","timestamp":"2026-03-02T08:00:09.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Into photos/herons, sorted by date."}]}}` + "\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	watcher.indexed("s1:3", "openclaw", "the appended turn")
	watcher.stop()
}
