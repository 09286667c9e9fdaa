//go:build unix

package cli

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/index/generation"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/manifest"
	"github.com/nova-recall/nova/paths"
)

// runningWatcher is novactl index watch run in process for home by a
// test, logging JSON to logs.
type runningWatcher struct {
	t      *testing.T
	home   paths.Home
	logs   *syncWriter
	code   chan int
	cancel context.CancelFunc
}

// startWatcher runs novactl index watch --in-process with flags in env.
func startWatcher(t *testing.T, home paths.Home, env []string, flags ...string) *runningWatcher {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(cancel)
	w := &runningWatcher{t: t, home: home, logs: &syncWriter{}, code: make(chan int, 1), cancel: cancel}
	args := append([]string{"index", "watch", "--in-process", "--log-format", "json"}, flags...)
	go func() {
		w.code <- Run(ctx, args, &Invocation{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: w.logs, Environ: env})
	}()
	return w
}

// until waits up to 30 s for the active generation to satisfy done,
// failing if the watcher exits first.
func (w *runningWatcher) until(what string, done func(*manifest.Manifest, *generation.Generation) bool) {
	t := w.t
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if m, g, err := index.OpenActive(context.Background(), w.home, lexical.NewAnalyzer()); err == nil && done(m, g) {
			return
		}
		select {
		case c := <-w.code:
			t.Fatalf("the watcher exited %d before %s:\n%s", c, what, w.logs)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the watcher did not index %s:\n%s", what, w.logs)
		}
	}
}

// indexed waits until the active generation holds the chunk of record id
// as agent's.
func (w *runningWatcher) indexed(id, agent, what string) {
	w.t.Helper()
	w.until(what+" ("+id+")", func(_ *manifest.Manifest, g *generation.Generation) bool {
		for _, c := range g.All() {
			if c.SourceID == id && c.Agent == agent {
				return true
			}
		}
		return false
	})
}

// stop stops the watcher and wants a clean exit.
func (w *runningWatcher) stop() {
	w.t.Helper()
	w.cancel()
	if c := <-w.code; c != ExitOK {
		w.t.Fatalf("exit %d after the stop:\n%s", c, w.logs)
	}
}
