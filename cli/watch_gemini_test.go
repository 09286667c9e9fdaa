//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nova-recall/nova/paths"
)

// TestIndexWatch_geminiAppend: novactl index watch over ~/.gemini indexes
// a chat recording at start, a message Gemini CLI appends to it
// afterwards, and a session of a project Gemini starts later (its
// folders made after the watch began), without any rescan.
func TestIndexWatch_geminiAppend(t *testing.T) {
	root := t.TempDir()
	home := paths.Home{Root: filepath.Join(root, "nova")}
	gemini := filepath.Join(root, ".gemini")
	session := filepath.Join(gemini, "tmp", "herons", "chats", "session-2026-03-02T08-00-5e551011.jsonl")
	if err := os.MkdirAll(filepath.Dir(session), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(home.Root, 0o700); err != nil {
		t.Fatal(err)
	}
	head := `{"sessionId":"5e551011-0000-4000-8000-000000000001","projectHash":"x","startTime":"2026-03-02T08:00:00.000Z","kind":"main"}` + "\n" +
		`{"id":"u-1","timestamp":"2026-03-02T08:00:05.000Z","type":"user","content":[{"text":"Where do the heron photos go?"}]}` + "\n"
	if err := os.WriteFile(session, []byte(head), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := "server: {host: 127.0.0.1, port: 0}\nfacade: {port: 0}\nsources:\n  - {name: gemini, kind: gemini, path: ~/.gemini}\n"
	if err := os.WriteFile(home.Config(), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + root, "NOVA_HOME=" + home.Root}

	watcher := startWatcher(t, home, env, "--quiet", "50ms", "--max-wait", "200ms", "--rescan", "1h")
	watcher.indexed("5e551011-0000-4000-8000-000000000001:u-1", "gemini", "the recording at start")
	time.Sleep(200 * time.Millisecond) // the start sync is promoted and the folders watched
	f, err := os.OpenFile(session, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"id":"g-1","timestamp":"2026-03-02T08:00:09.000Z","type":"gemini","content":"Into photos/herons, sorted by date."}` + "\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	watcher.indexed("5e551011-0000-4000-8000-000000000001:g-1", "gemini", "the appended message")

	other := filepath.Join(gemini, "tmp", "kestrels", "chats", "session-2026-03-02T09-00-6e661022.jsonl")
	if err := os.MkdirAll(filepath.Dir(other), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other, []byte(`{"sessionId":"6e661022-0000-4000-8000-000000000002","projectHash":"y","startTime":"2026-03-02T09:00:00.000Z"}`+"\n"+
		`{"id":"u-1","timestamp":"2026-03-02T09:00:05.000Z","type":"user","content":"Count the kestrel nests"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	watcher.indexed("6e661022-0000-4000-8000-000000000002:u-1", "gemini", "a session of a new project")
	watcher.stop()
}
