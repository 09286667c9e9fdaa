// Package version is the build identity of Nova's binaries: the release
// version, the commit and the build date that the release build stamps
// into both novad and novactl at link time (-ldflags -X), with the Go
// toolchain's own VCS stamp as the fallback for "go build" and
// "go install" builds that were not stamped.
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// Stamped at link time by the Makefile and .goreleaser.yaml, e.g.
//
//	-X github.com/nova-recall/nova/internal/version.Version=v1.2.0
//
// They are package variables only because the linker can set nothing else;
// read them through Get.
var (
	// Version is the release version ("v1.2.0", or git describe's output).
	Version = ""
	// Commit is the full commit hash the binary was built from.
	Commit = ""
	// Date is the build (or commit) time, RFC 3339 in UTC.
	Date = ""
)

// Info is one binary's build identity. Its zero value is usable.
type Info struct {
	Version   string `json:"version"`
	Commit    string `json:"commit"`
	Date      string `json:"date"`
	Modified  bool   `json:"modified,omitempty"` // built from a tree with uncommitted changes
	GoVersion string `json:"goVersion"`
	Platform  string `json:"platform"`
}

// Get returns the stamped identity, completed from the toolchain's build
// information where the link-time stamp left a field empty.
func Get() Info {
	bi, _ := debug.ReadBuildInfo()
	return resolve(Version, Commit, Date, bi)
}

// resolve is Get without the process: stamped values win, then the
// module version and VCS settings that "go build" records, then "dev" and
// "unknown".
func resolve(ver, commit, date string, bi *debug.BuildInfo) Info {
	// goreleaser stamps "none" and the zero time when git told it nothing
	// (a snapshot in a clone without a remote); the toolchain may know.
	if commit == "none" {
		commit = ""
	}
	if strings.HasPrefix(date, "0001-01-01") {
		date = ""
	}
	in := Info{Version: ver, Commit: commit, Date: date, GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi != nil {
		if bi.GoVersion != "" {
			in.GoVersion = bi.GoVersion
		}
		if in.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			in.Version = bi.Main.Version
		}
		var revision string
		var modified bool
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				revision = s.Value
			case "vcs.time":
				if in.Date == "" {
					in.Date = s.Value
				}
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
		if in.Commit == "" {
			in.Commit = revision
		}
		// The toolchain's mark says the tree differed from its revision:
		// it holds for the commit shown only when that is the revision
		// (make dist of a modified tree stamps the same commit).
		if revision != "" && in.Commit == revision {
			in.Modified = modified
		}
	}
	if in.Version == "" {
		in.Version = "dev"
	}
	if in.Commit == "" {
		in.Commit = "unknown"
	}
	if in.Date == "" {
		in.Date = "unknown"
	}
	return in
}

// ShortCommit is the commit's first 12 characters (all of it when shorter).
func (in Info) ShortCommit() string {
	if len(in.Commit) > 12 {
		return in.Commit[:12]
	}
	return in.Commit
}

// Build is what two binaries of one build share, and binaries of two
// builds do not: "v1.2.0 (commit 0123456789ab)", "-dirty" after the
// commit for a tree with uncommitted changes. The build date is left out:
// rebuilding one binary of an unchanged tree is still the same build.
func (in Info) Build() string {
	return fmt.Sprintf("%s (commit %s)", strings.TrimSpace(in.Version), in.commitLabel())
}

// commitLabel is the short commit, with "-dirty" for a modified tree.
func (in Info) commitLabel() string {
	if in.Modified {
		return in.ShortCommit() + "-dirty"
	}
	return in.ShortCommit()
}

// Line is the one-line form that "novad --version" and "novactl version"
// print: "novad v1.2.0 (commit 0123456789ab, built 2026-05-01T10:00:00Z, go1.26.8 darwin/arm64)".
func (in Info) Line(program string) string {
	return fmt.Sprintf("%s %s (commit %s, built %s, %s %s)", program, strings.TrimSpace(in.Version), in.commitLabel(), in.Date, in.GoVersion, in.Platform)
}
