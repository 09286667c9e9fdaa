package cli

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/paths"
	"github.com/nova-recall/nova/watch"
)

// TestIndexSyncerNothingYet: the watcher's sync over sources that hold no
// memory yet (a Claude Code projects folder the agent has not made)
// fails with watch.ErrNothingYet, so that the watcher syncs the first
// session as soon as it is written rather than at the end of its
// back-off, and still says what the index said.
func TestIndexSyncerNothingYet(t *testing.T) {
	root := t.TempDir()
	cfg := config.Defaults()
	cfg.Home = paths.Home{Root: filepath.Join(root, "home")}
	cfg.Sources = []config.Source{{Name: "claude", Kind: config.KindClaudeCode, Path: filepath.Join(root, "claude", "projects")}}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	_, err := watch.IndexSyncer(index.New(cfg, index.Options{NoRemote: true})).Sync(t.Context())
	if !errors.Is(err, watch.ErrNothingYet) || !errors.Is(err, index.ErrNothingToIndex) {
		t.Fatalf("sync of sources without memory: %v, want %v and %v", err, watch.ErrNothingYet, index.ErrNothingToIndex)
	}
}
