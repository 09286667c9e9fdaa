// Package paths names every location Nova reads or writes under its runtime
// home (NOVA_HOME, default ~/.nova). Nothing else in the tree builds these
// paths by hand, so the layout is documented in exactly one place. It also
// holds the one privacy policy for that home (DirMode, FileMode, Secure):
// everything under it is private to the user.
package paths

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// EnvHome is the environment variable that relocates the runtime home.
const EnvHome = "NOVA_HOME"

// Home is a resolved runtime home. The zero value is not usable.
type Home struct {
	// Root is the absolute path of the runtime home.
	Root string
}

// Resolve returns the runtime home from environ (a list of KEY=VALUE
// strings, like os.Environ): NOVA_HOME when set, otherwise ~/.nova.
func Resolve(environ []string) (Home, error) {
	if v := Lookup(environ, EnvHome); v != "" {
		abs, err := filepath.Abs(ExpandHome(v, environ))
		if err != nil {
			return Home{}, err
		}
		return Home{Root: abs}, nil
	}
	home := UserHome(environ)
	if home == "" {
		return Home{}, errors.New("cannot find the home directory: set HOME or NOVA_HOME")
	}
	return Home{Root: filepath.Join(home, ".nova")}, nil
}

// Relocated returns the runtime home when environ's NOVA_HOME moves it
// away from the default ~/.nova, and "" when the home is the default (or
// cannot be resolved). What Nova writes for other programs names the home
// only then (the agent skill), so a default install does not depend on
// whether NOVA_HOME spells out the default.
func Relocated(environ []string) string {
	if Lookup(environ, EnvHome) == "" {
		return ""
	}
	h, err := Resolve(environ)
	if err != nil {
		return ""
	}
	if u := UserHome(environ); u != "" && h.Root == filepath.Join(u, ".nova") {
		return ""
	}
	return h.Root
}

// Lookup returns the value of key in environ, or "".
func Lookup(environ []string, key string) string {
	prefix := key + "="
	for i := len(environ) - 1; i >= 0; i-- {
		if strings.HasPrefix(environ[i], prefix) {
			return environ[i][len(prefix):]
		}
	}
	return ""
}

// UserHome returns $HOME from environ, falling back to the OS.
func UserHome(environ []string) string {
	if h := Lookup(environ, "HOME"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

// ExpandHome replaces a leading ~ with the user's home directory.
func ExpandHome(p string, environ []string) string {
	if p == "~" {
		return UserHome(environ)
	}
	if strings.HasPrefix(p, "~/") {
		return filepath.Join(UserHome(environ), p[2:])
	}
	return p
}

// Config is the operator's config.yaml.
func (h Home) Config() string { return filepath.Join(h.Root, "config.yaml") }

// StateDir holds private runtime state.
func (h Home) StateDir() string { return filepath.Join(h.Root, "state") }

// TokenFile is the /encode token, rotated at every novad start (mode 0600).
func (h Home) TokenFile() string { return filepath.Join(h.StateDir(), "internal-token") }

// ServerState is novad's public process state: pid, ports, start time and
// generation. It never holds a secret.
func (h Home) ServerState() string { return filepath.Join(h.StateDir(), "server-state.json") }

// WatcherState is the source watcher's (novactl index watch) public
// state: pid, what it watches, the last change and sync it saw. It never
// holds a secret.
func (h Home) WatcherState() string { return filepath.Join(h.StateDir(), "watcher.json") }

// WatcherLock is held by the running source watcher, so that only one runs
// per home and others can tell whether one runs without trusting a pid.
func (h Home) WatcherLock() string { return filepath.Join(h.StateDir(), "watcher.lock") }

// WaitingLock is held by a service job (novad, the watcher: job names
// it) while it waits for a valid config.yaml (novad --wait-for-config). It
// is not the job's own lock, which clients read as "a novad serves this
// home"; it only tells novactl service status why a running job does
// nothing.
func (h Home) WaitingLock(job string) string {
	return filepath.Join(h.StateDir(), job+"-waiting.lock")
}

// DaemonLock is held by the novad serving this home, so that a second one
// refuses to start rather than rewrite the first one's token and state.
func (h Home) DaemonLock() string { return filepath.Join(h.StateDir(), "novad.lock") }

// Backups holds copies of the files of one kind (what: "skills",
// "config") that a novactl command replaced, one subdirectory a run,
// named by BackupStamp.
func (h Home) Backups(what string) string { return filepath.Join(h.StateDir(), "backups", what) }

// BackupStamp names the backup subdirectory of a run at t.
func BackupStamp(t time.Time) string { return t.UTC().Format("20060102T150405.000000000Z") }

// Tilde shows p, a path under the user's home, as ~/...; any other path
// as it is.
func Tilde(p string, environ []string) string {
	h := UserHome(environ)
	if h != "" && strings.HasPrefix(p, h+string(filepath.Separator)) {
		return "~" + p[len(h):]
	}
	return p
}

// Within reports whether p is dir or lies inside it, both clean paths
// (no "..", no trailing separator but for the root); "" is in nothing.
func Within(p, dir string) bool {
	if dir == "" {
		return false
	}
	return p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, string(filepath.Separator))+string(filepath.Separator))
}

// IndexDir holds the manifest, history and generations.
func (h Home) IndexDir() string { return filepath.Join(h.Root, "index") }

// Manifest is the active search boundary, replaced only by atomic rename.
func (h Home) Manifest() string { return filepath.Join(h.IndexDir(), "manifest.json") }

// History is the append-only log of builds, promotions and rollbacks.
func (h Home) History() string { return filepath.Join(h.IndexDir(), "history.jsonl") }

// Generations holds promoted, immutable generations.
func (h Home) Generations() string { return filepath.Join(h.IndexDir(), "generations") }

// Generation is one promoted generation directory.
func (h Home) Generation(runID string) string { return filepath.Join(h.Generations(), runID) }

// Candidates holds builds not yet promoted.
func (h Home) Candidates() string { return filepath.Join(h.IndexDir(), "candidates") }

// Candidate is one candidate directory.
func (h Home) Candidate(runID string) string { return filepath.Join(h.Candidates(), runID) }

// Lock serialises writers (sync, promote, rollback).
func (h Home) Lock() string { return filepath.Join(h.IndexDir(), "lock") }

// EmbeddingCache holds vectors keyed by embedding profile and text hash.
func (h Home) EmbeddingCache() string { return filepath.Join(h.CacheDir(), "embeddings") }

// ModelDir holds corpus-trained models of the builtin embedder.
func (h Home) ModelDir() string { return filepath.Join(h.CacheDir(), "models") }

// LogsDir holds novad logs when it is not run by launchd.
func (h Home) LogsDir() string { return filepath.Join(h.Root, "logs") }
