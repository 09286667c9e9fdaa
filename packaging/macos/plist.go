// Package macos registers novad with launchd as a per-user LaunchAgent. It
// holds the LaunchAgent plist template (launchagent.plist.tmpl), a pure
// renderer for it, and a Launchctl seam over the modern launchctl
// subcommands (bootstrap, bootout, print, kickstart), so everything except
// the real launchctl runner is tested on Linux.
//
// We manage the agent ourselves instead of through kardianos/service's
// darwin backend: that backend uses the legacy `launchctl load/unload`,
// which fails on recent macOS with "Load failed: 5: Input/output error" when
// the job is already loaded, refuses to install over an existing plist, and
// its template has no ThrottleInterval, ProcessType, ExitTimeOut or
// LimitLoadToSessionType (reference/reliability.md §3).
package macos

import (
	"bytes"
	_ "embed"
	"encoding/xml"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"text/template"
	"unicode/utf8"
)

// The template's fixed keys, and why:
//
//   - RunAtLoad true: start novad at login and when the agent is
//     bootstrapped (launchd's and kardianos' default is false).
//   - KeepAlive {SuccessfulExit: false}: restart novad only when it exits
//     unsuccessfully. novad's exit codes (daemon/main.go) decide:
//     0 (clean stop after SIGTERM) stays stopped, so a deliberate stop is
//     not undone behind the operator's back, which KeepAlive true would do;
//     1 (runtime failure), a crash signal, and 75 (port in use, which may
//     free up) are restarted, no sooner than ThrottleInterval.
//     77 (non-loopback config) and 78 (invalid config) would also be
//     retried every 10 s, logging the same error each time, since launchd
//     cannot exempt particular codes (systemd can, see packaging/systemd).
//     So the jobs run with --wait-for-config (packaging.NovadServiceArgs,
//     WatchServiceArgs): they log the error once and wait for config.yaml
//     to be fixed instead of exiting (package configwait).
//     KeepAlive true would behave the same for 77/78 and worse for 0.
//   - ThrottleInterval 10: launchd's minimum runtime before a respawn;
//     values below 10 are not honoured, so say it explicitly.
//   - ProcessType Standard: the man page's default resource limits; a
//     query server a person waits on should not get Background's I/O and
//     CPU throttling, and Interactive is reserved for jobs an app's
//     responsiveness depends on. The source watcher, a bulk indexer
//     nobody waits on, is Background (Job.Background).
//   - ExitTimeOut 30: SIGTERM to SIGKILL budget. novad cancels in-flight
//     searches and shuts down well within it.
//   - LimitLoadToSessionType Aqua: run in the GUI login session, where the
//     user's files and keychain are.
//   - StandardOutPath/StandardErrorPath under ~/Library/Logs/nova (not
//     $HOME, kardianos' user-service default).
//   - Umask 63 (0o077; a plist has no octal): launchd sets the job's
//     umask before it creates those two files (launchd.plist(5)), which
//     it otherwise creates 0644; novad makes them 0600 only once it runs
//     (package logfile), and a reader that opened one meanwhile would
//     keep reading it. Everything novad itself creates is 0600/0700
//     anyway (package paths), so the mask narrows nothing it means to
//     share. An agent installed before this key is not reported outdated
//     (doctor's rule compares the job's arguments): its log folder is
//     0700, which already keeps other users from the files.
//   - EnvironmentVariables: only NOVA_HOME, so novad uses the home the
//     operator installed from. Never a secret: the plist is world-readable.
//
//go:embed launchagent.plist.tmpl
var plistTemplate string

// plistTmpl is plistTemplate parsed, on the first plist rendered.
var plistTmpl = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("launchagent.plist").
		Funcs(template.FuncMap{"xml": xmlEscape}).
		Parse(plistTemplate))
})

// Job is what the LaunchAgent plist says about novad. Every field is
// required except Args.
type Job struct {
	// Label is the launchd label, e.g. dev.nova.novad.
	Label string `json:"label"`
	// Program is the absolute path of the novad binary.
	Program string `json:"program"`
	// Args are novad's arguments after the program name.
	Args []string `json:"args,omitempty"`
	// NovaHome is the absolute runtime home passed as NOVA_HOME.
	NovaHome string `json:"novaHome"`
	// LogDir is the absolute directory of novad's stdout and stderr files,
	// normally LogDir(home).
	LogDir string `json:"logDir"`
	// LogName names the job's log files, <LogName>.out.log and
	// <LogName>.err.log; "" means novad.
	LogName string `json:"logName,omitempty"`
	// Background runs the job with ProcessType Background (I/O and CPU
	// throttled), for bulk work such as the source watcher's syncs.
	Background bool `json:"background,omitempty"`
}

func (j Job) logName() string {
	if j.LogName == "" {
		return "novad"
	}
	return j.LogName
}

// StdoutPath is where launchd sends the job's standard output.
func (j Job) StdoutPath() string { return filepath.Join(j.LogDir, j.logName()+".out.log") }

// StderrPath is where launchd sends the job's standard error: its log.
func (j Job) StderrPath() string { return filepath.Join(j.LogDir, j.logName()+".err.log") }

// ErrInvalidJob is wrapped by every error RenderPlist returns.
var ErrInvalidJob = errors.New("invalid launchd job")

// RenderPlist renders the LaunchAgent plist for j. It is a pure function:
// the same Job always gives the same bytes, and it touches nothing.
func RenderPlist(j Job) ([]byte, error) {
	if err := j.validate(); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	err := plistTmpl().Execute(&b, struct {
		Job
		StdoutPath, StderrPath string
	}{j, j.StdoutPath(), j.StderrPath()})
	if err != nil {
		return nil, fmt.Errorf("render plist: %w", err)
	}
	return b.Bytes(), nil
}

func (j Job) validate() error {
	bad := func(field, msg string) error {
		return fmt.Errorf("%w: %s %s", ErrInvalidJob, field, msg)
	}
	if j.Label == "" || strings.ContainsAny(j.Label, "/ ") {
		return bad("label", fmt.Sprintf("%q must be a non-empty reverse-DNS name", j.Label))
	}
	for _, f := range []struct{ name, path string }{{"program", j.Program}, {"NOVA_HOME", j.NovaHome}, {"log directory", j.LogDir}} {
		if !filepath.IsAbs(f.path) {
			return bad(f.name, fmt.Sprintf("%q must be an absolute path", f.path))
		}
	}
	if strings.ContainsAny(j.LogName, `/\`) || strings.HasPrefix(j.LogName, ".") {
		return bad("log name", fmt.Sprintf("%q must be a plain file name", j.LogName))
	}
	all := append([]string{j.Label, j.Program, j.NovaHome, j.LogDir, j.LogName}, j.Args...)
	for _, s := range all {
		if err := xmlSafe(s); err != nil {
			return bad("value", fmt.Sprintf("%q: %v", s, err))
		}
	}
	return nil
}

// xmlSafe rejects what XML 1.0 cannot carry at all (most control
// characters, invalid UTF-8): xml.EscapeText would silently replace them,
// and a plist naming a different path than asked is worse than an error.
func xmlSafe(s string) error {
	if !utf8.ValidString(s) {
		return errors.New("not valid UTF-8")
	}
	for _, r := range s {
		if r < 0x20 && r != '\t' || r == 0xFFFE || r == 0xFFFF {
			return fmt.Errorf("contains control character %U", r)
		}
	}
	return nil
}

func xmlEscape(s string) (string, error) {
	var b strings.Builder
	if err := xml.EscapeText(&b, []byte(s)); err != nil {
		return "", err
	}
	return b.String(), nil
}
