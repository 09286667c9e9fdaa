package doctor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-recall/nova/internal/novatest"
	"github.com/nova-recall/nova/packaging"
)

// fakeProbe is novactl's own service probe, answering from a fixed status.
type fakeProbe struct {
	st    ServiceStatus
	asked *bool
}

func (p fakeProbe) ServiceStatus(context.Context) (ServiceStatus, error) {
	*p.asked = true
	return p.st, nil
}

// fakeHome is a home directory holding the given service files, and a
// NOVA_HOME whose config points novad at free ports.
func fakeHome(t *testing.T, files ...string) []string {
	t.Helper()
	home := t.TempDir()
	for _, f := range files {
		p := filepath.Join(home, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("definition\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	nova := filepath.Join(home, ".nova")
	if err := os.MkdirAll(nova, 0o700); err != nil {
		t.Fatal(err)
	}
	server := novatest.ClosedPort(t)
	cfg := fmt.Sprintf("server: {port: %d}\nfacade: {port: %d}\n", server, novatest.ClosedPort(t, server))
	if err := os.WriteFile(filepath.Join(nova, "config.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return []string{"HOME=" + home, "NOVA_HOME=" + nova}
}

func serviceCheck(t *testing.T, rep Report) Check {
	t.Helper()
	for _, c := range rep.Checks {
		if c.ID == "service" {
			return c
		}
	}
	t.Fatalf("no service check in %+v", rep.Checks)
	return Check{}
}

// wantServiceCheck returns rep's service check after checking its state,
// its code and that its message holds each of message.
func wantServiceCheck(t *testing.T, rep Report, state, code string, message []string) Check {
	t.Helper()
	got := serviceCheck(t, rep)
	if got.State != state || got.Code != code {
		t.Fatalf("service check %+v, want %s %s", got, state, code)
	}
	for _, m := range message {
		if !strings.Contains(got.Message, m) {
			t.Errorf("message %q lacks %q", got.Message, m)
		}
	}
	return got
}

// TestRun_HomebrewAndNovactlService covers novad registered by brew
// services, by novactl service install, or by both, on macOS and Linux.
func TestRun_HomebrewAndNovactlService(t *testing.T) {
	const (
		ourPlist   = "Library/LaunchAgents/dev.nova.novad.plist"
		brewPlist  = "Library/LaunchAgents/homebrew.mxcl.nova.plist"
		ourUnit    = ".config/systemd/user/dev.nova.novad.service"
		brewUnit   = ".config/systemd/user/homebrew.nova.service"
		registered = "registered with launchd and running"
	)
	for _, c := range []struct {
		name      string
		goos      string
		files     []string
		state     string
		code      string
		message   []string
		advice    []string
		askProbe  bool
		installed bool
	}{
		{"both on macOS", "darwin", []string{ourPlist, brewPlist}, Degraded, CodeServiceTwice,
			[]string{ourPlist, brewPlist}, []string{"novactl service uninstall", "brew services stop nova"}, false, true},
		{"both on Linux", "linux", []string{ourUnit, brewUnit}, Degraded, CodeServiceTwice,
			[]string{ourUnit, brewUnit}, []string{"novactl service uninstall", "brew services stop nova"}, false, true},
		{"Homebrew only: no advice to install a second one", "darwin", []string{brewPlist}, Ready, "",
			[]string{"managed by Homebrew", brewPlist}, nil, false, false},
		{"novactl's only: its own probe decides", "darwin", []string{ourPlist}, Ready, "",
			[]string{registered}, nil, true, true},
		{"a Linux unit name on macOS is not a definition", "darwin", []string{brewUnit, ourPlist}, Ready, "",
			[]string{registered}, nil, true, true},
		// novactl's probe is asked here, but by the novad check (novad is
		// not running, and starting novactl's job serves the home its
		// definition names): the service check is Homebrew's duplicate.
		{"the watcher twice on macOS", "darwin", []string{ourPlist, "Library/LaunchAgents/dev.nova.watch.plist", "Library/LaunchAgents/homebrew.mxcl.nova-watch.plist"}, Degraded, CodeServiceTwice,
			[]string{"source watcher is registered twice", "dev.nova.watch.plist", "homebrew.mxcl.nova-watch.plist"}, []string{"brew services stop nova-watch", "novactl service uninstall"}, true, true},
		{"the watcher's formula is not novad", "darwin", []string{"Library/LaunchAgents/homebrew.mxcl.nova-watch.plist", ourPlist}, Ready, "",
			[]string{registered}, nil, true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var asked bool
			probe := fakeProbe{st: ServiceStatus{Manager: "launchd", Installed: c.installed, Loaded: c.installed, Running: c.installed}, asked: &asked}
			rep := Run(t.Context(), Options{Environ: fakeHome(t, c.files...), GOOS: c.goos, Service: probe})
			got := wantServiceCheck(t, rep, c.state, c.code, c.message)
			for _, a := range c.advice {
				if !strings.Contains(got.Advice, a) {
					t.Errorf("advice %q lacks %q", got.Advice, a)
				}
			}
			if asked != c.askProbe {
				t.Errorf("novactl's probe asked: %v, want %v", asked, c.askProbe)
			}
		})
	}
}

func TestDefinitions(t *testing.T) {
	env := fakeHome(t, "Library/LaunchAgents/homebrew.mxcl.nova.plist")
	home := strings.TrimPrefix(env[0], "HOME=")
	defs := packaging.Definitions(home, "darwin")
	if len(defs) != 1 || defs[0].Owner != packaging.OwnerHomebrew || defs[0].Job != "novad" || defs[0].Remove != "brew services stop nova" {
		t.Fatalf("got %+v", defs)
	}
	if defs := packaging.Definitions(home, "windows"); defs != nil {
		t.Fatalf("windows: %+v", defs)
	}
}

// TestRun_ServiceStandsBy: the service's novad runs but stands by, since
// another novad (pid 4242, run in a terminal or by another job) serves the
// home. doctor says so, and does not advise starting what already runs.
func TestRun_ServiceStandsBy(t *testing.T) {
	var asked bool
	probe := fakeProbe{st: ServiceStatus{Manager: "launchd", Installed: true, Loaded: true, StandingBy: 4242, Detail: "(standing by)"}, asked: &asked}
	rep := Run(t.Context(), Options{Environ: fakeHome(t), GOOS: "darwin", Service: probe})
	got := serviceCheck(t, rep)
	if got.State != Degraded || got.Code != CodeServiceNotRunning || !strings.Contains(got.Message, "stands by") || !strings.Contains(got.Message, "pid 4242") ||
		strings.Contains(got.Advice, "novactl service start") || !strings.Contains(got.Advice, "novactl service status") {
		t.Errorf("service check %+v", got)
	}
}

// TestRun_HomebrewServesDefaultHomeOnly: brew services runs novad and the
// watcher with no NOVA_HOME, so for ~/.nova only. Doctor for another
// NOVA_HOME took Homebrew's job for that home's service ("managed by
// Homebrew", "registered twice" beside novactl's own, brew services
// advice), while nothing served it.
func TestRun_HomebrewServesDefaultHomeOnly(t *testing.T) {
	const (
		ourPlist   = "Library/LaunchAgents/dev.nova.novad.plist"
		brewPlist  = "Library/LaunchAgents/homebrew.mxcl.nova.plist"
		brewWatch  = "Library/LaunchAgents/homebrew.mxcl.nova-watch.plist"
		registered = "registered with launchd and running"
	)
	for _, c := range []struct {
		name      string
		files     []string
		installed bool
		state     string
		code      string
		message   []string
	}{
		{"Homebrew's only", []string{brewPlist, brewWatch}, false, Degraded, CodeServiceMissing,
			[]string{brewPlist, "serves ~/.nova", "not this NOVA_HOME"}},
		{"beside novactl's, which serves this home", []string{ourPlist, brewPlist, brewWatch}, true, Ready, "",
			[]string{registered}},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := fakeHome(t, c.files...)
			other := filepath.Join(strings.TrimPrefix(env[0], "HOME="), "other-home")
			if err := os.Rename(strings.TrimPrefix(env[1], "NOVA_HOME="), other); err != nil {
				t.Fatal(err)
			}
			env[1] = "NOVA_HOME=" + other
			var asked bool
			probe := fakeProbe{st: ServiceStatus{Manager: "launchd", Installed: c.installed, Loaded: c.installed, Running: c.installed}, asked: &asked}
			rep := Run(t.Context(), Options{Environ: env, GOOS: "darwin", Service: probe})
			wantServiceCheck(t, rep, c.state, c.code, c.message)
			for _, ch := range rep.Checks {
				for _, brew := range []string{"brew services start", "brew services restart", "brew install"} {
					if strings.Contains(ch.Advice, brew) {
						t.Errorf("check %s advises Homebrew's service, which does not serve this home: %q", ch.ID, ch.Advice)
					}
				}
			}
		})
	}
}
