package tui

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImports keeps the package's boundaries: the TUI reaches Nova only
// through Backend (never the client or the daemon), and it stays on Bubble
// Tea v1 (v2 lives under charm.land).
func TestImports(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	forbidden := []string{
		"github.com/nova-recall/nova/client",
		"github.com/nova-recall/nova/daemon",
		"charm.land/",
		"github.com/charmbracelet/bubbletea/v2",
		"github.com/charmbracelet/bubbles/v2",
		"github.com/charmbracelet/lipgloss/v2",
	}
	for _, name := range files {
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			for _, bad := range forbidden {
				if strings.HasPrefix(path, bad) {
					t.Errorf("%s imports %s", name, path)
				}
			}
		}
	}
}
