package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/doctor"
	"github.com/nova-recall/nova/internal/novatest"
)

// TestModel_SearchWhileNovadDownSaysHowToStartIt: a search that finds
// novad down says how to start it as it is installed here, as doctor's
// daemon check does. The TUI said novactl service install to everyone,
// which refuses while Homebrew runs novad (brew services).
func TestModel_SearchWhileNovadDownSaysHowToStartIt(t *testing.T) {
	user := t.TempDir()
	plist := filepath.Join(user, "Library", "LaunchAgents", "homebrew.mxcl.nova.plist")
	novatest.Must(t, os.MkdirAll(filepath.Dir(plist), 0o700))
	novatest.Must(t, os.WriteFile(plist, []byte("definition\n"), 0o600))
	nova := filepath.Join(user, ".nova")
	novatest.Must(t, os.MkdirAll(nova, 0o700))
	server := novatest.ClosedPort(t)
	cfg := fmt.Sprintf("server: {host: 127.0.0.1, port: %d}\nfacade: {port: %d}\n", server, novatest.ClosedPort(t, server))
	novatest.Must(t, os.WriteFile(filepath.Join(nova, "config.yaml"), []byte(cfg), 0o600))
	rep := doctor.Run(t.Context(), doctor.Options{Environ: []string{"HOME=" + user, "NOVA_HOME=" + nova}, GOOS: "darwin", Timeout: time.Second})

	b := &fakeBackend{report: rep, answer: func(api.SearchBody) (*api.SearchResponse, error) {
		return nil, fmt.Errorf("%w: dial tcp 127.0.0.1:%d: connect: connection refused", api.ErrNotRunning, server)
	}}
	m := press(t, started(t, b), "/", "zebra giraffe", "enter")
	m = update(t, m, tea.WindowSizeMsg{Width: 200, Height: 60})
	// What the search pane says, below the status pane (which shows
	// doctor's advice too).
	_, failure, _ := strings.Cut(strings.Join(strings.Fields(m.View()), " "), "novad is not running, so nothing could be searched.")
	if !strings.Contains(failure, "brew services start nova") {
		t.Errorf("view lacks how to start Homebrew's novad:\n%s", m.View())
	}
	if strings.Contains(failure, "service install") {
		t.Errorf("view advises novactl service install, which refuses beside Homebrew's job:\n%s", m.View())
	}
}

// TestModel_SearchWithNothingToIndexSaysWhy: a search on a home whose
// sources hold nothing to index says what doctor says (point the sources
// at memory), not the general "build one with novactl index sync", which
// only fails there ("the sources produced no memory to index").
func TestModel_SearchWithNothingToIndexSaysWhy(t *testing.T) {
	user, nova, mem := t.TempDir(), t.TempDir(), t.TempDir()
	novatest.Must(t, os.Chmod(nova, 0o700))
	server := novatest.ClosedPort(t)
	cfg := fmt.Sprintf("server: {host: 127.0.0.1, port: %d}\nfacade: {port: %d}\nsources:\n  - {name: notes, kind: markdown, path: %q}\n",
		server, novatest.ClosedPort(t, server), mem)
	novatest.Must(t, os.WriteFile(filepath.Join(nova, "config.yaml"), []byte(cfg), 0o600))
	rep := doctor.Run(t.Context(), doctor.Options{Environ: []string{"HOME=" + user, "NOVA_HOME=" + nova}, Timeout: time.Second})
	for _, reason := range []string{api.FreshnessMissing, api.ReasonIndexNotLoaded} {
		b := &fakeBackend{report: rep, answer: func(body api.SearchBody) (*api.SearchResponse, error) {
			return api.Unavailable(body.Query, 5, reason), nil
		}}
		m := press(t, started(t, b), "/", "dashboard port", "enter")
		m = update(t, m, tea.WindowSizeMsg{Width: 200, Height: 60})
		_, pane, _ := strings.Cut(strings.Join(strings.Fields(m.View()), " "), "Search unavailable:")
		if !strings.Contains(pane, "othing to index yet: no source holds a file") || strings.Contains(pane, "Build one with novactl index sync") {
			t.Errorf("reason %s: the search pane does not say why there is nothing to index:\n%s", reason, m.View())
		}
	}
	// With memory to index, the advice stays novactl index sync.
	novatest.Must(t, os.WriteFile(filepath.Join(mem, "note.md"), []byte("# Note\n\nThe dashboard port is 2096.\n"), 0o600))
	rep = doctor.Run(t.Context(), doctor.Options{Environ: []string{"HOME=" + user, "NOVA_HOME=" + nova}, Timeout: time.Second})
	b := &fakeBackend{report: rep, answer: func(body api.SearchBody) (*api.SearchResponse, error) {
		return api.Unavailable(body.Query, 5, api.ReasonIndexNotLoaded), nil
	}}
	m := press(t, started(t, b), "/", "dashboard port", "enter")
	m = update(t, m, tea.WindowSizeMsg{Width: 200, Height: 60})
	if _, pane, _ := strings.Cut(strings.Join(strings.Fields(m.View()), " "), "Search unavailable:"); !strings.Contains(pane, "novactl index sync") {
		t.Errorf("with memory to index: no novactl index sync in:\n%s", m.View())
	}
}
