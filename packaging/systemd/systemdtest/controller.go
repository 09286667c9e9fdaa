// Package systemdtest provides an in-memory stand-in for kardianos/service's
// systemd backend, so the systemd Manager and the novactl commands above it
// are tested on any machine without touching the user's systemd.
package systemdtest

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/kardianos/service"
)

// System is the fake user systemd: whether the service runs and which
// calls reached it. The Manager makes a new controller per operation, so
// this state lives here and the controllers share it.
type System struct {
	// OS is what each controller's Platform reports, e.g. "linux-systemd".
	OS string

	mu      sync.Mutex
	calls   []string
	running bool
	configs []*service.Config
}

// Controller returns a controller for cfg whose Install writes the unit
// file at unitPath. It implements systemd.Controller.
func (s *System) Controller(cfg *service.Config, unitPath string) *Controller {
	s.mu.Lock()
	s.configs = append(s.configs, cfg)
	s.mu.Unlock()
	return &Controller{sys: s, cfg: cfg, unitPath: unitPath}
}

// Calls returns the controller methods called so far, in order.
func (s *System) Calls() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.calls)
}

// ResetCalls forgets the calls recorded so far.
func (s *System) ResetCalls() {
	s.mu.Lock()
	s.calls = nil
	s.mu.Unlock()
}

// Running reports whether Start was called more recently than Stop.
func (s *System) Running() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.running
}

// Configs returns every configuration a controller was made for.
func (s *System) Configs() []*service.Config {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.configs)
}

func (s *System) record(call string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, call)
}

func (s *System) setRunning(running bool) {
	s.mu.Lock()
	s.running = running
	s.mu.Unlock()
}

// Controller is one service handle on a System.
type Controller struct {
	sys      *System
	cfg      *service.Config
	unitPath string
}

// Install writes the unit file kardianos would write and, like kardianos,
// refuses an existing one; then it enables the unit as systemctl enable
// does for WantedBy=default.target, with a link in default.target.wants.
func (c *Controller) Install() error {
	c.sys.record("install")
	if _, err := os.Stat(c.unitPath); err == nil {
		return errors.New("Init already exists: " + c.unitPath)
	}
	if err := os.MkdirAll(filepath.Dir(c.unitPath), 0o755); err != nil {
		return err
	}
	script, _ := c.cfg.Option["SystemdScript"].(string)
	if err := os.WriteFile(c.unitPath, []byte(script), 0o644); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(c.wantsLink()), 0o755); err != nil {
		return err
	}
	return os.Symlink(c.unitPath, c.wantsLink())
}

// Uninstall disables the unit (removes its default.target.wants link) and
// removes the unit file, as systemctl disable and kardianos do.
func (c *Controller) Uninstall() error {
	c.sys.record("uninstall")
	if err := os.Remove(c.wantsLink()); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return os.Remove(c.unitPath)
}

func (c *Controller) wantsLink() string {
	return filepath.Join(filepath.Dir(c.unitPath), "default.target.wants", filepath.Base(c.unitPath))
}

// Start marks the service running.
func (c *Controller) Start() error {
	c.sys.record("start")
	c.sys.setRunning(true)
	return nil
}

// Stop marks the service stopped. Like systemctl stop, it fails for a
// unit systemd does not know (no unit file): "Unit ... not loaded", exit
// status 5, of which kardianos passes on only the status.
func (c *Controller) Stop() error {
	c.sys.record("stop")
	if _, err := os.Stat(c.unitPath); err != nil {
		return errors.New("exit status 5")
	}
	c.sys.setRunning(false)
	return nil
}

// Restart marks the service running, as systemctl restart does for a
// running or a stopped unit.
func (c *Controller) Restart() error {
	c.sys.record("restart")
	c.sys.setRunning(true)
	return nil
}

// Status reports not installed without a unit file, else running or
// stopped.
func (c *Controller) Status() (service.Status, error) {
	c.sys.record("status")
	if _, err := os.Stat(c.unitPath); err != nil {
		return service.StatusUnknown, service.ErrNotInstalled
	}
	if c.sys.Running() {
		return service.StatusRunning, nil
	}
	return service.StatusStopped, nil
}

// Platform returns the System's OS.
func (c *Controller) Platform() string { return c.sys.OS }
