package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/nova-recall/nova/doctor"
	"github.com/nova-recall/nova/packaging"
	"github.com/nova-recall/nova/packaging/configwait"
	"github.com/nova-recall/nova/packaging/macos"
)

// launchdBackend runs one of Nova's jobs as a per-user LaunchAgent (macOS).
type launchdBackend struct {
	what string
	// job is the job's name for configwait.
	job string
	a   *macos.Agent
	// absent: uninstall found no plist to remove, or stop none installed.
	absent bool
}

func (b *launchdBackend) manager() string { return "launchd" }

// preflight checks only the installed plist's program (startable): every
// Mac has launchd, and whether the GUI session exists shows only when
// launchctl is asked, which dry runs do not do.
func (b *launchdBackend) preflight(op string) error {
	return startable(op, b.a.Job.Label, b.a.PlistPath(), macos.InstalledCommand, b.duplicates())
}

func (b *launchdBackend) plan(op string) (packaging.Plan, error) {
	switch op {
	case "install":
		return b.a.InstallPlan()
	case "uninstall":
		return b.a.UninstallPlan(), nil
	case "start":
		return b.a.StartPlan(), nil
	case "restart":
		return b.a.RestartPlan(), nil
	}
	return b.a.StopPlan(), nil
}

func (b *launchdBackend) do(ctx context.Context, op string) error {
	switch op {
	case "install":
		return b.a.Install(ctx)
	case "uninstall":
		b.absent = !exists(b.a.PlistPath())
		return b.a.Uninstall(ctx)
	case "start":
		return b.a.Start(ctx)
	case "restart":
		return b.a.Restart(ctx)
	}
	b.absent = !exists(b.a.PlistPath())
	return b.a.Stop(ctx)
}

func (b *launchdBackend) summary(op string) string {
	switch op {
	case "install":
		return fmt.Sprintf("Installed %s: %s runs now and at every login. Logs: %s", b.a.Job.Label, b.what, b.a.Job.StderrPath())
	case "uninstall":
		if b.absent {
			return fmt.Sprintf("%s was not installed (no %s).", b.a.Job.Label, b.a.PlistPath())
		}
		return fmt.Sprintf("Uninstalled %s. Logs, if any, are kept in %s.", b.a.Job.Label, b.a.Job.LogDir)
	case "start":
		return "Started " + b.a.Job.Label + ". novactl service status shows what launchd says."
	case "restart":
		return "Restarted " + b.a.Job.Label + ": " + b.what + " runs with config.yaml as it is now. novactl service status shows what launchd says."
	}
	if b.absent {
		// Nothing starts it again at login: saying so would be wrong.
		return fmt.Sprintf("%s is not installed (no %s): nothing to stop.", b.a.Job.Label, b.a.PlistPath()) + brewStopHint(b.duplicates())
	}
	return "Stopped " + b.a.Job.Label + ": " + b.what + " starts again at the next login or with novactl service start."
}

// launchdThen is what launchd does with a job that exits on an invalid
// config.yaml (KeepAlive, package macos).
const launchdThen = "launchd restarts it every 10 s, logging the same error each time"

func (b *launchdBackend) status(ctx context.Context) (any, doctor.ServiceStatus, []string, error) {
	st, err := b.a.Status(ctx)
	ds := doctor.ServiceStatus{Manager: "launchd", Installed: st.Installed, Loaded: st.Loaded, Running: st.Running()}
	if err != nil {
		return st, ds, nil, err
	}
	def := inspectDefinition(b.job, st.PlistPath, b.a.Job.NovaHome, b.a.Job.Args, launchdThen, macos.InstalledNovaHome, macos.InstalledCommand)
	if st.Installed {
		ds.Definition, ds.Outdated = st.PlistPath, def.outdated
		if def.named {
			ds.Home = def.home
		}
	}
	waiting := st.Running() && def.waiting
	// A novad that runs but does not hold its home's lock stands by for
	// the novad that does (daemon: WaitForHome); one that holds it but
	// is still starting waits for its ports. Either way the job serves
	// nothing.
	standby, ports := "", ""
	if b.job == configwait.JobNovad && st.Running() && st.Print.PID > 0 {
		if h, ok := homeHolder(def.home); ok {
			switch {
			case h.IsStarting():
				ports = portsNote(h.PID, def.home, b.a.Home)
			case h.PID > 0 && h.PID != st.Print.PID:
				standby = standbyNote(h.PID, def.home)
				ds.StandingBy = h.PID
			}
		}
	}
	if waiting || standby != "" || ports != "" {
		ds.Running = false
	}
	var why []string
	if st.Installed && def.missing != "" {
		why = append(why, missingNote(def.missing))
	}
	switch {
	case ports != "":
		why = append(why, ports)
	case standby != "":
		why = append(why, standby)
	case waiting:
		why = append(why, waitingNote)
	case st.Disabled:
		why = append(why, "disabled in Login Items or by launchctl disable")
	case st.Loaded && !st.Running():
		why = append(why, "state = "+orDash(st.Print.State))
	case st.Installed && !st.Loaded:
		why = append(why, "installed but not loaded")
	}
	if st.Loaded && !st.Running() && st.Print.LastExit != "" {
		why = append(why, "last exit code = "+st.Print.LastExit)
	}
	if len(why) > 0 {
		ds.Detail = "(" + strings.Join(why, "; ") + ")"
	}
	state := "not loaded"
	if st.Loaded {
		state = orDash(st.Print.State)
		if st.Print.PID > 0 {
			state += fmt.Sprintf(" (pid %d)", st.Print.PID)
		}
		if waiting {
			state += ", " + waitingNote
		}
		if standby != "" {
			state += ", " + standby
		}
		if ports != "" {
			state += ", " + ports
		}
	}
	lines := []string{
		fmt.Sprintf("Service %s (launchd, %s)", st.Label, b.a.Target()),
		fmt.Sprintf("  plist:     %s (%s)", st.PlistPath, yesNo(st.Installed, "installed", "missing")),
		fmt.Sprintf("  state:     %s", state),
	}
	if st.Print.LastExit != "" {
		lines = append(lines, "  last exit: "+st.Print.LastExit)
	}
	if st.Disabled {
		lines = append(lines, "  disabled:  yes: turn it on in System Settings > General > Login Items, or run novactl service install")
	}
	if st.Installed && def.outdated != "" {
		lines = append(lines, "  outdated:  "+outdatedNote(def.outdated))
	}
	if st.Installed && def.missing != "" {
		// launchd reports a program it cannot run as exit 78 (EX_CONFIG),
		// which reads like novad's invalid-config exit.
		lines = append(lines, "  program:   "+missingNote(def.missing)+"; launchd then shows last exit code 78: EX_CONFIG, which here is not about config.yaml")
	}
	if st.Installed {
		lines = append(lines, duplicateLines(b.what, b.duplicates())...)
	}
	lines = append(lines, "  logs:      "+logSize(b.a.Job.StderrPath()))
	return st, ds, lines, nil
}

func (b *launchdBackend) duplicates() []packaging.Definition {
	return otherDefinitions(b.a.Home, "darwin", b.job)
}
