package doctor

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/freshness"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/manifest"
	"github.com/nova-recall/nova/packaging"
	"github.com/nova-recall/nova/paths"
)

// staleAfter is how long a change may wait for a sync, while the watcher
// runs, before freshness is Degraded: far beyond a sync's normal time, so
// only a stuck or failing watcher gets there.
const staleAfter = 10 * time.Minute

// watcherFreshness is the freshness check while a watcher runs: its lag
// says how current memory is, better than comparing file times.
func watcherFreshness(fr api.Freshness, st *freshness.State, now time.Time) Check {
	changed := "no source change seen yet"
	if !st.SourcesChangedAt.IsZero() {
		changed = "sources last changed " + ago(now, st.SourcesChangedAt)
	}
	caught := ""
	if fr.IndexCaughtUpAt != nil {
		if t, err := time.Parse(time.RFC3339, *fr.IndexCaughtUpAt); err == nil {
			caught = "; index caught up " + ago(now, t)
		}
	}
	running := ""
	if r := st.Running; r != nil {
		// A sync of a large corpus takes minutes: say one is under way.
		running = fmt.Sprintf("; a sync (%s) has been running for %s", r.Trigger, now.Sub(r.StartedAt).Round(time.Second))
	}
	lag := time.Duration(0)
	if fr.LagSeconds != nil {
		lag = time.Duration(*fr.LagSeconds * float64(time.Second))
	}
	switch {
	case lag == 0:
		return ready("freshness", "Index freshness", "up to date: "+changed+caught+running)
	case lag < staleAfter:
		return ready("freshness", "Index freshness", fmt.Sprintf("catching up (lag %s): %s%s%s", lag.Round(time.Second), changed, caught, running))
	}
	why := ""
	if s := st.LastSync; s != nil && s.Result != freshness.ResultOK {
		why = fmt.Sprintf(" (last sync %s", s.Result)
		if s.Error != "" {
			why += ": " + firstLine(s.Error)
		}
		why += ")"
	}
	return degraded("freshness", "Index freshness", CodeIndexStale,
		fmt.Sprintf("a source change has waited %s for a sync%s%s", lag.Round(time.Second), why, running),
		"check the watcher's log; novactl index sync shows a failure in full")
}

// watcherChecks report the source watcher: whether it runs (Degraded when
// it should, because its service is installed, or novad's is without it),
// the limits it hit, its failing syncs, and the files gone from sources
// whose memory is kept. defs are the service definitions on disk (novactl
// service install's and Homebrew's); probe, when set, says why novactl's
// watcher job is not running, and which home it serves, this one (home)
// or another. restart is how the running watcher runs, for advice that
// restarts it: runnerOf's, with the home novactl's job serves (serving),
// so that advice never restarts another home's watcher. configFile is
// config.yaml ("" when there is none), which a running watcher read once,
// when it started.
func watcherChecks(ctx context.Context, fr api.Freshness, st *freshness.State, defs []packaging.Definition, probe ServiceProbe, restart runner, home paths.Home, configFile string) []Check {
	const id, title = "watcher", "Source watcher"
	var novad, watcher *packaging.Definition
	for i, d := range defs {
		switch {
		case d.Job == "novad" && novad == nil:
			novad = &defs[i]
		case d.Job == "watcher" && watcher == nil:
			watcher = &defs[i]
		}
	}
	var out []Check
	w := fr.Watcher
	switch {
	case w.Running && st != nil && changedSince(configFile, st.StartedAt):
		// The watcher watches and syncs the sources it read then: one
		// added since is never read, while freshness says up to date.
		out = append(out, degraded(id, title, CodeWatcherConfigStale,
			fmt.Sprintf("novactl index watch (pid %d) runs with %s as it was when it started (%s); the file changed since, and sources added to it are neither watched nor synced",
				w.PID, configFile, st.StartedAt.Local().Format("2006-01-02 15:04")),
			"restart the watcher: "+restart.restart("novactl index watch")))
	case w.Running && st == nil:
		// It writes its state once it has walked the sources, and never
		// while the disk holding NOVA_HOME is full: its pid and watches
		// are not known, which is not "pid 0, 0 folders".
		out = append(out, ready(id, title, "novactl index watch is running; it has written no state yet ("+home.WatcherState()+"): it walks the sources first, or cannot write there (see Disk space)"))
	case w.Running:
		out = append(out, ready(id, title, fmt.Sprintf("novactl index watch is running (pid %d): %d folders watched, %d files", w.PID, w.WatchedDirs, w.WatchedFiles)))
	case watcher != nil:
		why, advice := "", "novactl service start (starts novad and the watcher); novactl service status shows why it stopped"
		if watcher.Owner == packaging.OwnerHomebrew {
			advice = "brew services start " + packaging.HomebrewWatchFormula + "; brew services info " + packaging.HomebrewWatchFormula + " shows why it stopped"
		} else if probe != nil {
			if s, err := probe.ServiceStatus(ctx); err == nil {
				if s.Detail != "" {
					why = " " + s.Detail
				}
				if served := servedElsewhere(s, home); served != "" {
					advice = elsewhereStart(home.Root, served, "novactl index watch")
				}
			}
		}
		out = append(out, degraded(id, title, CodeWatcherNotRunning,
			"its service ("+watcher.Path+") is installed but the watcher is not running"+why+"; memory is refreshed only by novactl index sync", advice))
	case novad != nil:
		advice := "novactl service install (installs novad and the watcher)"
		if novad.Owner == packaging.OwnerHomebrew {
			advice = "brew install nova-recall/tap/" + packaging.HomebrewWatchFormula + " && brew services start " + packaging.HomebrewWatchFormula
		}
		out = append(out, degraded(id, title, CodeWatcherNotInstalled,
			"novad runs as a service ("+novad.Path+") but the source watcher does not; memory is refreshed only by novactl index sync", advice))
	default:
		out = append(out, ready(id, title, "not running: memory is refreshed only by novactl index sync; run novactl index watch, or novactl service install to run it at login"))
	}
	if st == nil || !w.Running {
		return out
	}
	for _, l := range st.Limits {
		advice := l.Message
		switch l.Name {
		case freshness.LimitOpenFiles, freshness.LimitInotifyInstances:
			// The watcher takes these in only when it starts; its message
			// does not know how it was started.
			advice += " (" + restart.restart("novactl index watch") + ")"
		case freshness.LimitInotifyWatches:
			// Its message says only to raise the limit, but the watcher
			// sets its budget (half the limit) when it starts: raised
			// alone, the limit left the watcher as it was.
			advice += "; then restart the watcher, which takes its share of the limit when it starts: " + restart.restart("novactl index watch")
		}
		out = append(out, degraded("watcher-limit:"+l.Name, "Watch limit", CodeWatcherLimit,
			fmt.Sprintf("%d folders are rescanned every %ds instead of watched", st.Watched.PolledDirs, st.RescanIntervalSeconds), advice))
	}
	if s := st.LastSync; s != nil && s.Result == freshness.ResultFailed {
		out = append(out, degraded("watcher-sync", "Watcher sync", CodeWatcherSyncFailed, firstLine(s.Error),
			"the watcher retries with back-off; novactl index sync shows the failure in full"))
	}
	return out
}

func ago(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case d < 0:
		return "just now"
	case d < time.Minute:
		return fmt.Sprintf("%ds ago", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh%02dm ago", int(d.Hours()), int(d.Minutes())%60)
	}
	return t.Local().Format("2006-01-02 15:04")
}

// changedSince reports whether the file at path was modified after t;
// false when there is no such file.
func changedSince(path string, t time.Time) bool {
	if path == "" {
		return false
	}
	fi, err := os.Stat(path)
	return err == nil && fi.ModTime().After(t)
}

// watcherOtherBuild reports a running watcher whose last sync promoted the
// active generation (active, nil when none is readable) with another text
// analysis than this build's. A sync of this build always writes its own,
// so that watcher runs another novactl: the old one, which brew upgrade
// leaves running until it is restarted, and whose every sync rebuilds
// the index with the old rules (the novad-other-build check cannot see
// this: the watcher reports no version).
func watcherOtherBuild(home paths.Home, active *manifest.Manifest, fr api.Freshness, st *freshness.State, restart runner) (Check, bool) {
	if active == nil || st == nil || !fr.Watcher.Running || st.LastSync == nil ||
		st.LastSync.Result != freshness.ResultOK || st.LastSync.RunID != active.RunID {
		return Check{}, false
	}
	analyzer, err := index.GenerationAnalyzer(home, active)
	if err != nil || analyzer == "" || analyzer == lexical.Version {
		return Check{}, false
	}
	return degraded("watcher-build", "Watcher build", CodeWatcherOtherBuild,
		fmt.Sprintf("novactl index watch (pid %d) built the active generation %s with text analysis %s, not this novactl's %s: it runs another build, and its every sync builds the index so again",
			fr.Watcher.PID, active.RunID, analyzer, lexical.Version),
		"if Nova was upgraded, restart the watcher so it runs the new binary: "+restart.restart("novactl index watch")), true
}
