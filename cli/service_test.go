package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kardianos/service"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/daemon"
	"github.com/nova-recall/nova/doctor"
	"github.com/nova-recall/nova/internal/novatest"
	"github.com/nova-recall/nova/lockfile"
	"github.com/nova-recall/nova/packaging"
	"github.com/nova-recall/nova/packaging/configwait"
	"github.com/nova-recall/nova/packaging/macos"
	"github.com/nova-recall/nova/packaging/systemd"
	"github.com/nova-recall/nova/packaging/systemd/systemdtest"
	"github.com/nova-recall/nova/paths"
)

func TestServiceName(t *testing.T) {
	if packaging.ServiceName != daemon.ServiceName {
		t.Errorf("packaging.ServiceName %q != daemon.ServiceName %q", packaging.ServiceName, daemon.ServiceName)
	}
}

// serviceHome is a temp HOME with a fake novad binary beside a fake
// novactl, as `make build` leaves them.
type serviceHome struct {
	home, bin, novad string
	environ          []string
}

func newServiceHome(t *testing.T) serviceHome {
	t.Helper()
	root := t.TempDir()
	h := serviceHome{home: filepath.Join(root, "home"), bin: filepath.Join(root, "bin")}
	for _, d := range []string{h.home, h.bin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	h.novad = filepath.Join(h.bin, "novad")
	for _, name := range []string{"novad", "novactl"} {
		if err := os.WriteFile(filepath.Join(h.bin, name), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// A login session's runtime directory, where the systemd user
	// manager listens.
	runtime := filepath.Join(root, "run")
	if err := os.MkdirAll(filepath.Join(runtime, "systemd"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(runtime, "systemd", "private"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	h.environ = []string{"HOME=" + h.home, "XDG_RUNTIME_DIR=" + runtime}
	return h
}

func (h serviceHome) deps(goos string, l macos.Launchctl, newCtl func(*service.Config) (systemd.Controller, error)) serviceDeps {
	return serviceDeps{
		goos:          goos,
		uid:           501,
		self:          mcpDeps{executable: func() (string, error) { return filepath.Join(h.bin, "novactl"), nil }},
		launchctl:     l,
		newController: newCtl,
		detect:        func() string { return systemd.Platform },
		// Nothing listens anywhere: tests never reach the user's own
		// novad on the default ports.
		dial: func(_ context.Context, addr string) (net.Conn, error) {
			return nil, fmt.Errorf("dial %s: refused in tests", addr)
		},
	}
}

func (h serviceHome) writeConfig(t *testing.T, yaml string) {
	t.Helper()
	dir := filepath.Join(h.home, ".nova")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
}

// snapshot lists every path under root with its mode and content.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		v := fi.Mode().String()
		if fi.Mode().IsRegular() {
			b, _ := os.ReadFile(p)
			v += " " + string(b)
		}
		out[p] = v
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameSnapshot(t *testing.T, before, after map[string]string) {
	t.Helper()
	for p, v := range after {
		if b, ok := before[p]; !ok {
			t.Errorf("added %s", p)
		} else if b != v {
			t.Errorf("changed %s", p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			t.Errorf("removed %s", p)
		}
	}
}

func runCLI(ctx context.Context, environ []string, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := Run(ctx, args, &Invocation{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Environ: environ})
	return code, out.String(), errb.String()
}

func runServiceCLI(ctx context.Context, environ []string, deps serviceDeps, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := runServiceWith(ctx, &Invocation{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Environ: environ}, args, deps)
	return code, out.String(), errb.String()
}

// TestService_InstallDryRunWritesNothing runs `novactl service install
// --dry-run` exactly as a person would, through Run with the real
// platform dependencies, and checks that it printed the whole service
// definition and changed nothing.
func TestService_InstallDryRunWritesNothing(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("novactl service supports macOS and Linux")
	}
	h := newServiceHome(t)
	// Ports 0: install asks whether the configured ports are taken, and
	// the default ones may be this machine's own novad's.
	h.writeConfig(t, "server:\n  port: 0\nfacade:\n  port: 0\n")
	before := snapshot(t, filepath.Dir(h.home))
	code, out, errOut := runCLI(context.Background(), h.environ, "service", "install", "--dry-run", "--novad", h.novad)
	// Where the real install would refuse (as root, or on Linux without
	// systemd), the dry run refuses the same way.
	refusal := ""
	switch {
	case os.Getuid() == 0:
		refusal = "refusing to run as root"
	case runtime.GOOS == "linux":
		m := &systemd.Manager{Unit: systemd.Unit{Name: packaging.ServiceName}, Home: h.home, Environ: h.environ}
		if err := m.Preflight("install"); err != nil {
			refusal = err.Error()
		}
	}
	if refusal != "" {
		if code != ExitFailure || out != "" || !strings.Contains(errOut, refusal) {
			t.Errorf("on a machine where install refuses (%s): exit %d\nstdout:\n%s\nstderr:\n%s", refusal, code, out, errOut)
		}
		sameSnapshot(t, before, snapshot(t, filepath.Dir(h.home)))
		return
	}
	if code != ExitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	sameSnapshot(t, before, snapshot(t, filepath.Dir(h.home)))
	novaHome := filepath.Join(h.home, ".nova")
	var want []string
	switch runtime.GOOS {
	case "linux":
		want = []string{
			"Dry run: novactl service install (systemd)",
			"write " + filepath.Join(h.home, ".config/systemd/user/dev.nova.novad.service") + " (mode 0644)",
			"ExecStart=" + h.novad + " --wait-for-config\n",
			`Environment="NOVA_HOME=` + novaHome + `"`,
			"WantedBy=default.target",
			"run systemctl enable --user dev.nova.novad.service",
			"run systemctl start --user dev.nova.novad.service",
		}
	case "darwin":
		want = []string{
			"Dry run: novactl service install (launchd)",
			"<string>" + h.novad + "</string>",
			"<string>" + novaHome + "</string>",
			"run launchctl bootstrap gui/",
		}
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("dry run output lacks %q:\n%s", w, out)
		}
	}
}

// TestService_DryRunJSON: --dry-run --json prints one JSON document on
// stdout, as every other --json of novactl does: the plans (novad's job,
// then the watcher's, with the fields packaging.Plan has always had) and
// the notes the text form prints on stderr (a port another program holds;
// the home an install moves the service from), with stderr quiet, so a
// script can read stdout whole.
func TestService_DryRunJSON(t *testing.T) {
	for _, goos := range []string{"darwin", "linux"} {
		t.Run(goos, func(t *testing.T) {
			h := newServiceHome(t)
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			addr := ln.Addr().String()
			h.writeConfig(t, fmt.Sprintf("server:\n  port: %d\nfacade:\n  port: 0\n", ln.Addr().(*net.TCPAddr).Port))
			// Installed from another home: this install would move it.
			other := filepath.Join(filepath.Dir(h.home), "other")
			installedDefinition(t, h, goos, "NOVA_HOME="+other)
			before := snapshot(t, filepath.Dir(h.home))
			deps := h.deps(goos, refuseLaunchctl{t}, refuseController(t))
			deps.dial = nil // a real dial, to 127.0.0.1 only: the config names no other host
			code, out, errOut := runServiceCLI(context.Background(), h.environ, deps, "install", "--dry-run", "--json")
			if code != ExitOK || errOut != "" {
				t.Fatalf("exit %d, want 0 and a quiet stderr: %s", code, errOut)
			}
			sameSnapshot(t, before, snapshot(t, filepath.Dir(h.home)))
			var doc struct {
				Operation string
				DryRun    bool
				Manager   string
				OK        bool
				Plans     []packaging.Plan
				Notes     []string
			}
			dec := json.NewDecoder(strings.NewReader(out))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&doc); err != nil || dec.More() {
				t.Fatalf("not one JSON document (%v):\n%s", err, out)
			}
			wantManager := map[string]string{"darwin": "launchd", "linux": "systemd"}[goos]
			if doc.Operation != "install" || !doc.DryRun || !doc.OK || doc.Manager != wantManager || len(doc.Plans) != 2 {
				t.Fatalf("document %+v, want install, dryRun, ok, %s and two plans:\n%s", doc, wantManager, out)
			}
			if n := strings.Join(doc.Notes, "\n"); len(doc.Notes) != 2 || !strings.Contains(n, addr+" is in use") || !strings.Contains(n, "serves NOVA_HOME "+other) {
				t.Errorf("notes %q, want the taken port %s and the home the service moves from, %s", doc.Notes, addr, other)
			}
			// The plans keep packaging.Plan's field names.
			var raw struct{ Plans []map[string]any }
			if err := json.Unmarshal([]byte(out), &raw); err != nil {
				t.Fatal(err)
			}
			for _, k := range []string{"operation", "manager", "steps"} {
				if _, ok := raw.Plans[0][k]; !ok {
					t.Errorf("a plan lacks %q: %v", k, raw.Plans[0])
				}
			}
			// novad's job, then the source watcher's: novactl index watch.
			for i, want := range []string{h.novad, filepath.Join(h.bin, "novactl")} {
				plan := doc.Plans[i]
				files := plan.Files()
				if plan.Operation != "install" || len(files) != 1 || len(plan.Commands()) == 0 {
					t.Fatalf("plan %+v", plan)
				}
				if !strings.Contains(files[0].Content, want) {
					t.Errorf("the service definition does not name %s:\n%s", want, files[0].Content)
				}
				if i == 1 && (!strings.Contains(files[0].Content, "index") || !strings.Contains(files[0].Path, packaging.WatchServiceName)) {
					t.Errorf("the watcher's definition %s does not run novactl index watch as %s:\n%s", files[0].Path, packaging.WatchServiceName, files[0].Content)
				}
			}

			// Uninstall's plan names the home whose token it removes.
			code, out, errOut = runServiceCLI(context.Background(), h.environ, deps, "uninstall", "--dry-run", "--json")
			var un struct {
				NovaHome string
				Plans    []packaging.Plan
				Notes    []string
			}
			if err := json.Unmarshal([]byte(out), &un); err != nil || code != ExitOK || errOut != "" || un.NovaHome != other || len(un.Plans) != 2 ||
				len(un.Notes) != 1 || !strings.Contains(un.Notes[0], "serves NOVA_HOME "+other) {
				t.Errorf("uninstall --dry-run --json: exit %d (%v), stderr %q:\n%s", code, err, errOut, out)
			}
		})
	}
}

// TestService_DryRunEveryOperation checks every operation on both
// platforms: a dry run prints, asks the service manager nothing and
// writes nothing.
func TestService_DryRunEveryOperation(t *testing.T) {
	for _, goos := range []string{"darwin", "linux"} {
		for _, op := range []string{"install", "uninstall", "start", "stop", "restart"} {
			t.Run(goos+"/"+op, func(t *testing.T) {
				h := newServiceHome(t)
				if op == "start" || op == "restart" {
					// They refuse jobs that are not installed.
					if code, out, errOut := runServiceCLI(context.Background(), h.environ, h.lifecycleDeps(t, goos), "install"); code != ExitOK {
						t.Fatalf("install: exit %d\n%s\n%s", code, out, errOut)
					}
				}
				before := snapshot(t, filepath.Dir(h.home))
				deps := h.deps(goos, refuseLaunchctl{t}, refuseController(t))
				code, out, errOut := runServiceCLI(context.Background(), h.environ, deps, op, "--dry-run")
				if code != ExitOK {
					t.Fatalf("exit %d: %s", code, errOut)
				}
				if !strings.HasPrefix(out, "Dry run: novactl service "+op) || !strings.Contains(out, " run ") ||
					strings.Count(out, "Dry run: novactl service "+op) != 2 || !strings.Contains(out, packaging.WatchServiceName) {
					t.Errorf("output does not show both jobs:\n%s", out)
				}
				sameSnapshot(t, before, snapshot(t, filepath.Dir(h.home)))
				// The plans come in the order the real run acts: uninstall
				// and stop take the watcher down first.
				first := packaging.ServiceName
				if op == "uninstall" || op == "stop" {
					first = packaging.WatchServiceName
				}
				if i, j := strings.Index(out, packaging.ServiceName), strings.Index(out, packaging.WatchServiceName); (first == packaging.ServiceName) != (i < j) {
					t.Errorf("%s's plan does not come first:\n%s", first, out)
				}
			})
		}
	}
}

func TestService_InstallRefusesABadConfig(t *testing.T) {
	for _, tc := range []struct {
		name, yaml, want string
		env              []string
	}{
		{"non-loopback", "server:\n  host: 0.0.0.0\n", "rag-server-non-loopback", nil},
		{"unknown key", "sever:\n  port: 1\n", "configuration is invalid", nil},
		// The job carries NOVA_HOME only: a shell override that makes the
		// file pass here would not reach the service, whose novad would
		// exit 77 at every start.
		{"override the service does not get", "server:\n  host: 0.0.0.0\n", "does not get this shell's NOVA_SERVER_HOST", []string{"NOVA_SERVER_HOST=127.0.0.1"}},
	} {
		for _, goos := range []string{"darwin", "linux"} {
			t.Run(tc.name+"/"+goos, func(t *testing.T) {
				h := newServiceHome(t)
				h.writeConfig(t, tc.yaml)
				before := snapshot(t, filepath.Dir(h.home))
				for _, args := range [][]string{{"install"}, {"install", "--dry-run"}, {"start"}} {
					deps := h.deps(goos, refuseLaunchctl{t}, refuseController(t))
					code, _, errOut := runServiceCLI(context.Background(), append(slices.Clone(h.environ), tc.env...), deps, args...)
					if code != ExitFailure || !strings.Contains(errOut, tc.want) || !strings.Contains(errOut, "refusing") {
						t.Errorf("%v: exit %d, stderr %q; want 1 and %q", args, code, errOut, tc.want)
					}
				}
				sameSnapshot(t, before, snapshot(t, filepath.Dir(h.home)))
			})
		}
	}
}

// TestService_InstallNotesDroppedOverrides: a configuration valid without
// this shell's NOVA_ overrides installs, with a note that the service will
// not see them (it gets NOVA_HOME only), so other ports are no surprise.
func TestService_InstallNotesDroppedOverrides(t *testing.T) {
	h := newServiceHome(t)
	deps := h.deps("linux", refuseLaunchctl{t}, refuseController(t))
	env := append(slices.Clone(h.environ), "NOVA_SERVER_PORT=45137")
	code, _, errOut := runServiceCLI(context.Background(), env, deps, "install", "--dry-run")
	if code != ExitOK || !strings.Contains(errOut, "does not get this shell's NOVA_SERVER_PORT") {
		t.Errorf("exit %d, stderr %q; want 0 and a note naming NOVA_SERVER_PORT", code, errOut)
	}
	if _, _, errOut := runServiceCLI(context.Background(), h.environ, deps, "install", "--dry-run"); strings.Contains(errOut, "note:") {
		t.Errorf("a note with no override: %q", errOut)
	}
}

func TestService_FindsNovad(t *testing.T) {
	h := newServiceHome(t)
	deps := h.deps("linux", refuseLaunchctl{t}, refuseController(t))
	code, out, errOut := runServiceCLI(context.Background(), h.environ, deps, "install", "--dry-run")
	if code != ExitOK || !strings.Contains(out, "ExecStart="+h.novad+" --wait-for-config\n") {
		t.Errorf("beside novactl: exit %d, %s\n%s", code, errOut, out)
	}

	// Through a symlinked novactl: the real directory counts.
	link := filepath.Join(t.TempDir(), "novactl")
	if err := os.Symlink(filepath.Join(h.bin, "novactl"), link); err != nil {
		t.Fatal(err)
	}
	deps.self.executable = func() (string, error) { return link, nil }
	if code, out, errOut := runServiceCLI(context.Background(), h.environ, deps, "install", "--dry-run"); code != ExitOK || !strings.Contains(out, h.novad) {
		t.Errorf("symlinked novactl: exit %d, %s", code, errOut)
	}

	// Homebrew: bin/novactl and bin/novad link into a versioned keg. The
	// jobs name the links, which an upgrade repoints, not the keg's files,
	// which it removes.
	brew := t.TempDir()
	keg := filepath.Join(brew, "Cellar", "nova", "0.1.0", "bin")
	brewBin := filepath.Join(brew, "bin")
	for _, d := range []string{keg, brewBin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"novad", "novactl"} {
		if err := os.WriteFile(filepath.Join(keg, name), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(keg, name), filepath.Join(brewBin, name)); err != nil {
			t.Fatal(err)
		}
	}
	deps.self = mcpDeps{arg0: filepath.Join(brewBin, "novactl"), executable: func() (string, error) { return filepath.Join(keg, "novactl"), nil }}
	code, out, errOut = runServiceCLI(context.Background(), h.environ, deps, "install", "--dry-run")
	if code != ExitOK || !strings.Contains(out, "ExecStart="+filepath.Join(brewBin, "novad")+" --wait-for-config\n") ||
		!strings.Contains(out, "ExecStart="+filepath.Join(brewBin, "novactl")+" ") || strings.Contains(out, "Cellar") {
		t.Errorf("Homebrew links: exit %d, %s\n%s", code, errOut, out)
	}
	deps.self = mcpDeps{executable: func() (string, error) { return filepath.Join(h.bin, "novactl"), nil }}

	if err := os.Remove(h.novad); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = runServiceCLI(context.Background(), h.environ, deps, "install", "--dry-run")
	if code != ExitFailure || !strings.Contains(errOut, "--novad") {
		t.Errorf("no novad: exit %d, %q", code, errOut)
	}

	notExec := filepath.Join(h.bin, "novad.txt")
	if err := os.WriteFile(notExec, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = runServiceCLI(context.Background(), h.environ, deps, "install", "--dry-run", "--novad", notExec)
	if code != ExitFailure || !strings.Contains(errOut, "not an executable") {
		t.Errorf("non-executable --novad: exit %d, %q", code, errOut)
	}
}

func TestService_Usage(t *testing.T) {
	h := newServiceHome(t)
	deps := h.deps("linux", refuseLaunchctl{t}, refuseController(t))
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{nil, ExitUsage, "novactl service: missing subcommand (want install, uninstall, start, stop, restart, status)"},
		{[]string{"restart", "--help"}, ExitOK, "read\n             config.yaml afresh"},
		{[]string{"--help"}, ExitOK, "LaunchAgent"},
		{[]string{"install", "--help"}, ExitOK, "--dry-run"},
		{[]string{"reload"}, ExitUsage, `unknown subcommand "reload"`},
		{[]string{"install", "extra"}, ExitUsage, `unexpected argument "extra"`},
		{[]string{"install", "--bogus"}, ExitUsage, "flag provided but not defined"},
		{[]string{"start", "--novad", "/opt/novad"}, ExitUsage, "--novad applies to install only"},
	} {
		// Help asked for is on stdout; a usage error on stderr.
		code, out, errOut := runServiceCLI(context.Background(), h.environ, deps, tc.args...)
		said, quiet := errOut, out
		if tc.code == ExitOK {
			said, quiet = out, errOut
		}
		if code != tc.code || !strings.Contains(said, tc.want) || quiet != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %d and %q", tc.args, code, out, errOut, tc.code, tc.want)
		}
	}
	deps.uid = 0
	if code, _, errOut := runServiceCLI(context.Background(), h.environ, deps, "install"); code != ExitFailure || !strings.Contains(errOut, "root") {
		t.Errorf("as root: exit %d, %q", code, errOut)
	}
	deps.uid = 501
	deps.goos = "windows"
	if code, _, errOut := runServiceCLI(context.Background(), h.environ, deps, "status"); code != ExitFailure || !strings.Contains(errOut, "macOS (launchd) and Linux (systemd)") {
		t.Errorf("windows: exit %d, %q", code, errOut)
	}
}

// TestService_LaunchdLifecycle drives install, status, stop, start and
// uninstall through the CLI against an in-memory launchd.
func TestService_LaunchdLifecycle(t *testing.T) {
	ctx := context.Background()
	h := newServiceHome(t)
	// A Mac home: ~/Library/LaunchAgents and ~/Library/Logs exist; the
	// state directory is where novad will write its token.
	for _, d := range []string{"Library/LaunchAgents", "Library/Logs", ".nova/state"} {
		if err := os.MkdirAll(filepath.Join(h.home, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	before := snapshot(t, h.home)
	l := &memLaunchd{loaded: map[string]bool{}}
	deps := h.deps("darwin", l, refuseController(t))
	run := func(want int, args ...string) string {
		t.Helper()
		code, out, errOut := runServiceCLI(ctx, h.environ, deps, args...)
		if code != want {
			t.Fatalf("%v: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", args, code, want, out, errOut)
		}
		return out
	}

	run(ExitFailure, "status")
	out := run(ExitOK, "install")
	plist := filepath.Join(h.home, "Library/LaunchAgents/dev.nova.novad.plist")
	watchPlist := filepath.Join(h.home, "Library/LaunchAgents/dev.nova.watch.plist")
	if !strings.Contains(out, "Installed dev.nova.novad") || !strings.Contains(out, "Installed dev.nova.watch: the source watcher runs now") ||
		strings.Count(out, "Check it with: novactl service status") != 1 || strings.Contains(out, "dev.nova.watch: launchd starts novad") {
		t.Errorf("install said:\n%s", out)
	}
	for _, p := range []string{plist, watchPlist} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o644 {
			t.Fatalf("plist: %v", err)
		}
	}
	if b, _ := os.ReadFile(watchPlist); !strings.Contains(string(b), "<string>"+filepath.Join(h.bin, "novactl")+"</string>\n\t\t<string>index</string>\n\t\t<string>watch</string>") ||
		!strings.Contains(string(b), "watcher.err.log") {
		t.Errorf("the watcher's plist does not run novactl index watch with its own log:\n%s", b)
	}
	run(ExitOK, "install") // idempotent
	out = run(ExitOK, "status")
	if strings.Count(out, "running (pid 77)") != 2 || !strings.Contains(out, "gui/501/dev.nova.watch") {
		t.Errorf("status:\n%s", out)
	}
	var st struct {
		Summary doctor.ServiceStatus `json:"summary"`
		Watcher struct {
			Summary doctor.ServiceStatus `json:"summary"`
		} `json:"watcher"`
	}
	if err := json.Unmarshal([]byte(run(ExitOK, "status", "--json")), &st); err != nil || !st.Summary.Running || st.Summary.Manager != "launchd" || !st.Watcher.Summary.Running {
		t.Errorf("status --json: %+v, %v", st, err)
	}
	run(ExitOK, "stop")
	run(ExitFailure, "status")
	if len(l.loaded) != 0 {
		t.Errorf("stop left loaded: %v", l.loaded)
	}
	run(ExitOK, "start")
	run(ExitOK, "status")
	// The watcher alone stopped: status fails and says which.
	l.loaded["gui/501/dev.nova.watch"] = false
	if out := run(ExitFailure, "status"); !strings.Contains(out, "not running") {
		t.Errorf("status with the watcher stopped:\n%s", out)
	}
	run(ExitOK, "start")

	// novad wrote its token; uninstall removes it and everything install wrote.
	token := filepath.Join(h.home, ".nova/state/internal-token")
	if err := os.WriteFile(token, []byte("t"), 0o600); err != nil {
		t.Fatal(err)
	}
	run(ExitOK, "uninstall")
	for _, p := range []string{plist, watchPlist, token, filepath.Join(h.home, "Library/Logs/nova")} {
		if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s still there", p)
		}
	}
	sameSnapshot(t, before, snapshot(t, h.home))
	if len(l.loaded) != 0 {
		t.Errorf("still loaded: %v", l.loaded)
	}
	run(ExitOK, "uninstall")
}

func TestService_SystemdLifecycle(t *testing.T) {
	ctx := context.Background()
	h := newServiceHome(t)
	// One fake systemd per unit: each has its own running state.
	sys := &systemdtest.System{OS: systemd.Platform}
	watchSys := &systemdtest.System{OS: systemd.Platform}
	unit := filepath.Join(h.home, ".config/systemd/user/dev.nova.novad.service")
	watchUnit := filepath.Join(h.home, ".config/systemd/user/dev.nova.watch.service")
	newCtl := func(cfg *service.Config) (systemd.Controller, error) {
		if cfg.Name == packaging.WatchServiceName {
			return watchSys.Controller(cfg, watchUnit), nil
		}
		return sys.Controller(cfg, unit), nil
	}
	deps := h.deps("linux", refuseLaunchctl{t}, newCtl)
	run := func(want int, args ...string) string {
		t.Helper()
		code, out, errOut := runServiceCLI(ctx, h.environ, deps, args...)
		if code != want {
			t.Fatalf("%v: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", args, code, want, out, errOut)
		}
		return out
	}
	run(ExitFailure, "status")
	run(ExitOK, "install")
	got, err := os.ReadFile(unit)
	if err != nil || !strings.Contains(string(got), "ExecStart="+h.novad+" --wait-for-config\n") {
		t.Fatalf("unit: %q, %v", got, err)
	}
	if got, err := os.ReadFile(watchUnit); err != nil || !strings.Contains(string(got), "ExecStart="+filepath.Join(h.bin, "novactl")+" index watch --wait-for-config\n") {
		t.Fatalf("watcher unit: %q, %v", got, err)
	}
	run(ExitOK, "install")
	if out := run(ExitOK, "status"); strings.Count(out, "state:     running") != 2 || !strings.Contains(out, "dev.nova.watch.service") {
		t.Errorf("status:\n%s", out)
	}
	run(ExitOK, "stop")
	run(ExitFailure, "status")
	run(ExitOK, "uninstall")
	for _, u := range []string{unit, watchUnit} {
		if _, err := os.Stat(u); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("unit still there: %v", err)
		}
	}
	want := []string{"status", "install", "start", "stop", "uninstall", "install", "start", "status", "stop", "status", "stop", "uninstall"}
	for _, s := range []*systemdtest.System{sys, watchSys} {
		if calls := s.Calls(); !slices.Equal(calls, want) {
			t.Errorf("kardianos calls %v\nwant %v", calls, want)
		}
	}
}

func TestServiceProbe(t *testing.T) {
	h := newServiceHome(t)
	l := &memLaunchd{loaded: map[string]bool{}}
	b, err := newServiceBackend(&Invocation{Environ: h.environ}, h.deps("darwin", l, nil), novadJob(""), nil)
	if err != nil {
		t.Fatal(err)
	}
	var probe doctor.ServiceProbe = serviceProbe{b}
	st, err := probe.ServiceStatus(context.Background())
	if err != nil || st.Installed || st.Running || st.Manager != "launchd" {
		t.Errorf("nothing installed: %+v, %v", st, err)
	}
	plist := filepath.Join(h.home, "Library/LaunchAgents/dev.nova.novad.plist")
	if err := os.MkdirAll(filepath.Dir(plist), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(plist, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	l.loaded["gui/501/dev.nova.novad"] = false
	l.lastExit = "78: EX_CONFIG"
	st, _ = probe.ServiceStatus(context.Background())
	if !st.Installed || !st.Loaded || st.Running || !strings.Contains(st.Detail, "78: EX_CONFIG") {
		t.Errorf("stopped: %+v", st)
	}
	l.loaded["gui/501/dev.nova.novad"] = true
	if st, _ = probe.ServiceStatus(context.Background()); !st.Running {
		t.Errorf("running: %+v", st)
	}
}

// refuseLaunchctl fails the test on any call: dry runs and refusals must
// not ask launchd anything.
type refuseLaunchctl struct{ t *testing.T }

func (r refuseLaunchctl) fail(what string) error {
	r.t.Errorf("launchctl %s called", what)
	return errors.New("refused")
}
func (r refuseLaunchctl) Bootstrap(context.Context, string, string) error { return r.fail("bootstrap") }
func (r refuseLaunchctl) Bootout(context.Context, string) error           { return r.fail("bootout") }
func (r refuseLaunchctl) Print(context.Context, string) (string, error)   { return "", r.fail("print") }
func (r refuseLaunchctl) Kickstart(context.Context, string, bool) error   { return r.fail("kickstart") }
func (r refuseLaunchctl) PrintDisabled(context.Context, string) (string, error) {
	return "", r.fail("print-disabled")
}
func (r refuseLaunchctl) Enable(context.Context, string) error { return r.fail("enable") }

func refuseController(t *testing.T) func(*service.Config) (systemd.Controller, error) {
	return func(*service.Config) (systemd.Controller, error) {
		t.Error("kardianos/service controller created")
		return nil, errors.New("refused")
	}
}

// memLaunchd is launchd in memory: loaded targets and whether each runs.
type memLaunchd struct {
	loaded   map[string]bool
	lastExit string
}

func (m *memLaunchd) Bootstrap(_ context.Context, domain, plist string) error {
	if _, err := os.Stat(plist); err != nil {
		return err
	}
	target := domain + "/" + strings.TrimSuffix(filepath.Base(plist), ".plist")
	if _, ok := m.loaded[target]; ok {
		return &macos.ExitError{Argv: macos.BootstrapArgv(domain, plist), Code: 5, Output: "Bootstrap failed: 5: Input/output error"}
	}
	m.loaded[target] = true
	return nil
}

func (m *memLaunchd) Bootout(_ context.Context, target string) error {
	if _, ok := m.loaded[target]; !ok {
		return &macos.ExitError{Argv: macos.BootoutArgv(target), Code: 3, Output: "Boot-out failed: 3: No such process"}
	}
	delete(m.loaded, target)
	return nil
}

func (m *memLaunchd) Print(_ context.Context, target string) (string, error) {
	running, ok := m.loaded[target]
	if !ok {
		return "", &macos.ExitError{Argv: macos.PrintArgv(target), Code: 113, Output: "Could not find service"}
	}
	if running {
		return target + " = {\n\tstate = running\n\tpid = 77\n}\n", nil
	}
	return fmt.Sprintf("%s = {\n\tstate = not running\n\tlast exit code = %s\n}\n", target, m.lastExit), nil
}

func (m *memLaunchd) Kickstart(_ context.Context, target string, _ bool) error {
	m.loaded[target] = true
	return nil
}

func (m *memLaunchd) PrintDisabled(context.Context, string) (string, error) {
	return "disabled services = {\n}\n", nil
}

func (m *memLaunchd) Enable(context.Context, string) error { return nil }

// TestService_UninstallActsOnTheInstalledHome installs the service from a
// shell whose NOVA_HOME is one home and uninstalls it from a shell whose
// NOVA_HOME is another: uninstall removes the internal token of the home
// the installed novad serves (its definition records it), says which, and
// leaves the other home's files alone.
func TestService_UninstallActsOnTheInstalledHome(t *testing.T) {
	for _, goos := range []string{"darwin", "linux"} {
		t.Run(goos, func(t *testing.T) {
			ctx := context.Background()
			h := newServiceHome(t)
			installed := filepath.Join(filepath.Dir(h.home), "installed home")
			other := filepath.Join(filepath.Dir(h.home), "other")
			for _, home := range []string{installed, other} {
				if err := os.MkdirAll(filepath.Join(home, "state"), 0o700); err != nil {
					t.Fatal(err)
				}
			}
			deps := h.lifecycleDeps(t, goos)
			envFor := func(home string) []string { return append(slices.Clone(h.environ), "NOVA_HOME="+home) }
			if code, out, errOut := runServiceCLI(ctx, envFor(installed), deps, "install"); code != ExitOK {
				t.Fatalf("install: exit %d\n%s\n%s", code, out, errOut)
			}
			tokens := map[string]string{}
			for _, home := range []string{installed, other} {
				tokens[home] = filepath.Join(home, "state", "internal-token")
				if err := os.WriteFile(tokens[home], []byte("t"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			otherBefore := snapshot(t, other)

			// The dry run names the installed home's token, not the shell's.
			code, out, errOut := runServiceCLI(ctx, envFor(other), deps, "uninstall", "--dry-run")
			if code != ExitOK || !strings.Contains(out, tokens[installed]) || strings.Contains(out, tokens[other]) {
				t.Errorf("dry run: exit %d, stderr %q; want the plan to remove %s and not %s:\n%s", code, errOut, tokens[installed], tokens[other], out)
			}

			code, out, errOut = runServiceCLI(ctx, envFor(other), deps, "uninstall")
			if code != ExitOK {
				t.Fatalf("uninstall: exit %d\n%s\n%s", code, out, errOut)
			}
			if _, err := os.Stat(tokens[installed]); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("the installed home's token %s is still there", tokens[installed])
			}
			sameSnapshot(t, otherBefore, snapshot(t, other))
			if !strings.Contains(out, "NOVA_HOME "+installed) || !strings.Contains(out, other) {
				t.Errorf("uninstall does not say which home it acted on (%s) and which it left alone (%s):\n%s", installed, other, out)
			}

			// Nothing installed any more: a second uninstall removes no token.
			if err := os.WriteFile(tokens[other], []byte("t"), 0o600); err != nil {
				t.Fatal(err)
			}
			code, out, errOut = runServiceCLI(ctx, envFor(other), deps, "uninstall")
			if code != ExitOK {
				t.Fatalf("second uninstall: exit %d\n%s\n%s", code, out, errOut)
			}
			if strings.Contains(out, "Uninstalled") || strings.Count(out, "was not installed") != 2 {
				t.Errorf("a second uninstall does not say that nothing was installed:\n%s", out)
			}
			if _, err := os.Stat(tokens[other]); err != nil {
				t.Errorf("uninstall with nothing installed removed %s: %v", tokens[other], err)
			}
		})
	}
}

// TestService_UninstallKeepsATokenInUse: when another novad still serves
// the installed home after the service stopped (it holds the home's novad
// lock), the token is that novad's and stays.
func TestService_UninstallKeepsATokenInUse(t *testing.T) {
	for _, goos := range []string{"darwin", "linux"} {
		t.Run(goos, func(t *testing.T) {
			ctx := context.Background()
			h := newServiceHome(t)
			home := paths.Home{Root: filepath.Join(h.home, ".nova")}
			if err := os.MkdirAll(home.StateDir(), 0o700); err != nil {
				t.Fatal(err)
			}
			deps := h.lifecycleDeps(t, goos)
			if code, out, errOut := runServiceCLI(ctx, h.environ, deps, "install"); code != ExitOK {
				t.Fatalf("install: exit %d\n%s\n%s", code, out, errOut)
			}
			if err := os.WriteFile(home.TokenFile(), []byte("t"), 0o600); err != nil {
				t.Fatal(err)
			}
			l, err := lockfile.Acquire(home.DaemonLock(), 0o600, "serve", time.Now())
			if err != nil {
				t.Fatal(err)
			}
			defer l.Release()
			code, out, errOut := runServiceCLI(ctx, h.environ, deps, "uninstall")
			if code != ExitOK || !strings.Contains(out, "kept "+home.TokenFile()) {
				t.Errorf("exit %d, stderr %q; want the token kept and said so:\n%s", code, errOut, out)
			}
			if _, err := os.Stat(home.TokenFile()); err != nil {
				t.Errorf("the token of a home a novad still serves was removed: %v", err)
			}
		})
	}
}

// lifecycleDeps are deps over an in-memory launchd (darwin) or systemd
// (linux) that really install and uninstall.
func (h serviceHome) lifecycleDeps(t *testing.T, goos string) serviceDeps {
	t.Helper()
	if goos == "darwin" {
		return h.deps(goos, &memLaunchd{loaded: map[string]bool{}}, refuseController(t))
	}
	sys := &systemdtest.System{OS: systemd.Platform}
	dir := systemd.UserUnitDir(h.home)
	return h.deps(goos, refuseLaunchctl{t}, func(cfg *service.Config) (systemd.Controller, error) {
		return sys.Controller(cfg, filepath.Join(dir, cfg.Name+".service")), nil
	})
}

// TestService_DryRunRefusesAsTheRealRunDoes: on a machine where the real
// run refuses before it changes anything (as root, no systemd, no systemd
// user manager), the dry run refuses the same way, with the same message
// and exit status, so a dry run that succeeds is one the real run does not
// refuse for these reasons. Neither writes anything or asks the service
// manager anything.
func TestService_DryRunRefusesAsTheRealRunDoes(t *testing.T) {
	for _, tc := range []struct {
		name, goos string
		ops        []string
		machine    func(*serviceDeps, *serviceHome)
		want       string
	}{
		{"root/darwin", "darwin", []string{"install", "uninstall", "start", "stop"},
			func(d *serviceDeps, _ *serviceHome) { d.uid = 0 }, "refusing to run as root"},
		{"root/linux", "linux", []string{"install", "uninstall", "start", "stop"},
			func(d *serviceDeps, _ *serviceHome) { d.uid = 0 }, "refusing to run as root"},
		{"no systemd", "linux", []string{"install", "start", "stop"},
			func(d *serviceDeps, _ *serviceHome) { d.detect = func() string { return "unix-systemv" } }, "systemd was not detected"},
		{"no user manager (su, sudo -u)", "linux", []string{"install", "start", "stop"},
			func(_ *serviceDeps, h *serviceHome) {
				h.environ = slices.DeleteFunc(h.environ, func(kv string) bool { return strings.HasPrefix(kv, "XDG_RUNTIME_DIR=") })
			}, "no systemd user manager"},
		{"no user manager (none running)", "linux", []string{"install", "start", "stop"},
			func(_ *serviceDeps, h *serviceHome) {
				h.environ = append(h.environ, "XDG_RUNTIME_DIR="+filepath.Join(filepath.Dir(h.home), "empty-run"))
			}, "no systemd user manager"},
	} {
		for _, op := range tc.ops {
			t.Run(tc.name+"/"+op, func(t *testing.T) {
				ctx := context.Background()
				h := newServiceHome(t)
				deps := h.deps(tc.goos, refuseLaunchctl{t}, refuseController(t))
				tc.machine(&deps, &h)
				before := snapshot(t, filepath.Dir(h.home))
				for _, jsonOut := range []bool{false, true} {
					args := []string{op}
					if jsonOut {
						args = append(args, "--json")
					}
					realCode, realOut, realErr := runServiceCLI(ctx, h.environ, deps, args...)
					dryCode, dryOut, dryErr := runServiceCLI(ctx, h.environ, deps, append(args, "--dry-run")...)
					// With --json the refusal is the JSON's error, on
					// stdout alone.
					said := realErr
					if jsonOut {
						said = realOut
					}
					if realCode != ExitFailure || !strings.Contains(said, tc.want) {
						t.Fatalf("%v: the real run: exit %d, stdout %q, stderr %q; want 1 and %q", args, realCode, realOut, realErr, tc.want)
					}
					if dryCode != realCode || dryErr != realErr || dryOut != realOut {
						t.Errorf("%v --dry-run: exit %d\nstdout %q\nstderr %q\nwant what the real run gave: exit %d\nstdout %q\nstderr %q",
							args, dryCode, dryOut, dryErr, realCode, realOut, realErr)
					}
				}
				sameSnapshot(t, before, snapshot(t, filepath.Dir(h.home)))
			})
		}
	}
}

// TestService_ReinstallSaysTheHomeChanged: installing over a service that
// serves another NOVA_HOME moves it to this shell's home; install says
// so, and leaves the old home's files alone.
func TestService_ReinstallSaysTheHomeChanged(t *testing.T) {
	for _, goos := range []string{"darwin", "linux"} {
		t.Run(goos, func(t *testing.T) {
			ctx := context.Background()
			h := newServiceHome(t)
			oldHome, newHome := filepath.Join(filepath.Dir(h.home), "old"), filepath.Join(filepath.Dir(h.home), "new")
			deps := h.lifecycleDeps(t, goos)
			if code, out, errOut := runServiceCLI(ctx, append(slices.Clone(h.environ), "NOVA_HOME="+oldHome), deps, "install"); code != ExitOK {
				t.Fatalf("install: exit %d\n%s\n%s", code, out, errOut)
			}
			if err := os.MkdirAll(filepath.Join(oldHome, "state"), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(oldHome, "state", "internal-token"), []byte("t"), 0o600); err != nil {
				t.Fatal(err)
			}
			before := snapshot(t, oldHome)
			for _, args := range [][]string{{"install", "--dry-run"}, {"install"}} {
				code, out, errOut := runServiceCLI(ctx, append(slices.Clone(h.environ), "NOVA_HOME="+newHome), deps, args...)
				if code != ExitOK || !strings.Contains(out, "NOVA_HOME "+oldHome) || !strings.Contains(out, "moves it to") || !strings.Contains(out, newHome) {
					t.Errorf("%v: exit %d, stderr %q; want it to say the service moves from %s to %s:\n%s", args, code, errOut, oldHome, newHome, out)
				}
			}
			sameSnapshot(t, before, snapshot(t, oldHome))
			// Reinstalling for the same home says nothing of the kind.
			if _, out, _ := runServiceCLI(ctx, append(slices.Clone(h.environ), "NOVA_HOME="+newHome), deps, "install"); strings.Contains(out, "moves it to") {
				t.Errorf("a reinstall for the same home says it moved:\n%s", out)
			}
		})
	}
}

// TestService_StatusSaysItWaits: a job the service manager runs while it
// waits for a valid config.yaml (it holds configwait's lock for the home
// its definition names) is shown as waiting, and status fails, since it
// serves nothing; a definition an older novactl wrote without
// --wait-for-config is named, with how to refresh it. Both platforms.
func TestService_StatusSaysItWaits(t *testing.T) {
	for _, goos := range []string{"darwin", "linux"} {
		t.Run(goos, func(t *testing.T) {
			ctx := context.Background()
			h := newServiceHome(t)
			var novadDef string
			var deps serviceDeps
			if goos == "darwin" {
				novadDef = filepath.Join(h.home, "Library/LaunchAgents/dev.nova.novad.plist")
				deps = h.deps(goos, &memLaunchd{loaded: map[string]bool{}}, refuseController(t))
			} else {
				novadDef = filepath.Join(h.home, ".config/systemd/user/dev.nova.novad.service")
				watchDef := filepath.Join(h.home, ".config/systemd/user/dev.nova.watch.service")
				sys, watchSys := &systemdtest.System{OS: systemd.Platform}, &systemdtest.System{OS: systemd.Platform}
				deps = h.deps(goos, refuseLaunchctl{t}, func(cfg *service.Config) (systemd.Controller, error) {
					if cfg.Name == packaging.WatchServiceName {
						return watchSys.Controller(cfg, watchDef), nil
					}
					return sys.Controller(cfg, novadDef), nil
				})
			}
			if code, out, errOut := runServiceCLI(ctx, h.environ, deps, "install"); code != ExitOK {
				t.Fatalf("install: exit %d\n%s\n%s", code, out, errOut)
			}
			status := func(want int) (string, doctor.ServiceStatus) {
				t.Helper()
				code, out, errOut := runServiceCLI(ctx, h.environ, deps, "status")
				if code != want {
					t.Fatalf("status: exit %d, want %d\n%s\n%s", code, want, out, errOut)
				}
				_, js, _ := runServiceCLI(ctx, h.environ, deps, "status", "--json")
				var st struct {
					Summary doctor.ServiceStatus `json:"summary"`
				}
				if err := json.Unmarshal([]byte(js), &st); err != nil {
					t.Fatal(err)
				}
				return out, st.Summary
			}
			if out, st := status(ExitOK); strings.Contains(out, "waiting") || strings.Contains(out, "outdated") || !st.Running {
				t.Fatalf("a serving install: %+v\n%s", st, out)
			}

			// novad waits, in the home its definition names.
			home := paths.Home{Root: filepath.Join(h.home, ".nova")}
			if err := paths.MkdirPrivate(home.StateDir()); err != nil {
				t.Fatal(err)
			}
			l, err := lockfile.Acquire(home.WaitingLock(configwait.JobNovad), paths.FileMode, "wait-for-config", time.Now())
			if err != nil {
				t.Fatal(err)
			}
			out, st := status(ExitFailure)
			if strings.Count(out, "waiting for a valid config.yaml") != 1 || st.Running || !strings.Contains(st.Detail, "waiting for a valid config.yaml") {
				t.Errorf("novad waits: %+v\n%s", st, out)
			}
			l.Release()

			// A definition from before --wait-for-config.
			b, err := os.ReadFile(novadDef)
			if err != nil {
				t.Fatal(err)
			}
			old := strings.Replace(strings.Replace(string(b), "\t\t<string>--wait-for-config</string>\n", "", 1), " --wait-for-config\n", "\n", 1)
			if old == string(b) {
				t.Fatalf("the definition does not pass --wait-for-config:\n%s", b)
			}
			if err := os.WriteFile(novadDef, []byte(old), 0o644); err != nil {
				t.Fatal(err)
			}
			out, _ = status(ExitOK)
			if strings.Count(out, "outdated:  ") != 1 || !strings.Contains(out, "without --wait-for-config, so on an invalid config.yaml the job exits") ||
				!strings.Contains(out, "run novactl service install to refresh it") {
				t.Errorf("an old definition:\n%s", out)
			}
		})
	}
}

// kickLaunchd is memLaunchd that counts `launchctl kickstart -k`: the
// restart of a running job.
type kickLaunchd struct {
	*memLaunchd
	kills map[string]int
}

func (k *kickLaunchd) Kickstart(ctx context.Context, target string, kill bool) error {
	if kill {
		k.kills[target]++
	}
	return k.memLaunchd.Kickstart(ctx, target, kill)
}

// TestService_Restart: after a change to config.yaml, novactl service
// restart stops and starts both jobs (a stopped one is just started),
// refuses before stopping anything when novad would not start on the new
// config.yaml, and says plainly when nothing is installed.
func TestService_Restart(t *testing.T) {
	ctx := context.Background()
	for _, goos := range []string{"darwin", "linux"} {
		t.Run(goos, func(t *testing.T) {
			h := newServiceHome(t)
			l := &kickLaunchd{memLaunchd: &memLaunchd{loaded: map[string]bool{}}, kills: map[string]int{}}
			sys := &systemdtest.System{OS: systemd.Platform}
			watchSys := &systemdtest.System{OS: systemd.Platform}
			dir := systemd.UserUnitDir(h.home)
			deps := h.deps(goos, l, func(cfg *service.Config) (systemd.Controller, error) {
				if cfg.Name == packaging.WatchServiceName {
					return watchSys.Controller(cfg, filepath.Join(dir, cfg.Name+".service")), nil
				}
				return sys.Controller(cfg, filepath.Join(dir, cfg.Name+".service")), nil
			})
			run := func(want int, args ...string) (string, string) {
				t.Helper()
				code, out, errOut := runServiceCLI(ctx, h.environ, deps, args...)
				if code != want {
					t.Fatalf("%v: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", args, code, want, out, errOut)
				}
				return out, errOut
			}
			restarted := func() []int {
				if goos == "darwin" {
					return []int{l.kills["gui/501/"+packaging.ServiceName], l.kills["gui/501/"+packaging.WatchServiceName]}
				}
				return []int{strings.Count(strings.Join(sys.Calls(), " "), "restart"), strings.Count(strings.Join(watchSys.Calls(), " "), "restart")}
			}

			// Nothing installed: a clear error, in JSON too.
			_, errOut := run(ExitFailure, "restart")
			if !strings.Contains(errOut, "novactl service restart: "+packaging.ServiceName) || !strings.Contains(errOut, "is not installed") || !strings.Contains(errOut, "run novactl service install") {
				t.Errorf("restart before install said: %s", errOut)
			}
			out, _ := run(ExitFailure, "restart", "--json")
			var failed struct {
				Operation string `json:"operation"`
				OK        bool   `json:"ok"`
				Error     string `json:"error"`
			}
			if err := json.Unmarshal([]byte(out), &failed); err != nil || failed.OK || failed.Operation != "restart" || !strings.Contains(failed.Error, "not installed") {
				t.Errorf("restart --json before install: %q, %v", out, err)
			}

			run(ExitOK, "install")
			h.writeConfig(t, "server:\n  port: 42001\n")
			out, _ = run(ExitOK, "restart")
			if !strings.Contains(out, "Restarted "+packaging.ServiceName) || !strings.Contains(out, "Restarted "+packaging.WatchServiceName) {
				t.Errorf("restart said:\n%s", out)
			}
			if got := restarted(); !slices.Equal(got, []int{1, 1}) {
				t.Errorf("restarts of novad and the watcher: %v, want [1 1]", got)
			}
			run(ExitOK, "status")

			// A stopped service is started by restart.
			run(ExitOK, "stop")
			run(ExitFailure, "status")
			out, _ = run(ExitOK, "restart", "--json")
			var done struct {
				Operation string   `json:"operation"`
				OK        bool     `json:"ok"`
				Steps     []string `json:"steps"`
			}
			if err := json.Unmarshal([]byte(out), &done); err != nil || !done.OK || done.Operation != "restart" || len(done.Steps) == 0 {
				t.Errorf("restart --json: %q, %v", out, err)
			}
			run(ExitOK, "status")

			// A config.yaml novad would refuse: nothing is stopped.
			before := restarted()
			h.writeConfig(t, "server:\n  host: 0.0.0.0\n")
			if _, errOut := run(ExitFailure, "restart"); !strings.Contains(errOut, "not loopback") {
				t.Errorf("restart on a non-loopback config said: %s", errOut)
			}
			if got := restarted(); !slices.Equal(got, before) {
				t.Errorf("restart on a refused config restarted something: %v, before %v", got, before)
			}
			run(ExitOK, "status")
		})
	}
}

// TestService_StatusNamesTheDuplicate: with novad installed both by
// novactl service install and by brew services, two jobs run novad for one
// NOVA_HOME. status names the other job's definition and how to remove it,
// and says which novad serves while the other stands by; --json lists the
// duplicates. With Homebrew's job alone, status does not advise installing
// a second one.
func TestService_StatusNamesTheDuplicate(t *testing.T) {
	ctx := context.Background()
	h := newServiceHome(t)
	for _, d := range []string{"Library/LaunchAgents", ".nova/state"} {
		if err := os.MkdirAll(filepath.Join(h.home, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	brew := filepath.Join(h.home, "Library/LaunchAgents/homebrew.mxcl.nova.plist")
	if err := os.WriteFile(brew, []byte("<plist/>"), 0o644); err != nil {
		t.Fatal(err)
	}
	deps := h.deps("darwin", &memLaunchd{loaded: map[string]bool{}}, refuseController(t))
	code, out, _ := runServiceCLI(ctx, h.environ, deps, "status")
	if code != ExitFailure || strings.Contains(out, "Not installed: novactl service install") ||
		!strings.Contains(out, brew) || !strings.Contains(out, "brew services stop nova, then novactl service install") ||
		!strings.Contains(out, "brew services start nova-watch") {
		t.Errorf("Homebrew's job alone: exit %d\n%s", code, out)
	}

	// install refuses to register novad a second time, dry run too, and
	// writes nothing.
	for _, args := range [][]string{{"install"}, {"install", "--dry-run"}} {
		code, out, errOut := runServiceCLI(ctx, h.environ, deps, args...)
		if code != ExitFailure || !strings.Contains(errOut, "Homebrew already runs novad as a service ("+brew+")") || !strings.Contains(errOut, "brew services stop nova first") {
			t.Errorf("%v with Homebrew's job: exit %d\n%s\n%s", args, code, out, errOut)
		}
	}
	if _, err := os.Stat(filepath.Join(h.home, "Library/LaunchAgents/dev.nova.novad.plist")); err == nil {
		t.Error("install wrote a second definition")
	}

	// Installed by novactl first, then brew services start nova.
	if err := os.Remove(brew); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := runServiceCLI(ctx, h.environ, deps, "install"); code != ExitOK {
		t.Fatalf("install: exit %d\n%s\n%s", code, out, errOut)
	}
	if err := os.WriteFile(brew, []byte("<plist/>"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Homebrew's novad (this process here) serves the home; the job
	// novactl installed (pid 77 in memLaunchd) stands by.
	novatestHold(t, paths.Home{Root: filepath.Join(h.home, ".nova")})
	code, out, _ = runServiceCLI(ctx, h.environ, deps, "status")
	if code != ExitFailure || !strings.Contains(out, "also:      "+brew+" (homebrew) runs novad too") ||
		!strings.Contains(out, "keep one: brew services stop nova, or novactl service uninstall") ||
		!strings.Contains(out, fmt.Sprintf("standing by: novad pid %d serves NOVA_HOME %s", os.Getpid(), filepath.Join(h.home, ".nova"))) {
		t.Errorf("both installed: exit %d\n%s", code, out)
	}
	if strings.Count(out, "also:") != 1 {
		t.Errorf("the watcher has no duplicate, but status says so:\n%s", out)
	}
	_, js, _ := runServiceCLI(ctx, h.environ, deps, "status", "--json")
	var st struct {
		Summary    doctor.ServiceStatus   `json:"summary"`
		Duplicates []packaging.Definition `json:"duplicates"`
		Watcher    struct {
			Duplicates []packaging.Definition `json:"duplicates"`
		} `json:"watcher"`
	}
	if err := json.Unmarshal([]byte(js), &st); err != nil || len(st.Duplicates) != 1 || st.Duplicates[0].Path != brew ||
		st.Watcher.Duplicates == nil || len(st.Watcher.Duplicates) != 0 || st.Summary.Running || !strings.Contains(st.Summary.Detail, "standing by") || st.Summary.StandingBy != os.Getpid() {
		t.Errorf("status --json: %+v, %v\n%s", st, err, js)
	}
}

// novatestHold takes home's novad lock for the rest of the test, as the
// novad serving home holds it.
func novatestHold(t *testing.T, home paths.Home) {
	t.Helper()
	l, err := lockfile.Acquire(home.DaemonLock(), paths.FileMode, "serve", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Release)
}

// TestService_StatusSaysTheProgramMoved: after novad (or novactl) was
// moved or removed, the installed job names a program that is gone, and
// launchd reports only "last exit code = 78: EX_CONFIG", which reads like
// an invalid config.yaml. status names the missing program and the fix.
func TestService_StatusSaysTheProgramMoved(t *testing.T) {
	for _, goos := range []string{"darwin", "linux"} {
		t.Run(goos, func(t *testing.T) {
			ctx := context.Background()
			h := newServiceHome(t)
			l := &memLaunchd{loaded: map[string]bool{}, lastExit: "78: EX_CONFIG"}
			deps := h.lifecycleDeps(t, goos)
			if goos == "darwin" {
				deps.launchctl = l
			}
			if code, out, errOut := runServiceCLI(ctx, h.environ, deps, "install"); code != ExitOK {
				t.Fatalf("install: exit %d\n%s\n%s", code, out, errOut)
			}
			if _, out, _ := runServiceCLI(ctx, h.environ, deps, "status"); strings.Contains(out, "program:") {
				t.Errorf("status names a program problem while both are in place:\n%s", out)
			}
			// The person moves the binaries elsewhere; launchd cannot
			// start novad any more.
			novatest.Must(t, os.Rename(h.novad, h.novad+".moved"))
			l.loaded["gui/501/"+packaging.ServiceName] = false
			if goos == "linux" {
				runServiceCLI(ctx, h.environ, deps, "stop")
			}
			code, out, _ := runServiceCLI(ctx, h.environ, deps, "status")
			if code != ExitFailure || !strings.Contains(out, "program:   "+h.novad+" is missing") ||
				!strings.Contains(out, "run novactl service install") || strings.Count(out, "program:") != 1 {
				t.Errorf("status after novad moved: exit %d\n%s", code, out)
			}
			_, js, _ := runServiceCLI(ctx, h.environ, deps, "status", "--json")
			var st struct {
				Summary doctor.ServiceStatus `json:"summary"`
			}
			if err := json.Unmarshal([]byte(js), &st); err != nil || st.Summary.Running || !strings.Contains(st.Summary.Detail, h.novad+" is missing") {
				t.Errorf("status --json after novad moved: %+v, %v", st, err)
			}
		})
	}
}

// TestService_StatusShowsTheLogSize: launchd appends to a job's log for
// ever and nothing rotates it; status shows how large it is, and how to
// clear it once it is large.
func TestService_StatusShowsTheLogSize(t *testing.T) {
	ctx := context.Background()
	h := newServiceHome(t)
	deps := h.deps("darwin", &memLaunchd{loaded: map[string]bool{}}, refuseController(t))
	if code, out, errOut := runServiceCLI(ctx, h.environ, deps, "install"); code != ExitOK {
		t.Fatalf("install: exit %d\n%s\n%s", code, out, errOut)
	}
	log := filepath.Join(h.home, "Library/Logs/nova/novad.err.log")
	novatest.Must(t, os.WriteFile(log, []byte("one line\n"), 0o600))
	if _, out, _ := runServiceCLI(ctx, h.environ, deps, "status"); !strings.Contains(out, log+" (9 B)\n") || strings.Contains(out, "nothing rotates it") {
		t.Errorf("a small log:\n%s", out)
	}
	novatest.Must(t, os.Truncate(log, 100<<20))
	if _, out, _ := runServiceCLI(ctx, h.environ, deps, "status"); !strings.Contains(out, log+" (100 MiB); nothing rotates it: novactl service stop, remove it, novactl service start") {
		t.Errorf("a large log:\n%s", out)
	}
}

// TestService_RestartChecksTheInstalledHome: start and restart refuse a
// config.yaml novad would refuse, and that is the config.yaml of the
// NOVA_HOME the installed jobs serve (their definitions record it), not
// this shell's: a shell without the NOVA_HOME of the install neither
// restarts a service whose config.yaml is broken nor is refused for a
// broken ~/.nova the service never reads.
func TestService_RestartChecksTheInstalledHome(t *testing.T) {
	for _, goos := range []string{"darwin", "linux"} {
		t.Run(goos, func(t *testing.T) {
			ctx := context.Background()
			h := newServiceHome(t)
			installed := filepath.Join(filepath.Dir(h.home), "installed home")
			if err := os.MkdirAll(installed, 0o700); err != nil {
				t.Fatal(err)
			}
			deps := h.lifecycleDeps(t, goos)
			if code, out, errOut := runServiceCLI(ctx, append(slices.Clone(h.environ), "NOVA_HOME="+installed), deps, "install"); code != ExitOK {
				t.Fatalf("install: exit %d\n%s\n%s", code, out, errOut)
			}
			writeCfg := func(root, yaml string) {
				t.Helper()
				if err := os.WriteFile(filepath.Join(root, "config.yaml"), []byte(yaml), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			// The installed home's config.yaml is broken; this shell's
			// (~/.nova, no NOVA_HOME) is fine.
			writeCfg(installed, "server:\n  host: 0.0.0.0\n")
			h.writeConfig(t, "server:\n  port: 42001\n")
			for _, op := range []string{"restart", "start"} {
				code, out, errOut := runServiceCLI(ctx, h.environ, deps, op)
				if code != ExitFailure || !strings.Contains(errOut, "not loopback") || !strings.Contains(errOut, installed) {
					t.Errorf("%s with the installed home's config.yaml non-loopback: exit %d, want 1 and a refusal naming %s\nstdout:\n%s\nstderr:\n%s", op, code, installed, out, errOut)
				}
			}
			// An invalid one: the advice checks the installed home's file.
			writeCfg(installed, "sever:\n  port: 1\n")
			code, _, errOut := runServiceCLI(ctx, h.environ, deps, "restart")
			if want := "NOVA_HOME='" + installed + "' novactl config check"; code != ExitFailure || !strings.Contains(errOut, want) {
				t.Errorf("restart with the installed home's config.yaml invalid: exit %d, want 1 and %q in\n%s", code, want, errOut)
			}
			// The other way round: only this shell's config.yaml is broken.
			writeCfg(installed, "server:\n  port: 42001\n")
			h.writeConfig(t, "server:\n  host: 0.0.0.0\n")
			for _, op := range []string{"restart", "start"} {
				if code, out, errOut := runServiceCLI(ctx, h.environ, deps, op); code != ExitOK {
					t.Errorf("%s with only this shell's config.yaml broken: exit %d, want 0\nstdout:\n%s\nstderr:\n%s", op, code, out, errOut)
				}
			}
		})
	}
}

// TestService_StopWithAJobNotInstalled: with only novad's job installed
// (an install from before the watcher had one, or a watcher definition
// removed by hand), stop still stops novad, and says the watcher was not
// installed rather than that it stopped and starts again at the next
// login. On Linux, systemctl stop of the missing unit failed first
// (watcher before novad), and novad kept running.
func TestService_StopWithAJobNotInstalled(t *testing.T) {
	for _, goos := range []string{"darwin", "linux"} {
		t.Run(goos, func(t *testing.T) {
			ctx := context.Background()
			h := newServiceHome(t)
			l := &memLaunchd{loaded: map[string]bool{}}
			sys := &systemdtest.System{OS: systemd.Platform}
			watchSys := &systemdtest.System{OS: systemd.Platform}
			dir := systemd.UserUnitDir(h.home)
			deps := h.deps(goos, l, func(cfg *service.Config) (systemd.Controller, error) {
				if cfg.Name == packaging.WatchServiceName {
					return watchSys.Controller(cfg, filepath.Join(dir, cfg.Name+".service")), nil
				}
				return sys.Controller(cfg, filepath.Join(dir, cfg.Name+".service")), nil
			})
			if code, out, errOut := runServiceCLI(ctx, h.environ, deps, "install"); code != ExitOK {
				t.Fatalf("install: exit %d\n%s\n%s", code, out, errOut)
			}
			// The watcher's definition goes, as if never installed.
			watchDef := filepath.Join(macos.LaunchAgentsDir(h.home), packaging.WatchServiceName+".plist")
			if goos == "linux" {
				watchDef = filepath.Join(dir, packaging.WatchServiceName+".service")
			}
			if err := os.Remove(watchDef); err != nil {
				t.Fatal(err)
			}
			delete(l.loaded, "gui/501/"+packaging.WatchServiceName)

			code, out, errOut := runServiceCLI(ctx, h.environ, deps, "stop")
			if code != ExitOK {
				t.Errorf("stop: exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
			}
			novadRuns := sys.Running()
			if goos == "darwin" {
				_, novadRuns = l.loaded["gui/501/"+packaging.ServiceName]
			}
			if novadRuns {
				t.Errorf("novad still runs after stop:\n%s\n%s", out, errOut)
			}
			if strings.Contains(out, "Stopped "+packaging.WatchServiceName) || !strings.Contains(out, "is not installed (no "+watchDef+")") {
				t.Errorf("stop does not say the watcher was not installed:\n%s", out)
			}
		})
	}
}

// TestService_StartRefusesAMovedProgram: when the program an installed
// definition runs is gone (the binaries moved, or an old version removed),
// start and restart cannot run the job; they refuse, name the program and
// say to install again, before asking the service manager anything, and
// their dry runs refuse alike. They used to report "Started" and
// "Restarted" while launchd logged exit 78 and systemd exit 203.
func TestService_StartRefusesAMovedProgram(t *testing.T) {
	for _, goos := range []string{"darwin", "linux"} {
		t.Run(goos, func(t *testing.T) {
			ctx := context.Background()
			h := newServiceHome(t)
			deps := h.lifecycleDeps(t, goos)
			if code, out, errOut := runServiceCLI(ctx, h.environ, deps, "install"); code != ExitOK {
				t.Fatalf("install: exit %d\n%s\n%s", code, out, errOut)
			}
			if code, out, errOut := runServiceCLI(ctx, h.environ, deps, "stop"); code != ExitOK {
				t.Fatalf("stop: exit %d\n%s\n%s", code, out, errOut)
			}
			novatest.Must(t, os.Rename(h.novad, h.novad+".moved"))
			for _, args := range [][]string{{"start"}, {"restart"}, {"start", "--dry-run"}, {"restart", "--dry-run"}} {
				code, out, errOut := runServiceCLI(ctx, h.environ, deps, args...)
				if code != ExitFailure || !strings.Contains(errOut, "refusing to "+args[0]) || !strings.Contains(errOut, h.novad+" is missing") ||
					!strings.Contains(errOut, "run novactl service install") || strings.Contains(out, "Started") || strings.Contains(out, "Restarted") {
					t.Errorf("%v after novad moved: exit %d, want 1 and a refusal naming %s\nstdout:\n%s\nstderr:\n%s", args, code, h.novad, out, errOut)
				}
			}
			// Installing from where the binaries are now mends it.
			novatest.Must(t, os.Rename(h.novad+".moved", h.novad))
			if code, out, errOut := runServiceCLI(ctx, h.environ, deps, "start"); code != ExitOK {
				t.Errorf("start with novad back: exit %d\n%s\n%s", code, out, errOut)
			}
		})
	}
}

// TestService_StartNotInstalled: start and restart of jobs novactl service
// install never installed refuse before asking the service manager
// anything, dry runs alike (a dry run printed a plan the real run then
// refused). Where Homebrew runs the job instead, they point at brew
// services, not at novactl service install, which would refuse to
// register it a second time.
func TestService_StartNotInstalled(t *testing.T) {
	for _, goos := range []string{"darwin", "linux"} {
		t.Run(goos, func(t *testing.T) {
			ctx := context.Background()
			h := newServiceHome(t)
			deps := h.deps(goos, refuseLaunchctl{t}, refuseController(t))
			for _, op := range []string{"start", "restart"} {
				for _, args := range [][]string{{op}, {op, "--dry-run"}} {
					code, out, errOut := runServiceCLI(ctx, h.environ, deps, args...)
					if code != ExitFailure || !strings.Contains(errOut, "is not installed") || !strings.Contains(errOut, "run novactl service install") {
						t.Errorf("%v with nothing installed: exit %d, want 1 and advice to install\nstdout:\n%s\nstderr:\n%s", args, code, out, errOut)
					}
				}
			}
			dir, brew := macos.LaunchAgentsDir(h.home), "homebrew.mxcl.nova.plist"
			if goos == "linux" {
				dir, brew = systemd.UserUnitDir(h.home), "homebrew.nova.service"
			}
			novatest.Must(t, os.MkdirAll(dir, 0o755))
			novatest.Must(t, os.WriteFile(filepath.Join(dir, brew), []byte("x"), 0o644))
			for _, op := range []string{"start", "restart"} {
				for _, args := range [][]string{{op}, {op, "--dry-run"}} {
					code, out, errOut := runServiceCLI(ctx, h.environ, deps, args...)
					if code != ExitFailure || !strings.Contains(errOut, filepath.Join(dir, brew)) || !strings.Contains(errOut, "brew services "+op+" nova") ||
						strings.Contains(errOut, "run novactl service install") {
						t.Errorf("%v with Homebrew's job: exit %d, want 1 and advice to use brew services %s nova\nstdout:\n%s\nstderr:\n%s", args, code, op, out, errOut)
					}
				}
			}
		})
	}
}

// TestService_StatusAsRoot: status is the one operation root may run, but
// as root it asks root's launchd domain (gui/0) or systemd manager and
// looks in root's home, where nothing is installed, and then advises an
// install that refuses root. It says whose status it shows.
func TestService_StatusAsRoot(t *testing.T) {
	for _, goos := range []string{"darwin", "linux"} {
		t.Run(goos, func(t *testing.T) {
			h := newServiceHome(t)
			deps := h.lifecycleDeps(t, goos)
			deps.uid = 0
			_, out, errOut := runServiceCLI(context.Background(), h.environ, deps, "status")
			if !strings.Contains(errOut, "as root") || !strings.Contains(errOut, "without sudo") {
				t.Errorf("status as root does not say whose status it shows:\nstdout:\n%s\nstderr:\n%s", out, errOut)
			}
			deps.uid = 501
			if _, _, errOut := runServiceCLI(context.Background(), h.environ, deps, "status"); strings.Contains(errOut, "as root") {
				t.Errorf("status as a user speaks of root: %s", errOut)
			}
		})
	}
}

// TestService_StopPointsAtHomebrew: where Homebrew runs the jobs and
// novactl service install did not, stop has nothing of its own to stop
// and says how to stop Homebrew's, which keeps running.
func TestService_StopPointsAtHomebrew(t *testing.T) {
	for _, goos := range []string{"darwin", "linux"} {
		t.Run(goos, func(t *testing.T) {
			h := newServiceHome(t)
			deps := h.lifecycleDeps(t, goos)
			dir, brew := macos.LaunchAgentsDir(h.home), "homebrew.mxcl.nova.plist"
			if goos == "linux" {
				dir, brew = systemd.UserUnitDir(h.home), "homebrew.nova.service"
			}
			novatest.Must(t, os.MkdirAll(dir, 0o755))
			novatest.Must(t, os.WriteFile(filepath.Join(dir, brew), []byte("x"), 0o644))
			code, out, errOut := runServiceCLI(context.Background(), h.environ, deps, "stop")
			if code != ExitOK || !strings.Contains(out, "is not installed") || !strings.Contains(out, "brew services stop nova") {
				t.Errorf("stop with Homebrew's job: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
			}
		})
	}
}

// pidLaunchd is memLaunchd whose running jobs have this process's pid, so
// a lock this test takes is the job's own.
type pidLaunchd struct{ *memLaunchd }

func (p pidLaunchd) Print(ctx context.Context, target string) (string, error) {
	out, err := p.memLaunchd.Print(ctx, target)
	return strings.Replace(out, "pid = 77", fmt.Sprintf("pid = %d", os.Getpid()), 1), err
}

// TestService_StatusSaysNovadWaitsForItsPorts: a second user on the same
// Mac (or another program) holds the ports this home's config.yaml names,
// so the job's novad holds its home but waits for the ports and serves
// nothing. status must not call that running.
func TestService_StatusSaysNovadWaitsForItsPorts(t *testing.T) {
	for _, goos := range []string{"darwin", "linux"} {
		t.Run(goos, func(t *testing.T) {
			ctx := context.Background()
			h := newServiceHome(t)
			h.writeConfig(t, "server:\n  port: 41001\nfacade:\n  port: 41002\n")
			var deps serviceDeps
			if goos == "darwin" {
				deps = h.deps(goos, pidLaunchd{&memLaunchd{loaded: map[string]bool{}}}, refuseController(t))
			} else {
				dir := filepath.Join(h.home, ".config/systemd/user")
				sys, watchSys := &systemdtest.System{OS: systemd.Platform}, &systemdtest.System{OS: systemd.Platform}
				deps = h.deps(goos, refuseLaunchctl{t}, func(cfg *service.Config) (systemd.Controller, error) {
					if cfg.Name == packaging.WatchServiceName {
						return watchSys.Controller(cfg, filepath.Join(dir, "dev.nova.watch.service")), nil
					}
					return sys.Controller(cfg, filepath.Join(dir, "dev.nova.novad.service")), nil
				})
			}
			if code, out, errOut := runServiceCLI(ctx, h.environ, deps, "install"); code != ExitOK {
				t.Fatalf("install: exit %d\n%s\n%s", code, out, errOut)
			}
			// The job's novad holds its home, recorded as starting: it
			// has not bound its ports.
			home := paths.Home{Root: filepath.Join(h.home, ".nova")}
			if err := paths.MkdirPrivate(home.StateDir()); err != nil {
				t.Fatal(err)
			}
			l, err := lockfile.Acquire(home.DaemonLock(), paths.FileMode, lockfile.Starting, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			defer l.Release()
			code, out, errOut := runServiceCLI(ctx, h.environ, deps, "status")
			if code != ExitFailure || !strings.Contains(out, "has not bound its ports") ||
				!strings.Contains(out, "127.0.0.1:41001") || !strings.Contains(out, "127.0.0.1:41002") ||
				!strings.Contains(out, "another user's") || strings.Contains(out, "standing by") {
				t.Errorf("status while novad waits for its ports: exit %d\n%s\n%s", code, out, errOut)
			}
			_, js, _ := runServiceCLI(ctx, h.environ, deps, "status", "--json")
			var st struct {
				Summary doctor.ServiceStatus `json:"summary"`
			}
			if err := json.Unmarshal([]byte(js), &st); err != nil {
				t.Fatal(err)
			}
			if st.Summary.Running || !strings.Contains(st.Summary.Detail, "has not bound its ports") {
				t.Errorf("status --json: %+v", st.Summary)
			}

			// Once it serves, it runs.
			l.Record("serve", time.Now())
			if code, out, errOut := runServiceCLI(ctx, h.environ, deps, "status"); code != ExitOK || strings.Contains(out, "ports") {
				t.Errorf("status of a serving novad: exit %d\n%s\n%s", code, out, errOut)
			}
		})
	}
}

// TestService_InstallNotesATakenPort: another user's novad on the same Mac
// (here, a listener of this test) holds a port this home's config.yaml
// names. install still registers the job, which serves once the port is
// free, but says at once why it will not serve yet and what to change.
func TestService_InstallNotesATakenPort(t *testing.T) {
	ctx := context.Background()
	h := newServiceHome(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	addr := ln.Addr().String()
	port := ln.Addr().(*net.TCPAddr).Port
	h.writeConfig(t, fmt.Sprintf("server:\n  port: %d\nfacade:\n  port: 0\n", port))
	deps := h.deps("darwin", &memLaunchd{loaded: map[string]bool{}}, refuseController(t))
	deps.dial = nil // a real dial, to 127.0.0.1 only: the config names no other host
	for _, args := range [][]string{{"install", "--dry-run"}, {"install"}, {"restart"}} {
		code, out, errOut := runServiceCLI(ctx, h.environ, deps, args...)
		if code != ExitOK || strings.Count(errOut, "note: ") != 1 || !strings.Contains(errOut, addr+" is in use") ||
			!strings.Contains(errOut, "another user's") || !strings.Contains(errOut, "server.port and facade.port") {
			t.Errorf("%v with a taken port: exit %d\n%s\n%s", args, code, out, errOut)
		}
	}
	// With --json the note is the document's, and stderr stays quiet.
	for _, args := range [][]string{{"install", "--json"}, {"restart", "--json"}} {
		code, out, errOut := runServiceCLI(ctx, h.environ, deps, args...)
		var doc struct{ Notes []string }
		if err := json.Unmarshal([]byte(out), &doc); err != nil || code != ExitOK || errOut != "" ||
			len(doc.Notes) != 1 || !strings.Contains(doc.Notes[0], addr+" is in use") {
			t.Errorf("%v with a taken port: exit %d, stdout %q (%v), stderr %q; want the note in the JSON's notes and nothing on stderr", args, code, out, err, errOut)
		}
	}

	// This home's own novad holds its ports: nothing to note.
	home := paths.Home{Root: filepath.Join(h.home, ".nova")}
	if err := paths.MkdirPrivate(home.StateDir()); err != nil {
		t.Fatal(err)
	}
	novatestHold(t, home)
	if code, out, errOut := runServiceCLI(ctx, h.environ, deps, "install"); code != ExitOK || strings.Contains(errOut, "note:") {
		t.Errorf("install over the home's serving novad: exit %d\n%s\n%s", code, out, errOut)
	}
}

// TestService_FindsNovadThroughALinkChain: novactl is run through a link
// of the person's own (~/bin/novactl) to Homebrew's bin/novactl, itself a
// link into the versioned keg. novad is not in ~/bin, and the keg's novad
// is removed by the next brew upgrade and cleanup, which would leave the
// job naming a program that is gone; Homebrew's bin/novad, beside the
// next link in the chain, survives every upgrade.
func TestService_FindsNovadThroughALinkChain(t *testing.T) {
	h := newServiceHome(t)
	brew := t.TempDir()
	keg := filepath.Join(brew, "Cellar", "nova", "0.1.0", "bin")
	brewBin := filepath.Join(brew, "bin")
	userBin := filepath.Join(h.home, "bin")
	for _, d := range []string{keg, brewBin, userBin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"novad", "novactl"} {
		if err := os.WriteFile(filepath.Join(keg, name), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		// As Homebrew links them: relative to bin/.
		if err := os.Symlink(filepath.Join("..", "Cellar", "nova", "0.1.0", "bin", name), filepath.Join(brewBin, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(brewBin, "novactl"), filepath.Join(userBin, "novactl")); err != nil {
		t.Fatal(err)
	}
	environ := append(slices.Clone(h.environ), "PATH="+userBin)
	deps := h.deps("linux", refuseLaunchctl{t}, refuseController(t))
	for _, self := range []mcpDeps{
		// Run as "novactl", found on PATH; os.Executable names the link
		// (macOS) or the keg's file (Linux).
		{arg0: "novactl", executable: func() (string, error) { return filepath.Join(userBin, "novactl"), nil }},
		{arg0: "novactl", executable: func() (string, error) { return filepath.Join(keg, "novactl"), nil }},
		{arg0: filepath.Join(userBin, "novactl"), executable: func() (string, error) { return filepath.Join(userBin, "novactl"), nil }},
	} {
		deps.self = self
		code, out, errOut := runServiceCLI(context.Background(), environ, deps, "install", "--dry-run")
		if code != ExitOK || !strings.Contains(out, "ExecStart="+filepath.Join(brewBin, "novad")+" --wait-for-config\n") || strings.Contains(out, "Cellar") {
			t.Errorf("novactl run as %q (executable %s): exit %d, %s\n%s", self.arg0, must(self.executable()), code, errOut, out)
		}
	}
}

func must(s string, _ error) string { return s }

// TestService_InstallNamesTheLogFile: the LaunchAgents pass each job the
// file launchd sends its stderr to (--log-file), which novad and the
// watcher keep private and rotate; without it the logs under
// ~/Library/Logs/nova grew for ever.
func TestService_InstallNamesTheLogFile(t *testing.T) {
	h := newServiceHome(t)
	deps := h.deps("darwin", &memLaunchd{loaded: map[string]bool{}}, refuseController(t))
	if code, out, errOut := runServiceCLI(t.Context(), h.environ, deps, "install"); code != ExitOK {
		t.Fatalf("install: exit %d\n%s\n%s", code, out, errOut)
	}
	logs := macos.LogDir(h.home)
	for plist, log := range map[string]string{"dev.nova.novad.plist": "novad.err.log", "dev.nova.watch.plist": "watcher.err.log"} {
		args, err := macos.InstalledCommand(filepath.Join(h.home, "Library/LaunchAgents", plist))
		if err != nil {
			t.Fatal(err)
		}
		if n := len(args); n < 2 || args[n-2] != "--log-file" || args[n-1] != filepath.Join(logs, log) {
			t.Errorf("%s runs %q, want it to end with --log-file %s", plist, args, filepath.Join(logs, log))
		}
	}
}

// TestPortsTaken_grammar: the note install, start and restart print when
// this home's ports are held reads right for one port and for both; it
// said "127.0.0.1:A and 127.0.0.1:B is in use ... will wait for it".
func TestPortsTaken_grammar(t *testing.T) {
	var ports []int
	for range 2 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		novatest.Must(t, err)
		t.Cleanup(func() { l.Close() })
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	for _, tt := range []struct {
		server, facade int
		want           string
	}{
		{ports[0], ports[1], fmt.Sprintf("127.0.0.1:%d and 127.0.0.1:%d are in use", ports[0], ports[1])},
		{ports[0], novatest.ClosedPort(t, ports...), fmt.Sprintf("127.0.0.1:%d is in use", ports[0])},
	} {
		env := configHome(t, fmt.Sprintf("server: {host: 127.0.0.1, port: %d}\nfacade: {port: %d}\n", tt.server, tt.facade))
		cfg, err := config.Load(env)
		novatest.Must(t, err)
		note := portsTaken(t.Context(), cfg, nil)
		wait := "until it is free"
		if strings.Contains(tt.want, " are ") {
			wait = "until they are free"
		}
		if !strings.Contains(note, tt.want) || !strings.Contains(note, wait) {
			t.Errorf("note %q\nwant %q and %q", note, tt.want, wait)
		}
	}
}

// brokenLaunchd is a launchd whose launchctl print fails otherwise than
// "not found": status cannot tell whether the job runs.
type brokenLaunchd struct{ memLaunchd }

func (b *brokenLaunchd) Print(_ context.Context, target string) (string, error) {
	return "", &macos.ExitError{Argv: macos.PrintArgv(target), Code: 1, Output: "launchctl: Operation not permitted"}
}

// TestService_JSONIsOneDocument: with --json, whatever service does and
// however it fails, stdout carries one JSON document and stderr stays
// empty, as in every other --json command (commandError): a script that
// reads stdout must not also have to read and discard stderr, and one
// that merges the two must still parse what it gets.
func TestService_JSONIsOneDocument(t *testing.T) {
	ctx := context.Background()
	h := newServiceHome(t)
	for _, tc := range []struct {
		name string
		deps func() serviceDeps
		args []string
		code int
		want string // in the JSON's error, or its notes
	}{
		{"status where launchctl fails", func() serviceDeps {
			return h.deps("darwin", &brokenLaunchd{memLaunchd{loaded: map[string]bool{}}}, refuseController(t))
		}, []string{"status", "--json"}, ExitFailure, "Operation not permitted"},
		{"status on an unsupported system", func() serviceDeps {
			return h.deps("windows", refuseLaunchctl{t}, refuseController(t))
		}, []string{"status", "--json"}, ExitFailure, "macOS (launchd) and Linux (systemd)"},
		{"install as root", func() serviceDeps {
			d := h.deps("linux", refuseLaunchctl{t}, refuseController(t))
			d.uid = 0
			return d
		}, []string{"install", "--json"}, ExitFailure, "refusing to run as root"},
		{"status as root", func() serviceDeps {
			d := h.lifecycleDeps(t, "darwin")
			d.uid = 0
			return d
		}, []string{"status", "--json"}, ExitFailure, "without sudo"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runServiceCLI(ctx, h.environ, tc.deps(), tc.args...)
			dec := json.NewDecoder(strings.NewReader(out))
			var doc map[string]any
			if err := dec.Decode(&doc); err != nil {
				t.Fatalf("%v: stdout is not JSON (%v):\n%s", tc.args, err, out)
			}
			if dec.More() {
				t.Errorf("%v: stdout holds more than one JSON document:\n%s", tc.args, out)
			}
			if errOut != "" {
				t.Errorf("%v --json wrote on stderr: %q", tc.args, errOut)
			}
			if code != tc.code || !strings.Contains(fmt.Sprint(doc["error"], doc["notes"]), tc.want) {
				t.Errorf("%v: exit %d, JSON %v; want exit %d and %q", tc.args, code, doc, tc.code, tc.want)
			}
		})
	}
}
