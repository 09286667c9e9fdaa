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
