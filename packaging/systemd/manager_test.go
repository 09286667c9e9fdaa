package systemd

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/kardianos/service"

	"github.com/nova-recall/nova/packaging"
	"github.com/nova-recall/nova/packaging/systemd/systemdtest"
)

func newTestManager(t *testing.T) (*Manager, *systemdtest.System) {
	t.Helper()
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".nova", "state"), 0o700); err != nil {
		t.Fatal(err)
	}
	sys := &systemdtest.System{OS: Platform}
	// A login session's runtime directory, where the user manager listens.
	run := filepath.Join(home, "run")
	if err := os.MkdirAll(filepath.Join(run, "systemd"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(run, "systemd", "private"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	m := &Manager{
		Unit:    goldenUnit(),
		Home:    home,
		Token:   packaging.HomeToken(filepath.Join(home, ".nova")),
		Environ: []string{"HOME=" + home, "XDG_RUNTIME_DIR=" + run},
		Log:     func(s string) { t.Log(s) },
	}
	m.Unit.NovaHome = filepath.Join(home, ".nova")
	m.New = func(cfg *service.Config) (Controller, error) {
		return sys.Controller(cfg, m.UnitPath()), nil
	}
	return m, sys
}

func TestManager_ServiceConfig(t *testing.T) {
	m, _ := newTestManager(t)
	cfg, err := m.ServiceConfig()
	if err != nil {
		t.Fatal(err)
	}
	text, _ := RenderUnit(m.Unit)
	if cfg.Name != "dev.nova.novad" || cfg.Executable != m.Unit.Program ||
		cfg.Option["UserService"] != true || cfg.Option["Restart"] != "on-failure" ||
		cfg.Option["SystemdScript"] != string(text) || cfg.EnvVars["NOVA_HOME"] != m.Unit.NovaHome {
		t.Errorf("ServiceConfig = %+v", cfg)
	}
}

func TestManager_InstallIsIdempotent(t *testing.T) {
	m, sys := newTestManager(t)
	if err := m.Install(); err != nil {
		t.Fatal(err)
	}
	if want := []string{"install", "start"}; !slices.Equal(sys.Calls(), want) {
		t.Errorf("first install called %v, want %v", sys.Calls(), want)
	}
	want, _ := RenderUnit(m.Unit)
	got, err := os.ReadFile(m.UnitPath())
	if err != nil || string(got) != string(want) {
		t.Fatalf("unit file = %q, %v", got, err)
	}
	if !strings.HasSuffix(m.UnitPath(), ".config/systemd/user/dev.nova.novad.service") {
		t.Errorf("unit path %s", m.UnitPath())
	}

	sys.ResetCalls()
	if err := m.Install(); err != nil {
		t.Fatal(err)
	}
	if want := []string{"stop", "uninstall", "install", "start"}; !slices.Equal(sys.Calls(), want) {
		t.Errorf("second install called %v, want %v", sys.Calls(), want)
	}
	if got2, _ := os.ReadFile(m.UnitPath()); string(got2) != string(want) {
		t.Error("second install changed the unit")
	}
	if !sys.Running() {
		t.Error("not running after install")
	}
}

func TestManager_InstallRecoversFromAHalfInstall(t *testing.T) {
	m, sys := newTestManager(t)
	// A unit file left by an install whose systemctl failed.
	if err := os.MkdirAll(UserUnitDir(m.Home), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(m.UnitPath(), []byte("stale"), 0o644); err != nil {
		t.Fatal(err)
	}
	m.New = func(cfg *service.Config) (Controller, error) {
		return &failingUninstall{sys.Controller(cfg, m.UnitPath())}, nil
	}
	if err := m.Install(); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(m.UnitPath()); string(got) == "stale" {
		t.Error("stale unit kept")
	}
}

type failingUninstall struct{ *systemdtest.Controller }

func (c *failingUninstall) Uninstall() error { return errors.New("Failed to connect to bus") }

func TestManager_UninstallRemovesWhatInstallWrote(t *testing.T) {
	m, sys := newTestManager(t)
	if err := m.Install(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(m.Token.File, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	sys.ResetCalls()
	if err := m.Uninstall(); err != nil {
		t.Fatal(err)
	}
	if want := []string{"stop", "uninstall"}; !slices.Equal(sys.Calls(), want) {
		t.Errorf("uninstall called %v, want %v", sys.Calls(), want)
	}
	for _, p := range []string{m.UnitPath(), m.Token.File} {
		if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s still there (%v)", p, err)
		}
	}
	sys.ResetCalls()
	if err := m.Uninstall(); err != nil {
		t.Errorf("second uninstall = %v", err)
	}
	if len(sys.Calls()) != 0 {
		t.Errorf("second uninstall called %v", sys.Calls())
	}
}

func TestManager_RefusesWithoutSystemd(t *testing.T) {
	m, sys := newTestManager(t)
	sys.OS = "unix-systemv"
	err := m.Install()
	if !errors.Is(err, ErrNoSystemd) {
		t.Fatalf("Install = %v, want ErrNoSystemd", err)
	}
	if len(sys.Calls()) != 0 {
		t.Errorf("called %v", sys.Calls())
	}
	if _, err := os.Stat(UserUnitDir(m.Home)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("created %s", UserUnitDir(m.Home))
	}
}

func TestManager_StatusStartStop(t *testing.T) {
	m, _ := newTestManager(t)
	st, err := m.Status()
	if err != nil || st.Installed || st.State != "not-installed" {
		t.Errorf("before install: %+v, %v", st, err)
	}
	if err := m.Start(); err == nil {
		t.Error("Start before install succeeded")
	}
	if err := m.Install(); err != nil {
		t.Fatal(err)
	}
	if st, _ := m.Status(); !st.Installed || !st.Running() {
		t.Errorf("after install: %+v", st)
	}
	if err := m.Stop(); err != nil {
		t.Fatal(err)
	}
	if st, _ := m.Status(); st.State != "stopped" {
		t.Errorf("after stop: %+v", st)
	}
	if err := m.Start(); err != nil {
		t.Fatal(err)
	}
	if st, _ := m.Status(); !st.Running() {
		t.Errorf("after start: %+v", st)
	}
}

func TestManager_ControlNeedsNoProgram(t *testing.T) {
	m, sys := newTestManager(t)
	m.Unit.Program = "" // stop, start, status and uninstall do not need novad
	if _, err := m.Status(); err != nil {
		t.Fatal(err)
	}
	if err := m.Uninstall(); err != nil {
		t.Fatal(err)
	}
	for _, cfg := range sys.Configs() {
		if cfg.Option["UserService"] != true {
			t.Errorf("config without UserService: %+v", cfg)
		}
	}
}

func TestManager_PlanCommands(t *testing.T) {
	m, _ := newTestManager(t)
	plan, err := m.InstallPlan()
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, c := range plan.Commands() {
		lines = append(lines, strings.Join(c, " "))
	}
	want := []string{
		"systemctl stop --user dev.nova.novad.service",
		"systemctl disable --user dev.nova.novad.service",
		"systemctl daemon-reload --user",
		"systemctl enable --user dev.nova.novad.service",
		"systemctl daemon-reload --user",
		"systemctl start --user dev.nova.novad.service",
	}
	if !slices.Equal(lines, want) {
		t.Errorf("install plan runs\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	text, _ := RenderUnit(m.Unit)
	if f := plan.Files(); len(f) != 1 || f[0].Content != string(text) || f[0].Path != m.UnitPath() {
		t.Errorf("plan files %+v", f)
	}
}

// detected makes kardianos/service choose a backend whether or not the
// machine runs it.
type detected struct{ service.System }

func (detected) Detect() bool { return true }

// TestKardianos_WritesTheRenderedUnit runs the real kardianos/service
// systemd backend (selected by hand, since CI containers rarely run
// systemd) against a fake systemctl on PATH and a temp HOME. It proves
// that the unit file kardianos writes is byte for byte RenderUnit's, and
// that the commands it runs are the ones the plan prints.
func TestKardianos_WritesTheRenderedUnit(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the systemd backend exists only on linux")
	}
	var sysd service.System
	for _, s := range service.AvailableSystems() {
		if s.String() == Platform {
			sysd = s
		}
	}
	if sysd == nil {
		t.Skip("kardianos/service has no systemd backend here")
	}
	registry := service.AvailableSystems()
	service.ChooseSystem(detected{sysd})
	t.Cleanup(func() { service.ChooseSystem(registry...) })

	home := t.TempDir()
	bin := t.TempDir()
	log := filepath.Join(t.TempDir(), "systemctl.log")
	script := "#!/bin/sh\necho \"$*\" >> '" + log + "'\ncase \"$1\" in is-active) echo active;; esac\nexit 0\n"
	if err := os.WriteFile(filepath.Join(bin, "systemctl"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	// Only the fake is reachable: the real systemctl never runs.
	t.Setenv("PATH", bin)
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	// A login session's runtime directory, where the user manager listens.
	run := filepath.Join(home, "run")
	if err := os.MkdirAll(filepath.Join(run, "systemd"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(run, "systemd", "private"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_RUNTIME_DIR", run)

	m := &Manager{Unit: goldenUnit(), Home: home, Token: packaging.HomeToken(filepath.Join(home, ".nova"))}
	m.Unit.NovaHome = filepath.Join(home, ".nova")
	if err := m.Install(); err != nil {
		t.Fatal(err)
	}
	want, _ := RenderUnit(m.Unit)
	got, err := os.ReadFile(m.UnitPath())
	if err != nil || string(got) != string(want) {
		t.Fatalf("kardianos wrote %q (%v), want the rendered unit", got, err)
	}
	if err := m.Install(); err != nil {
		t.Fatalf("second install: %v", err)
	}
	st, err := m.Status()
	if err != nil || !st.Running() {
		t.Errorf("status %+v, %v", st, err)
	}
	if err := m.Uninstall(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(m.UnitPath()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("unit still there: %v", err)
	}
	ran, _ := os.ReadFile(log)
	lines := strings.Split(strings.TrimSpace(string(ran)), "\n")
	wantRan := []string{
		// first install
		"enable --user dev.nova.novad.service",
		"daemon-reload --user",
		"start --user dev.nova.novad.service",
		// second install: the old unit goes first
		"stop --user dev.nova.novad.service",
		"disable --user dev.nova.novad.service",
		"daemon-reload --user",
		"enable --user dev.nova.novad.service",
		"daemon-reload --user",
		"start --user dev.nova.novad.service",
		// status
		"is-active dev.nova.novad.service --user",
		// uninstall
		"stop --user dev.nova.novad.service",
		"disable --user dev.nova.novad.service",
		"daemon-reload --user",
	}
	if !slices.Equal(lines, wantRan) {
		t.Errorf("systemctl ran\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(wantRan, "\n"))
	}
	plan, _ := m.InstallPlan()
	for _, c := range plan.Commands() {
		if !slices.Contains(wantRan, strings.Join(c[1:], " ")) {
			t.Errorf("the plan prints %v, which kardianos does not run", c)
		}
	}
}

func TestManager_Preflight(t *testing.T) {
	home := t.TempDir()
	run := filepath.Join(home, "run")
	if err := os.MkdirAll(filepath.Join(run, "systemd"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(run, "systemd", "private"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	systemdHere := func() string { return Platform }
	sysv := func() string { return "unix-systemv" }
	m := &Manager{Unit: goldenUnit(), Home: home}
	for _, tc := range []struct {
		name    string
		detect  func() string
		environ []string
		unit    bool
		op      string
		want    error
	}{
		{"install", systemdHere, []string{"XDG_RUNTIME_DIR=" + run}, false, "install", nil},
		{"install, no systemd", sysv, []string{"XDG_RUNTIME_DIR=" + run}, false, "install", ErrNoSystemd},
		{"start, su", systemdHere, []string{"HOME=" + home}, true, "start", ErrNoUserManager},
		{"stop, manager not running", systemdHere, []string{"XDG_RUNTIME_DIR=" + home}, true, "stop", ErrNoUserManager},
		{"start, a session bus but no manager in XDG_RUNTIME_DIR", systemdHere, []string{"XDG_RUNTIME_DIR=" + home, "DBUS_SESSION_BUS_ADDRESS=unix:path=/x"}, true, "start", ErrNoUserManager},
		{"start, older systemctl on the bus", systemdHere, []string{"DBUS_SESSION_BUS_ADDRESS=unix:path=/x"}, true, "start", nil},
		// Uninstall removes a unit by hand when no manager answers, and
		// has nothing to ask systemd when there is no unit.
		{"uninstall, nothing installed, no systemd", sysv, nil, false, "uninstall", nil},
		{"uninstall, no systemd", sysv, nil, true, "uninstall", ErrNoSystemd},
		{"uninstall, no manager", systemdHere, []string{"HOME=" + home}, true, "uninstall", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(m.UnitPath())
			if tc.unit {
				if err := os.MkdirAll(filepath.Dir(m.UnitPath()), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(m.UnitPath(), nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			m.Detect, m.Environ = tc.detect, tc.environ
			err := m.Preflight(tc.op)
			if (tc.want == nil) != (err == nil) || tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("Preflight(%s) = %v, want %v", tc.op, err, tc.want)
			}
		})
	}
}

// TestManager_UninstallWithoutAManager: when systemctl cannot disable the
// unit (no user manager answers), uninstall removes what enable made as
// well as the unit file, so nothing is left in ~/.config/systemd/user.
func TestManager_UninstallWithoutAManager(t *testing.T) {
	m, sys := newTestManager(t)
	if err := m.Install(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(m.WantsLink()); err != nil {
		t.Fatalf("install did not enable the unit: %v", err)
	}
	m.New = func(cfg *service.Config) (Controller, error) {
		return &failingUninstall{sys.Controller(cfg, m.UnitPath())}, nil
	}
	if err := m.Uninstall(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{m.UnitPath(), m.WantsLink()} {
		if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s still there (%v)", p, err)
		}
	}
	// A link that is not ours stays.
	other := filepath.Join(t.TempDir(), "other.service")
	if err := os.MkdirAll(filepath.Dir(m.WantsLink()), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(other, m.WantsLink()); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(m.UnitPath(), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := m.Uninstall(); err != nil {
		t.Fatal(err)
	}
	if target, err := os.Readlink(m.WantsLink()); err != nil || target != other {
		t.Errorf("a link to %s was removed or changed: %q, %v", other, target, err)
	}
}

func TestManager_Restart(t *testing.T) {
	m, sys := newTestManager(t)
	if err := m.Restart(); err == nil || !strings.Contains(err.Error(), "novactl service install") {
		t.Errorf("Restart before install = %v", err)
	}
	if calls := sys.Calls(); len(calls) != 0 {
		t.Errorf("Restart before install reached systemd: %v", calls)
	}
	if err := m.Install(); err != nil {
		t.Fatal(err)
	}
	for _, stopped := range []bool{false, true} {
		if stopped {
			if err := m.Stop(); err != nil {
				t.Fatal(err)
			}
		}
		sys.ResetCalls()
		if err := m.Restart(); err != nil {
			t.Fatal(err)
		}
		if calls := sys.Calls(); !slices.Equal(calls, []string{"restart"}) {
			t.Errorf("stopped=%v: calls %v, want [restart]", stopped, calls)
		}
		if !sys.Running() {
			t.Errorf("stopped=%v: not running after Restart", stopped)
		}
	}
	if got, want := m.RestartPlan().Commands(), [][]string{{"systemctl", "restart", "--user", "dev.nova.novad.service"}}; !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("plan %v, want %v", got, want)
	}
}

// TestManager_StopNotInstalled: stopping a unit that was never installed
// (the watcher's, under an install from before the watcher had a job) is
// not a failure: there is nothing to stop, and systemctl stop would only
// fail with "exit status 5", which says nothing to act on. It says so
// and asks systemd nothing.
func TestManager_StopNotInstalled(t *testing.T) {
	m, sys := newTestManager(t)
	var logged []string
	m.Log = func(s string) { logged = append(logged, s) }
	if err := m.Stop(); err != nil {
		t.Fatalf("Stop before install = %v", err)
	}
	if calls := sys.Calls(); len(calls) != 0 {
		t.Errorf("Stop before install reached systemd: %v", calls)
	}
	if got := strings.Join(logged, "\n"); !strings.Contains(got, "not installed") {
		t.Errorf("Stop before install logged %q; want it to say the unit is not installed", got)
	}
	if s := m.StopPlan().Steps[0].When; !strings.Contains(s, "if the unit file exists") {
		t.Errorf("the stop plan does not say it stops only an installed unit: %q", s)
	}
}

// failingControl is a controller whose systemctl start, restart and stop
// fail as kardianos reports it: the exit status alone, since it does not
// keep systemctl's message.
type failingControl struct{ *systemdtest.Controller }

func (c *failingControl) Start() error   { return errors.New("exit status 1") }
func (c *failingControl) Restart() error { return errors.New("exit status 1") }
func (c *failingControl) Stop() error    { return errors.New("exit status 1") }

// TestManager_ControlErrorsSayWhereToLook: a failed systemctl start,
// restart or stop reaches the person as "exit status 1" and nothing else;
// the error names the commands that show why.
func TestManager_ControlErrorsSayWhereToLook(t *testing.T) {
	m, sys := newTestManager(t)
	if err := m.Install(); err != nil {
		t.Fatal(err)
	}
	m.New = func(cfg *service.Config) (Controller, error) {
		return &failingControl{sys.Controller(cfg, m.UnitPath())}, nil
	}
	for name, op := range map[string]func() error{"start": m.Start, "restart": m.Restart, "stop": m.Stop, "install": m.Install} {
		err := op()
		if err == nil || !strings.Contains(err.Error(), "systemctl --user status dev.nova.novad.service") || !strings.Contains(err.Error(), "journalctl --user -u dev.nova.novad.service") {
			t.Errorf("%s: %v; want it to name systemctl --user status and journalctl", name, err)
		}
	}
}

// TestManager_StatusWithoutUserManager: from a session with no systemd
// user manager (su, sudo -u), systemctl --user is-active prints nothing
// to stdout, which kardianos reads as "not installed" even when the unit
// file is there. Status says instead that the manager is unreachable,
// and why, without asking systemctl.
func TestManager_StatusWithoutUserManager(t *testing.T) {
	m, sys := newTestManager(t)
	if err := m.Install(); err != nil {
		t.Fatal(err)
	}
	sys.ResetCalls()
	m.Environ = []string{"HOME=" + m.Home}
	st, err := m.Status()
	if err != nil {
		t.Fatal(err)
	}
	if !st.Installed || st.State != "unknown" || !strings.Contains(st.Detail, "no systemd user manager") || !strings.Contains(st.Detail, "log in as this user") {
		t.Errorf("status without a user manager: %+v", st)
	}
	if calls := sys.Calls(); len(calls) != 0 {
		t.Errorf("status without a user manager asked systemd: %v", calls)
	}
}
