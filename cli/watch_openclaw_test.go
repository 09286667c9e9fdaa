//go:build unix

package cli

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/lexical"
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

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	logs := &syncWriter{}
	code := make(chan int, 1)
	go func() {
		code <- Run(ctx, []string{"index", "watch", "--in-process", "--log-format", "json", "--quiet", "50ms", "--max-wait", "200ms", "--rescan", "1h"},
			&Invocation{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: logs, Environ: env})
	}()
	indexed := func(id, what string) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			if _, g, err := index.OpenActive(home, lexical.NewAnalyzer()); err == nil {
				for _, c := range g.All() {
					if c.SourceID == id && c.Agent == "openclaw" {
						return
					}
				}
			}
			select {
			case c := <-code:
				t.Fatalf("the watcher exited %d before indexing %s:\n%s", c, what, logs)
			default:
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s (%s) was never indexed:\n%s", what, id, logs)
			}
		}
	}
	indexed("s1:2", "the session at start")
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
	indexed("s1:3", "the appended turn")
	cancel()
	if c := <-code; c != ExitOK {
		t.Fatalf("exit %d after the stop:\n%s", c, logs)
	}
}
