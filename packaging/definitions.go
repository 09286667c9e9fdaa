package packaging

import (
	"os"
	"path/filepath"
)

// Who registered a job with the service manager.
const (
	OwnerNovactl  = "novactl"  // novactl service install
	OwnerHomebrew = "homebrew" // brew services start <formula>
)

// HomebrewFormula is the tap's formula whose service runs novad
// (.goreleaser.yaml, brews).
const HomebrewFormula = "nova"

// Definition is one service definition of a Nova job found on disk.
type Definition struct {
	// Job is what the definition runs: "novad" or "watcher" (novactl
	// index watch).
	Job string `json:"job"`
	// Owner is OwnerNovactl or OwnerHomebrew.
	Owner string `json:"owner"`
	// Path is the plist (macOS) or unit file (Linux).
	Path string `json:"path"`
	// Remove is the command that removes this definition.
	Remove string `json:"remove"`
	// Formula is the Homebrew formula whose service it is, for brew
	// services start/restart; "" for OwnerNovactl.
	Formula string `json:"formula,omitempty"`
}

// job names one Nova job and the names both of its owners give it.
type job struct {
	name    string
	service string // our launchd label / systemd unit name
	formula string // the Homebrew formula whose service runs it
}

// HomebrewWatchFormula is the tap's formula whose service runs the source
// watcher (.goreleaser.yaml, brews).
const HomebrewWatchFormula = "nova-watch"

// jobs are the jobs a person may register twice.
var jobs = []job{{"novad", ServiceName, HomebrewFormula}, {"watcher", WatchServiceName, HomebrewWatchFormula}}

// Definitions lists the per-user service definitions of Nova's jobs under
// home on goos ("darwin" or "linux"): ours, written by novactl service
// install, and Homebrew's, written by brew services. brew services names a
// formula's launchd job homebrew.mxcl.<formula> and its systemd unit
// homebrew.<formula>, in the same per-user directories as ours. It only
// reads the file system.
func Definitions(home, goos string) []Definition {
	var dir, brew, ext string
	switch goos {
	case "darwin":
		dir, brew, ext = filepath.Join(home, "Library", "LaunchAgents"), "homebrew.mxcl.", ".plist"
	case "linux":
		dir, brew, ext = filepath.Join(home, ".config", "systemd", "user"), "homebrew.", ".service"
	default:
		return nil
	}
	var out []Definition
	for _, j := range jobs {
		for _, d := range []Definition{
			{Job: j.name, Owner: OwnerNovactl, Path: filepath.Join(dir, j.service+ext), Remove: "novactl service uninstall"},
			{Job: j.name, Owner: OwnerHomebrew, Path: filepath.Join(dir, brew+j.formula+ext), Remove: "brew services stop " + j.formula, Formula: j.formula},
		} {
			if _, err := os.Lstat(d.Path); err == nil {
				out = append(out, d)
			}
		}
	}
	return out
}
