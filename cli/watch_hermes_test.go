//go:build unix

package cli

import (
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	_ "modernc.org/sqlite" // novactl's SQLite driver (cmd/novactl links it): the Hermes reader and the bench's FTS5 baseline use it

	"github.com/nova-recall/nova/index/generation"
	"github.com/nova-recall/nova/manifest"
	"github.com/nova-recall/nova/paths"
)

// TestIndexWatch_hermesWriteAheadLog: a message a running Hermes writes
// goes to state.db-wal, and state.db itself does not change; the watcher
// sees the log change and syncs it in, without waiting for its rescan.
func TestIndexWatch_hermesWriteAheadLog(t *testing.T) {
	root := t.TempDir()
	home := paths.Home{Root: filepath.Join(root, "nova")}
	hermes := filepath.Join(root, "hermes")
	for _, d := range []string{hermes, home.IndexDir()} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	db := filepath.Join(hermes, "state.db")
	w, err := sql.Open("sqlite", "file:"+db+"?_pragma=journal_mode(wal)&_pragma=wal_autocheckpoint(0)")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.SetMaxOpenConns(1)
	exec := func(s string) {
		t.Helper()
		if _, err := w.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	exec(`CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT NOT NULL, started_at REAL NOT NULL)`)
	exec(`CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, role TEXT NOT NULL, content TEXT, timestamp REAL NOT NULL)`)
	exec(`INSERT INTO sessions VALUES ('s1', 'cli', 1772438400.0)`)
	exec(`INSERT INTO messages (session_id, role, content, timestamp) VALUES ('s1', 'user', 'the heron nests by the weir', 1772438401.0)`)
	cfg := "server: {host: 127.0.0.1, port: 0}\nfacade: {port: 0}\nsources:\n  - {name: hermes, kind: hermes, path: " + hermes + "}\n"
	if err := os.WriteFile(home.Config(), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + root, "NOVA_HOME=" + home.Root}

	watcher := startWatcher(t, home, env)
	records := func(n int) func(*manifest.Manifest, *generation.Generation) bool {
		return func(m *manifest.Manifest, _ *generation.Generation) bool { return m.RecordCount == n }
	}
	watcher.until("the message at start", records(1))
	before, _ := os.Stat(db)
	exec(`INSERT INTO messages (session_id, role, content, timestamp) VALUES ('s1', 'assistant', 'and fishes at dawn', 1772438402.0)`)
	if after, _ := os.Stat(db); after.Size() != before.Size() || !after.ModTime().Equal(before.ModTime()) {
		t.Fatal("the insert changed state.db itself: the test proves nothing about the log")
	}
	watcher.until("the message in the log", records(2))
	watcher.stop()
}
