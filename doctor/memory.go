package doctor

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/nova-recall/nova/agents"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/paths"
)

// unreadAgentMemory names the memory of the agents found on this machine
// that no source of cfg reads: an agent that came after config init, or
// Codex's archived threads beside a source that names only its sessions
// folder. That memory is otherwise never recalled, and nothing says so.
// The check is Ready, not Degraded: leaving an agent out may be the
// person's choice. Its message ends with the change to config.yaml that
// reads it. ok is false when every agent's memory is read.
func unreadAgentMemory(cfg config.Config, environ []string) (Check, bool) {
	var unread, fixes []string
	for _, a := range agents.All() {
		dir, found := a.Memory(environ)
		if !found {
			continue
		}
		var missed []string
		widen := ""
		for _, f := range a.MemoryFolders(environ) {
			if s, ok := readBy(cfg, a.ID, resolved(f)); ok {
				widen = s.Name // a source of the agent's reads part of its memory
				continue
			}
			missed = append(missed, paths.Tilde(f, environ))
		}
		if len(missed) == 0 {
			continue
		}
		unread = append(unread, fmt.Sprintf("%s's %s", a.Name, strings.Join(missed, " and ")))
		if widen != "" {
			fixes = append(fixes, fmt.Sprintf("set source %s's path to %s", widen, paths.Tilde(dir, environ)))
			continue
		}
		name := a.SourceName()
		if slices.ContainsFunc(cfg.Sources, func(s config.Source) bool { return s.Name == name }) {
			name += "-memory"
		}
		fixes = append(fixes, fmt.Sprintf("add - {name: %s, kind: %s, path: %s} to sources", name, a.ID, paths.Tilde(dir, environ)))
	}
	if len(unread) == 0 {
		return Check{}, false
	}
	where := "config.yaml"
	if cfg.File != "" {
		where = cfg.File
	}
	// The fix is in the message: doctor prints no advice for a Ready check.
	return ready("agent-memory", "Agent memory", "no source reads "+strings.Join(unread, "; ")+", so it is not recalled; to index it, in "+
		where+": "+strings.Join(fixes, "; ")+", then novactl index sync"), true
}

// readBy returns the source of kind that reads folder: its path is the
// folder, holds it, or lies in it (a part of the folder, by choice).
func readBy(cfg config.Config, kind, folder string) (config.Source, bool) {
	for _, s := range cfg.Sources {
		if s.Kind != kind {
			continue
		}
		p := resolved(s.Path)
		if paths.Within(folder, p) || paths.Within(p, folder) {
			return s, true
		}
	}
	return config.Source{}, false
}

// resolved is p with its symbolic links resolved (a source may name its
// folder through one), or p cleaned when it cannot be.
func resolved(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}
