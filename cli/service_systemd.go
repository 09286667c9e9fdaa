package cli

import (
	"context"
	"fmt"

	"github.com/nova-recall/nova/doctor"
	"github.com/nova-recall/nova/packaging"
	"github.com/nova-recall/nova/packaging/configwait"
	"github.com/nova-recall/nova/packaging/systemd"
)

// systemdBackend runs one of Nova's jobs as a systemd user unit (Linux).
type systemdBackend struct {
	what string
	// job is the job's name for configwait.
	job string
	m   *systemd.Manager
	// absent: uninstall found no unit file to remove, or stop none
	// installed.
	absent bool
}

func (b *systemdBackend) manager() string { return "systemd" }

func (b *systemdBackend) preflight(op string) error {
	if err := b.m.Preflight(op); err != nil {
		return err
	}
	return startable(op, b.m.Unit.FileName(), b.m.UnitPath(), systemd.InstalledCommand, b.duplicates())
}

func (b *systemdBackend) plan(op string) (packaging.Plan, error) {
	switch op {
	case "install":
		return b.m.InstallPlan()
	case "uninstall":
		return b.m.UninstallPlan(), nil
	case "start":
		return b.m.StartPlan(), nil
	case "restart":
		return b.m.RestartPlan(), nil
	}
	return b.m.StopPlan(), nil
}

func (b *systemdBackend) do(_ context.Context, op string) error {
	switch op {
	case "install":
		return b.m.Install()
	case "uninstall":
		b.absent = !exists(b.m.UnitPath())
		return b.m.Uninstall()
	case "start":
		return b.m.Start()
	case "restart":
		return b.m.Restart()
	}
	b.absent = !exists(b.m.UnitPath())
	return b.m.Stop()
}

func (b *systemdBackend) summary(op string) string {
	name := b.m.Unit.FileName()
	switch op {
	case "install":
		return fmt.Sprintf("Installed %s: %s runs now and at every login. Logs: journalctl --user -u %s", name, b.what, b.m.Unit.Name)
	case "uninstall":
		if b.absent {
			return fmt.Sprintf("%s was not installed (no %s).", name, b.m.UnitPath())
		}
		return fmt.Sprintf("Uninstalled %s.", name)
	case "start":
		return "Started " + name + ". novactl service status shows what systemd says."
	case "restart":
		return "Restarted " + name + ": " + b.what + " runs with config.yaml as it is now. novactl service status shows what systemd says."
	}
	if b.absent {
		return fmt.Sprintf("%s is not installed (no %s): nothing to stop.", name, b.m.UnitPath()) + brewStopHint(b.duplicates())
	}
	return "Stopped " + name + ": " + b.what + " starts again at the next login or with novactl service start."
}

// systemdThen is what systemd does with a job that exits on an invalid
// config.yaml (RestartPreventExitStatus=78, package systemd).
const systemdThen = "systemd leaves it stopped even after the file is fixed"

func (b *systemdBackend) status(context.Context) (any, doctor.ServiceStatus, []string, error) {
	st, err := b.m.Status()
	ds := doctor.ServiceStatus{Manager: "systemd", Installed: st.Installed, Loaded: st.Installed && st.State != "not-installed", Running: st.Running()}
	if err != nil {
		return st, ds, nil, err
	}
	def := inspectDefinition(b.job, st.UnitPath, b.m.Unit.NovaHome, b.m.Unit.Args, systemdThen, systemd.InstalledNovaHome, systemd.InstalledCommand)
	if st.Installed {
		ds.Definition, ds.Outdated = st.UnitPath, def.outdated
		if def.named {
			ds.Home = def.home
		}
	}
	waiting := st.Running() && def.waiting
	// systemd does not say which pid the unit runs, but a novad that
	// holds the home while still starting waits for its ports, so the
	// home is not served, whichever novad that is.
	ports := ""
	if h, ok := homeHolder(def.home); ok && b.job == configwait.JobNovad && st.Running() && h.IsStarting() {
		ports = portsNote(h.PID, def.home, b.m.Home)
	}
	state := st.State
	switch {
	case waiting:
		ds.Running = false
		ds.Detail = "(" + waitingNote + ")"
		state += ", " + waitingNote
	case ports != "":
		ds.Running = false
		ds.Detail = "(" + ports + ")"
		state += ", " + ports
	case st.Installed && !st.Running():
		ds.Detail = "(" + st.State
		if st.Detail != "" {
			ds.Detail += ": " + st.Detail
		}
		if def.missing != "" {
			ds.Detail += "; " + missingNote(def.missing)
		}
		ds.Detail += ")"
	}
	lines := []string{
		fmt.Sprintf("Service %s (systemd --user)", st.Name),
		fmt.Sprintf("  unit:      %s (%s)", st.UnitPath, yesNo(st.Installed, "installed", "missing")),
		fmt.Sprintf("  state:     %s", state),
	}
	if st.Detail != "" {
		lines = append(lines, "  detail:    "+st.Detail)
	}
	if st.Installed && def.outdated != "" {
		lines = append(lines, "  outdated:  "+outdatedNote(def.outdated))
	}
	if st.Installed && def.missing != "" {
		lines = append(lines, "  program:   "+missingNote(def.missing))
	}
	if st.Installed {
		lines = append(lines, duplicateLines(b.what, b.duplicates())...)
	}
	lines = append(lines, "  logs:      journalctl --user -u "+b.m.Unit.Name)
	return st, ds, lines, nil
}

func (b *systemdBackend) duplicates() []packaging.Definition {
	return otherDefinitions(b.m.Home, "linux", b.job)
}
