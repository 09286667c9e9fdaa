package systemd

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/kardianos/service"

	"github.com/nova-recall/nova/packaging"
	"github.com/nova-recall/nova/paths"
)

// Platform is kardianos/service's name for systemd on Linux.
const Platform = "linux-systemd"

// UnitMode is the unit file's mode, as kardianos/service writes it.
const UnitMode fs.FileMode = 0o644

// ErrNoSystemd means kardianos/service did not detect systemd (containers,
// WSL without systemd, other init systems). Nova registers only with
// systemd on Linux; elsewhere, run novad under your own supervisor.
var ErrNoSystemd = errors.New("systemd was not detected")

// ErrNoUserManager means systemctl --user would find no systemd user
// manager to talk to from this session: a shell from su or sudo -u, which
// starts no login session, or a session whose manager is not running.
var ErrNoUserManager = errors.New("no systemd user manager is reachable from this session")

func noSystemd(platform string) error {
	return fmt.Errorf("%w (kardianos/service found %q); run novad in a terminal or under your own supervisor", ErrNoSystemd, platform)
}

// Controller is the part of kardianos/service's Service that the Manager
// uses; a service.Service satisfies it, and tests pass a fake so they
// never talk to systemd.
type Controller interface {
	// Install writes the unit file and enables it; it fails if the file
	// exists.
	Install() error
	// Uninstall disables the unit and removes its file.
	Uninstall() error
	// Start runs systemctl --user start.
	Start() error
	// Stop runs systemctl --user stop.
	Stop() error
	// Restart runs systemctl --user restart, which starts a stopped unit
	// too.
	Restart() error
	// Status runs systemctl --user is-active (and list-unit-files).
	Status() (service.Status, error)
	// Platform names the service manager kardianos detected.
	Platform() string
}

// Manager installs, controls and inspects novad's systemd user unit
// through kardianos/service. Fields are required unless marked optional.
// It holds no state between calls and is not meant for concurrent use.
type Manager struct {
	// Unit is what the unit file says.
	Unit Unit
	// Home is the user's home; the unit goes to UserUnitDir(Home). It must
	// be the home kardianos/service sees (os.UserHomeDir), which it is
	// when novactl runs with its own environment.
	Home string
	// Token is the internal token Uninstall removes: that of the NOVA_HOME
	// the installed unit serves (see InstalledNovaHome), never simply the
	// caller's. Optional: the zero Token leaves every token alone.
	Token packaging.Token
	// New builds the controller. Optional: nil uses kardianos/service.
	New func(*service.Config) (Controller, error)
	// Detect names the service manager kardianos/service detects, for
	// Preflight. Optional: nil means service.Platform.
	Detect func() string
	// Environ is the environment systemctl runs with, for Preflight.
	// Optional: nil means os.Environ().
	Environ []string
	// Log receives one line per step taken. Optional.
	Log func(string)
}

// UnitPath is where the unit file is written.
func (m *Manager) UnitPath() string { return filepath.Join(UserUnitDir(m.Home), m.Unit.FileName()) }

// WantsLink is the link systemctl enable makes for the unit's
// WantedBy=default.target, which systemctl disable removes.
func (m *Manager) WantsLink() string {
	return filepath.Join(UserUnitDir(m.Home), "default.target.wants", m.Unit.FileName())
}

// ServiceConfig is the kardianos/service configuration: a user service
// whose unit text is RenderUnit's output. Executable, Arguments and
// EnvVars repeat what the text says, for kardianos' own checks.
func (m *Manager) ServiceConfig() (*service.Config, error) {
	text, err := RenderUnit(m.Unit)
	if err != nil {
		return nil, err
	}
	return &service.Config{
		Name:        m.Unit.Name,
		DisplayName: m.Unit.Description,
		Description: m.Unit.Description,
		Executable:  m.Unit.Program,
		Arguments:   m.Unit.Args,
		EnvVars:     map[string]string{"NOVA_HOME": m.Unit.NovaHome},
		Option: service.KeyValue{
			"UserService":   true,
			"Restart":       "on-failure",
			"SystemdScript": string(text),
		},
	}, nil
}

// program is the service.Interface kardianos requires. novactl only
// installs and controls the service; novad runs itself, so these are
// never called.
type program struct{}

func (program) Start(service.Service) error { return nil }
func (program) Stop(service.Service) error  { return nil }

// controlConfig is the kardianos/service configuration for every
// operation but install: stop, start, status and uninstall use only the
// name and UserService, so they work without knowing where novad is.
func (m *Manager) controlConfig() *service.Config {
	return &service.Config{
		Name:        m.Unit.Name,
		DisplayName: m.Unit.Description,
		Option:      service.KeyValue{"UserService": true},
	}
}

// controller returns the kardianos/service controller; install selects
// the full configuration with the rendered unit.
func (m *Manager) controller(install bool) (Controller, error) {
	cfg := m.controlConfig()
	if install {
		var err error
		if cfg, err = m.ServiceConfig(); err != nil {
			return nil, err
		}
	}
	newFn := m.New
	if newFn == nil {
		newFn = func(c *service.Config) (Controller, error) { return service.New(program{}, c) }
	}
	c, err := newFn(cfg)
	if err != nil {
		return nil, fmt.Errorf("kardianos/service: %w", err)
	}
	// kardianos falls back to SysV, upstart, OpenRC... when systemd is
	// absent, and would then write into /etc. Refuse instead.
	if c.Platform() != Platform {
		return nil, noSystemd(c.Platform())
	}
	return c, nil
}

// Preflight returns why op (install, uninstall, start, stop or restart) would be
// refused on this machine, before it writes or runs anything: systemd was
// not detected (ErrNoSystemd), or systemctl --user would reach no user
// manager (ErrNoUserManager). Run it before the operation and before its
// dry run, so that a dry run that passes is one the operation does not
// refuse for these reasons. Uninstall talks to systemd only about a unit
// file that exists, and removes that file by hand when no manager answers,
// so it needs systemd only then and never a manager.
func (m *Manager) Preflight(op string) error {
	needManager := true
	if op == "uninstall" {
		if _, err := os.Lstat(m.UnitPath()); errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		needManager = false
	}
	detect := m.Detect
	if detect == nil {
		detect = service.Platform
	}
	if p := detect(); p != Platform {
		return noSystemd(p)
	}
	if !needManager {
		return nil
	}
	environ := m.Environ
	if environ == nil {
		environ = os.Environ()
	}
	return CheckUserManager(environ)
}

// CheckUserManager returns an error wrapping ErrNoUserManager when
// systemctl --user, run with environ, would find no user manager. It looks
// where systemctl does: the manager's socket $XDG_RUNTIME_DIR/systemd/
// private, or the user bus $XDG_RUNTIME_DIR/bus. Recent systemctl needs
// XDG_RUNTIME_DIR; older releases also use DBUS_SESSION_BUS_ADDRESS
// without it, which is then taken on trust. It only reads.
func CheckUserManager(environ []string) error {
	const advice = "log in as this user (a desktop or ssh session; su and sudo -u start none) and run it there, or run novad in a terminal or under your own supervisor"
	dir := paths.Lookup(environ, "XDG_RUNTIME_DIR")
	if dir == "" {
		if paths.Lookup(environ, "DBUS_SESSION_BUS_ADDRESS") != "" {
			return nil
		}
		return fmt.Errorf("%w: XDG_RUNTIME_DIR is not set; %s", ErrNoUserManager, advice)
	}
	var errs []string
	for _, p := range []string{filepath.Join(dir, "systemd", "private"), filepath.Join(dir, "bus")} {
		_, err := os.Stat(p)
		if err == nil {
			return nil
		}
		errs = append(errs, err.Error())
	}
	return fmt.Errorf("%w: %s; %s", ErrNoUserManager, strings.Join(errs, "; "), advice)
}

func (m *Manager) logf(format string, args ...any) {
	if m.Log != nil {
		m.Log(fmt.Sprintf(format, args...))
	}
}

// The command lines kardianos/service v1.3.0 runs for a user service
// (service_systemd_linux.go), listed so dry runs show them exactly.
func (m *Manager) systemctl(action string) []string {
	return []string{"systemctl", action, "--user", m.Unit.FileName()}
}

func daemonReload() []string { return []string{"systemctl", "daemon-reload", "--user"} }

// InstallPlan is what Install does, in order, without doing it.
func (m *Manager) InstallPlan() (packaging.Plan, error) {
	text, err := RenderUnit(m.Unit)
	if err != nil {
		return packaging.Plan{}, err
	}
	return packaging.Plan{Operation: "install", Manager: "systemd", Steps: []packaging.Step{
		{Kind: packaging.StepRun, Argv: m.systemctl("stop"), When: "if a unit file exists: stops the running one (errors ignored)"},
		{Kind: packaging.StepRun, Argv: m.systemctl("disable"), When: "if a unit file exists"},
		{Kind: packaging.StepRemove, Path: m.UnitPath(), When: "if it exists"},
		{Kind: packaging.StepRun, Argv: daemonReload(), When: "if a unit file existed"},
		{Kind: packaging.StepMkdir, Path: UserUnitDir(m.Home), Mode: 0o755, When: "if missing"},
		{Kind: packaging.StepWrite, Path: m.UnitPath(), Mode: UnitMode, Content: string(text)},
		{Kind: packaging.StepRun, Argv: m.systemctl("enable"), When: "starts the unit at every login (default.target)"},
		{Kind: packaging.StepRun, Argv: daemonReload()},
		{Kind: packaging.StepRun, Argv: m.systemctl("start")},
	}}, nil
}

// UninstallPlan is what Uninstall does, in order, without doing it.
func (m *Manager) UninstallPlan() packaging.Plan {
	steps := []packaging.Step{
		{Kind: packaging.StepRun, Argv: m.systemctl("stop"), When: "if the unit file exists (errors ignored)"},
		{Kind: packaging.StepRun, Argv: m.systemctl("disable"), When: "if the unit file exists"},
		{Kind: packaging.StepRemove, Path: m.WantsLink(), When: "if disable failed (no user manager) and the link is the unit's"},
		{Kind: packaging.StepRemove, Path: m.UnitPath(), When: "if present"},
		{Kind: packaging.StepRun, Argv: daemonReload(), When: "if the unit file existed"},
	}
	if s, ok := m.Token.RemoveStep(); ok {
		steps = append(steps, s)
	}
	return packaging.Plan{Operation: "uninstall", Manager: "systemd", Steps: steps}
}

// StartPlan is what Start does.
func (m *Manager) StartPlan() packaging.Plan {
	return packaging.Plan{Operation: "start", Manager: "systemd", Steps: []packaging.Step{{Kind: packaging.StepRun, Argv: m.systemctl("start")}}}
}

// StopPlan is what Stop does.
func (m *Manager) StopPlan() packaging.Plan {
	return packaging.Plan{Operation: "stop", Manager: "systemd", Steps: []packaging.Step{{Kind: packaging.StepRun, Argv: m.systemctl("stop"), When: "if the unit file exists; the unit stays enabled: it starts again at the next login"}}}
}

// Install writes the unit, enables it and starts novad. It is idempotent:
// kardianos refuses to install over an existing unit, so an existing one
// is stopped and uninstalled first; running Install twice leaves one unit
// and one running novad, and after an upgrade restarts novad on the new
// binary.
func (m *Manager) Install() error {
	text, err := RenderUnit(m.Unit)
	if err != nil {
		return err
	}
	c, err := m.controller(true)
	if err != nil {
		return err
	}
	if err := m.removeExisting(c); err != nil {
		return err
	}
	if err := c.Install(); err != nil {
		return fmt.Errorf("install %s: %w", m.Unit.FileName(), err)
	}
	// The unit text passes through kardianos' template engine; make sure
	// it came out as rendered, so --dry-run never lies.
	got, err := os.ReadFile(m.UnitPath())
	if err != nil {
		return fmt.Errorf("read back %s: %w", m.UnitPath(), err)
	}
	if !bytes.Equal(got, text) {
		return fmt.Errorf("%s differs from the rendered unit; remove it and report a bug", m.UnitPath())
	}
	m.logf("wrote %s and enabled it", m.UnitPath())
	if err := c.Start(); err != nil {
		return m.controlError("start", err)
	}
	m.logf("started %s", m.Unit.FileName())
	return nil
}

// controlError is the error of a failed systemctl action. kardianos keeps
// only its exit status ("exit status 1"), not what systemctl printed, so
// the error names where the reason is.
func (m *Manager) controlError(action string, err error) error {
	name := m.Unit.FileName()
	return fmt.Errorf("%s %s: %w (systemctl --user status %s and journalctl --user -u %s say why)", action, name, err, name, name)
}

// removeExisting stops and uninstalls a unit file that is already there.
// If systemctl cannot disable it (say, no user manager is running), the
// file is removed by hand, so a half-finished install never blocks the
// next one.
func (m *Manager) removeExisting(c Controller) error {
	if _, err := os.Lstat(m.UnitPath()); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err := c.Stop(); err == nil {
		m.logf("stopped %s", m.Unit.FileName())
	}
	if err := c.Uninstall(); err != nil {
		// Undo by hand what systemctl enable did (the link, if it is
		// ours), then remove the file.
		if target, lerr := os.Readlink(m.WantsLink()); lerr == nil && filepath.Base(target) == m.Unit.FileName() {
			if rerr := os.Remove(m.WantsLink()); rerr != nil {
				return fmt.Errorf("remove %s: %w (uninstall: %v)", m.WantsLink(), rerr, err)
			}
			m.logf("removed %s", m.WantsLink())
		}
		if rerr := os.Remove(m.UnitPath()); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			return fmt.Errorf("remove %s: %w (uninstall: %v)", m.UnitPath(), rerr, err)
		}
		m.logf("removed %s (systemctl disable failed: %v)", m.UnitPath(), err)
		return nil
	}
	m.logf("disabled and removed %s", m.UnitPath())
	return nil
}

// Uninstall stops and disables novad, removes the unit file and the
// internal token (Token.Remove). Missing pieces are not errors.
func (m *Manager) Uninstall() error {
	if _, err := os.Lstat(m.UnitPath()); err == nil {
		c, err := m.controller(false)
		if err != nil {
			return err
		}
		if err := m.removeExisting(c); err != nil {
			return err
		}
	} else {
		m.logf("%s is not installed", m.UnitPath())
	}
	return m.Token.Remove(m.logf)
}

// Start starts novad through systemd.
func (m *Manager) Start() error {
	if _, err := os.Stat(m.UnitPath()); err != nil {
		return fmt.Errorf("%s is not installed (%w); run novactl service install", m.Unit.FileName(), err)
	}
	c, err := m.controller(false)
	if err != nil {
		return err
	}
	if err := c.Start(); err != nil {
		return m.controlError("start", err)
	}
	m.logf("started %s", m.Unit.FileName())
	return nil
}

// RestartPlan is what Restart does, without doing it.
func (m *Manager) RestartPlan() packaging.Plan {
	return packaging.Plan{Operation: "restart", Manager: "systemd", Steps: []packaging.Step{{Kind: packaging.StepRun, Argv: m.systemctl("restart"), When: "stops the running process and starts it again (a stopped unit is just started)"}}}
}

// Restart stops the unit's process and starts a new one, which reads
// config.yaml afresh (systemctl --user restart; a stopped unit is just
// started). It does not re-read the unit file: Install applies a new one.
func (m *Manager) Restart() error {
	if _, err := os.Stat(m.UnitPath()); err != nil {
		return fmt.Errorf("%s is not installed (%w); run novactl service install", m.Unit.FileName(), err)
	}
	c, err := m.controller(false)
	if err != nil {
		return err
	}
	if err := c.Restart(); err != nil {
		return m.controlError("restart", err)
	}
	m.logf("restarted %s", m.Unit.FileName())
	return nil
}

// Stop stops novad; the unit stays enabled. A unit that is not installed
// has nothing to stop, which is not an error: systemctl stop would fail
// with a bare "exit status 5", and stopping both jobs would end there,
// before novad, when only the watcher's unit is missing.
func (m *Manager) Stop() error {
	if _, err := os.Lstat(m.UnitPath()); errors.Is(err, fs.ErrNotExist) {
		m.logf("%s is not installed (no %s): nothing to stop", m.Unit.FileName(), m.UnitPath())
		return nil
	}
	c, err := m.controller(false)
	if err != nil {
		return err
	}
	if err := c.Stop(); err != nil {
		return m.controlError("stop", err)
	}
	m.logf("stopped %s", m.Unit.FileName())
	return nil
}

// Status is what systemd and the file system say about the unit.
type Status struct {
	// Name is the unit name, <name>.service.
	Name string `json:"name"`
	// UnitPath is where the unit file is (or would be) installed.
	UnitPath string `json:"unitPath"`
	// Installed: the unit file exists.
	Installed bool `json:"installed"`
	// State is running, stopped, not-installed or unknown.
	State string `json:"state"`
	// Detail is systemd's complaint when State is unknown, e.g. "service
	// in failed state".
	Detail string `json:"detail,omitempty"`
}

// Running reports whether systemd says novad is running.
func (s Status) Running() bool { return s.State == "running" }

// Status asks the file system and systemd (systemctl --user is-active,
// through kardianos/service) about the unit. It only reads.
func (m *Manager) Status() (Status, error) {
	st := Status{Name: m.Unit.FileName(), UnitPath: m.UnitPath()}
	if _, err := os.Stat(st.UnitPath); err == nil {
		st.Installed = true
	}
	c, err := m.controller(false)
	if err != nil {
		return st, err
	}
	environ := m.Environ
	if environ == nil {
		environ = os.Environ()
	}
	if err := CheckUserManager(environ); err != nil {
		// systemctl --user would print nothing on stdout, which kardianos
		// reads as "not installed", whatever the unit file says.
		st.State, st.Detail = "unknown", err.Error()
		return st, nil
	}
	s, err := c.Status()
	switch {
	case errors.Is(err, service.ErrNotInstalled):
		st.State = "not-installed"
	case err != nil:
		st.State, st.Detail = "unknown", err.Error()
	case s == service.StatusRunning:
		st.State = "running"
	case s == service.StatusStopped:
		st.State = "stopped"
	default:
		st.State = "unknown"
	}
	return st, nil
}
