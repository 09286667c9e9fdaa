// Package doctor checks everything a person needs to trust a Nova setup:
// the configuration, the loopback boundary, the daemon, the active index
// and its embedding profile, the internal token, each source and the input
// its last read skipped, the service registration, index freshness, and
// Nova's MCP entry and skill in the agents found on this machine.
// Each check has a state (Ready, Degraded, Blocked: <code>) and one line
// of advice. Doctor only reads: it never starts a server, builds an index
// or writes a file.
package doctor

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/client"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/freshness"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/index/chunk"
	"github.com/nova-recall/nova/index/ingest"
	"github.com/nova-recall/nova/internal/version"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/lockfile"
	"github.com/nova-recall/nova/manifest"
	"github.com/nova-recall/nova/memory"
	"github.com/nova-recall/nova/packaging"
	"github.com/nova-recall/nova/packaging/configwait"
	"github.com/nova-recall/nova/paths"
	"github.com/nova-recall/nova/secrets"
	"github.com/nova-recall/nova/shellword"
)

// States of a check.
const (
	Ready    = "Ready"
	Degraded = "Degraded"
	Blocked  = "Blocked"
)

// Interrupted is the Status of a report whose run was cancelled (Ctrl-C)
// before its checks finished: it holds no check, since one cut short (a
// --deep hash stopped part way) would read as a problem, or as none.
const Interrupted = "Interrupted"

// Codes of Blocked and Degraded checks.
const (
	CodeConfigInvalid     = "config-invalid"
	CodeNonLoopback       = api.CodeNonLoopback
	CodeNotRunning        = "novad-not-running"
	CodeNotResponding     = "novad-not-responding"
	CodeIndexMissing      = "index-missing"
	CodeManifestInvalid   = "manifest-invalid"
	CodeProfileMismatch   = api.ReasonProfileMismatch
	CodeServerStale       = "server-index-not-ready"
	CodeReloadFailed      = "generation-load-failed"
	CodeGenerationCorrupt = "generation-corrupt"
	CodeHomeNotPrivate    = "home-not-private"
	// CodeHomePathUnsafe: the home is another user's, or reached through
	// a link or directory another user owns or others can write without
	// the sticky bit; novad and every index command refuse it.
	CodeHomePathUnsafe   = "home-path-unsafe"
	CodeAuthUnavailable  = api.CodeAuthUnavailable
	CodeSourceMissing    = "source-missing"
	CodeSourceUnreadable = "source-unreadable"
	CodeInputSkipped     = "input-skipped"
	CodeMemoryLost       = "memory-lost"
	CodePrivacyProtected = "source-privacy-protected"
	// CodeSourceNotDownloaded: files of a source are iCloud stubs, evicted
	// from the Mac (ingest.Listing.NotDownloaded), which no sync reads.
	CodeSourceNotDownloaded = "source-not-downloaded"
	CodeSourceSetUnknown    = "source-set-unknown" // a misspelled sourceSet
	CodeServiceMissing      = "service-not-installed"
	CodeServiceNotRunning   = "service-not-running"
	CodeServiceOutdated     = "service-definition-outdated" // differs from what this novactl writes
	CodeIndexStale          = "index-stale"
	CodeNoSources           = "no-sources"
	// The source watcher (novactl index watch).
	CodeWatcherNotRunning   = "watcher-not-running"
	CodeWatcherNotInstalled = "watcher-not-installed"
	CodeWatcherLimit        = "watcher-limit"
	CodeWatcherSyncFailed   = "watcher-sync-failed"
	CodeWatcherConfigStale  = "watcher-config-stale" // config.yaml changed since it started
	CodeWatcherOtherBuild   = "watcher-other-build"  // its last sync built with another build's text analysis
	// Nova's MCP entry and skill in the agents (both optional).
	CodeMCPStale   = "mcp-entry-stale"
	CodeSkillStale = "skill-stale"
	// A novad that runs what it no longer should: another build than
	// this novactl (an upgrade replaced the binary under it), or
	// config.yaml as it was before a change (novad reads it once).
	CodeDaemonOtherBuild  = "novad-other-build"
	CodeDaemonConfigStale = "novad-config-stale"
)

// Check is one line of the doctor report.
type Check struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	State string `json:"state"`
	// Code names the problem of a Degraded or Blocked check.
	Code string `json:"code,omitempty"`
	// Message is what was found, e.g. "Blocked: rag-server-non-loopback".
	Message string `json:"message"`
	// Advice is one line saying what to do.
	Advice string `json:"advice,omitempty"`
}

// Report is the result of a doctor run.
type Report struct {
	Status    string  `json:"status"` // Ready, Degraded or Blocked: the worst check
	Blocked   int     `json:"blocked"`
	Degraded  int     `json:"degraded"`
	CheckedAt string  `json:"checkedAt"`
	Home      string  `json:"home"`
	Checks    []Check `json:"checks"`
	// Interrupted is set, with Status Interrupted and no checks, when the
	// run was cancelled before its checks finished.
	Interrupted bool `json:"interrupted,omitempty"`
	// Freshness is how current memory is (the same object as novad's
	// ragStatus.freshness, its status from the checks: freshnessStatus);
	// nil when the configuration could not be read.
	Freshness *api.Freshness `json:"freshness,omitempty"`
	// SkippedInput lists every source file whose last read skipped input
	// (the input check names the first few).
	SkippedInput []SkippedFile `json:"skippedInput,omitempty"`
	// Agents is what the agents found here hold of Nova (its MCP entry,
	// its skill); nil when none is found or the checks did not run.
	Agents *AgentsReport `json:"agents,omitempty"`
}

// ServiceStatus is what the service manager says about novad.
type ServiceStatus struct {
	Manager   string `json:"manager"` // launchd, systemd, or none
	Installed bool   `json:"installed"`
	Loaded    bool   `json:"loaded"`
	Running   bool   `json:"running"`
	Detail    string `json:"detail,omitempty"`
	// StandingBy is the pid of the novad that serves the home while the
	// service's own novad runs but stands by for it (two jobs, or a novad
	// started in a terminal); 0 otherwise.
	StandingBy int `json:"standingBy,omitempty"`
	// Definition is the installed definition's file (the plist or unit);
	// "" when none is installed.
	Definition string `json:"definition,omitempty"`
	// Home is the NOVA_HOME the installed definition names: the home the
	// job serves, which need not be the one asked about; "" when the
	// definition names none or cannot be read.
	Home string `json:"home,omitempty"`
	// Outdated says how the installed definition differs from what this
	// novactl writes (an older novactl wrote it, or it was edited), and
	// what that costs; "" when it does not differ or cannot be read.
	Outdated string `json:"outdated,omitempty"`
}

// ServiceProbe asks the platform's service manager about novad.
type ServiceProbe interface {
	ServiceStatus(ctx context.Context) (ServiceStatus, error)
}

// Options configure a doctor run.
type Options struct {
	Environ []string
	// Service probes the service manager; nil skips the service check.
	Service ServiceProbe
	// WatcherService probes the source watcher's job as novactl service
	// installed it, for why it is not running; nil skips that detail.
	WatcherService ServiceProbe
	// GOOS selects platform advice (macOS privacy protection); "" uses
	// the running platform.
	GOOS string
	// Now is the clock; nil uses time.Now.
	Now func() time.Time
	// Timeout bounds each probe of the daemon; 0 means 2 s.
	Timeout time.Duration
	// Deep hashes every file of the active generation; otherwise only
	// sizes are checked, and files changed since the generation was
	// sealed are hashed.
	Deep bool
	// FreeSpace returns the free space on the volume holding a path; nil
	// asks the operating system.
	FreeSpace func(path string) (uint64, error)
	// Agents, when set, adds the checks of Nova's MCP entry and skill in
	// the agents found here (see AgentOptions).
	Agents *AgentOptions
	// Hook, when set, is called at each Step (tests run an index writer
	// there: doctor takes no lock).
	Hook func(step string)
}

// Steps of Run at which Options.Hook is called.
const (
	// StepManifestRead: the active manifest was read, and the files of
	// the generation it names are about to be checked.
	StepManifestRead = "manifest-read"
	// StepFilesChecked: the active generation's files passed their
	// check, and its record of the source files is about to be read.
	StepFilesChecked = "files-checked"
)

func blocked(id, title, code, advice string) Check {
	return Check{ID: id, Title: title, State: Blocked, Code: code, Message: "Blocked: " + code, Advice: advice}
}

func degraded(id, title, code, message, advice string) Check {
	return Check{ID: id, Title: title, State: Degraded, Code: code, Message: "Degraded: " + code + ": " + message, Advice: advice}
}

func ready(id, title, message string) Check {
	return Check{ID: id, Title: title, State: Ready, Message: message}
}

// Run performs every check. A cancelled ctx cuts the checks short (a
// --deep hash, the reading of sources): the report then says only that
// (Interrupted), with the time and home of the run and no check.
func Run(ctx context.Context, opts Options) Report {
	rep := run(ctx, opts)
	if ctx.Err() != nil {
		return Report{Status: Interrupted, Interrupted: true, CheckedAt: rep.CheckedAt, Home: rep.Home, Checks: []Check{}}
	}
	return rep
}

// run is Run, its report made whole even when ctx was cancelled.
func run(ctx context.Context, opts Options) Report {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 2 * time.Second
	}
	if opts.FreeSpace == nil {
		opts.FreeSpace = volumeFree
	}
	if opts.GOOS == "" {
		opts.GOOS = goos
	}
	if opts.Hook == nil {
		opts.Hook = func(string) {}
	}
	rep := Report{CheckedAt: opts.Now().UTC().Format(time.RFC3339)}
	add := func(c Check) { rep.Checks = append(rep.Checks, c) }

	home, err := paths.Resolve(opts.Environ)
	if err != nil {
		add(blocked("config", "Configuration", CodeConfigInvalid, err.Error()))
		rep.finish()
		return rep
	}
	rep.Home = home.Root
	cfg, err := config.Load(opts.Environ)
	var nonLoopback *config.NonLoopbackError
	switch {
	case errors.As(err, &nonLoopback):
		// The other fields' errors are reported too: fixing the host
		// alone would only bring them up next.
		// Each names where it was set, the file's line or the
		// environment variable: that is where it is fixed.
		var others []config.Problem
		host := config.Problem{Field: "server.host"}
		for _, p := range config.Problems(err) {
			if p.Field != "server.host" {
				others = append(others, p)
			} else {
				host = p
			}
		}
		if len(others) > 0 {
			p := others[0]
			add(blocked("config", "Configuration", CodeConfigInvalid,
				fmt.Sprintf("%s: %s; %d field error(s) beside server.host (novactl config check lists every field)", p.Where(), p.Message, len(others))))
		} else {
			add(ready("config", "Configuration", "config.yaml parses"))
		}
		fix := "set it to 127.0.0.1"
		if host.Env != "" {
			fix = "unset it (the default is 127.0.0.1) or set it to 127.0.0.1"
		}
		add(blocked("loopback", "Loopback-only boundary", CodeNonLoopback,
			fmt.Sprintf("%s is %q; %s (Nova never serves beyond this machine)%s", host.Where(), nonLoopback.Host, fix, waitingNote(home))))
		// No probe is sent to a non-loopback address.
		rep.finish()
		return rep
	case errors.Is(err, fs.ErrPermission):
		// Not a field's error: config check would say the same.
		add(blocked("config", "Configuration", CodeConfigInvalid, fmt.Sprintf("%s: novad and novactl read it as you: chmod u+r %s (or, if it is not yours, move it aside and write your own: novactl config init)%s",
			firstLine(err.Error()), shellword.Quote(home.Config()), waitingNote(home))))
		rep.finish()
		return rep
	case err != nil:
		add(blocked("config", "Configuration", CodeConfigInvalid, firstLine(err.Error())+" (novactl config check lists every field)"+waitingNote(home)))
		rep.finish()
		return rep
	}
	cfgMsg := "defaults (no config.yaml)"
	if cfg.File != "" {
		cfgMsg = cfg.File + " is valid"
	}
	add(ready("config", "Configuration", cfgMsg))
	add(ready("loopback", "Loopback-only boundary", fmt.Sprintf("novad binds %s only", cfg.Server.Host)))

	// Daemon. Advice to restart novad or the watcher names the command
	// for how each runs here.
	relocated := paths.Relocated(opts.Environ)
	defs, brewElsewhere := homeDefinitions(packaging.Definitions(paths.UserHome(opts.Environ), opts.GOOS), relocated != "")
	// Why novad (and every index command) would refuse this home: said
	// here, where novad says it only in its log.
	refusal := home.Refusal()
	novadRunner := runnerOf(defs, "novad", holderPID(home.DaemonLock()))
	novadRunner.home = relocated
	// Advice that drives novactl's job serves the home its definition
	// names, which need not be this one.
	novadRunner.serving(ctx, opts.Service, home)
	watcherRunner := runnerOf(defs, "watcher", holderPID(home.WatcherLock()))
	watcherRunner.serving(ctx, opts.WatcherService, home)
	c := client.ForConfig(cfg)
	pctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	health, herr := c.Health(pctx)
	cancel()
	running := herr == nil
	switch {
	case running:
		msg := "novad is running with no index loaded"
		if health.Generation != "" {
			msg = fmt.Sprintf("novad serves generation %s (%d chunks)", health.Generation, health.Entries)
		}
		if build, other := novadBuild(health); other {
			add(degraded("daemon", "novad", CodeDaemonOtherBuild,
				fmt.Sprintf("%s, but it runs %s and this novactl is %s", msg, build, version.Get().Build()),
				"if Nova was upgraded, "+upgradeAdvice(novadRunner, watcherRunner)+"; if not, novad and novactl come from two installs: keep one"))
		} else if started, err := time.Parse(time.RFC3339, health.StartedAt); err == nil && changedSince(cfg.File, started.Add(time.Second)) {
			// StartedAt is to the second: a file written in the second
			// novad started is taken for one it read.
			add(degraded("daemon", "novad", CodeDaemonConfigStale,
				fmt.Sprintf("%s, but it runs with %s as it was when it started (%s): the file changed since, and novad reads it only when it starts",
					msg, cfg.File, started.Local().Format("2006-01-02 15:04")),
				"restart novad so it reads the file: "+novadRunner.restart("novad")))
		} else {
			add(ready("daemon", "novad", msg))
		}
		if chk, ok := servingCheck(health); ok {
			add(chk)
		}
	case lockfile.Held(home.DaemonLock()) && lockfile.ReadHolder(home.DaemonLock()).IsStarting():
		// A novad waits for its ports while another program (or another
		// home's novad) holds one: starting another would only stand by.
		// novad's log sends the user here to learn which port is held.
		h := lockfile.ReadHolder(home.DaemonLock())
		add(blocked("daemon", "novad", CodeNotResponding, fmt.Sprintf(
			"novad pid %d holds this home but has not bound its ports since %s: it waits for %s, which another program or another home's novad holds; stop that, or give this home other ports (server.port and facade.port in config.yaml) and restart novad (%s)",
			h.PID, h.Since, heldPorts(ctx, cfg, opts.Timeout), novadRunner.hardRestart())))
	case !errors.As(herr, new(*client.NotRunningError)) && lockfile.Held(home.DaemonLock()):
		// A novad holds this home but did not answer: starting another
		// one, the advice for a novad that is not running, would fail.
		add(blocked("daemon", "novad", CodeNotResponding, fmt.Sprintf(
			"a novad holds this home but did not answer within %s (%s): it may be stopped (SIGSTOP), overloaded or hung; check its log, then restart it (%s)",
			opts.Timeout, firstLine(herr.Error()), novadRunner.hardRestart())))
	default:
		msg := "start it: " + novadRunner.start()
		if refusal != nil {
			// Starting it would only have it log the refusal and exit.
			msg = "novad refuses to start with this home (the Private home check says why and what to do); once that is fixed, start it: " + novadRunner.start()
		} else if nr, ok := errors.AsType[*client.NotRunningError](herr); ok && nr.Other {
			msg = nr.Error()
		} else if held, _ := PortsInUse(ctx, cfg, opts.Timeout, nil); len(held) > 0 {
			// Nothing answers on the direct port, but the facade's is
			// taken: a novad started now could not bind it.
			msg = fmt.Sprintf("novad is not running, and %s, one of its ports, is held by another program (or another home's novad), so a novad started now could not bind it: stop that program, or give this home other ports (server.port and facade.port in config.yaml), then start novad: %s",
				strings.Join(held, " and "), novadRunner.start())
		}
		add(blocked("daemon", "novad", CodeNotRunning, msg))
	}

	// Active manifest, profile and files.
	depth := index.Quick
	if opts.Deep {
		depth = index.Deep
	}
	var m *manifest.Manifest
	var merr error
	var filesBad Check
	damaged := false
	// What the active generation recorded of each source file; a
	// damaged generation is the index check's to report.
	var states []index.FileState
	var serr error
	// Doctor takes no lock: a promotion beside it may make another
	// generation active and retire the one read (a compaction removes the
	// generation it replaces at once), whose files are then missing, not
	// damaged, and whose source states read as none. Settle makes the
	// checks again of the generation the manifest names now.
	_ = manifest.Settle(home.Manifest(), func(now *manifest.Manifest, _ string, err error) error {
		m, merr = now, err
		opts.Hook(StepManifestRead)
		filesBad, damaged, states, serr = Check{}, false, nil, nil
		if merr != nil {
			return nil
		}
		filesBad, damaged = filesCheck(ctx, home, cfg, m, depth, running)
		if !damaged {
			opts.Hook(StepFilesChecked)
			states, serr = index.FileStates(home, m)
		}
		return ctx.Err() // interrupted: no report is shown
	})
	// novad reports a fallback itself (the reload check): its generation
	// differing from the manifest's is then no mere delay.
	fellBack := running && health.Integrity.Status != "" && health.Integrity.Status != api.IntegrityVerified
	switch {
	case errors.Is(merr, manifest.ErrNoManifest) && len(index.GenerationIDs(home)) > 0:
		// The manifest was removed: rollback, which works from the kept
		// generations alone, makes the last active one active again.
		add(blocked("index", "Active index", CodeIndexMissing,
			"index/manifest.json is missing, but generations are kept: novactl index rollback makes the last active one active again (or novactl index sync builds on it)"))
	case errors.Is(merr, manifest.ErrNoManifest):
		add(blocked("index", "Active index", CodeIndexMissing, "build one: novactl index sync"))
	case errors.Is(merr, manifest.ErrOldFormat):
		// Not damage: there is no generation of this format to roll back
		// to, and the sync that rebuilds it keeps the memory of gone files.
		add(blocked("index", "Active index", CodeIndexStale,
			"the index was built by an older Nova, in a format this one does not read, and nothing is served: run novactl index sync to rebuild it (it keeps the memory of files that are gone)"))
	case errors.Is(merr, manifest.ErrNewerFormat):
		// Not damage either: the newer Nova's generations are kept, and a
		// rollback to a kept one of this format, or a sync, serves again.
		add(blocked("index", "Active index", CodeIndexStale,
			firstLine(merr.Error())+"; its generations are kept, never deleted by this build (novactl index rollback makes the newest one this build reads active)"))
	case merr != nil:
		add(blocked("index", "Active index", CodeManifestInvalid, firstLine(merr.Error())+"; roll back (novactl index rollback) or rebuild (novactl index sync)"))
	case damaged:
		add(filesBad)
	case !index.ProfileMatchesConfig(cfg, m.EmbeddingProfile):
		add(blocked("index", "Active index", CodeProfileMismatch,
			fmt.Sprintf("generation %s was embedded with %s/%d but config.yaml says %s/%d; run novactl index sync",
				m.RunID, m.EmbeddingProfile.Provider, m.EmbeddingProfile.Dimension, cfg.Embedding.Provider, cfg.Embedding.Dimension)))
	default:
		checked := "sizes"
		if opts.Deep {
			checked = "every checksum"
		}
		msg := fmt.Sprintf("generation %s, %d chunks, %s/%s/%d, files intact (%s)", m.RunID, m.ChunkCount,
			m.EmbeddingProfile.Provider, m.EmbeddingProfile.Model, m.EmbeddingProfile.Dimension, checked)
		analyzer, _ := index.GenerationAnalyzer(home, m)
		switch {
		case running && !fellBack && health.Generation != "" && health.Generation != m.RunID:
			add(degraded("index", "Active index", CodeServerStale, fmt.Sprintf("novad serves %s but the manifest names %s", health.Generation, m.RunID),
				"novad reloads within 30 s; send SIGHUP or check its log if it does not"))
		case analyzer != "" && analyzer != lexical.Version:
			// An upgrade changed how text becomes terms: the old index is
			// served, but queries find less in it until it is rebuilt.
			add(degraded("index", "Active index", CodeIndexStale,
				fmt.Sprintf("generation %s was built by an older Nova (text analysis %s; this one's is %s): searched as it is, it finds less", m.RunID, analyzer, lexical.Version),
				"run novactl index sync (the watcher does at its next sync): it rebuilds the index, keeping the memory of files that are gone"))
		default:
			add(ready("index", "Active index", msg))
		}
	}

	add(privacyCheck(home, refusal))
	var active *manifest.Manifest
	if merr == nil {
		active = m
	}
	diskLow := false
	quotaState, _ := freshness.Read(home) // the watcher's last sync: a used-up quota
	if c, ok := diskCheck(home, active, quotaState, opts.FreeSpace); ok {
		add(c)
		diskLow = c.Code == CodeDiskSpaceLow
	}

	// Token.
	_, terr := secrets.ReadToken(home.TokenFile())
	switch {
	case running && !health.InternalEncodeAuthorized && readOnlyVolume(home.StateDir()):
		// Restarting cannot help: novad cannot write the token there.
		add(degraded("token", "Internal token", CodeAuthUnavailable,
			"NOVA_HOME is on a read-only volume: novad serves search from it but cannot publish its internal token there, so /encode is refused (novactl index sync cannot write this home either)",
			"to index again, make the volume writable (or copy the home to a writable place and set NOVA_HOME to it), then restart novad: "+novadRunner.restart("novad")))
	case terr == nil && running && !health.InternalEncodeAuthorized:
		// novad compares the file with the token it serves.
		add(blocked("token", "Internal token", CodeAuthUnavailable,
			"the token file does not hold the token novad serves; restart novad to rewrite it (it is rotated at every start): "+novadRunner.restart("novad")))
	case terr == nil:
		add(ready("token", "Internal token", "present, mode 0600, owned by you"))
	case running && errors.Is(terr, secrets.ErrMissing) && diskLow:
		// A full disk kept novad from writing it: a restart cannot write
		// it either, and is not needed, since novad writes a missing
		// token file again by itself (at each manifest poll).
		add(degraded("token", "Internal token", CodeAuthUnavailable,
			"novad serves search, but the volume of NOVA_HOME has no room for its internal token ("+home.TokenFile()+"; see Disk space), so /encode is refused",
			"free space on that volume: novad writes the token again by itself once it can"))
	case errors.Is(terr, secrets.ErrMissing) && !running:
		add(ready("token", "Internal token", "will be created when novad starts"))
	case running:
		add(blocked("token", "Internal token", CodeAuthUnavailable,
			firstLine(terr.Error())+"; restart novad to rewrite it (it is rotated at every start): "+novadRunner.restart("novad")))
	default:
		add(blocked("token", "Internal token", CodeAuthUnavailable,
			firstLine(terr.Error())+"; novad rewrites it when it starts (it is rotated at every start)"))
	}

	// Sources.
	switch {
	case len(cfg.Sources) > 0:
	case cfg.File == "":
		// The first run of a new install: the one command that writes
		// the file is what to say.
		add(degraded("sources", "Sources", CodeNoSources, "there is no config.yaml, so no source",
			"run novactl config init: it writes "+home.Config()+" with the agent memory found on this machine (--notes DIR adds notes)"))
	default:
		add(degraded("sources", "Sources", CodeNoSources, "config.yaml lists no sources", "add a source to "+cfg.File+" (see README: Configuration)"))
	}
	recorded := newRecordedFiles(states)
	newest := time.Time{}
	files, unread := 0, 0
	var unreadIn []string
	noIndex := errors.Is(merr, manifest.ErrNoManifest)
	// Sources whose files hold no memory, when no index is there to
	// show what the sources gave: the first sync fails on them alone.
	var memoryless []string
	withMemory := false
	for _, s := range cfg.Sources {
		chk, scan := checkSource(s, opts.GOOS, opts.Environ, recorded)
		if c, ok := unreadBySync(ctx, s, chk, &scan, recorded); ok {
			chk = c
		}
		t, n := scan.newest, scan.files
		if scan.unread > 0 {
			unread += scan.unread
			unreadIn = append(unreadIn, s.Name)
		}
		if noIndex && n > 0 {
			if held, skipped := holdsMemory(ctx, s); held {
				withMemory = true
			} else {
				memoryless = append(memoryless, s.Name)
				if chk.State == Ready {
					chk.Message = noMemoryMessage(s, n, skipped)
				}
			}
		}
		add(chk)
		files += n
		if t.After(newest) {
			newest = t
		}
	}
	if len(cfg.Sources) > 0 {
		if chk, ok := unreadAgentMemory(cfg, opts.Environ); ok {
			add(chk)
		}
	}
	// With no index and nothing in any source, "novactl index sync" only
	// fails ("the sources produced no memory"): say what is missing.
	if noIndex && !withMemory && (files == 0 || len(memoryless) > 0) {
		advice := "nothing to index yet: no source holds a file it reads (see the source checks); point sources[].path at your memory, then novactl index sync"
		switch {
		case len(cfg.Sources) == 0:
			advice = "nothing to index yet: no source is configured; add one (see the sources check), then novactl index sync"
		case files > 0:
			advice = "nothing to index yet: the files of source " + strings.Join(memoryless, ", ") +
				" hold no memory their kind reads (see the source checks); fix the input they name or point sources[].path at your memory, then novactl index sync"
		}
		for i := range rep.Checks {
			if rep.Checks[i].ID == "index" {
				rep.Checks[i].Advice = advice
			}
		}
	}
	// What the active generation's reads of the sources skipped.
	if merr == nil && !damaged {
		chk, skipped := inputCheck(cfg, m, states, serr)
		add(chk)
		rep.SkippedInput = skipped
	}
	if c, ok := lostCheck(home); ok {
		add(c)
	}

	// Freshness and the source watcher.
	var built time.Time
	if m != nil && merr == nil {
		built = m.CreatedAt
	}
	fr, wst := freshness.Load(home, opts.Now(), built)
	fr.Status = api.FreshnessMissing
	if m != nil && merr == nil {
		fr.Status = "ready"
	}
	rep.Freshness = &fr
	switch {
	case m == nil || merr != nil:
	case fr.Watcher.Running && wst != nil:
		add(watcherFreshness(fr, wst, opts.Now()))
	case newest.After(built):
		// To the minute, but finer under one: the next turn an agent
		// writes after a sync was "0s after".
		after := newest.Sub(built)
		switch {
		case after >= time.Minute:
			after = after.Round(time.Minute)
		case after >= time.Second:
			after = after.Round(time.Second)
		default:
			after = after.Round(time.Millisecond)
		}
		add(degraded("freshness", "Index freshness", CodeIndexStale,
			fmt.Sprintf("sources changed %s after the active index was built", after),
			"run novactl index sync, or keep it fresh by itself: novactl index watch"))
	case unread > 0:
		// Files older than the build that it did not read: a source
		// added to config.yaml since, say, or files moved in with their
		// old times.
		are := "are"
		if unread == 1 {
			are = "is"
		}
		add(degraded("freshness", "Index freshness", CodeIndexStale,
			fmt.Sprintf("%s of source %s %s not in the active index (a source added to config.yaml since it was built, or files moved in with their old times)",
				plural(unread, "file", "files"), strings.Join(unreadIn, ", "), are),
			"run novactl index sync, or keep it fresh by itself: novactl index watch"))
	case files > 0:
		add(ready("freshness", "Index freshness", "no source changed since the active index was built"))
	}
	for _, c := range watcherChecks(ctx, fr, wst, defs, opts.WatcherService, watcherRunner, home, cfg.File) {
		add(c)
	}
	if c, ok := watcherOtherBuild(home, active, fr, wst, watcherRunner); ok {
		add(c)
		// The index is of the old text analysis because that watcher
		// built it: its next sync builds it so again, and undoes a sync
		// by hand, so the index check's "the watcher does at its next
		// sync" was false beside this one.
		for i := range rep.Checks {
			if ix := &rep.Checks[i]; ix.ID == "index" && ix.Code == CodeIndexStale && ix.State == Degraded {
				ix.Advice = "restart the watcher so it runs this build (see Watcher build): " + watcherRunner.restart("novactl index watch") +
					"; its next sync then rebuilds the index, keeping the memory of files that are gone (a novactl index sync before that is undone by the old watcher's next sync)"
			}
		}
	}
	for _, c := range goneCheck(states) {
		add(c)
	}

	// Service registration.
	if c, ok := homebrewService(defs); ok {
		add(c)
	} else if opts.Service == nil && brewElsewhere != nil {
		add(otherHomeService(home, *brewElsewhere))
	} else if opts.Service != nil {
		st, err := opts.Service.ServiceStatus(ctx)
		switch {
		case err != nil:
			add(degraded("service", "Service", CodeServiceMissing, firstLine(err.Error()), "novactl service install"))
		case !st.Installed && brewElsewhere != nil:
			add(otherHomeService(home, *brewElsewhere))
		case !st.Installed:
			add(degraded("service", "Service", CodeServiceMissing, "novad is not registered with "+st.Manager,
				"novactl service install (runs novad at login and restarts it)"))
		case st.Home != "" && !sameDir(st.Home, home.Root):
			add(otherHomeDefinition(home, st))
		case st.StandingBy > 0:
			add(degraded("service", "Service", CodeServiceNotRunning,
				fmt.Sprintf("novad's %s job runs but stands by: novad pid %d, started another way (a terminal, another service definition), serves this home, and the job takes over when it stops", st.Manager, st.StandingBy),
				"keep one: stop that novad (or remove the other service definition novactl service status names); the job then serves within a second"))
		case !st.Running:
			advice := "novactl service start; novactl service status shows the manager's view"
			if outdated := outdatedDefinitions(ctx, st, opts.WatcherService); outdated != "" {
				advice = "novactl service install, which rewrites the outdated definition (" + outdated + ") and starts the jobs"
			}
			add(degraded("service", "Service", CodeServiceNotRunning, "registered with "+st.Manager+" but not running "+st.Detail, advice))
		default:
			if outdated := outdatedDefinitions(ctx, st, opts.WatcherService); outdated != "" {
				add(degraded("service", "Service", CodeServiceOutdated, outdated,
					"novactl service install: it rewrites the definitions as this novactl writes them and restarts the jobs; config.yaml and the index are kept"))
				break
			}
			add(ready("service", "Service", "registered with "+st.Manager+" and running"))
		}
	}

	// The agents' MCP entry and skill.
	if opts.Agents != nil {
		var checks []Check
		checks, rep.Agents = agentChecks(opts.Environ, home, opts.Agents)
		rep.Checks = append(rep.Checks, checks...)
	}
	if refusal != nil {
		// Every novactl index command refuses this home as novad does:
		// advice that runs one fails until the privacy fix is made.
		for i := range rep.Checks {
			if c := &rep.Checks[i]; c.State != Ready && c.ID != "privacy" && strings.Contains(c.Advice, "novactl index ") {
				c.Advice = "novactl index commands refuse this home (the Private home check says why and what to do); once that is fixed: " + c.Advice
			}
		}
	}
	rep.finish()
	return rep
}

func (r *Report) finish() {
	if r.Freshness != nil {
		r.Freshness.Status = freshnessStatus(r.Freshness.Status, r.Checks)
	}
	r.Blocked, r.Degraded = 0, 0
	for _, c := range r.Checks {
		switch c.State {
		case Blocked:
			r.Blocked++
		case Degraded:
			r.Degraded++
		}
	}
	switch {
	case r.Blocked > 0:
		r.Status = Blocked
	case r.Degraded > 0:
		r.Status = Degraded
	default:
		r.Status = Ready
	}
}

// freshnessStatus is the contract's freshness code the checks add up to
// (conformance 12.5), the first of its order that holds, as novad's
// ragStatus.freshness gives it and as it would with novad down: base is
// missing when no index is active, else ready.
func freshnessStatus(base string, checks []Check) string {
	has := func(codes ...string) bool {
		return slices.ContainsFunc(checks, func(c Check) bool { return c.State != Ready && slices.Contains(codes, c.Code) })
	}
	switch {
	case has(CodeProfileMismatch):
		return api.ReasonProfileMismatch
	case has(CodeNonLoopback):
		return api.CodeNonLoopback
	case base == api.FreshnessMissing:
		return base
	case has(CodeNotRunning, CodeNotResponding):
		return api.FreshnessServerUnhealthy
	case has(CodeServerStale, CodeReloadFailed, CodeGenerationCorrupt):
		return api.FreshnessServerIndexNotReady
	}
	return base
}

// privacyProtected are the home folders macOS privacy protection (TCC)
// hides from launchd agents without Full Disk Access: reads fail with
// EPERM and no prompt, while the same binary works from a terminal.
var privacyProtected = []string{"Documents", "Desktop", "Downloads", "Library/Mobile Documents"}

// sourceScan is what checkSource found of a source's files against what
// the active generation recorded of them.
type sourceScan struct {
	// newest is the newest change the generation did not record.
	newest time.Time
	// files is how many files the source lists.
	files int
	// unread is how many readable files the generation did not record
	// at all (a source added since it was built): 0 when its file states
	// are not known.
	unread int
}

// checkSource checks one source against recorded, what the active
// generation recorded of its files (nil when that is not known).
func checkSource(s config.Source, goos string, environ []string, recorded recordedFiles) (Check, sourceScan) {
	id, title := "source:"+s.Name, "Source "+s.Name
	_, err := os.Stat(s.Path)
	if errors.Is(err, fs.ErrNotExist) {
		// A source that is one file iCloud Drive evicted is not missing.
		if l, err := listSource(s); err == nil && len(l.NotDownloaded) > 0 {
			return notDownloaded(id, title, l.NotDownloaded), sourceScan{}
		}
		return degraded(id, title, CodeSourceMissing, s.Path+" does not exist",
			"fix sources[].path; memory already indexed from it is kept"), sourceScan{}
	}
	if err != nil {
		return degraded(id, title, CodeSourceUnreadable, firstLine(err.Error()), "check the permissions of "+s.Path), sourceScan{}
	}
	listing, err := listSource(s)
	if errors.Is(err, ingest.ErrSourceNotFile) {
		return degraded(id, title, CodeSourceUnreadable, err.Error(),
			"point sources[].path at the file or folder that holds the memory"), sourceScan{}
	}
	if err != nil {
		return degraded(id, title, CodeSourceUnreadable, firstLine(err.Error()), "check the permissions of "+s.Path), sourceScan{}
	}
	scan := sourceScan{files: len(listing.Files)}
	var unreadable []error
	inCloud := 0
	for _, f := range listing.Files {
		if t := ingest.LastChange(s.Kind, f.Path, f.Info.ModTime()); t.After(scan.newest) && !recorded.unchanged(s, f) {
			scan.newest = t
		}
		if f.Dataless {
			// Not opened: doctor looks, it does not start downloads; a
			// sync's read downloads the file.
			inCloud++
			if recorded != nil && !recorded.has(s, f) {
				scan.unread++
			}
			continue
		}
		// Listed is not readable: a file without read permission is
		// skipped by every sync, and nothing else would say so. Opened
		// as a sync opens it: a file replaced by a named pipe since the
		// listing is refused, where a plain open would wait for a writer.
		fh, _, err := paths.OpenRegular(f.Path)
		if err != nil {
			unreadable = append(unreadable, err)
			continue
		}
		fh.Close()
		if recorded != nil && !recorded.has(s, f) {
			scan.unread++
		}
	}
	if n := len(unreadable); n > 0 {
		detail := unreadable[0].Error()
		if n > 1 {
			detail += fmt.Sprintf(" (and %d more files)", n-1)
		}
		return degraded(id, title, CodeSourceUnreadable, detail, "check the permissions of the files in "+s.Path), scan
	}
	if n := len(listing.Problems); n > 0 {
		// A directory inside the source that cannot be read hides its files
		// from every sync, as a link whose target cannot be reached hides
		// its file.
		first := listing.Problems[0]
		detail := first.Path + ": " + first.Reason
		if n > 1 {
			detail += fmt.Sprintf(" (and %d more)", n-1)
		}
		return degraded(id, title, CodeSourceUnreadable, detail, listingAdvice(first)), scan
	}
	if len(listing.NotDownloaded) > 0 {
		// Before the privacy check, which an iCloud Drive source always
		// meets on a Mac: these notes are missing from memory whatever
		// novad may read.
		return notDownloaded(id, title, listing.NotDownloaded), scan
	}
	if goos == "darwin" {
		home := paths.UserHome(environ)
		for _, p := range privacyProtected {
			prot := filepath.Join(home, p)
			if s.Path == prot || strings.HasPrefix(s.Path, prot+string(filepath.Separator)) {
				return degraded(id, title, CodePrivacyProtected,
					s.Path+" is in ~/"+p+", which macOS hides from launchd agents",
					"grant Full Disk Access to novad (System Settings > Privacy & Security) or move the source"), scan
			}
		}
	}
	if len(listing.Files) == 0 {
		msg := fmt.Sprintf("%s (%s) is readable but holds no file a %s source reads yet", s.Path, s.Kind, s.Kind)
		if where, ok := agentFolders[s.Kind]; ok {
			// An agent's subfolder (~/.openclaw/agents/main/sessions, say)
			// is the likely mistake: the readers start from the top.
			msg += "; its path is " + where
		}
		if hint := exportHint(s); hint != "" {
			msg += "; " + hint
		}
		return ready(id, title, msg), scan
	}
	if c, ok := checkSourceSet(id, title, s.SourceSet); ok {
		return c, scan
	}
	msg := fmt.Sprintf("%s (%s) is readable", s.Path, s.Kind)
	if inCloud > 0 {
		msg += fmt.Sprintf("; %s kept only in the cloud: a sync downloads each as it reads it, which is slow, and keeps the earlier memory of one it cannot download (offline) until it can (Keep Downloaded in Finder keeps them on this Mac)", plural(inCloud, "file is", "files are"))
	}
	return ready(id, title, msg), scan
}

// listSource is ingest.List; tests replace it to mark files dataless, as
// only a Mac's listing does.
var listSource = ingest.List

// notDownloaded is the check of a source some of whose files iCloud
// Drive evicted (notes, their paths: ingest.Listing.NotDownloaded):
// which, and how to download them. brctl is iCloud Drive's own tool.
func notDownloaded(id, title string, notes []string) Check {
	msg := fmt.Sprintf("%s not downloaded from iCloud Drive (not on this Mac, so not read and not in memory): %s", plural(len(notes), "file is", "files are"), notes[0])
	if len(notes) > 1 {
		msg += fmt.Sprintf(" (and %d more)", len(notes)-1)
	}
	return degraded(id, title, CodeSourceNotDownloaded, msg,
		"in Finder, select what is not downloaded and choose Download Now (Keep Downloaded keeps it on this Mac), or run brctl download "+shellword.Quote(notes[0])+" for each file; the next sync reads what is downloaded")
}

// checkSourceSet says when a source's sourceSet is a misspelling of one
// Nova knows ("lesons"): its memory would be governed as an unknown set
// (authority 50 against lessons' 95) and rank below what the user marked
// as canonical, with nothing else to say why. A name far from every known
// one is the user's own set, governed as unknown by design, and passes.
func checkSourceSet(id, title, sourceSet string) (Check, bool) {
	near := memory.MisspelledSourceSet(sourceSet)
	if near == "" {
		return Check{}, false
	}
	return degraded(id, title, CodeSourceSetUnknown,
		fmt.Sprintf("sourceSet %q is no source set Nova knows: its memory is governed as unknown (authority %d, lifecycle %s) and ranks below known sets", sourceSet, memory.UnknownPolicy.AuthorityRank, memory.UnknownPolicy.Lifecycle),
		fmt.Sprintf("did you mean %q? fix sources[].sourceSet in config.yaml, then novactl index sync", near)), true
}

// shownUnreadBySync bounds how many files of a source unreadBySync
// reads: a source added since the build lists many files no generation
// recorded, which a sync will read.
const shownUnreadBySync = 20

// unreadBySync is the check of source s (chk, as checkSource made it from
// scan) when a file the active generation did not record (recorded) is
// one every sync fails to read (a Hermes state.db or a Codex .jsonl.zst
// that is damaged, say): that read is an error, which keeps no state of
// the file (and the memory indexed from it before), so the file looked
// not yet indexed, and a sync the fix. Such files are taken out of scan
// (unread, newest). Only files not recorded are read, up to their first
// record; ok is false when each reads. A file the generation recorded as
// one a read failed on (index.FileState.Unreadable), still as it was
// then, is named with the reason recorded, without a read: the syncs
// leave it unread until it changes.
func unreadBySync(ctx context.Context, s config.Source, chk Check, scan *sourceScan, recorded recordedFiles) (Check, bool) {
	// Without a SQLite driver (a binary that links none) a Hermes read
	// fails for this program, not for the database: novactl links one.
	if chk.State != Ready || recorded == nil || (s.Kind == config.KindHermes && !slices.Contains(sql.Drivers(), "sqlite")) {
		return Check{}, false
	}
	if scan.unread == 0 && !recorded.anyUnreadable(s) {
		return Check{}, false
	}
	listing, err := ingest.List(s)
	if err != nil {
		return Check{}, false
	}
	var failed []string
	var first error
	tried, known := 0, 0
	newest := time.Time{}
	for _, f := range listing.Files {
		if st := recorded.unreadable(s, f); st != nil {
			known++
			failed = append(failed, f.Path)
			if first == nil {
				first = errors.New(st.Problem)
			}
			continue
		}
		if recorded.has(s, f) || f.Dataless || tried == shownUnreadBySync {
			if t := ingest.LastChange(s.Kind, f.Path, f.Info.ModTime()); t.After(newest) && !recorded.unchanged(s, f) {
				newest = t
			}
			continue
		}
		tried++
		found := false
		_, err := ingest.ReadFile(ctx, s, f, ingest.Cursor{}, ingest.Sink{
			Record:  func(memory.Record) error { found = true; return errFound },
			Problem: func(ingest.Problem) {},
		})
		if err == nil || found || ctx.Err() != nil {
			if t := ingest.LastChange(s.Kind, f.Path, f.Info.ModTime()); t.After(newest) {
				newest = t
			}
			continue
		}
		failed = append(failed, f.Path)
		if first == nil {
			first = err
		}
	}
	if len(failed) == 0 {
		return Check{}, false
	}
	scan.unread = max(scan.unread-(len(failed)-known), 0)
	scan.newest = newest
	msg := "no sync can read " + failed[0] + ": " + firstLine(first.Error())
	if len(failed) > 1 {
		msg += fmt.Sprintf(" (and %d more files)", len(failed)-1)
	}
	return degraded(chk.ID, chk.Title, CodeSourceUnreadable, msg,
		"the file is damaged or not of the format a "+s.Kind+" source reads: restore it from a backup, and the next sync reads it; if it holds nothing to keep, remove it or leave it out (sources[].exclude); memory already indexed from it is kept meanwhile"), true
}

// errFound stops holdsMemory's read at the first record with text.
var errFound = errors.New("found memory")

// holdsMemory reports whether a file of s holds a record with text, what
// a sync indexes, reading no further than the first; skipped is the
// first input the read skipped, if any, which says why a source holds
// none (lines without text, say, of a source given the wrong kind).
func holdsMemory(ctx context.Context, s config.Source) (held bool, skipped *ingest.Problem) {
	err := ingest.Read(ctx, s, ingest.Sink{
		Record: func(r memory.Record) error {
			// A record of blank text gives no chunk, as in a sync.
			if len(chunk.Split(r.Text, chunk.Options{})) > 0 {
				return errFound
			}
			return nil
		},
		Problem: func(p ingest.Problem) {
			if skipped == nil {
				skipped = &p
			}
		},
	})
	return errors.Is(err, errFound), skipped
}

// noMemoryMessage is the message of a readable source whose n files hold
// no memory; skipped is the first input its read skipped, or nil.
func noMemoryMessage(s config.Source, n int, skipped *ingest.Problem) string {
	msg := fmt.Sprintf("%s (%s) is readable but holds no memory a %s source reads (%s listed)", s.Path, s.Kind, s.Kind, plural(n, "file", "files"))
	if skipped != nil {
		where := skipped.Path
		if skipped.Line > 0 {
			where += ":" + strconv.Itoa(skipped.Line)
		}
		msg += "; the first input skipped: " + where + ": " + skipped.Reason
	}
	return msg
}

// exportHint says what the folder of s, a markdown or jsonl source that
// lists no file, holds when it is a notes app's export its globs do not
// list (ingest.ReadNotesExport), and the source that reads it, as config
// init --notes writes it; "" for any other.
func exportHint(s config.Source) string {
	if s.Kind != config.KindMarkdown && s.Kind != config.KindJSONL {
		return ""
	}
	if fi, err := os.Stat(s.Path); err != nil || !fi.IsDir() {
		return ""
	}
	e := ingest.ReadNotesExport(s.Path)
	line := func(p string) string {
		return "{kind: jsonl, path: '" + strings.ReplaceAll(p, "'", "''") + "', include: ['*.json']}"
	}
	switch {
	case e.Keep != "":
		return "it holds Google Keep notes (Takeout), which a jsonl source reads: " + line(filepath.Join(s.Path, filepath.FromSlash(e.Keep)))
	case e.DayOne:
		return "it holds a Day One journal (Journal.json), which a jsonl source reads: " + line(s.Path)
	case e.HTML > 0 && s.Kind == config.KindMarkdown:
		return "it holds HTML notes, which a markdown source reads with include: ['*.md', '*.html']"
	}
	return ""
}

// agentFolders is the folder each agent kind's path names (and a chat
// export's), for a source that lists nothing.
var agentFolders = map[string]string{
	config.KindCodex:      "the Codex home (~/.codex), whose sessions/ and archived_sessions/ hold its rollouts, or its sessions folder, or one day of it",
	config.KindClaudeCode: "Claude Code's projects folder (~/.claude/projects, or one project of it)",
	config.KindOpenClaw:   "OpenClaw's state directory (~/.openclaw), which holds agents/<id>/sessions",
	config.KindHermes:     "the Hermes home (~/.hermes), which holds state.db",
	config.KindGemini:     "the Gemini CLI home (~/.gemini), which holds tmp/<project>/chats",
	config.KindAider:      "the folder that holds your repositories (~/src), with Aider's .aider.chat.history.md in a repository's root, or a history file itself (one --chat-history-file names)",
	config.KindCursor:     "Cursor's projects folder (~/.cursor/projects, or one project of it), which holds <project>/agent-transcripts",
	// The zip an export comes as is not read: it is to be unzipped.
	config.KindChatExport: "a folder of unzipped ChatGPT or Claude.ai exports, each holding its conversations.json (a downloaded export is a zip: unzip it there)",
}

// listingAdvice is what to do about a part of a source that could not be
// listed: a link's target is to be brought back (a volume mounted) or the
// link removed, anything else is a matter of permissions.
func listingAdvice(p ingest.Problem) string {
	if !p.DanglingLink() {
		return "check the permissions of " + p.Path
	}
	target := "its target"
	if t, err := os.Readlink(p.Path); err == nil {
		if !filepath.IsAbs(t) {
			t = filepath.Join(filepath.Dir(p.Path), t)
		}
		target = t
	}
	return "mount the volume holding " + target + " (or restore that file), or remove the link; memory already indexed from it is kept"
}

// novadBuild returns the build novad reports (as version.Info.Build
// writes it) and whether it is another than this binary's: commits are
// compared when both are known (a binary rebuilt from one commit is the
// same build, stamped or not), versions otherwise. A novad that reports
// no version is not judged.
func novadBuild(h *api.Health) (string, bool) {
	if h.Version == "" {
		return "", false
	}
	own := version.Get()
	novad := version.Info{Version: h.Version, Commit: "unknown"}
	if h.SourceCommit != nil {
		novad.Commit = *h.SourceCommit
		if own.Commit != "unknown" {
			return novad.Build(), novad.Commit != own.Commit
		}
	}
	return novad.Build(), strings.TrimSpace(novad.Version) != strings.TrimSpace(own.Version)
}

// PortsInUse dials the loopback ports of cfg (server and facade; a port
// of 0, which novad picks free, is left out) and returns those that
// accept a connection, and all of them. Only a connection is made:
// nothing is sent to whatever answers. dial nil is a net.Dialer's; each
// try waits at most timeout.
func PortsInUse(ctx context.Context, cfg config.Config, timeout time.Duration, dial func(ctx context.Context, addr string) (net.Conn, error)) (held, all []string) {
	if dial == nil {
		dial = func(ctx context.Context, addr string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "tcp", addr)
		}
	}
	host := config.BindHost(cfg.Server.Host)
	for _, port := range []int{cfg.Server.Port, cfg.Facade.Port} {
		if port == 0 {
			continue
		}
		addr := net.JoinHostPort(host, strconv.Itoa(port))
		all = append(all, addr)
		dctx, cancel := context.WithTimeout(ctx, timeout)
		if conn, err := dial(dctx, addr); err == nil {
			conn.Close()
			held = append(held, addr)
		}
		cancel()
	}
	return held, all
}

// heldPorts names the ports of cfg that accept a connection, or both
// when neither does: the program holding one may have just let it go.
func heldPorts(ctx context.Context, cfg config.Config, timeout time.Duration) string {
	held, all := PortsInUse(ctx, cfg, timeout, nil)
	if len(held) == 0 {
		return strings.Join(all, " or ")
	}
	return strings.Join(held, " and ")
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// waitingNote tells that the service jobs wait for config.yaml to be
// fixed (--wait-for-config) and start by themselves once it is: without
// it, a user who fixed the file would restart them by hand.
func waitingNote(home paths.Home) string {
	var jobs []string
	if configwait.Waiting(home, configwait.JobNovad) {
		jobs = append(jobs, "novad")
	}
	if configwait.Waiting(home, configwait.JobWatcher) {
		jobs = append(jobs, "the watcher")
	}
	if len(jobs) == 0 {
		return ""
	}
	if len(jobs) == 1 {
		return "; " + jobs[0] + " waits for the fix and starts by itself once the file is valid"
	}
	return "; novad and the watcher wait for the fix and start by themselves once the file is valid"
}
