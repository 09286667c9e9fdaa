package macos

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/nova-recall/nova/atomicfile"
	"github.com/nova-recall/nova/packaging"
)

// File modes. launchd refuses a plist that is group- or world-writable;
// 0644 is what every LaunchAgent has. The log directory is private: novad's
// log names sources and generations.
const (
	PlistMode        fs.FileMode = 0o644
	LogDirMode       fs.FileMode = 0o700
	launchAgentsMode fs.FileMode = 0o755
)

// Bounds of the waits around launchctl, see Agent.Install.
const (
	bootoutPoll      = 250 * time.Millisecond
	bootoutWait      = 35 * time.Second // ExitTimeOut (30 s) plus slack
	bootstrapRetries = 3
	bootstrapPause   = time.Second
)

// LaunchAgentsDir is the per-user LaunchAgents directory under home.
func LaunchAgentsDir(home string) string { return filepath.Join(home, "Library", "LaunchAgents") }

// LogDir is where novad's stdout and stderr go under launchd.
func LogDir(home string) string { return filepath.Join(home, "Library", "Logs", "nova") }

// Agent installs, controls and inspects novad's LaunchAgent. Fields are
// required unless marked optional. An Agent holds no state between calls;
// it is not meant for concurrent use, since two installs at once would
// race on launchd.
type Agent struct {
	// Job is what the plist says; Job.LogDir is normally LogDir(Home).
	Job Job
	// Home is the user's home directory: the plist goes to
	// Home/Library/LaunchAgents/<label>.plist.
	Home string
	// UID selects the launchd domain gui/<uid>.
	UID int
	// Token is the internal token Uninstall removes: that of the NOVA_HOME
	// the installed job serves (see InstalledNovaHome), never simply the
	// caller's. Optional: the zero Token leaves every token alone.
	Token packaging.Token
	// Launchctl runs launchctl; tests pass a fake.
	Launchctl Launchctl
	// Sleep waits between launchctl polls and retries. Optional: nil
	// means time.Sleep; tests pass a no-op.
	Sleep func(time.Duration)
	// Log receives one line per step taken. Optional.
	Log func(string)
}

// PlistPath is where the plist is written.
func (a *Agent) PlistPath() string {
	return filepath.Join(LaunchAgentsDir(a.Home), a.Job.Label+".plist")
}

// Domain is the launchd domain of the user's GUI session, gui/<uid>.
func (a *Agent) Domain() string { return "gui/" + strconv.Itoa(a.UID) }

// Target is the service target gui/<uid>/<label>.
func (a *Agent) Target() string { return a.Domain() + "/" + a.Job.Label }

func (a *Agent) sleep(d time.Duration) {
	if a.Sleep != nil {
		a.Sleep(d)
		return
	}
	time.Sleep(d)
}

func (a *Agent) logf(format string, args ...any) {
	if a.Log != nil {
		a.Log(fmt.Sprintf(format, args...))
	}
}

// InstallPlan is what Install does, in order, without doing it. Steps
// with a condition happen only when it holds at install time.
func (a *Agent) InstallPlan() (packaging.Plan, error) {
	content, err := RenderPlist(a.Job)
	if err != nil {
		return packaging.Plan{}, err
	}
	return packaging.Plan{Operation: "install", Manager: "launchd", Steps: []packaging.Step{
		{Kind: packaging.StepMkdir, Path: LaunchAgentsDir(a.Home), Mode: launchAgentsMode, When: "if missing"},
		{Kind: packaging.StepMkdir, Path: a.Job.LogDir, Mode: LogDirMode, When: "if missing; an existing one is set to 0700"},
		{Kind: packaging.StepWrite, Path: a.PlistPath(), Mode: PlistMode, Content: string(content), When: "atomically (temp file, fsync, rename)"},
		{Kind: packaging.StepRun, Argv: PrintArgv(a.Target()), When: "reads whether it is loaded"},
		{Kind: packaging.StepRun, Argv: BootoutArgv(a.Target()), When: "if loaded: stops the running one"},
		{Kind: packaging.StepRun, Argv: PrintArgv(a.Target()), When: "if loaded: repeated until launchd has let go of it"},
		{Kind: packaging.StepRun, Argv: PrintDisabledArgv(a.Domain()), When: "reads whether it was disabled"},
		{Kind: packaging.StepRun, Argv: EnableArgv(a.Target()), When: "if disabled"},
		{Kind: packaging.StepRun, Argv: BootstrapArgv(a.Domain(), a.PlistPath()), When: "starts the job now (RunAtLoad) and at every login"},
	}}, nil
}

// UninstallPlan is what Uninstall does, in order, without doing it.
func (a *Agent) UninstallPlan() packaging.Plan {
	steps := []packaging.Step{
		{Kind: packaging.StepRun, Argv: PrintArgv(a.Target()), When: "reads whether it is loaded"},
		{Kind: packaging.StepRun, Argv: BootoutArgv(a.Target()), When: "if loaded: stops the job"},
		{Kind: packaging.StepRun, Argv: PrintArgv(a.Target()), When: "if loaded: repeated until launchd has let go of it"},
		{Kind: packaging.StepRemove, Path: a.PlistPath(), When: "if present"},
	}
	if s, ok := a.Token.RemoveStep(); ok {
		steps = append(steps, s)
	}
	steps = append(steps, packaging.Step{Kind: packaging.StepRemove, Path: a.Job.LogDir, When: "only if empty: logs are kept"})
	return packaging.Plan{Operation: "uninstall", Manager: "launchd", Steps: steps}
}

// StartPlan is what Start does, without doing it.
func (a *Agent) StartPlan() packaging.Plan {
	return packaging.Plan{Operation: "start", Manager: "launchd", Steps: []packaging.Step{
		{Kind: packaging.StepRun, Argv: PrintArgv(a.Target()), When: "reads whether it is loaded and running"},
		{Kind: packaging.StepRun, Argv: BootstrapArgv(a.Domain(), a.PlistPath()), When: "if not loaded"},
		{Kind: packaging.StepRun, Argv: KickstartArgv(a.Target(), false), When: "if loaded but not running"},
	}}
}

// StopPlan is what Stop does, without doing it.
func (a *Agent) StopPlan() packaging.Plan {
	return packaging.Plan{Operation: "stop", Manager: "launchd", Steps: []packaging.Step{
		{Kind: packaging.StepRun, Argv: PrintArgv(a.Target()), When: "reads whether it is loaded"},
		{Kind: packaging.StepRun, Argv: BootoutArgv(a.Target()), When: "if loaded; the plist stays, so the job starts again at login or with novactl service start"},
		{Kind: packaging.StepRun, Argv: PrintArgv(a.Target()), When: "if loaded: repeated until launchd has let go of it"},
	}}
}

// RestartPlan is what Restart does, without doing it.
func (a *Agent) RestartPlan() packaging.Plan {
	return packaging.Plan{Operation: "restart", Manager: "launchd", Steps: []packaging.Step{
		{Kind: packaging.StepRun, Argv: PrintArgv(a.Target()), When: "reads whether it is loaded"},
		{Kind: packaging.StepRun, Argv: KickstartArgv(a.Target(), true), When: "if loaded: stops the running process and starts it again (one that is not running is just started)"},
		{Kind: packaging.StepRun, Argv: BootstrapArgv(a.Domain(), a.PlistPath()), When: "if not loaded: starts it (RunAtLoad)"},
	}}
}

// Install writes the plist and (re)loads the agent. It is idempotent: an
// agent that is already loaded is booted out first (legacy `launchctl
// load` fails on a loaded job; bootout + bootstrap does not), so running it
// twice leaves the same plist and one running novad, and running it after
// an upgrade restarts novad on the new binary.
//
// The plist is written before anything is stopped, so a rendering or disk
// error leaves the running agent alone.
func (a *Agent) Install(ctx context.Context) error {
	plan, err := a.InstallPlan()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(LaunchAgentsDir(a.Home), launchAgentsMode); err != nil {
		return fmt.Errorf("create LaunchAgents directory: %w", err)
	}
	if err := privateDir(a.Job.LogDir); err != nil {
		return err
	}
	changed, err := writeAtomic(a.PlistPath(), []byte(plan.Files()[0].Content), PlistMode)
	if err != nil {
		return err
	}
	if changed {
		a.logf("wrote %s", a.PlistPath())
	} else {
		a.logf("%s is unchanged", a.PlistPath())
	}
	if err := a.bootoutIfLoaded(ctx); err != nil {
		return err
	}
	if out, err := a.Launchctl.PrintDisabled(ctx, a.Domain()); err == nil && ParseDisabled(out, a.Job.Label) {
		// Installing is an explicit request to run novad, so clear an
		// old `launchctl disable`; say so, since it overrides a choice.
		if err := a.Launchctl.Enable(ctx, a.Target()); err != nil {
			return fmt.Errorf("enable %s: %w", a.Target(), err)
		}
		a.logf("%s was disabled; enabled it", a.Target())
	}
	if err := a.bootstrap(ctx); err != nil {
		return err
	}
	a.logf("bootstrapped %s: launchd starts it now and at every login", a.Target())
	return nil
}

// Uninstall boots the agent out and removes the plist and the internal
// token (Token.Remove), and the log directory if it is empty. Missing
// pieces are not errors, so it is idempotent too.
func (a *Agent) Uninstall(ctx context.Context) error {
	if err := a.bootoutIfLoaded(ctx); err != nil {
		return err
	}
	switch err := os.Remove(a.PlistPath()); {
	case err == nil:
		a.logf("removed %s", a.PlistPath())
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("remove %s: %w", a.PlistPath(), err)
	}
	if err := a.Token.Remove(a.logf); err != nil {
		return err
	}
	// Logs are the operator's record of what happened; keep any.
	if err := os.Remove(a.Job.LogDir); err == nil {
		a.logf("removed the empty %s", a.Job.LogDir)
	} else if !errors.Is(err, fs.ErrNotExist) && !isNotEmpty(err) {
		return fmt.Errorf("remove %s: %w", a.Job.LogDir, err)
	}
	return nil
}

// Start loads the agent if it is not loaded (which starts novad through
// RunAtLoad), or kickstarts it if it is loaded but not running.
func (a *Agent) Start(ctx context.Context) error {
	if _, err := os.Stat(a.PlistPath()); err != nil {
		return fmt.Errorf("%s is not installed (%s: %w); run novactl service install", a.Job.Label, a.PlistPath(), err)
	}
	out, err := a.Launchctl.Print(ctx, a.Target())
	switch {
	case errors.Is(err, ErrNotLoaded):
		if err := a.bootstrap(ctx); err != nil {
			return err
		}
		a.logf("bootstrapped %s", a.Target())
		return nil
	case err != nil:
		return a.launchctlError("print", err)
	}
	if info := ParsePrint(out); info.Running() {
		a.logf("%s is already running (pid %d)", a.Target(), info.PID)
		return nil
	}
	if err := a.Launchctl.Kickstart(ctx, a.Target(), false); err != nil {
		return fmt.Errorf("kickstart %s: %w", a.Target(), err)
	}
	a.logf("kickstarted %s", a.Target())
	return nil
}

// Restart stops the running process and starts a new one, which reads
// config.yaml afresh: `launchctl kickstart -k` on a loaded agent (it also
// starts one that is loaded but not running), a bootstrap on one that was
// stopped. The loaded plist is not re-read; Install is what applies a new
// plist (another binary, another NOVA_HOME).
func (a *Agent) Restart(ctx context.Context) error {
	if _, err := os.Stat(a.PlistPath()); err != nil {
		return fmt.Errorf("%s is not installed (%s: %w); run novactl service install", a.Job.Label, a.PlistPath(), err)
	}
	_, err := a.Launchctl.Print(ctx, a.Target())
	switch {
	case errors.Is(err, ErrNotLoaded):
		if err := a.bootstrap(ctx); err != nil {
			return err
		}
		a.logf("%s was stopped; bootstrapped it", a.Target())
		return nil
	case err != nil:
		return a.launchctlError("print", err)
	}
	if err := a.Launchctl.Kickstart(ctx, a.Target(), true); err != nil {
		return fmt.Errorf("kickstart -k %s: %w", a.Target(), err)
	}
	a.logf("restarted %s", a.Target())
	return nil
}

// Stop boots the agent out, which stops novad and keeps launchd from
// restarting it. The plist stays, so novad starts again at the next login
// or with Start.
func (a *Agent) Stop(ctx context.Context) error {
	return a.bootoutIfLoaded(ctx)
}

// Status is what launchd and the file system say about the agent.
type Status struct {
	// Label is the launchd label.
	Label string `json:"label"`
	// PlistPath is where the plist is (or would be) installed.
	PlistPath string `json:"plistPath"`
	// Installed: the plist exists.
	Installed bool `json:"installed"`
	// Loaded: launchd knows the job (launchctl print succeeds).
	Loaded bool `json:"loaded"`
	// Disabled: launchctl print-disabled lists it as disabled.
	Disabled bool `json:"disabled"`
	// Print is what launchctl print said; zero when not loaded.
	Print PrintInfo `json:"print"`
}

// Running reports whether novad runs under launchd.
func (s Status) Running() bool { return s.Loaded && s.Print.Running() }

// Status asks the file system and launchd about the agent. It only reads.
func (a *Agent) Status(ctx context.Context) (Status, error) {
	st := Status{Label: a.Job.Label, PlistPath: a.PlistPath()}
	if _, err := os.Stat(st.PlistPath); err == nil {
		st.Installed = true
	} else if !errors.Is(err, fs.ErrNotExist) {
		return st, fmt.Errorf("stat %s: %w", st.PlistPath, err)
	}
	out, err := a.Launchctl.Print(ctx, a.Target())
	switch {
	case err == nil:
		st.Loaded = true
		st.Print = ParsePrint(out)
	case !errors.Is(err, ErrNotLoaded):
		return st, a.launchctlError("print", err)
	}
	if out, err := a.Launchctl.PrintDisabled(ctx, a.Domain()); err == nil {
		st.Disabled = ParseDisabled(out, a.Job.Label)
	}
	return st, nil
}

// bootoutIfLoaded boots the agent out when launchd knows it, then waits
// until launchd has forgotten it: a bootstrap issued while the old job is
// still being torn down fails with "Bootstrap failed: 5: Input/output
// error".
func (a *Agent) bootoutIfLoaded(ctx context.Context) error {
	_, err := a.Launchctl.Print(ctx, a.Target())
	switch {
	case errors.Is(err, ErrNotLoaded), errors.Is(err, ErrNoGUISession):
		// Without a desktop session no job of gui/<uid> runs: there is
		// nothing to boot out, and uninstall still removes the files.
		return nil
	case err != nil:
		return a.launchctlError("print", err)
	}
	// "Operation now in progress" means launchd is still stopping the
	// job: the wait below is for exactly that.
	if err := a.Launchctl.Bootout(ctx, a.Target()); err != nil && !errors.Is(err, ErrNotLoaded) && !inProgress(err) {
		return fmt.Errorf("bootout %s: %w", a.Target(), err)
	}
	for waited := time.Duration(0); ; waited += bootoutPoll {
		_, err := a.Launchctl.Print(ctx, a.Target())
		if errors.Is(err, ErrNotLoaded) {
			a.logf("booted out %s", a.Target())
			return nil
		}
		if waited >= bootoutWait {
			return fmt.Errorf("bootout %s: launchd still lists it after %s", a.Target(), bootoutWait)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		a.sleep(bootoutPoll)
	}
}

// bootstrap loads the plist, retrying a few times: right after a bootout
// launchd may still refuse with error 5 for a moment.
func (a *Agent) bootstrap(ctx context.Context) error {
	var err error
	for i := 0; i < bootstrapRetries; i++ {
		if i > 0 {
			a.sleep(bootstrapPause)
		}
		if err = a.Launchctl.Bootstrap(ctx, a.Domain(), a.PlistPath()); err == nil {
			return nil
		}
		if errors.Is(err, ErrNoGUISession) {
			// No retry makes a domain appear, nor does Login Items.
			return a.launchctlError("bootstrap", err)
		}
		if ctx.Err() != nil {
			break
		}
	}
	return fmt.Errorf("bootstrap %s: %w (if %s was turned off in System Settings > General > Login Items, turn it on and run novactl service install again)", a.PlistPath(), err, a.Job.Label)
}

// launchctlError is the error of a failed launchctl verb on the agent,
// with what to do when the user has no desktop session: gui/<uid> exists
// only while the user is logged in to the Mac's desktop (the jobs are
// LimitLoadToSessionType Aqua), which an ssh session alone is not.
func (a *Agent) launchctlError(verb string, err error) error {
	if errors.Is(err, ErrNoGUISession) {
		return fmt.Errorf("%s %s: %w; %s runs in your desktop session, and launchd has no %s domain without one (an ssh session alone has none): log in to this Mac's desktop as this user, then run the command again (in Terminal there, or over ssh while that login lasts), or run novad in a terminal", verb, a.Target(), err, a.Job.Label, a.Domain())
	}
	return fmt.Errorf("%s %s: %w", verb, a.Target(), err)
}

// privateDir creates dir with mode 0700, or tightens an existing one: it
// is ours, and logs are private.
func privateDir(dir string) error {
	if err := os.MkdirAll(dir, LogDirMode); err != nil {
		return fmt.Errorf("create log directory: %w", err)
	}
	if err := os.Chmod(dir, LogDirMode); err != nil {
		return fmt.Errorf("set mode of log directory: %w", err)
	}
	return nil
}

// writeAtomic replaces path with content (see package atomicfile), so
// launchd never reads half a plist. It reports whether the content
// changed.
func writeAtomic(path string, content []byte, mode fs.FileMode) (bool, error) {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, content) {
		if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm() == mode {
			return false, nil
		}
	}
	if err := atomicfile.Write(path, content, mode); err != nil {
		return false, err
	}
	return true, nil
}

func isNotEmpty(err error) bool {
	return errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST)
}
