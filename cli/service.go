package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/kardianos/service"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/doctor"
	"github.com/nova-recall/nova/lockfile"
	"github.com/nova-recall/nova/logfile"
	"github.com/nova-recall/nova/packaging"
	"github.com/nova-recall/nova/packaging/configwait"
	"github.com/nova-recall/nova/packaging/macos"
	"github.com/nova-recall/nova/packaging/systemd"
	"github.com/nova-recall/nova/paths"
	"github.com/nova-recall/nova/shellword"
)

const serviceSynopsis = "novactl service <install|uninstall|start|stop|restart|status> [--dry-run] [--json] [--novad PATH]"

const serviceHelp = `Registers Nova's two jobs with your login session's service manager, so that
they run at login and are restarted after a failure: novad, the read-only
daemon, and the source watcher (novactl index watch), which keeps memory
fresh. Every operation covers both.

  install    write both service definitions and start both jobs. Safe to
             repeat: it replaces the old definitions and restarts the jobs
             (after an upgrade, say). Refuses an invalid or non-loopback config.yaml.
  uninstall  stop novad and the watcher, remove their service definitions
             and the internal token file of the NOVA_HOME the installed
             novad serves (its definition records it; this shell's
             NOVA_HOME does not matter). Logs and memory are kept.
  start      start novad and the watcher (loading them first if needed)
  stop       stop them until the next login or "novactl service start"
  restart    stop novad and the watcher and start them again, so they read
             config.yaml afresh (after you change a port, a source or the
             embedder); a stopped job is just started. Refuses an invalid
             or non-loopback config.yaml (of the NOVA_HOME the installed
             jobs serve) before stopping anything. A new
             novad binary or another NOVA_HOME needs install, not restart.
  status     show what the service manager says about novad and the watcher

macOS: per-user LaunchAgents, ~/Library/LaunchAgents/dev.nova.novad.plist
and dev.nova.watch.plist, driven with launchctl bootstrap/bootout/print/
kickstart in gui/$UID. Logs: ~/Library/Logs/nova/novad.err.log and
watcher.err.log. macOS may show "Background Items Added"; if you turn a job
off in Login Items, status says "disabled".

Linux: systemd user units, ~/.config/systemd/user/dev.nova.novad.service and
dev.nova.watch.service, installed through kardianos/service. Logs:
journalctl --user -u dev.nova.novad (or -u dev.nova.watch). To keep them
running while you are logged out: loginctl enable-linger.

novad is taken from the directory of novactl unless --novad names it; the
watcher runs this novactl ("novactl index watch"). Both run with NOVA_HOME
set to this novactl's runtime home, and with --wait-for-config: if
config.yaml becomes invalid, a job that (re)starts logs the error once and
waits for the file to be fixed, then starts by itself; status says it waits,
and names a definition an older novactl wrote without the flag.
Homebrew's jobs (brew services start nova, nova-watch) run the same
programs: install refuses while one exists, since a job registered twice
runs twice for one NOVA_HOME (the second novad only stands by until the
first stops), and status names the other definition and how to remove it.
--dry-run prints every file (in full) and every command that would be written
and run, and changes nothing; with --json, as one document on stdout:
{"operation","manager","ok","dryRun":true,"plans":[{"operation","manager",
"steps":[{"kind","path","mode","content","argv","when"}]}],"notes","novaHome"},
one plan per job, and the notes the text form prints on stderr. It refuses what the real run refuses before
changing anything (running as root; on Linux, no systemd, or no systemd user
manager in this session, as under su or sudo -u), with the same message and
exit status.

Exit status: 0 on success; 1 on failure, and for status when novad or the
watcher is not running under the service manager, waits for a valid
config.yaml, or (novad) stands by for another novad or waits for a port
another program holds (another user's novad on this computer, say); 2 for a
bad command line.`

// serviceDeps are the process facts novactl service depends on, injected
// so tests never touch the real launchd, systemd or ~/Library.
type serviceDeps struct {
	goos string
	uid  int
	// self is how this novactl was started (os.Args[0], os.Executable):
	// the watcher's job runs it, and novad is looked for beside it.
	self      mcpDeps
	launchctl macos.Launchctl
	// newController builds the kardianos/service controller; nil means
	// kardianos itself.
	newController func(*service.Config) (systemd.Controller, error)
	// detect names the service manager kardianos/service detects on
	// Linux; nil means service.Platform.
	detect func() string
	// dial connects to a loopback address, to learn whether another
	// program holds a port of the home; nil means a net.Dialer.
	dial func(ctx context.Context, addr string) (net.Conn, error)
}

func defaultServiceDeps() serviceDeps {
	return serviceDeps{
		goos:      runtime.GOOS,
		uid:       os.Getuid(),
		self:      defaultMCPDeps(),
		launchctl: macos.NewLaunchctl(),
	}
}

func serviceVerbs() []verb {
	return []verb{
		{"install", "Write the service definitions and start novad and the source watcher"},
		{"uninstall", "Stop novad and the watcher and remove their service definitions"},
		{"start", "Start novad and the source watcher"},
		{"stop", "Stop novad and the watcher until the next login"},
		{"restart", "Restart novad and the watcher so they read config.yaml again"},
		{"status", "Show what the service manager says about novad and the watcher"},
	}
}

func runService(ctx context.Context, inv *Invocation, args []string) int {
	return runServiceWith(ctx, inv, args, defaultServiceDeps())
}

func runServiceWith(ctx context.Context, inv *Invocation, args []string, deps serviceDeps) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "-help" || args[0] == "--help" {
		if len(args) == 0 {
			return missingVerb(inv, "novactl service", serviceVerbs())
		}
		printUsage(inv.Stdout, serviceSynopsis, serviceHelp)
		return ExitOK
	}
	op, rest := args[0], args[1:]
	if !isVerb(serviceVerbs(), op) {
		return unknownVerb(inv, "novactl service", op, serviceVerbs())
	}
	fs := newFlags(inv, "novactl service "+op, serviceSynopsis, serviceHelp)
	dryRun := fs.Bool("dry-run", false, "print the files and commands, change nothing")
	jsonOut := fs.Bool("json", false, "print JSON (the plan with --dry-run, the status for status)")
	novad := fs.String("novad", "", "install: path of the novad binary (default: beside novactl)")
	pos, code := parseArgs(inv, fs, rest)
	if code >= 0 {
		return code
	}
	if len(pos) > 0 {
		return usageError(inv, fs, fmt.Sprintf("unexpected argument %q", pos[0]))
	}
	if *novad != "" && op != "install" {
		return usageError(inv, fs, "--novad applies to install only")
	}
	// notes are what does not stop op but a person should know (a port
	// another program holds): on stderr, or with --json in the document,
	// a dry run's too, so that stdout is one JSON document and stderr quiet.
	var notes []string
	fail := func(err error) int { return serviceError(inv, *jsonOut, op, err, notes) }

	// Dry runs refuse exactly what the real run refuses (here, and in
	// each backend's preflight below), in the same order and words, so a
	// dry run that passes is one the real run does not refuse.
	if deps.uid == 0 && op != "status" {
		// The agent belongs in a person's login session (gui/<uid>, the
		// user's systemd manager); under sudo it would land in root's.
		return fail(errors.New("refusing to run as root: novad is a per-user service; run novactl service as the user it is for, without sudo"))
	}
	if op == "install" || op == "start" || op == "restart" {
		// Install registers this shell's home; start and restart run the
		// jobs on the home their definition records, whose config.yaml is
		// the one novad will read.
		served := ""
		if op != "install" {
			served, _, _ = installedNovaHome(inv, deps.goos)
		}
		cfg, note, err := checkServiceConfig(inv, served)
		if err != nil {
			return fail(err)
		}
		for _, n := range []string{note, portsTaken(ctx, cfg, deps.dial)} {
			if n == "" {
				continue
			}
			if *jsonOut {
				notes = append(notes, n)
			} else {
				fmt.Fprintf(inv.Stderr, "novactl service %s: note: %s\n", op, n)
			}
		}
	}
	jobs := []serviceJob{novadJob(""), watcherJob("")}
	if op == "install" {
		if err := refuseSecondJob(paths.UserHome(inv.Environ), deps.goos); err != nil {
			return fail(err)
		}
		p, err := findNovad(*novad, inv.Environ, deps.self)
		if err != nil {
			return fail(err)
		}
		self, err := findNovactl(inv.Environ, deps.self)
		if err != nil {
			return fail(err)
		}
		jobs = []serviceJob{novadJob(p), watcherJob(self)}
	}
	// Uninstall removes the token of the home the installed novad serves,
	// which its definition records, never simply this shell's.
	var homeNote string
	switch op {
	case "uninstall":
		jobs[0].token, homeNote = installedToken(inv, deps.goos)
	case "install":
		homeNote = movedHome(inv, deps.goos)
	}
	var steps []string
	logStep := func(s string) {
		steps = append(steps, s)
		if !*jsonOut {
			fmt.Fprintln(inv.Stdout, s)
		}
	}
	var backends []serviceBackend
	for _, j := range jobs {
		b, err := newServiceBackend(inv, deps, j, logStep)
		if err != nil {
			return fail(err)
		}
		backends = append(backends, b)
	}

	if op == "status" {
		if deps.uid == 0 {
			// Status is allowed as root, but what it then reads is
			// root's, which a person reaching for sudo rarely means.
			note := fmt.Sprintf("running as root, this shows root's jobs (root's service manager, and the definitions under %s), not yours; run it without sudo to see yours", paths.UserHome(inv.Environ))
			if *jsonOut {
				notes = append(notes, note)
			} else {
				fmt.Fprintf(inv.Stderr, "novactl service status: note: %s\n", note)
			}
		}
		return printServiceStatus(ctx, inv, backends, *jsonOut, notes)
	}
	for _, b := range backends {
		if err := b.preflight(op); err != nil {
			return fail(err)
		}
	}
	// Uninstall and stop take the watcher down first: it is the writer,
	// and novad keeps serving what it last promoted. Dry runs show the
	// jobs in this order too.
	order := backends
	if op == "uninstall" || op == "stop" {
		order = []serviceBackend{backends[1], backends[0]}
	}
	if *dryRun {
		var plans []packaging.Plan
		for _, b := range order {
			plan, err := b.plan(op)
			if err != nil {
				return fail(err)
			}
			plans = append(plans, plan)
		}
		if *jsonOut {
			if homeNote != "" {
				notes = append(notes, homeNote)
			}
			printJSON(inv.Stdout, serviceDocument(op, backends[0].manager(), jobs[0].token.Home, notes,
				map[string]any{"dryRun": true, "plans": plans}))
			return ExitOK
		}
		for i, plan := range plans {
			if i > 0 {
				fmt.Fprintln(inv.Stdout)
			}
			plan.Print(inv.Stdout)
		}
		if homeNote != "" {
			fmt.Fprintln(inv.Stdout, "\n"+homeNote+".")
		}
		return ExitOK
	}
	if homeNote != "" {
		logStep(homeNote)
	}
	for _, b := range order {
		if err := b.do(ctx, op); err != nil {
			return fail(err)
		}
	}
	if *jsonOut {
		printJSON(inv.Stdout, serviceDocument(op, backends[0].manager(), jobs[0].token.Home, notes, map[string]any{"steps": steps}))
		return ExitOK
	}
	for _, b := range backends {
		fmt.Fprintln(inv.Stdout, b.summary(op))
	}
	if op == "install" {
		fmt.Fprintln(inv.Stdout, "Check it with: novactl service status; novactl doctor")
	}
	return ExitOK
}

// serviceDocument is the --json document of an operation that succeeded,
// real or dry: {"operation","manager","ok":true} with the notes when there
// are any, novaHome (uninstall: the home whose token goes) when known, and
// what the run adds: "steps" for a real run, "dryRun" and "plans" (one
// packaging.Plan per job, in the order they would run) for a dry one.
func serviceDocument(op, manager, novaHome string, notes []string, extra map[string]any) map[string]any {
	out := map[string]any{"operation": op, "manager": manager, "ok": true}
	if len(notes) > 0 {
		out["notes"] = notes
	}
	if novaHome != "" {
		out["novaHome"] = novaHome
	}
	for k, v := range extra {
		out[k] = v
	}
	return out
}

// serviceJob is one of the two jobs novactl service manages.
type serviceJob struct {
	// label is the launchd label and systemd unit name.
	label string
	// name is the job's name for configwait: configwait.JobNovad or
	// configwait.JobWatcher.
	name string
	// what names the job in messages.
	what        string
	program     string
	args        []string
	description string
	// logName names the launchd log files.
	logName string
	// token is the internal token uninstalling the job removes: set for
	// novad's job, to the token of the home its installed definition names.
	token packaging.Token
}

// novadJob is the daemon's job; program may be "" except for install.
func novadJob(program string) serviceJob {
	return serviceJob{label: packaging.ServiceName, name: configwait.JobNovad, what: "novad", program: program, args: packaging.NovadServiceArgs(), logName: "novad",
		description: "Nova recall daemon: read-only memory for AI agents, on loopback"}
}

// watcherJob is the source watcher's job: novactl index watch.
func watcherJob(novactl string) serviceJob {
	return serviceJob{label: packaging.WatchServiceName, name: configwait.JobWatcher, what: "the source watcher", program: novactl, args: packaging.WatchServiceArgs(),
		logName: "watcher", description: "Nova source watcher: keeps memory fresh (novactl index watch)"}
}

// findNovactl returns the path of the running novactl for the watcher's
// job: the one it was started by (a Homebrew bin/novactl link), which an
// upgrade keeps, rather than the versioned file it resolves to, which an
// upgrade removes.
func findNovactl(environ []string, self mcpDeps) (string, error) {
	p, err := novactlPath(environ, self)
	if err != nil {
		return "", fmt.Errorf("find novactl's own path: %w", err)
	}
	return filepath.Abs(p)
}

// checkServiceConfig refuses to register a novad that would refuse to
// start: under a service manager nobody reads its log, and the job would
// only wait (--wait-for-config) for a fix nobody knows is needed; here the
// person is present to make it.
// The check reads the configuration as the service will: with NOVA_HOME
// alone of this shell's NOVA_ variables, since the job carries no other,
// and with NOVA_HOME set to served when that is not "": the home an
// installed definition gives its job, which need not be this shell's.
// It returns the configuration it read.
func checkServiceConfig(inv *Invocation, served string) (cfg config.Config, note string, err error) {
	env, dropped := serviceEnviron(inv.Environ)
	if served != "" {
		env = append(env, paths.EnvHome+"="+served)
	}
	file, check := "config.yaml", "novactl config check"
	if h, herr := paths.Resolve(env); herr == nil {
		file = h.Config()
		if shell, serr := paths.Resolve(inv.Environ); serr == nil && shell.Root != h.Root {
			// This shell's config check would read another home's file.
			check = paths.EnvHome + "=" + shellword.Quote(h.Root) + " " + check
		}
	}
	cfg, err = config.Load(env)
	unseen := ""
	if len(dropped) > 0 {
		unseen = fmt.Sprintf(" (the service does not get this shell's %s: put the setting in config.yaml)", strings.Join(dropped, ", "))
	}
	var nl *config.NonLoopbackError
	switch {
	case errors.As(err, &nl):
		return cfg, "", fmt.Errorf("refusing: server.host %q in %s is not loopback (rag-server-non-loopback), and novad would refuse to start; set it to 127.0.0.1%s", nl.Host, file, unseen)
	case err != nil:
		return cfg, "", fmt.Errorf("refusing: the configuration is invalid (%s), and novad would refuse to start%s (%s lists every field):\n%s", file, unseen, check, indent(err.Error()))
	case len(dropped) > 0:
		// The service is valid without them, but runs otherwise than this
		// shell would (other ports, another embedder).
		return cfg, fmt.Sprintf("the service does not get this shell's %s; it runs with config.yaml's settings (put them there to keep them)", strings.Join(dropped, ", ")), nil
	}
	return cfg, "", nil
}

// portsTaken is a note when a port of cfg is held by another program, or
// by another home's novad (another user's on this Mac, where two novads
// with the default ports meet): the job's novad would start and then wait
// for the port, serving nothing. The jobs are still registered, since
// novad serves as soon as the port is free. A novad that serves cfg's home
// holds its ports itself, and is not asked about.
func portsTaken(ctx context.Context, cfg config.Config, dial func(ctx context.Context, addr string) (net.Conn, error)) string {
	if cfg.Home.Root == "" {
		return ""
	}
	if h, ok := homeHolder(cfg.Home.Root); ok && !h.IsStarting() {
		return ""
	}
	taken, _ := doctor.PortsInUse(ctx, cfg, time.Second, dial)
	if len(taken) == 0 {
		return ""
	}
	is, it := "is", "it is"
	if len(taken) > 1 {
		is, it = "are", "they are"
	}
	return fmt.Sprintf("%s %s in use by another program or another home's novad (another user's on this computer, say): novad will wait and serve nothing until %s free; to run beside it, give this home other ports (server.port and facade.port in %s) and run novactl service restart", strings.Join(taken, " and "), is, it, cfg.Home.Config())
}

// serviceEnviron is environ without the NOVA_ variables a service job does
// not carry (all but NOVA_HOME), and the names of those it dropped.
func serviceEnviron(environ []string) (env, dropped []string) {
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "NOVA_") && name != "NOVA_HOME" {
			dropped = append(dropped, name)
			continue
		}
		env = append(env, kv)
	}
	return env, dropped
}

// findNovad returns the absolute path of the novad binary: flagPath when
// given, else novad beside novactl as it was started or beside a link
// that path resolves through, the first found (Homebrew links both into
// one bin/, and the link survives an upgrade; a ~/bin/novactl linked to
// Homebrew's finds Homebrew's bin/novad, not the keg's, which the next
// upgrade removes), else beside the file novactl resolves to.
func findNovad(flagPath string, environ []string, self mcpDeps) (string, error) {
	p := flagPath
	if p == "" {
		exe, err := self.executable()
		if err != nil {
			return "", fmt.Errorf("find novactl's own path: %w; pass --novad PATH", err)
		}
		starts := []string{exe}
		if invoked, err := novactlPath(environ, self); err == nil {
			starts = []string{invoked, exe}
		}
		for _, start := range starts {
			if p = novadAlongLinks(start); p != "" {
				break
			}
		}
		if p == "" {
			// For the error below: where a novad was looked for last.
			if real, err := filepath.EvalSymlinks(exe); err == nil {
				exe = real
			}
			p = filepath.Join(filepath.Dir(exe), "novad")
		}
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(abs)
	switch {
	case err != nil && flagPath == "":
		return "", fmt.Errorf("novad is not beside novactl (%s); build both (make build) or pass --novad PATH", abs)
	case err != nil:
		return "", fmt.Errorf("--novad: %w", err)
	case !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0:
		return "", fmt.Errorf("%s is not an executable file", abs)
	}
	return abs, nil
}

// maxLinks bounds a chain of links novadAlongLinks follows, as the
// kernel bounds it (ELOOP).
const maxLinks = 40

// novadAlongLinks returns the executable novad beside path, or else beside
// each file path links to in turn, one link at a time, so the least
// versioned name is found first; "" when there is none.
func novadAlongLinks(path string) string {
	for range maxLinks {
		if p := filepath.Join(filepath.Dir(path), "novad"); isExecutable(p) {
			return p
		}
		target, err := os.Readlink(path)
		if err != nil {
			return ""
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(path), target)
		}
		path = target
	}
	return ""
}

// installedNovaHome returns the NOVA_HOME novad's installed definition
// (def) gives it: the home the installed novad serves, which need not be
// this shell's. def is "" where novactl service has no definitions (goos);
// the error wraps fs.ErrNotExist when none is installed.
func installedNovaHome(inv *Invocation, goos string) (home, def string, err error) {
	user := paths.UserHome(inv.Environ)
	var read func(string) (string, error)
	switch goos {
	case "darwin":
		def, read = filepath.Join(macos.LaunchAgentsDir(user), packaging.ServiceName+".plist"), macos.InstalledNovaHome
	case "linux":
		def, read = filepath.Join(systemd.UserUnitDir(user), packaging.ServiceName+".service"), systemd.InstalledNovaHome
	default:
		return "", "", errors.ErrUnsupported
	}
	home, err = read(def)
	return home, def, err
}

// movedHome tells the person when install moves the service from the
// NOVA_HOME it serves to this shell's; "" when it does not.
func movedHome(inv *Invocation, goos string) string {
	old, def, err := installedNovaHome(inv, goos)
	shell, serr := paths.Resolve(inv.Environ)
	if err != nil || serr != nil || old == shell.Root {
		return ""
	}
	return fmt.Sprintf("The installed novad serves NOVA_HOME %s (as %s says); this install moves it to this shell's NOVA_HOME %s and leaves %s as it is (to go back, run novactl service install with NOVA_HOME=%s)", old, def, shell.Root, old, old)
}

// installedToken returns the internal token uninstall removes: that of
// the NOVA_HOME novad's installed definition gives it, which need not be
// this shell's. note tells the person which home that is, or why no token
// is removed; it is "" where novactl service has no definitions (goos).
func installedToken(inv *Invocation, goos string) (tok packaging.Token, note string) {
	home, def, err := installedNovaHome(inv, goos)
	switch {
	case errors.Is(err, errors.ErrUnsupported):
		return packaging.Token{}, ""
	case errors.Is(err, fs.ErrNotExist):
		return packaging.Token{}, fmt.Sprintf("No novad service is installed (no %s): no internal token is removed", def)
	case err != nil:
		return packaging.Token{}, fmt.Sprintf("Cannot tell which NOVA_HOME the installed novad serves (%v): no internal token is removed", err)
	}
	note = fmt.Sprintf("The installed novad serves NOVA_HOME %s (as %s says): uninstall removes that home's internal token and keeps its configuration and index", home, def)
	if shell, err := paths.Resolve(inv.Environ); err == nil && shell.Root != home {
		note += fmt.Sprintf("; this shell's NOVA_HOME %s is not touched", shell.Root)
	}
	return packaging.HomeToken(home), note
}

// serviceBackend is one platform's service manager behind novactl service.
type serviceBackend interface {
	manager() string
	// preflight returns why op would be refused on this machine before
	// anything is written or run; dry runs run it too.
	preflight(op string) error
	plan(op string) (packaging.Plan, error)
	do(ctx context.Context, op string) error
	// status returns the platform's own status (for --json and the text
	// view) and the doctor summary of it.
	status(ctx context.Context) (detail any, st doctor.ServiceStatus, lines []string, err error)
	summary(op string) string
	// duplicates are the other service definitions (Homebrew's) that run
	// the same job: two jobs for one NOVA_HOME.
	duplicates() []packaging.Definition
}

// newServiceBackend builds the backend of job for deps.goos from inv's
// environment. job.program may be "" for every operation but install.
func newServiceBackend(inv *Invocation, deps serviceDeps, job serviceJob, log func(string)) (serviceBackend, error) {
	home, err := paths.Resolve(inv.Environ)
	if err != nil {
		return nil, err
	}
	user := paths.UserHome(inv.Environ)
	if user == "" || !filepath.IsAbs(user) {
		return nil, fmt.Errorf("HOME must be an absolute path (got %q)", user)
	}
	switch deps.goos {
	case "darwin":
		j := macos.Job{
			Label:    job.label,
			Program:  job.program,
			NovaHome: home.Root,
			LogDir:   macos.LogDir(user),
			LogName:  job.logName,
			// The watcher's syncs are bulk indexing: throttled, so
			// they never compete with what the person is doing.
			Background: job.label == packaging.WatchServiceName,
		}
		// launchd neither rotates the file it sends stderr to nor makes
		// it private: the job does both when told which file it is
		// (package logfile). systemd's journal needs neither.
		j.Args = append(slices.Clone(job.args), "--"+logfile.Flag, j.StderrPath())
		return &launchdBackend{what: job.what, job: job.name, a: &macos.Agent{
			Job:       j,
			Home:      user,
			UID:       deps.uid,
			Token:     job.token,
			Launchctl: deps.launchctl,
			Log:       log,
		}}, nil
	case "linux":
		return &systemdBackend{what: job.what, job: job.name, m: &systemd.Manager{
			Unit: systemd.Unit{
				Name:        job.label,
				Description: job.description,
				Program:     job.program,
				Args:        job.args,
				NovaHome:    home.Root,
			},
			Home:    user,
			Token:   job.token,
			New:     deps.newController,
			Detect:  deps.detect,
			Environ: inv.Environ,
			Log:     log,
		}}, nil
	}
	return nil, fmt.Errorf("novactl service supports macOS (launchd) and Linux (systemd), not %s; run novad under your own supervisor", deps.goos)
}

// startable refuses start and restart of a job novactl service install
// did not install (no def), before anything is asked or run, so dry runs
// refuse it too; where Homebrew runs the job instead (dups), brew services
// is what controls it, and install would refuse a second definition. It
// also refuses a job whose installed definition (def, read by
// readCommand) runs a program that is gone: the binaries moved, or an old
// version was removed. The service manager would report the job started
// and then fail to run it (launchd: last exit code 78, systemd: status
// 203/EXEC), so "Started" would be untrue; install from where the
// binaries are now is the fix. An unreadable definition is left to the
// operation.
func startable(op, name, def string, readCommand func(string) ([]string, error), dups []packaging.Definition) error {
	if op != "start" && op != "restart" {
		return nil
	}
	argv, err := readCommand(def)
	switch {
	case errors.Is(err, fs.ErrNotExist) && len(dups) > 0 && dups[0].Formula != "":
		return fmt.Errorf("%s is not installed (no %s): Homebrew runs %s as a service (%s); use brew services %s %s", name, def, dups[0].Job, dups[0].Path, op, dups[0].Formula)
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s is not installed (no %s); run novactl service install", name, def)
	case err != nil || isExecutable(argv[0]):
		return nil
	}
	return fmt.Errorf("refusing to %s %s (%s): %s", op, name, def, missingNote(argv[0]))
}

// brewStopHint is what stop adds for a job it did not install when
// Homebrew runs it instead (dups): that one keeps running.
func brewStopHint(dups []packaging.Definition) string {
	if len(dups) == 0 {
		return ""
	}
	return fmt.Sprintf(" Homebrew runs %s (%s): brew services stop %s stops it.", dups[0].Job, dups[0].Path, dups[0].Formula)
}

// refuseSecondJob refuses an install that would register a job Homebrew
// already runs (brew services): two novads for one NOVA_HOME, of which one
// only stands by, and two logs, two restart policies and two upgrade paths
// for one service.
func refuseSecondJob(user, goos string) error {
	for _, job := range []string{configwait.JobNovad, configwait.JobWatcher} {
		if d := otherDefinitions(user, goos, job); len(d) > 0 {
			return fmt.Errorf("refusing: Homebrew already runs %s as a service (%s), and a second job for it would only stand by; keep Homebrew's (brew services restart, brew upgrade), or run %s first and then novactl service install", job, d[0].Path, d[0].Remove)
		}
	}
	return nil
}

// otherDefinitions are the definitions under the user's home that run job
// (configwait.JobNovad or JobWatcher, packaging.Definition's Job names)
// and that novactl service install did not write: Homebrew's.
func otherDefinitions(user, goos, job string) []packaging.Definition {
	var out []packaging.Definition
	for _, d := range packaging.Definitions(user, goos) {
		if d.Job == job && d.Owner != packaging.OwnerNovactl {
			out = append(out, d)
		}
	}
	return out
}

// duplicateLines tell the person that another service definition runs
// the same job (what), and how to keep only one.
func duplicateLines(what string, defs []packaging.Definition) []string {
	var lines []string
	for _, d := range defs {
		lines = append(lines, fmt.Sprintf("  also:      %s (%s) runs %s too: two jobs for one NOVA_HOME, one of which only stands by or fails; keep one: %s, or novactl service uninstall", d.Path, d.Owner, what, d.Remove))
	}
	return lines
}

// standbyNote is what status says about a novad job that runs while
// another novad (pid) serves its home.
func standbyNote(pid int, home string) string {
	return fmt.Sprintf("standing by: novad pid %d serves NOVA_HOME %s, and this one serves when it stops", pid, home)
}

// homeHolder returns what home's novad lock says about the novad that
// holds it, and whether one does. It only reads.
func homeHolder(home string) (lockfile.Holder, bool) {
	lock := paths.Home{Root: home}.DaemonLock()
	if !lockfile.Held(lock) {
		return lockfile.Holder{}, false
	}
	return lockfile.ReadHolder(lock), true
}

// portsNote is what status says about a novad (pid) that holds home but
// has not bound its ports (lockfile.Starting): another program, or
// another home's novad (another user's on this Mac, where two novads with
// the default ports meet), holds one, and novad waits for it (daemon,
// Server.bind), serving nothing meanwhile. user is the user's home, for
// reading home's config.yaml as the job does.
func portsNote(pid int, home, user string) string {
	ports := "its ports"
	if cfg, err := config.Load([]string{"HOME=" + user, paths.EnvHome + "=" + home}); err == nil {
		host := config.BindHost(cfg.Server.Host)
		ports = fmt.Sprintf("its ports %s and %s", net.JoinHostPort(host, strconv.Itoa(cfg.Server.Port)), net.JoinHostPort(host, strconv.Itoa(cfg.Facade.Port)))
	}
	return fmt.Sprintf("novad pid %d holds NOVA_HOME %s but has not bound %s: another program or another home's novad (another user's on this computer, say) holds one, and it serves nothing until that is free (novactl doctor says which); or give this home other ports (server.port and facade.port in config.yaml) and run novactl service restart", pid, home, ports)
}

// largeLog is the size from which status suggests clearing a launchd log:
// launchd appends to it for ever and nothing rotates it.
const largeLog = 64 << 20

// logSize is path with its size, and how to clear it once it is large.
func logSize(path string) string {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return path
	}
	s := fmt.Sprintf("%s (%s)", path, humanize.IBytes(uint64(fi.Size())))
	if fi.Size() >= largeLog {
		s += "; nothing rotates it: novactl service stop, remove it, novactl service start"
	}
	return s
}

// missingNote is what status says about a definition whose program is
// gone.
func missingNote(program string) string {
	return program + " is missing or not executable (moved or removed?), so the job cannot start; run novactl service install from where novactl and novad are now"
}

// waitingNote is what status says about a job that runs but waits for a
// valid configuration (package configwait).
const waitingNote = "waiting for a valid config.yaml (novactl config check lists what is wrong)"

// outdatedWhy says what a definition written without flag costs, for
// the flags service definitions pass; then is what the job's manager does
// when it exits on an invalid config.
func outdatedWhy(flag, then string) string {
	switch flag {
	case "--" + configwait.Flag:
		return "so on an invalid config.yaml the job exits and " + then
	case "--" + logfile.Flag:
		return "so nothing rotates its log or keeps it private"
	}
	return ""
}

// argGroups splits service arguments into what a reader compares: a flag
// with the value after it (or alone when the next word is a flag too), or
// a word that is no flag's value ("index", "watch"). Keyed by the flag, so
// a value that changed is one difference, not two.
func argGroups(args []string) (keys []string, groups map[string][]string) {
	groups = map[string][]string{}
	for i := 0; i < len(args); i++ {
		g := []string{args[i]}
		if strings.HasPrefix(args[i], "-") && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
			g = append(g, args[i+1])
			i++
		}
		if _, ok := groups[g[0]]; !ok {
			keys = append(keys, g[0])
		}
		groups[g[0]] = g
	}
	return keys, groups
}

// outdatedArgs names how installed, the arguments an installed definition
// gives its job, differs from want, what this novactl writes (the backend's
// packaging.NovadServiceArgs or WatchServiceArgs, with --log-file where
// launchd needs it), and what each missing flag costs (outdatedWhy). The
// order of the arguments does not matter. "" when nothing differs.
func outdatedArgs(installed, want []string, then string) string {
	haveKeys, have := argGroups(installed)
	wantKeys, wanted := argGroups(want)
	var diffs []string
	for _, k := range wantKeys {
		h, ok := have[k]
		w := packaging.CommandLine(wanted[k])
		switch {
		case !ok:
			d := "without " + w
			if why := outdatedWhy(k, then); why != "" {
				d += ", " + why
			}
			diffs = append(diffs, d)
		case !slices.Equal(h, wanted[k]):
			diffs = append(diffs, "with "+packaging.CommandLine(h)+" where this novactl writes "+w)
		}
	}
	for _, k := range haveKeys {
		if _, ok := wanted[k]; !ok {
			diffs = append(diffs, "with "+packaging.CommandLine(have[k])+", which this novactl does not write")
		}
	}
	if len(diffs) == 0 {
		return ""
	}
	return "not what this novactl writes (an older novactl wrote it, or it was edited): it runs the job " + strings.Join(diffs, "; ")
}

// outdatedNote is what status says about an outdated definition (diff,
// from outdatedArgs).
func outdatedNote(diff string) string {
	return diff + "; run novactl service install to refresh it"
}

// definitionState is what status reads beside the service manager about
// one installed job.
type definitionState struct {
	// home is the NOVA_HOME the definition names (the caller's fallback
	// when it names none).
	home string
	// named: the definition names home (rather than the fallback).
	named bool
	// waiting: the job waits for a valid config.yaml of the home its
	// definition names.
	waiting bool
	// outdated says how the definition's arguments differ from what this
	// novactl writes (outdatedArgs); "" when they do not.
	outdated string
	// missing is the program the definition runs when it is gone or not
	// executable (moved, or removed by an uninstall of the binaries): the
	// job cannot start.
	missing string
}

// inspectDefinition reads the definition at path (through the platform's
// readers): whether the job waits for a valid configuration of the home
// the definition names, which need not be this shell's (fallbackHome when
// it names none), and how its arguments differ from want, those this
// novactl writes (then: what the manager does on an invalid config, see
// outdatedArgs). It only reads; what it cannot read counts as neither.
func inspectDefinition(job, path, fallbackHome string, want []string, then string, readHome func(string) (string, error), readCommand func(string) ([]string, error)) definitionState {
	var st definitionState
	root := fallbackHome
	if h, err := readHome(path); err == nil {
		root, st.named = h, true
	}
	st.home = root
	st.waiting = configwait.Waiting(paths.Home{Root: root}, job)
	if argv, err := readCommand(path); err == nil {
		st.outdated = outdatedArgs(argv[1:], want, then)
		if !isExecutable(argv[0]) {
			st.missing = argv[0]
		}
	}
	return st
}

// serviceError reports err, which stopped novactl service op: with
// jsonOut as {"operation","ok":false,"error","notes"} on stdout (notes,
// those --json gathered, when there are any) and nothing on stderr, so
// that stdout is one JSON document (as commandError does for the other
// commands), else as "novactl service op: err" on stderr. It returns
// ExitFailure.
func serviceError(inv *Invocation, jsonOut bool, op string, err error, notes []string) int {
	if jsonOut {
		out := map[string]any{"operation": op, "ok": false, "error": err.Error()}
		if len(notes) > 0 {
			out["notes"] = notes
		}
		printJSON(inv.Stdout, out)
		return ExitFailure
	}
	return commandError(inv, false, "novactl service "+op, ExitFailure, err.Error())
}

// printServiceStatus shows both jobs. The JSON keeps novad's summary and
// detail at the top level, as before the watcher existed, and adds the
// watcher's under "watcher", and notes (what the text form says on
// stderr: whose jobs a status as root shows) under "notes" when there
// are any.
func printServiceStatus(ctx context.Context, inv *Invocation, backends []serviceBackend, jsonOut bool, notes []string) int {
	out := map[string]any{}
	if len(notes) > 0 {
		out["notes"] = notes
	}
	running := true
	// brewNovad: novad is Homebrew's job, and novactl's is not installed.
	brewNovad := false
	for i, b := range backends {
		detail, ds, lines, err := b.status(ctx)
		if err != nil {
			return serviceError(inv, jsonOut, "status", err, notes)
		}
		running = running && ds.Running
		dups := b.duplicates()
		if dups == nil {
			dups = []packaging.Definition{}
		}
		if i == 0 {
			out["summary"], out["detail"], out["duplicates"] = ds, detail, dups
		} else {
			out["watcher"] = map[string]any{"summary": ds, "detail": detail, "duplicates": dups}
		}
		if jsonOut {
			continue
		}
		if i > 0 {
			fmt.Fprintln(inv.Stdout)
		}
		for _, l := range lines {
			fmt.Fprintln(inv.Stdout, l)
		}
		switch {
		case ds.Installed:
		case len(dups) > 0:
			// Advising an install here would make a second job.
			fmt.Fprintf(inv.Stdout, "Not installed by novactl service install: %s has its own job, %s (%s); to manage it with novactl instead: %s, then novactl service install\n", dups[0].Job, dups[0].Path, dups[0].Owner, dups[0].Remove)
		case brewNovad:
			// novactl service install registers novad too, a second time.
			fmt.Fprintf(inv.Stdout, "Not installed: novad runs as Homebrew's service, so add the watcher's: brew install nova-recall/tap/%s && brew services start %s\n", packaging.HomebrewWatchFormula, packaging.HomebrewWatchFormula)
		default:
			fmt.Fprintln(inv.Stdout, "Not installed: novactl service install")
		}
		if i == 0 {
			brewNovad = !ds.Installed && len(dups) > 0
		}
	}
	if jsonOut {
		printJSON(inv.Stdout, out)
	}
	if !running {
		return ExitFailure
	}
	return ExitOK
}

// serviceProbe answers doctor's service check from a backend.
type serviceProbe struct{ b serviceBackend }

// ServiceStatus implements doctor.ServiceProbe.
func (p serviceProbe) ServiceStatus(ctx context.Context) (doctor.ServiceStatus, error) {
	_, ds, _, err := p.b.status(ctx)
	return ds, err
}

// newServiceProbes return doctor's view of the service manager, for novad
// and for the source watcher's job: launchd on macOS, systemd --user on
// Linux when kardianos/service detects systemd. Elsewhere (containers,
// other init systems) they are nil, and doctor skips the service check
// rather than advise an install that cannot work.
func newServiceProbes(inv *Invocation) (novad, watcher doctor.ServiceProbe) {
	deps := defaultServiceDeps()
	if deps.goos == "linux" && service.Platform() != systemd.Platform {
		return nil, nil
	}
	b, err := newServiceBackend(inv, deps, novadJob(""), nil)
	if err != nil {
		return nil, nil
	}
	w, err := newServiceBackend(inv, deps, watcherJob(""), nil)
	if err != nil {
		return serviceProbe{b}, nil
	}
	return serviceProbe{b}, serviceProbe{w}
}

// exists reports whether anything (a file, a link) is at path.
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

func yesNo(b bool, yes, no string) string {
	if b {
		return yes
	}
	return no
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
