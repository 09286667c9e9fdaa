package macos

import (
	"errors"
	"testing"
)

// A `launchctl print gui/501/dev.nova.novad` of a running agent, as macOS
// 14 prints it (abridged; the nested blocks are what matters).
const printRunning = `gui/501/dev.nova.novad = {
	active count = 1
	path = /Users/ada/Library/LaunchAgents/dev.nova.novad.plist
	type = LaunchAgent
	state = running

	program = /Users/ada/bin/novad
	arguments = {
		/Users/ada/bin/novad
	}

	stdout path = /Users/ada/Library/Logs/nova/novad.out.log
	stderr path = /Users/ada/Library/Logs/nova/novad.err.log
	inherited environment = {
		SSH_AUTH_SOCK => /private/tmp/com.apple.launchd.x/Listeners
	}

	default environment = {
		PATH => /usr/bin:/bin:/usr/sbin:/sbin
	}

	environment = {
		NOVA_HOME => /Users/ada/.nova
		XPC_SERVICE_NAME => dev.nova.novad
	}

	domain = gui/501 [100005]
	asid = 100005
	minimum runtime = 10
	exit timeout = 30
	runs = 1
	pid = 4242
	immediate reason = speculative
	forks = 0
	execs = 1
	initialized = 1
	trampolined = 1
	started suspended = 0
	proxy started suspended = 0
	last exit code = (never exited)

	spawn type = daemon (3)
	jetsam priority = 40
	properties = keepalive | runatload | inferred program
}
`

const printStopped = `gui/501/dev.nova.novad = {
	active count = 0
	path = /Users/ada/Library/LaunchAgents/dev.nova.novad.plist
	type = LaunchAgent
	state = not running

	program = /Users/ada/bin/novad
	arguments = {
		/Users/ada/bin/novad
	}
	endpoints = {
		"x" = {
			pid = 99
		}
	}
	runs = 3
	last exit code = 78: EX_CONFIG
}
`

func TestParsePrint(t *testing.T) {
	for _, tc := range []struct {
		name string
		out  string
		want PrintInfo
	}{
		{"running", printRunning, PrintInfo{State: "running", PID: 4242, LastExit: "(never exited)",
			Path: "/Users/ada/Library/LaunchAgents/dev.nova.novad.plist", Program: "/Users/ada/bin/novad"}},
		{"stopped, nested pid ignored", printStopped, PrintInfo{State: "not running", LastExit: "78: EX_CONFIG",
			Path: "/Users/ada/Library/LaunchAgents/dev.nova.novad.plist", Program: "/Users/ada/bin/novad"}},
		{"empty", "", PrintInfo{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ParsePrint(tc.out)
			if got != tc.want {
				t.Errorf("ParsePrint = %+v, want %+v", got, tc.want)
			}
			if got.Running() != (tc.want.State == "running") {
				t.Errorf("Running() = %v", got.Running())
			}
		})
	}
}

func TestParseDisabled(t *testing.T) {
	const modern = `disabled services = {
	"com.apple.ScriptMenuApp" => disabled
	"dev.nova.novad" => disabled
	"dev.nova.novad.other" => enabled
}
login item associations = {
}
`
	const legacy = `disabled services = {
	"dev.nova.novad" => false
	"com.example.x" => true
}
`
	for _, tc := range []struct {
		name, out, label string
		want             bool
	}{
		{"modern disabled", modern, "dev.nova.novad", true},
		{"modern enabled, prefix does not match", modern, "dev.nova.novad.other", false},
		{"legacy false", legacy, "dev.nova.novad", false},
		{"legacy true", legacy, "com.example.x", true},
		{"absent", modern, "dev.nova.absent", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ParseDisabled(tc.out, tc.label); got != tc.want {
				t.Errorf("ParseDisabled(%q) = %v, want %v", tc.label, got, tc.want)
			}
		})
	}
}

func TestExitError_NotLoaded(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  *ExitError
		want bool
	}{
		{"print 113", &ExitError{Code: 113, Output: `Could not find service "dev.nova.novad" in domain for port`}, true},
		{"bootout 3", &ExitError{Code: 3, Output: "Boot-out failed: 3: No such process"}, true},
		{"text only", &ExitError{Code: 1, Output: "Could not find service"}, true},
		{"io error", &ExitError{Code: 5, Output: "Bootstrap failed: 5: Input/output error"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := errors.Is(tc.err, ErrNotLoaded); got != tc.want {
				t.Errorf("errors.Is(ErrNotLoaded) = %v, want %v (%v)", got, tc.want, tc.err)
			}
		})
	}
}
