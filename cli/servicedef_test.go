package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nova-recall/nova/doctor"
	"github.com/nova-recall/nova/packaging/macos"
)

// installedDefinition installs both jobs for goos in h (NOVA_HOME from
// extra, or ~/.nova) and returns the deps and novad's definition file.
func installedDefinition(t *testing.T, h serviceHome, goos string, extra ...string) (serviceDeps, string) {
	t.Helper()
	deps := h.lifecycleDeps(t, goos)
	env := append(slices.Clone(h.environ), extra...)
	if code, out, errOut := runServiceCLI(context.Background(), env, deps, "install"); code != ExitOK {
		t.Fatalf("install: exit %d\n%s\n%s", code, out, errOut)
	}
	if goos == "darwin" {
		return deps, filepath.Join(h.home, "Library/LaunchAgents/dev.nova.novad.plist")
	}
	return deps, filepath.Join(h.home, ".config/systemd/user/dev.nova.novad.service")
}

// rewrite replaces old with repl once in the file at path, failing when
// old is not there.
func rewrite(t *testing.T, path, old, repl string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), old) {
		t.Fatalf("%s does not hold %q:\n%s", path, old, b)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(b), old, repl, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestService_StatusNamesWhatIsOutdated: a definition that differs from
// what this novactl writes is outdated whatever differs, not only when
// --wait-for-config is missing: a LaunchAgent an older novactl wrote
// without --log-file (its log never rotated nor made private), or a unit
// with an argument this novactl does not write. status names the
// difference and the command that fixes it, in text and in --json; a
// fresh install is not outdated.
func TestService_StatusNamesWhatIsOutdated(t *testing.T) {
	for _, goos := range []string{"darwin", "linux"} {
		t.Run(goos, func(t *testing.T) {
			ctx := context.Background()
			h := newServiceHome(t)
			deps, def := installedDefinition(t, h, goos)
			status := func() (string, doctor.ServiceStatus) {
				t.Helper()
				_, out, _ := runServiceCLI(ctx, h.environ, deps, "status")
				_, js, _ := runServiceCLI(ctx, h.environ, deps, "status", "--json")
				var st struct {
					Summary doctor.ServiceStatus `json:"summary"`
				}
				if err := json.Unmarshal([]byte(js), &st); err != nil {
					t.Fatalf("%v\n%s", err, js)
				}
				return out, st.Summary
			}
			if out, st := status(); strings.Contains(out, "outdated") || st.Outdated != "" {
				t.Fatalf("a fresh install is outdated: %+v\n%s", st, out)
			}
			want := ""
			if goos == "darwin" {
				argv, err := macos.InstalledCommand(def)
				if err != nil || !slices.Contains(argv, "--log-file") {
					t.Fatalf("the plist runs %q (%v), want --log-file", argv, err)
				}
				log := argv[slices.Index(argv, "--log-file")+1]
				rewrite(t, def, "\t\t<string>--log-file</string>\n\t\t<string>"+log+"</string>\n", "")
				want = "without --log-file " + log
			} else {
				rewrite(t, def, " --wait-for-config\n", " --wait-for-config -v\n")
				want = "with -v, which this novactl does not write"
			}
			out, st := status()
			if strings.Count(out, "outdated:  ") != 1 || !strings.Contains(out, want) || !strings.Contains(out, "run novactl service install") {
				t.Errorf("status does not say the definition is outdated (%q):\n%s", want, out)
			}
			if !strings.Contains(st.Outdated, want) {
				t.Errorf("status --json: outdated %q, want it to name %q", st.Outdated, want)
			}
		})
	}
}

// TestOutdatedArgs: the order of the arguments does not make a definition
// outdated; a flag's value that changed is named once, with both values.
func TestOutdatedArgs(t *testing.T) {
	want := []string{"index", "watch", "--wait-for-config", "--log-file", "/l/w.log"}
	for _, tc := range []struct {
		name      string
		installed []string
		diff      string
	}{
		{"same", want, ""},
		{"reordered", []string{"index", "watch", "--log-file", "/l/w.log", "--wait-for-config"}, ""},
		{"moved log", []string{"index", "watch", "--wait-for-config", "--log-file", "/old/w.log"}, "with --log-file /old/w.log where this novactl writes --log-file /l/w.log"},
		{"old", []string{"index", "watch"}, "without --wait-for-config, so on an invalid config.yaml the job exits and X; without --log-file /l/w.log, so nothing rotates its log"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := outdatedArgs(tc.installed, want, "X")
			if (tc.diff == "") != (got == "") || !strings.Contains(got, tc.diff) {
				t.Errorf("outdatedArgs(%q) = %q, want %q", tc.installed, got, tc.diff)
			}
		})
	}
}
