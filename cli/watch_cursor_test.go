//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nova-recall/nova/paths"
)

// TestIndexWatch_cursorAppend: novactl index watch over
// ~/.cursor/projects indexes an agent transcript at start, a turn Cursor
// appends to it afterwards, and a session of a workspace opened later
// (its project and session folders made after the watch began), without
// any rescan.
func TestIndexWatch_cursorAppend(t *testing.T) {
	root := t.TempDir()
	home := paths.Home{Root: filepath.Join(root, "nova")}
	projects := filepath.Join(root, ".cursor", "projects")
	const s1, s2 = "6c7d8e9f-0000-4000-8000-000000000001", "6c7d8e9f-0000-4000-8000-000000000002"
	session := filepath.Join(projects, "home-dev-src-zoo", "agent-transcripts", s1, s1+".jsonl")
	for _, d := range []string{filepath.Dir(session), home.Root} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(session, []byte(`{"role":"user","message":{"content":[{"type":"text","text":"<user_query>Which keeper feeds the lemurs?</user_query>"}]}}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := "server: {host: 127.0.0.1, port: 0}\nfacade: {port: 0}\nsources:\n  - {name: cursor, kind: cursor, path: ~/.cursor/projects}\n"
	if err := os.WriteFile(home.Config(), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + root, "NOVA_HOME=" + home.Root}

	watcher := startWatcher(t, home, env, "--quiet", "50ms", "--max-wait", "200ms", "--rescan", "1h")
	watcher.indexed(s1+":1", "cursor", "the transcript at start")
	time.Sleep(200 * time.Millisecond) // the start sync is promoted and the folders watched
	f, err := os.OpenFile(session, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"role":"assistant","message":{"content":[{"type":"text","text":"Priya feeds the lemurs on weekdays."}]}}` + "\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	watcher.indexed(s1+":2", "cursor", "the appended answer")

	other := filepath.Join(projects, "home-dev-src-aviary", "agent-transcripts", s2, s2+".jsonl")
	if err := os.MkdirAll(filepath.Dir(other), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other, []byte(`{"role":"user","message":{"content":"<user_query>Count the kestrel nests</user_query>"}}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	watcher.indexed(s2+":1", "cursor", "a session of a new workspace")
	watcher.stop()
}
