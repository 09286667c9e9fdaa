// Package systemd registers novad as a systemd user service on Linux
// through github.com/kardianos/service (UserService). The unit text comes
// from RenderUnit, a pure function, and is handed to kardianos as its
// SystemdScript, so the file kardianos writes is byte for byte what
// `novactl service install --dry-run` prints. kardianos' built-in unit is
// not used: it says WantedBy=multi-user.target, which does not exist in
// the user manager, so the unit would never start at login, and it
// restarts after 120 s on every exit.
package systemd

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// Unit is what the unit file says about one of Nova's jobs: novad, or the
// source watcher (novactl index watch). Every field is required except
// Args.
type Unit struct {
	// Name is the service name without ".service", e.g. dev.nova.novad.
	Name string `json:"name"`
	// Description is the unit's one-line description.
	Description string `json:"description"`
	// Program is the absolute path of the binary (novad, or novactl for
	// the watcher).
	Program string `json:"program"`
	// Args are the arguments after the program name.
	Args []string `json:"args,omitempty"`
	// NovaHome is the absolute runtime home passed as NOVA_HOME.
	NovaHome string `json:"novaHome"`
}

// FileName is the unit's file name, <name>.service.
func (u Unit) FileName() string { return u.Name + ".service" }

// UserUnitDir is where kardianos/service (and so systemd --user) keeps
// user units under home: ~/.config/systemd/user.
func UserUnitDir(home string) string { return filepath.Join(home, ".config", "systemd", "user") }

// ErrInvalidUnit is wrapped by every error RenderUnit returns.
var ErrInvalidUnit = errors.New("invalid systemd unit")

// RenderUnit renders the user unit for u. It is a pure function.
//
// Restart policy, given novad's exit codes (daemon/main.go): 0 is a clean
// stop and stays stopped; 1, a crash signal and 75 (port in use, which may
// free up) restart after 10 s; 77 (non-loopback config) and 78 (invalid
// config) cannot improve by retrying, so RestartPreventExitStatus keeps
// systemd from looping on them (launchd has no such setting). The jobs
// run with --wait-for-config (packaging.NovadServiceArgs,
// WatchServiceArgs), so they do not exit 77/78 but wait for config.yaml to
// be fixed and start then, which an exit that is never restarted could
// not; the setting stays for a unit whose command line lacks the flag.
// TimeoutStopSec matches launchd's ExitTimeOut: novad cancels in-flight
// searches and stops well within 30 s. Logs go to the journal:
// journalctl --user -u <name>.
//
// No UMask= (launchd's plist sets Umask for its log files): with the
// output in the journal systemd creates no file for the job, and every
// file the jobs create under NOVA_HOME is given its mode explicitly
// (package paths), so a mask would narrow nothing.
func RenderUnit(u Unit) ([]byte, error) {
	if err := u.validate(); err != nil {
		return nil, err
	}
	exec := make([]string, 0, 1+len(u.Args))
	for _, a := range append([]string{u.Program}, u.Args...) {
		exec = append(exec, execArg(a))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s, as a systemd user service.\n", strings.ReplaceAll(u.Description, "\n", " "))
	b.WriteString("# Written by novactl service install; novactl service uninstall removes it.\n")
	b.WriteString("[Unit]\n")
	fmt.Fprintf(&b, "Description=%s\n", specifiers(u.Description))
	b.WriteString("\n[Service]\n")
	b.WriteString("Type=simple\n")
	fmt.Fprintf(&b, "ExecStart=%s\n", strings.Join(exec, " "))
	fmt.Fprintf(&b, "Environment=%s\n", quoted("NOVA_HOME="+u.NovaHome, false))
	b.WriteString("Restart=on-failure\n")
	b.WriteString("RestartSec=10\n")
	b.WriteString("RestartPreventExitStatus=77 78\n")
	b.WriteString("TimeoutStopSec=30\n")
	b.WriteString("\n[Install]\n")
	b.WriteString("WantedBy=default.target\n")
	return []byte(b.String()), nil
}

func (u Unit) validate() error {
	bad := func(field, msg string) error {
		return fmt.Errorf("%w: %s %s", ErrInvalidUnit, field, msg)
	}
	if u.Name == "" || strings.ContainsAny(u.Name, "/ \\") {
		return bad("name", fmt.Sprintf("%q must be a plain service name", u.Name))
	}
	if !filepath.IsAbs(u.Program) {
		return bad("program", fmt.Sprintf("%q must be an absolute path", u.Program))
	}
	if !filepath.IsAbs(u.NovaHome) {
		return bad("NOVA_HOME", fmt.Sprintf("%q must be an absolute path", u.NovaHome))
	}
	for _, s := range append([]string{u.Name, u.Description, u.Program, u.NovaHome}, u.Args...) {
		if !utf8.ValidString(s) {
			return bad("value", fmt.Sprintf("%q is not valid UTF-8", s))
		}
		if strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			// A newline would start a new directive in the unit file.
			return bad("value", fmt.Sprintf("%q contains a control character", s))
		}
		if strings.Contains(s, "{{") {
			// kardianos/service renders SystemdScript with its own
			// template engine, which has no escape for "{{".
			return bad("value", fmt.Sprintf("%q contains \"{{\"", s))
		}
	}
	return nil
}

// specifiers escapes systemd's %-specifiers, which are expanded in
// almost every setting.
func specifiers(s string) string { return strings.ReplaceAll(s, "%", "%%") }

// execArg quotes one ExecStart word when it needs it. ExecStart also
// expands $VAR, so a literal $ is written $$.
func execArg(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\"'\\$%;") {
		return s
	}
	return quoted(s, true)
}

// quoted double-quotes s with C-style escapes, as systemd parses quoted
// words; dollar doubles $ for settings that expand variables.
func quoted(s string, dollar bool) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	s = specifiers(r.Replace(s))
	if dollar {
		s = strings.ReplaceAll(s, "$", "$$")
	}
	return `"` + s + `"`
}
