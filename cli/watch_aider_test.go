//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nova-recall/nova/index/generation"
	"github.com/nova-recall/nova/manifest"
	"github.com/nova-recall/nova/paths"
)

// TestIndexWatch_aiderAppend: novactl index watch over a folder of
// repositories (~/src) indexes a repository's Aider chat history at
// start, the reply Aider appends to it afterwards, and the history of a
// repository cloned after the watch began, without any rescan.
func TestIndexWatch_aiderAppend(t *testing.T) {
	root := t.TempDir()
	home := paths.Home{Root: filepath.Join(root, "nova")}
	history := filepath.Join(root, "src", "herons", ".aider.chat.history.md")
	for _, d := range []string{filepath.Join(root, "src", "herons", ".git"), home.Root} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(history, []byte("\n# aider chat started at 2026-03-02 08:00:00\n\n> aider  \n\n#### where do the heron photos go?  \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := "server: {host: 127.0.0.1, port: 0}\nfacade: {port: 0}\nsources:\n  - {name: aider, kind: aider, path: ~/src}\n"
	if err := os.WriteFile(home.Config(), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + root, "NOVA_HOME=" + home.Root}

	watcher := startWatcher(t, home, env, "--quiet", "50ms", "--max-wait", "200ms", "--rescan", "1h")
	indexed := func(text, project, what string) {
		t.Helper()
		watcher.until(what, func(_ *manifest.Manifest, g *generation.Generation) bool {
			for _, c := range g.All() {
				if c.Text == text && c.Agent == "aider" && c.Project == project {
					return true
				}
			}
			return false
		})
	}
	indexed("where do the heron photos go?", "herons", "the history at start")
	time.Sleep(200 * time.Millisecond) // the start sync is promoted and the folders watched
	f, err := os.OpenFile(history, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("\nInto photos/herons, sorted by date.\n\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	indexed("Into photos/herons, sorted by date.", "herons", "the appended reply")

	other := filepath.Join(root, "src", "kestrels", ".aider.chat.history.md")
	if err := os.MkdirAll(filepath.Dir(other), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other, []byte("\n# aider chat started at 2026-03-02 09:00:00\n\n#### count the kestrel nests  \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	indexed("count the kestrel nests", "kestrels", "a repository cloned later")
	watcher.stop()
}
