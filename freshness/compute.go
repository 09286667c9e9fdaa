package freshness

import (
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/lockfile"
	"github.com/nova-recall/nova/paths"
)

// Compute returns how fresh memory is at now. st is the watcher's state
// (nil when no watcher ever ran), running whether a watcher holds the lock
// now, and built the build time of the active generation (zero when there
// is none). Status is left empty: it is the caller's availability reason.
//
// The lag is known only while a watcher runs: it is how long the oldest
// change the watcher saw has waited for a sync (0 when nothing waits).
// Without a running watcher nobody is looking, so it is null rather than a
// comforting 0.
func Compute(now time.Time, st *State, running bool, built time.Time) api.Freshness {
	f := api.Freshness{CheckedAt: now.UTC().Format(time.RFC3339), Watcher: api.WatcherStatus{Running: running, LimitsHit: []string{}}}
	caught := built
	if st != nil && st.CaughtUpAt.After(caught) {
		caught = st.CaughtUpAt
	}
	f.IndexCaughtUpAt = timeString(caught)
	if st == nil {
		return f
	}
	f.SourcesChangedAt = timeString(st.SourcesChangedAt)
	if running {
		lag := 0.0
		if !st.PendingSince.IsZero() {
			lag = max(0, now.Sub(st.PendingSince).Seconds())
		}
		f.LagSeconds = &lag
	}
	w := &f.Watcher
	w.PID = st.PID
	w.StartedAt = st.StartedAt.UTC().Format(time.RFC3339)
	if s := st.LastSync; s != nil {
		w.LastSyncAt = s.FinishedAt.UTC().Format(time.RFC3339)
		w.LastSyncResult = s.Result
	}
	w.WatchedDirs, w.WatchedFiles, w.PolledDirs = st.Watched.Dirs, st.Watched.Files, st.Watched.PolledDirs
	for _, l := range st.Limits {
		w.LimitsHit = append(w.LimitsHit, l.Name)
	}
	w.FilesGone = st.Gone.Count
	return f
}

// Load reads home's watcher state and lock and computes the freshness at
// now for an active generation built at built. An unreadable state counts
// as none: freshness is a report, never a reason to fail.
//
// While a watcher that has not written its first state yet holds the lock
// (it walks every source first: seconds on a large corpus, longer on a
// cold disk at login), the state is the one it starts from (see
// starting), not the previous watcher's: that one said up to date as of
// its stop, named a process gone, and listed the limits it hit, which the
// restart may be about. While one that could write neither its lock's
// holder nor its state holds the lock, a stopped watcher's state counts
// as none.
func Load(home paths.Home, now, built time.Time) (api.Freshness, *State) {
	st, err := Read(home)
	if err != nil {
		st = nil
	}
	running := Running(home)
	if running && st != nil {
		h := lockfile.ReadHolder(home.WatcherLock())
		if h.PID <= 0 && !st.StoppedAt.IsZero() {
			// The state is a stopped watcher's, and the running one wrote
			// neither its lock's holder nor a state (the disk holding
			// NOVA_HOME is full): its pid, watches and syncs are not
			// known, and the stopped one's "up to date" is not its.
			st = nil
		} else {
			st = starting(st, h)
		}
	}
	return Compute(now, st, running, built), st
}

// starting returns st, or, when the lock's holder is another watcher than
// the one st is from, the state that watcher starts from: itself, since
// it took the lock, with everything since then to sync (a watcher syncs
// at start), and none of the previous one's watches, limits, counts or
// running sync. What the previous one knew of the index and the sources
// stands.
func starting(st *State, h lockfile.Holder) *State {
	since, err := time.Parse(time.RFC3339, h.Since)
	if h.PID <= 0 || h.PID == st.PID || err != nil {
		return st
	}
	next := *st
	next.PID, next.StartedAt, next.UpdatedAt, next.StoppedAt = h.PID, since, since, time.Time{}
	next.Running, next.Syncs, next.Watched, next.Limits = nil, map[string]int{}, Watched{}, []Limit{}
	next.RescanIntervalSeconds, next.LastRescanAt = 0, time.Time{}
	if next.PendingSince.IsZero() || since.Before(next.PendingSince) {
		next.PendingSince = since
	}
	return &next
}

func timeString(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := t.UTC().Format(time.RFC3339)
	return &s
}
