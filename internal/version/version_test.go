package version

import (
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

func TestResolve(t *testing.T) {
	vcs := &debug.BuildInfo{
		GoVersion: "go1.26.8",
		Main:      debug.Module{Path: "github.com/nova-recall/nova", Version: "(devel)"},
		Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
			{Key: "vcs.time", Value: "2026-05-01T10:00:00Z"},
			{Key: "vcs.modified", Value: "true"},
		},
	}
	t.Run("stamped values win over the toolchain's", func(t *testing.T) {
		in := resolve("v1.2.0", "fedcba9876543210", "2026-06-01T00:00:00Z", vcs)
		if in.Version != "v1.2.0" || in.Commit != "fedcba9876543210" || in.Date != "2026-06-01T00:00:00Z" || in.Modified {
			t.Fatalf("got %+v", in)
		}
		if got, want := in.Line("novad"), "novad v1.2.0 (commit fedcba987654, built 2026-06-01T00:00:00Z, go1.26.8 "; !strings.HasPrefix(got, want) {
			t.Fatalf("Line = %q, want prefix %q", got, want)
		}
		if got := in.Build(); got != "v1.2.0 (commit fedcba987654)" {
			t.Fatalf("Build = %q", got)
		}
	})
	t.Run("an unstamped build falls back to the VCS stamp", func(t *testing.T) {
		in := resolve("", "", "", vcs)
		if in.Version != "dev" || in.Commit != vcs.Settings[0].Value || in.Date != "2026-05-01T10:00:00Z" || !in.Modified {
			t.Fatalf("got %+v", in)
		}
		if got := in.Line("novactl"); !strings.Contains(got, "commit 0123456789ab-dirty,") {
			t.Fatalf("Line = %q", got)
		}
		if got := in.Build(); got != "dev (commit 0123456789ab-dirty)" {
			t.Fatalf("Build = %q", got)
		}
	})
	t.Run("a stamped commit that is the VCS revision keeps the tree's modified mark", func(t *testing.T) {
		// make dist of a tree with uncommitted changes: goreleaser stamps
		// the commit, the toolchain records that the tree differed from it.
		in := resolve("0.0.1-snapshot-0123456", vcs.Settings[0].Value, "2026-05-01T10:00:00Z", vcs)
		if !in.Modified {
			t.Fatalf("got %+v, want Modified", in)
		}
		if got := in.Build(); got != "0.0.1-snapshot-0123456 (commit 0123456789ab-dirty)" {
			t.Fatalf("Build = %q", got)
		}
	})
	t.Run("go install of a tagged module reports the module version", func(t *testing.T) {
		in := resolve("", "", "", &debug.BuildInfo{Main: debug.Module{Version: "v1.3.0"}})
		if in.Version != "v1.3.0" || in.Commit != "unknown" || in.Date != "unknown" {
			t.Fatalf("got %+v", in)
		}
	})
	t.Run("goreleaser's placeholders count as unstamped", func(t *testing.T) {
		in := resolve("0.0.1-snapshot-none", "none", "0001-01-01T00:00:00Z", vcs)
		if in.Version != "0.0.1-snapshot-none" || in.Commit != vcs.Settings[0].Value || in.Date != "2026-05-01T10:00:00Z" {
			t.Fatalf("got %+v", in)
		}
	})
	t.Run("no build information at all", func(t *testing.T) {
		in := resolve("", "", "", nil)
		if in.Version != "dev" || in.Commit != "unknown" || in.GoVersion == "" || in.Platform == "" {
			t.Fatalf("got %+v", in)
		}
	})
}

// TestLinkerStamp builds a program with the -X flags the Makefile and
// .goreleaser.yaml pass, and checks that they reach Get.
func TestLinkerStamp(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	const pkg = "github.com/nova-recall/nova/internal/version"
	bin := filepath.Join(t.TempDir(), "printversion")
	ldflags := "-X " + pkg + ".Version=v9.8.7 -X " + pkg + ".Commit=0123456789abcdef0123 -X " + pkg + ".Date=2026-07-01T12:00:00Z"
	if out, err := exec.Command("go", "build", "-ldflags", ldflags, "-o", bin, "./testdata/printversion").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin).Output()
	if err != nil {
		t.Fatal(err)
	}
	if want := "printversion v9.8.7 (commit 0123456789ab, built 2026-07-01T12:00:00Z, "; !strings.HasPrefix(string(out), want) {
		t.Fatalf("got %q, want prefix %q", out, want)
	}
}
