package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/doctor"
	"github.com/nova-recall/nova/freshness"
	"github.com/nova-recall/nova/internal/novatest"
	"github.com/nova-recall/nova/packaging/macos"
	"github.com/nova-recall/nova/paths"
	"github.com/nova-recall/nova/shellword"
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

// TestService_PlistWithoutUmaskNotOutdated: a LaunchAgent written before
// the plist had its Umask key is not outdated: the comparison is of what
// the job runs (its arguments), and without the key launchd creates the
// log files 0644 in a 0700 folder (no other user reaches them) that novad
// makes 0600 when it starts; a degraded doctor for every such install
// would ask for a reinstall that changes nothing another user can see.
func TestService_PlistWithoutUmaskNotOutdated(t *testing.T) {
	ctx := context.Background()
	h := newServiceHome(t)
	deps, def := installedDefinition(t, h, "darwin")
	rewrite(t, def, "\t<key>Umask</key>\n\t<integer>63</integer>\n", "")
	_, out, _ := runServiceCLI(ctx, h.environ, deps, "status")
	if strings.Contains(out, "outdated") {
		t.Errorf("a LaunchAgent without Umask is reported outdated:\n%s", out)
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

// doctorServiceCheck runs doctor for environ, with the service probes of
// deps (real definition files under h), and returns its service check.
func doctorServiceCheck(t *testing.T, environ []string, deps serviceDeps) doctor.Check {
	t.Helper()
	return doctorCheck(t, environ, deps, "service")
}

// doctorCheck runs doctor for environ, with the service probes of deps
// (real definition files under h), and returns its check id.
func doctorCheck(t *testing.T, environ []string, deps serviceDeps, id string) doctor.Check {
	t.Helper()
	inv := &Invocation{Environ: environ}
	b, err := newServiceBackend(inv, deps, novadJob(""), nil)
	if err != nil {
		t.Fatal(err)
	}
	w, err := newServiceBackend(inv, deps, watcherJob(""), nil)
	if err != nil {
		t.Fatal(err)
	}
	rep := doctor.Run(context.Background(), doctor.Options{Environ: environ, Service: serviceProbe{b}, WatcherService: serviceProbe{w},
		GOOS: deps.goos, Timeout: 100 * time.Millisecond})
	for _, c := range rep.Checks {
		if c.ID == id {
			return c
		}
	}
	t.Fatalf("no %s check: %+v", id, rep.Checks)
	return doctor.Check{}
}

// TestDoctor_ServiceDefinition: doctor reads novactl's own service
// definitions (real plist and unit files in a temp HOME). One that names
// another NOVA_HOME than the home doctor looks at serves that home, not
// this one, and doctor says so plainly rather than "registered and
// running"; one that differs from what this novactl writes is outdated,
// named, with the command that rewrites it. A fresh install is Ready.
func TestDoctor_ServiceDefinition(t *testing.T) {
	for _, goos := range []string{"darwin", "linux"} {
		t.Run(goos, func(t *testing.T) {
			// Ports 0 everywhere: doctor probes the configured ports, and
			// the default ones may be this machine's own novad's.
			const ports = "server:\n  port: 0\nfacade:\n  port: 0\n"

			h := newServiceHome(t)
			h.writeConfig(t, ports)
			deps, def := installedDefinition(t, h, goos)
			if c := doctorServiceCheck(t, h.environ, deps); c.State != doctor.Ready {
				t.Errorf("a fresh install: %+v", c)
			}
			want := "--wait-for-config"
			if goos == "darwin" {
				rewrite(t, def, "\t\t<string>--wait-for-config</string>\n", "")
			} else {
				rewrite(t, def, " --wait-for-config\n", "\n")
			}
			c := doctorServiceCheck(t, h.environ, deps)
			if c.State != doctor.Degraded || c.Code != doctor.CodeServiceOutdated || !strings.Contains(c.Message, "without "+want) ||
				!strings.Contains(c.Message, def) || !strings.Contains(c.Advice, "novactl service install") {
				t.Errorf("an outdated definition: %+v", c)
			}

			// Installed from a shell whose NOVA_HOME is another home.
			h = newServiceHome(t)
			h.writeConfig(t, ports)
			other := filepath.Join(filepath.Dir(h.home), "other home")
			deps, def = installedDefinition(t, h, goos, "NOVA_HOME="+other)
			c = doctorServiceCheck(t, h.environ, deps)
			this := filepath.Join(h.home, ".nova")
			if c.State != doctor.Degraded || c.Code != doctor.CodeServiceMissing || !strings.Contains(c.Message, other) ||
				!strings.Contains(c.Message, this) || !strings.Contains(c.Message, def) || !strings.Contains(c.Advice, "novactl service install") {
				t.Errorf("a service for another home (%s): %+v", other, c)
			}
			// Asked about that home, doctor finds it served.
			if err := os.MkdirAll(other, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(other, "config.yaml"), []byte(ports), 0o600); err != nil {
				t.Fatal(err)
			}
			if c := doctorServiceCheck(t, append(slices.Clone(h.environ), "NOVA_HOME="+other), deps); c.State != doctor.Ready {
				t.Errorf("the home the service serves: %+v", c)
			}
		})
	}
}

// TestDoctor_StartAdviceForAnotherHomesService: novactl's jobs were
// installed for another NOVA_HOME (their definitions name it), and this
// home's novad and watcher are not running. "novactl service start" would
// start the jobs of that other home, never this one's, so doctor names the
// home they serve and what serves this one: novad (or novactl index watch)
// with this NOVA_HOME in a terminal, or an install from this home.
func TestDoctor_StartAdviceForAnotherHomesService(t *testing.T) {
	for _, goos := range []string{"darwin", "linux"} {
		t.Run(goos, func(t *testing.T) {
			h := newServiceHome(t)
			// Ports 0: doctor probes the configured ports, and the default
			// ones may be this machine's own novad's.
			h.writeConfig(t, "server:\n  port: 0\nfacade:\n  port: 0\n")
			other := filepath.Join(filepath.Dir(h.home), "other home")
			deps, def := installedDefinition(t, h, goos, "NOVA_HOME="+other)
			this := filepath.Join(h.home, ".nova")
			for _, tc := range []struct{ id, program string }{
				{"daemon", "novad"},
				{"watcher", "novactl index watch"},
			} {
				c := doctorCheck(t, h.environ, deps, tc.id)
				text := c.Message + " " + c.Advice
				if strings.Contains(text, "novactl service start") || !strings.Contains(text, "serve NOVA_HOME "+shellword.Quote(other)) ||
					!strings.Contains(text, "NOVA_HOME="+shellword.Quote(this)+" "+tc.program) ||
					!strings.Contains(text, "NOVA_HOME="+shellword.Quote(this)+" novactl service install") {
					t.Errorf("%s check, with %s serving %s: %+v", tc.id, def, other, c)
				}
			}
			// For the home the jobs serve, starting them is the advice.
			if err := os.MkdirAll(other, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(other, "config.yaml"), []byte("server:\n  port: 0\nfacade:\n  port: 0\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			for _, id := range []string{"daemon", "watcher"} {
				c := doctorCheck(t, append(slices.Clone(h.environ), "NOVA_HOME="+other), deps, id)
				if !strings.Contains(c.Message+" "+c.Advice, "novactl service start") {
					t.Errorf("%s check of the home the jobs serve: %+v", id, c)
				}
			}
		})
	}
}

// TestDoctor_RestartAdviceForAnotherHomesService: novactl's jobs serve
// another NOVA_HOME, and a novad (started another way) serves this one.
// Advice to restart it, after an upgrade, a config.yaml change or when it
// hangs, said novactl service restart, stop then start, or install, which
// act on that other home's jobs and leave this home's novad as it was; it
// names this home's novad and how to run it again with this NOVA_HOME.
func TestDoctor_RestartAdviceForAnotherHomesService(t *testing.T) {
	for _, goos := range []string{"darwin", "linux"} {
		t.Run(goos, func(t *testing.T) {
			h := newServiceHome(t)
			other := filepath.Join(filepath.Dir(h.home), "other home")
			deps, def := installedDefinition(t, h, goos, "NOVA_HOME="+other)
			home, err := paths.Resolve(h.environ)
			if err != nil {
				t.Fatal(err)
			}
			novatest.HoldNovadLock(t, home)
			this := "NOVA_HOME=" + shellword.Quote(home.Root) + " novad"
			// serveOn has this home's novad answer health on a loopback
			// port of its own (the default ones may be this machine's
			// novad's), or accept and never answer, as a stopped one.
			serveOn := func(t *testing.T, health *api.Health) {
				t.Helper()
				l, err := net.Listen("tcp", "127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				if health == nil {
					t.Cleanup(func() { l.Close() })
				} else {
					srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
						_ = json.NewEncoder(w).Encode(health)
					}), ReadHeaderTimeout: time.Second}
					go func() { _ = srv.Serve(l) }()
					t.Cleanup(func() { _ = srv.Close() })
				}
				h.writeConfig(t, fmt.Sprintf("server:\n  port: %d\nfacade:\n  port: 0\n", l.Addr().(*net.TCPAddr).Port))
			}
			for _, tc := range []struct {
				name, code string
				health     *api.Health
			}{
				{"another build", doctor.CodeDaemonOtherBuild, &api.Health{Status: "ok", Version: "v0.0.1-old"}},
				{"config changed", doctor.CodeDaemonConfigStale, &api.Health{Status: "ok", StartedAt: time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)}},
				{"not responding", doctor.CodeNotResponding, nil},
			} {
				t.Run(tc.name, func(t *testing.T) {
					serveOn(t, tc.health)
					c := doctorCheck(t, h.environ, deps, "daemon")
					text := c.Message + " " + c.Advice
					if c.Code != tc.code || strings.Contains(text, "novactl service") || !strings.Contains(text, this) {
						t.Errorf("daemon check, with %s serving %s: %+v", def, other, c)
					}
				})
			}
		})
	}
}

// TestDoctor_WatcherRestartAdviceForAnotherHomesService: while novactl's
// watcher job serves another NOVA_HOME, the restart that makes this
// home's watcher read config.yaml again, or take in a raised open-file
// limit, is a restart by hand with this home: novactl service restart
// restarts the other home's watcher and leaves this one as it was, which
// the watcher checks said while novad's advice no longer did.
func TestDoctor_WatcherRestartAdviceForAnotherHomesService(t *testing.T) {
	for _, goos := range []string{"darwin", "linux"} {
		t.Run(goos, func(t *testing.T) {
			h := newServiceHome(t)
			other := filepath.Join(filepath.Dir(h.home), "other home")
			deps, def := installedDefinition(t, h, goos, "NOVA_HOME="+other)
			h.writeConfig(t, fmt.Sprintf("server:\n  port: %d\nfacade:\n  port: 0\n", novatest.ClosedPort(t)))
			home, err := paths.Resolve(h.environ)
			if err != nil {
				t.Fatal(err)
			}
			// This home's watcher (this process holds its lock), started
			// before config.yaml was last written, at an open-file limit.
			lock, err := freshness.Acquire(home, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(lock.Release)
			now := time.Now().UTC()
			st := &freshness.State{SchemaVersion: freshness.SchemaVersion, PID: os.Getpid(), StartedAt: now.Add(-time.Hour), CaughtUpAt: now.Add(-time.Hour),
				RescanIntervalSeconds: 30, Watched: freshness.Watched{Sources: 1, Dirs: 10, PolledDirs: 4},
				Limits: []freshness.Limit{{Name: freshness.LimitOpenFiles, Value: 256, Message: "the open file limit (256) is reached. Raise it and restart the watcher"}}}
			if err := freshness.Write(home, st); err != nil {
				t.Fatal(err)
			}
			this := "NOVA_HOME=" + shellword.Quote(home.Root) + " novactl index watch"
			for _, id := range []string{"watcher", "watcher-limit:" + freshness.LimitOpenFiles} {
				c := doctorCheck(t, h.environ, deps, id)
				if c.State != doctor.Degraded || strings.Contains(c.Advice, "novactl service") || !strings.Contains(c.Advice, this) {
					t.Errorf("%s check, with %s serving %s: %+v", id, def, other, c)
				}
			}
		})
	}
}
