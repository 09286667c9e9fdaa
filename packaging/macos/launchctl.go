package macos

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Launchctl is the seam over launchctl(1). The real runner (NewLaunchctl)
// exists only on darwin; tests use a fake. Domains look like "gui/501" and
// service targets like "gui/501/dev.nova.novad".
type Launchctl interface {
	// Bootstrap loads the plist into domain; with RunAtLoad that also
	// starts the job.
	Bootstrap(ctx context.Context, domain, plist string) error
	// Bootout unloads target, stopping its process. It returns an error
	// wrapping ErrNotLoaded when launchd does not know target.
	Bootout(ctx context.Context, target string) error
	// Print returns `launchctl print target`, or an error wrapping
	// ErrNotLoaded when launchd does not know target.
	Print(ctx context.Context, target string) (string, error)
	// Kickstart starts target; with kill it first stops a running
	// instance (-k).
	Kickstart(ctx context.Context, target string, kill bool) error
	// PrintDisabled returns `launchctl print-disabled domain`: the
	// services a person or Login Items disabled.
	PrintDisabled(ctx context.Context, domain string) (string, error)
	// Enable clears a "disabled" override for target.
	Enable(ctx context.Context, target string) error
}

// ErrNotLoaded means launchd does not know the service: it was never
// bootstrapped or was booted out. Install and Uninstall treat it as
// "nothing to stop".
var ErrNotLoaded = errors.New("service not loaded")

// ErrNoGUISession means the user's desktop launchd domain, gui/<uid>,
// does not exist: nobody is logged in to this Mac's desktop as the user
// (an ssh session). The LaunchAgents run only in that session
// (LimitLoadToSessionType Aqua).
var ErrNoGUISession = errors.New("no desktop login session")

// ErrUnsupported is returned by the launchctl runner on platforms other
// than macOS.
var ErrUnsupported = errors.New("launchd is only available on macOS")

// The command lines, shared by the darwin runner and dry runs, so what a
// dry run prints is what a real run executes.

// BootstrapArgv is `launchctl bootstrap <domain> <plist>`.
func BootstrapArgv(domain, plist string) []string {
	return []string{"launchctl", "bootstrap", domain, plist}
}

// BootoutArgv is `launchctl bootout <target>`.
func BootoutArgv(target string) []string { return []string{"launchctl", "bootout", target} }

// PrintArgv is `launchctl print <target>`.
func PrintArgv(target string) []string { return []string{"launchctl", "print", target} }

// KickstartArgv is `launchctl kickstart [-k] <target>`.
func KickstartArgv(target string, kill bool) []string {
	if kill {
		return []string{"launchctl", "kickstart", "-k", target}
	}
	return []string{"launchctl", "kickstart", target}
}

// PrintDisabledArgv is `launchctl print-disabled <domain>`.
func PrintDisabledArgv(domain string) []string {
	return []string{"launchctl", "print-disabled", domain}
}

// EnableArgv is `launchctl enable <target>`.
func EnableArgv(target string) []string { return []string{"launchctl", "enable", target} }

// notLoadedOutput reports whether launchctl's exit code and output mean
// "no such service". launchctl has no machine-readable errors, so this is
// the one place that reads its text: print answers 113 "Could not find
// service", bootout answers 3 "No such process" (or 113 on some releases).
func notLoadedOutput(code int, output string) bool {
	switch code {
	case 3, 113:
		return true
	}
	return strings.Contains(output, "Could not find service") || strings.Contains(output, "No such process")
}

// inProgress reports whether err is launchctl's "Operation now in
// progress" (EINPROGRESS, 36): bootout answers it for a job that does not
// exit at once, and launchd goes on stopping the job.
func inProgress(err error) bool {
	var ee *ExitError
	return errors.As(err, &ee) && (ee.Code == 36 || strings.Contains(ee.Output, "Operation now in progress"))
}

// ExitError is a launchctl command that exited non-zero.
type ExitError struct {
	// Argv is the command line that ran.
	Argv []string
	// Code is launchctl's exit status.
	Code int
	// Output is what it printed, stdout and stderr together.
	Output string
}

// Error says which command failed, how, and what launchctl printed.
func (e *ExitError) Error() string {
	out := strings.TrimSpace(e.Output)
	if out == "" {
		return fmt.Sprintf("%s: exit status %d", strings.Join(e.Argv, " "), e.Code)
	}
	return fmt.Sprintf("%s: exit status %d: %s", strings.Join(e.Argv, " "), e.Code, out)
}

// noDomainOutput reports whether launchctl's exit code and output mean
// that the domain itself does not exist: print answers 112 "Could not find
// domain", bootstrap 125 "Domain does not support specified action" for
// gui/<uid> when the user has no desktop login.
func noDomainOutput(code int, output string) bool {
	switch code {
	case 112, 125:
		return true
	}
	return strings.Contains(output, "Could not find domain") || strings.Contains(output, "Domain does not support specified action")
}

// Unwrap lets errors.Is(err, ErrNotLoaded) recognise a missing service,
// and errors.Is(err, ErrNoGUISession) a missing domain.
func (e *ExitError) Unwrap() error {
	if noDomainOutput(e.Code, e.Output) {
		return ErrNoGUISession
	}
	if notLoadedOutput(e.Code, e.Output) {
		return ErrNotLoaded
	}
	return nil
}

// PrintInfo is what ParsePrint reads from `launchctl print <target>`.
type PrintInfo struct {
	// State is launchd's state of the job: "running", "not running",
	// "waiting", ...
	State string `json:"state"`
	// PID is the running process, 0 when none.
	PID int `json:"pid,omitempty"`
	// LastExit is launchd's "last exit code" line, e.g. "78: EX_CONFIG" or
	// "(never exited)".
	LastExit string `json:"lastExit,omitempty"`
	// Path is the plist launchd loaded the job from.
	Path string `json:"path,omitempty"`
	// Program is the executable launchd runs.
	Program string `json:"program,omitempty"`
}

// Running reports whether launchd says the job is running.
func (p PrintInfo) Running() bool { return p.State == "running" }

// ParsePrint reads the top-level "key = value" lines of `launchctl print`
// output. Nested blocks ("arguments = { ... }") are skipped, so a nested
// key such as a child's pid is never mistaken for the job's. The format is
// meant for people and changes between macOS releases; unknown lines are
// ignored.
func ParsePrint(out string) PrintInfo {
	var info PrintInfo
	depth := 0
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasSuffix(line, "{") {
			depth++
			continue
		}
		if line == "}" {
			depth--
			continue
		}
		// depth 1 is inside "gui/501/dev.nova.novad = {".
		if depth != 1 {
			continue
		}
		key, value, ok := strings.Cut(line, " = ")
		if !ok {
			continue
		}
		switch strings.TrimSpace(key) {
		case "state":
			info.State = value
		case "pid":
			info.PID, _ = strconv.Atoi(value)
		case "last exit code":
			info.LastExit = value
		case "path":
			info.Path = value
		case "program":
			info.Program = value
		}
	}
	return info
}

// ParseDisabled reports whether `launchctl print-disabled` output marks
// label disabled. Recent macOS prints `"label" => disabled` (or enabled);
// older releases print `=> true` (disabled) or `=> false`.
func ParseDisabled(out, label string) bool {
	want := `"` + label + `"`
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		key, value, ok := strings.Cut(strings.TrimSpace(sc.Text()), "=>")
		if !ok || strings.TrimSpace(key) != want {
			continue
		}
		switch strings.TrimSpace(value) {
		case "disabled", "true":
			return true
		}
		return false
	}
	return false
}
