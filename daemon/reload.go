package daemon

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"
	"weak"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/embedding"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/index/generation"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/lockfile"
	"github.com/nova-recall/nova/manifest"
	"github.com/nova-recall/nova/paths"
	"github.com/nova-recall/nova/redact"
	"github.com/nova-recall/nova/search"
	"github.com/nova-recall/nova/secrets"
)

// What asked for a reload.
const (
	triggerStart  = "start"  // novad started
	triggerWatch  = "watch"  // the manifest watcher or its poll
	triggerSignal = "signal" // SIGHUP: reload and re-verify even if nothing changed
	triggerDamage = "damage" // a re-check found the served generation's files damaged
	triggerRetry  = "retry"  // a deep tick while nothing intact is served
)

// reloadLoop loads the active generation at start, then whenever the
// manifest watcher, its poll or SIGHUP says it may have changed, and
// re-checks the served generation's files while requests come: sizes and
// modification times every CheckEvery, every checksum every
// DeepCheckEvery (see serveLoop). All of it happens here, off the request
// path; searches keep using the current snapshot through the atomic
// pointer and never wait for a load or a check.
func (s *Server) reloadLoop(ctx context.Context) {
	w := manifest.Watch(s.home.IndexDir(), filepath.Base(s.home.Manifest()), manifest.WatchOptions{Debounce: s.opts.Debounce, Poll: s.opts.Poll, Log: s.log})
	defer w.Close()
	s.reloadOnce(ctx, triggerStart, nil) // Run set loading before serving
	s.loading.Store(false)
	s.serveLoop(ctx, w.C)
}

// serveLoop is the reload loop once the first load is done: changed says
// the manifest may have changed.
//
// The re-checks pause while no request comes: nothing reads the served
// files then, and on a laptop an idle novad otherwise woke every
// CheckEvery, all day, to stat them (and hashed them all every hour). A
// quick tick that finds no request since the last one stops the ticker;
// the next request has the files checked at once (hashed, when a deep
// check came due meanwhile) and restarts it.
func (s *Server) serveLoop(ctx context.Context, changed <-chan struct{}) {
	quick := time.NewTicker(s.opts.CheckEvery)
	defer quick.Stop()
	deep := time.NewTicker(s.opts.DeepCheckEvery)
	defer deep.Stop()
	used := false     // a request came since the last quick tick
	idle := false     // the quick ticker is stopped until a request comes
	deepOwed := false // a deep check came due while idle
	for {
		var held heldEvents // what came while a check ran, to handle now
		select {
		case <-ctx.Done():
			return
		case <-changed:
			s.manifestEvent(ctx)
		case <-s.hup:
			s.reloadOnce(ctx, triggerSignal, nil)
		case <-s.used:
			if !idle {
				used = true
				break
			}
			idle = false
			quick.Reset(s.opts.CheckEvery)
			d := index.Quick
			if deepOwed {
				d, deepOwed = index.Deep, false
			}
			held = s.recheck(ctx, d, changed)
		case <-quick.C:
			if !used {
				idle = true
				quick.Stop()
				break
			}
			used = false
			held = s.recheck(ctx, index.Quick, changed)
		case <-s.checkNow:
			held = s.recheck(ctx, index.Quick, changed)
		case <-deep.C:
			if idle {
				deepOwed = true
				break
			}
			held = s.recheck(ctx, index.Deep, changed)
		case <-s.collect:
			s.collectRetired()
		}
		// A load is never cut short: promotions that came faster than a
		// large generation loads (a compaction's, every file hashed)
		// would each cut the last, and nothing newer would be served
		// until they paused.
		if ctx.Err() != nil {
			return // a stop cut the check short: nothing to reload
		}
		if held.signal {
			s.reloadOnce(ctx, triggerSignal, nil)
		}
		if held.changed {
			s.manifestEvent(ctx)
		}
	}
}

// heldEvents are the SIGHUP and manifest watcher events that came while
// a check of the reload loop (a re-check, or the search for an intact
// generation) ran, which the loop handles once it returns.
type heldEvents struct {
	signal, changed bool
}

// cutShort runs step, a re-check or the search for an intact generation,
// with a context that a SIGHUP, or a manifest the watcher (changed) finds
// naming other content than base, cancels: the reload either one asks
// for serves what is newer, and it waited, the reload loop being one
// goroutine, until the step had hashed every file (minutes, for a large
// index on a slow disk). The watcher's polls tick whether or not anything
// changed: only a new manifest cuts. cutShort returns the events that
// came while step ran, for the loop to handle, and whether step's context
// was cancelled (by that or by a stop) when it returned. The listener
// only records and cancels: state changes stay on the loop's goroutine.
func (s *Server) cutShort(ctx context.Context, changed <-chan struct{}, base string, step func(context.Context)) (held heldEvents, cut bool) {
	stepCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	done, listened := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(listened)
		for {
			select {
			case <-done:
				return
			case <-s.hup:
				held.signal = true
				cancel()
				return
			case <-changed:
				held.changed = true
				if s.manifestChangedFrom(base) {
					cancel()
					return
				}
			}
		}
	}()
	step(stepCtx)
	cut = stepCtx.Err() != nil
	close(done)
	<-listened
	return held, cut
}

// manifestEvent handles an event of the manifest watcher or its poll.
func (s *Server) manifestEvent(ctx context.Context) {
	s.reloadOnce(ctx, triggerWatch, nil)
	// The token file (novactl index reads it before any request) and the
	// lock file are looked for at each manifest poll (and event): two
	// Lstats, idle or not. A ticker of their own, at the poll's period
	// but out of step with it, woke an idle novad twice per period
	// instead of once.
	if s.relockHome() {
		s.republishToken()
	}
}

// relockHome locks the home's novad lock file again when its name no
// longer reaches the file novad locked. Deleting state/ while novad runs
// (a cleanup of the home) removes the file but not novad's lock of it,
// and to every other process the home is then unlocked: clients took
// novad for stopped (novactl search and doctor said "not running"), and a
// second novad locked a new file and served the home beside it. So a new
// file is created (in a private state/, made again), locked and recorded
// as serving (lockfile.Lock.Renew), as often as the token file is looked
// for.
//
// The removal is only seen at the next poll, and in between another
// process may lock the new file first (a second novad started in that
// moment). Then this novad can no longer show clients that it serves the
// home, and two would answer for it: it reports false and says so on
// lockLost, where Run stops with ErrAlreadyServing (exit 75; a service
// manager relaunches it, and with --wait-for-config it stands by until
// the other stops). Any other failure is logged once and tried again at
// the next poll. On a read-only home nothing can be removed, and nothing
// is done.
func (s *Server) relockHome() bool {
	held, ok := s.homeLock.(*lockfile.Lock)
	if !ok {
		return true
	}
	path := s.home.DaemonLock()
	l, err := held.Renew(path, paths.FileMode, "serve", s.opts.Now(), func() error { return secrets.EnsurePrivateDir(s.home.StateDir()) })
	switch {
	case err == nil && l == held:
		return true
	case err == nil:
		s.homeLock = l
		s.relockFailed = false
		s.log.Warn("The home's novad lock file was gone; locked it again", "path", path)
		return true
	case errors.Is(err, lockfile.ErrHeld):
		s.log.Error("Stopping: another process locked this home while its novad lock file was gone (state/ removed while novad ran); one novad serves a home",
			"path", path, errAttr(err))
		select {
		case s.lockLost <- fmt.Errorf("%w (%v)", ErrHomeLockLost, err):
		default:
		}
		return false
	}
	if !s.relockFailed {
		s.log.Error("Cannot lock the home again: clients take novad for stopped until it can", "path", path, errAttr(err))
	}
	s.relockFailed = true
	return true
}

// republishToken writes the internal token file, and the server state
// beside it, again when the file is gone (state/ deleted while novad
// runs, a cleanup of the home, or a start that could not write it):
// novactl reads the token there, and without it could not use /encode
// until novad restarted. The same token is written: the file was removed,
// not exposed, and a client that read it before keeps working. A file
// that is there (an unsafe one included: /encode refuses it, see
// tokenFileServed) is left alone. A failure is logged once until a write
// succeeds: under launchd the log is a file nothing rotates.
func (s *Server) republishToken() {
	if s.readOnly {
		return
	}
	if _, err := os.Lstat(s.home.TokenFile()); !errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err := secrets.WriteToken(s.home.TokenFile(), s.token); err != nil {
		if !s.republishFailed {
			s.log.Error("Cannot publish the internal token again: /encode is refused until it can be written",
				"path", s.home.TokenFile(), "code", api.CodeAuthUnavailable, errAttr(err))
		}
		s.republishFailed = true
		return
	}
	s.republishFailed = false
	// Logged before the state is written: a client that finds the state
	// again finds the line that explains it.
	s.log.Warn("The internal token file was gone; published it again", "path", s.home.TokenFile())
	s.writeState("")
}

// collectRetryAfter is how long collectRetired waits before looking again
// for a retired snapshot that a finishing search still held, and
// maxCollectRetries how many times in a row it looks.
const (
	collectRetryAfter = time.Second
	maxCollectRetries = 3
)

// retire records that c (nil for none) is served no more. Its files are
// mapped, and only the cleanups a garbage collection runs unmap them: the
// runtime collects when the heap has grown enough, which a reload barely
// does, so an idle novad or one with a large heap kept every retired
// generation's files mapped, those that retention deleted taking their
// disk space with them, for up to two minutes of promotions. Collect now
// when no search uses c, else when its last search ends.
func (s *Server) retire(c *served) {
	if c == nil {
		return
	}
	c.retired.Store(true)
	s.retired = append(s.retired, weak.Make(c))
	s.retries = 0
	if c.searches.Load() == 0 {
		s.askCollect()
	}
}

// searchDone ends a search on c, asking for a collection when it was the
// last one on a retired snapshot.
func (s *Server) searchDone(c *served) {
	if c.searches.Add(-1) == 0 && c.retired.Load() {
		s.askCollect()
	}
}

// markUsed tells the reload loop that a request came.
func (s *Server) markUsed() {
	select {
	case s.used <- struct{}{}:
	default:
	}
}

func (s *Server) askCollect() {
	select {
	case s.collect <- struct{}{}:
	default:
	}
}

// collectRetired collects garbage, off the request path, so that the
// cleanups of the retired snapshots no search uses unmap their files. A
// retired snapshot still reachable with no search on it was held by a
// search goroutine on its way out: it is looked at again shortly, a few
// times at most.
func (s *Server) collectRetired() {
	runtime.GC()
	held := false
	kept := s.retired[:0]
	for _, w := range s.retired {
		if c := w.Value(); c != nil {
			kept = append(kept, w)
			held = held || c.searches.Load() == 0
		}
	}
	clear(s.retired[len(kept):])
	s.retired = kept
	if held && s.retries < maxCollectRetries {
		s.retries++
		time.AfterFunc(collectRetryAfter, s.askCollect)
	}
}

// recheck verifies the served generation's files at depth d and falls
// back to an intact generation when they are damaged.
//
// A SIGHUP, or a manifest the watcher (changed) finds naming other
// content than the one served, cuts the check short, and the search for
// an intact generation it makes (see cutShort). A check cut short, by
// that or by a stop, found nothing and records nothing. It returns the events that came while it
// ran, for the reload loop to handle.
func (s *Server) recheck(ctx context.Context, d index.Depth, changed <-chan struct{}) heldEvents {
	cur := s.current.Load()
	st := s.integrityStatus()
	if cur == nil || st == api.IntegrityDamaged {
		// Nothing intact on disk was found last time. Searching again costs
		// a hash of every kept generation, so only the deep tick does it
		// (SIGHUP, a sync or a rollback do it at once, and cut it short).
		if d == index.Deep && st != "" {
			_, base, _ := manifest.Read(s.home.Manifest())
			held, _ := s.cutShort(ctx, changed, base, func(ctx context.Context) { s.reloadOnce(ctx, triggerRetry, nil) })
			return held
		}
		return heldEvents{}
	}
	var err error
	held, cut := s.cutShort(ctx, changed, cur.hash, func(ctx context.Context) { err = cur.gen.Recheck(ctx, d) })
	if err != nil && cut {
		return held // novad stops, or reloads: a check cut short found nothing
	}
	if err == nil {
		now := s.opts.Now().UTC().Format(time.RFC3339)
		s.statusMu.Lock()
		s.integrity.CheckedAt = now
		if d == index.Deep {
			s.integrity.DeepCheckedAt = now
		}
		s.statusMu.Unlock()
		return held
	}
	// A promotion that deleted the served generation (a compaction removes
	// the one it replaces) can reach this check before the manifest
	// watcher's event: that is a reload to make, not damage. The manifest
	// is compared by content, not by the run id it names: a fallback
	// served is not the one the manifest names, and was logged damaged.
	// A stop that cuts that reload short leaves cur served: the damage is
	// the reload's to tell, at the next start.
	if s.manifestChangedFrom(cur.hash) {
		s.reloadOnce(ctx, triggerWatch, nil)
		if ctx.Err() != nil || s.current.Load() != cur {
			return held
		}
	}
	s.log.Error("The files of the served generation are damaged; looking for an intact one", "runId", cur.runID(),
		"check", depthName(d), errAttr(err))
	s.reloadOnce(ctx, triggerDamage, err)
	return held
}

func depthName(d index.Depth) string {
	if d == index.Deep {
		return "checksums"
	}
	return "sizes-and-times"
}

// reloadOnce reads the manifest and serves the generation it names,
// verified in full, when anything changed (or always, for every trigger
// but the watcher). When that generation is missing or fails verification
// it serves the newest intact kept generation instead, and says so in the
// log, /health and the facade's ragStatus; when none is intact it keeps
// the copy already in memory, or serves nothing, and says that. damage is
// the re-check failure of the served generation (triggerDamage only).
func (s *Server) reloadOnce(ctx context.Context, trigger string, damage error) {
	s.reloadMu.Lock()
	defer s.reloadMu.Unlock()
	// A sync promotes its delta and then the compaction that merges it,
	// which removes the delta's generation: a reload that read the
	// manifest in between finds that generation gone. It was replaced,
	// not damaged: load what the manifest names now. The bound only stops
	// a manifest rewritten without end from holding the reload.
	for range 8 {
		if !s.reloadLocked(ctx, trigger, damage) {
			return
		}
	}
}

// reloadLocked is one attempt of reloadOnce, with reloadMu held. It
// reports superseded, changing nothing, when the generation the manifest
// named could not be opened and the manifest has changed since it was
// read.
func (s *Server) reloadLocked(ctx context.Context, trigger string, damage error) (superseded bool) {
	m, hash, err := manifest.Read(s.home.Manifest())
	cur := s.current.Load()
	if errors.Is(err, manifest.ErrNoManifest) && trigger != triggerDamage && (cur != nil || len(index.GenerationIDs(s.home)) == 0) {
		// Nothing promoted yet (or the manifest was removed): keep what is
		// served; searches without a generation answer unavailable. With
		// nothing served and generations kept (the manifest was removed
		// before a restart), fall back to the newest intact one below, as
		// for a damaged manifest: a restart must not lose the index.
		return false
	}
	if hash == "" && err != nil {
		// Not a file, or not readable: no content to hash, so the error
		// stands for it. Otherwise every poll tried and logged the same
		// failure again.
		hash = "unread: " + err.Error()
	}
	if trigger == triggerWatch && cur != nil && hash == cur.hash {
		// Unchanged (a touch, a chmod, a poll tick, or a revert to the
		// content being served after a failed attempt).
		if err == nil && cur.runID() == m.RunID {
			if s.integrityStatus() != api.IntegrityDamaged {
				s.clearFailure(m.RunID)
			}
			return false
		}
		// A fallback is served for the generation the manifest names:
		// try that one again only once its files changed.
		if known, failed := s.knownFailure(hash, m); !failed || known {
			return false
		}
	}
	if trigger == triggerWatch {
		if known, _ := s.knownFailure(hash, m); known {
			return false
		}
	}
	// The files the manifest names, stamped before they are opened: a
	// generation that failed is tried again, on the watcher's next poll,
	// once they change (a restore that copied manifest.json before the
	// segments it names), not before (each try hashes them all).
	stamp := ""
	if err == nil {
		stamp = filesStamp(s.home.IndexDir(), m)
	}

	activeID, activeErr := "", err
	var next *index.Served
	if err == nil {
		activeID = m.RunID
		if damage != nil && cur != nil && cur.runID() == activeID {
			activeErr = damage // just found damaged: no need to hash it again
		} else {
			next, activeErr = s.openActive(ctx, s.home, m, s.analyzer, s.segments)
			if activeErr != nil && ctx.Err() != nil {
				// novad stops: the load was cut short, not failed. Nothing
				// is recorded, so a novad started again loads it anew.
				return false
			}
			if activeErr != nil && s.manifestChangedFrom(hash) {
				s.log.Debug("The generation read was replaced while it was opened; reading the manifest again", "runId", activeID, errAttr(activeErr))
				return true
			}
		}
	}
	if activeErr == nil {
		s.swap(next, hash, activeID, trigger, nil, nil)
		return false
	}
	s.failReload(hash, stamp, activeID, activeErr)
	if trigger == triggerWatch && cur != nil && s.integrityStatus() != api.IntegrityDamaged {
		// A new manifest names a generation that cannot be served, and the
		// one in memory is intact: it stays.
		s.log.Error("Generation not loaded; the one already loaded keeps serving", "runId", activeID,
			"serving", cur.runID(), errAttr(activeErr))
		s.setIntegrity(api.IntegrityFallback, activeID, cur.runID(), activeErr, nil, false)
		return false
	}
	except := []string{activeID}
	if damage != nil && cur != nil {
		except = append(except, cur.runID())
	}
	fb, skipped, ferr := index.OpenNewestIntact(ctx, s.home, s.cfg, s.analyzer, s.segments, except...)
	if ctx.Err() != nil {
		return false // novad stops: no fallback was looked for to the end
	}
	switch {
	case ferr == nil:
		s.swap(fb, hash, activeID, trigger, activeErr, skipped)
		s.log.Warn("The active generation cannot be served; serving the newest intact kept generation instead",
			"active", activeID, "serving", fb.Record.RunID, "skipped", len(skipped), errAttr(activeErr))
	case cur != nil && !servedAltered(cur, activeID, damage, activeErr):
		// The files novad serves are mapped: removed ones still read what
		// was verified at load time, which is better than nothing until
		// an intact generation is promoted.
		s.setIntegrity(api.IntegrityDamaged, activeID, cur.runID(), activeErr, skipped, false)
		s.log.Error("No intact generation on disk; novad keeps answering from the files it mapped before they were removed",
			"serving", cur.runID(), "loadedAt", cur.loadedAt.UTC().Format(time.RFC3339), "active", activeID,
			"skipped", len(skipped), errAttr(activeErr))
	default:
		// Integrity first: once a search finds nothing served, /health
		// already says why (the state file's write took long enough for a
		// client to see "verified" with nothing served).
		// A served file truncated or rewritten in place: reading its
		// mapping gives other bytes or faults. Serve nothing, and say so
		// with it (see publish).
		old := s.publish(nil, func() {
			s.setIntegrityLocked(api.IntegrityNone, activeID, "", activeErr, skipped, false)
			s.unservedMismatch = err == nil && !index.ProfileMatchesConfig(s.cfg, m.EmbeddingProfile)
		})
		if old != nil {
			s.retire(old)
			s.writeState("")
		}
		s.log.Error("Generation not loaded and no kept generation is intact: nothing is served (novactl doctor explains)",
			"active", activeID, "skipped", len(skipped), errAttr(activeErr))
	}
	for _, e := range skipped {
		s.log.Warn("Kept generation passed over", errAttr(e))
	}
	return false
}

// manifestChangedFrom reports whether the manifest now reads other than
// hash (a promotion since it was read).
func (s *Server) manifestChangedFrom(hash string) bool {
	_, now, err := manifest.Read(s.home.Manifest())
	return err == nil && now != hash
}

// servedAltered reports whether the files of cur, the generation being
// served, were changed in place rather than removed: damage is what its
// re-check found (nil when the reload had another trigger), and when cur
// is activeID, activeErr, the failed verification of activeID, is about
// cur's files too.
func servedAltered(cur *served, activeID string, damage, activeErr error) bool {
	if damage == nil {
		if cur.runID() != activeID {
			return false
		}
		damage = activeErr
	}
	ce, ok := errors.AsType[*generation.CorruptError](damage)
	return !ok || !ce.Missing
}

// swap serves g, just opened and verified in full. activeErr is nil when g
// is the generation the manifest names (activeID), else why that one
// could not be served.
func (s *Server) swap(g *index.Served, hash, activeID, trigger string, activeErr error, skipped []error) {
	rec := g.Record
	next := &served{snap: &search.Snapshot{Gen: g.Gen}, gen: g, hash: hash, loadedAt: s.opts.Now(),
		profileOK: index.ProfileMatchesConfig(s.cfg, rec.EmbeddingProfile)}
	if next.profileOK {
		next.snap.Query = s.queryEmbedder(g.Gen)
	}
	// Integrity with the swap: a client that sees the new generation
	// served reads its integrity with it (see publish).
	s.retire(s.publish(next, func() {
		s.unservedMismatch = false
		if activeErr == nil {
			s.setReloadStatusLocked(true, nil, "", "")
			s.setIntegrityLocked(api.IntegrityVerified, activeID, rec.RunID, nil, nil, true)
		} else {
			s.setIntegrityLocked(api.IntegrityFallback, activeID, rec.RunID, activeErr, skipped, true)
		}
	}))
	// A promotion the manifest watcher saw is routine (the source watcher
	// promotes after every burst an agent writes, and under launchd this
	// log is a file nothing rotates; /health names what is served). A
	// start, a SIGHUP, a fallback or another profile is worth a line.
	level := slog.LevelInfo
	if trigger == triggerWatch && activeErr == nil && next.profileOK {
		level = slog.LevelDebug
	}
	s.log.Log(context.Background(), level, "Generation loaded", "runId", rec.RunID, "chunks", g.Gen.Count(), "loadMs", g.Gen.LoadDuration.Milliseconds(),
		"trigger", trigger, "fallback", activeErr != nil, "profileMatches", next.profileOK)
	// A Chinese query reads the segmenter's tables on first use, a
	// quarter of a second. Memory that holds Chinese gets asked in
	// Chinese: the tables are read now, beside serving, once.
	if g.Gen.HasChinese() {
		s.chineseOnce.Do(func() { go s.loadChinese() })
	}
	// After the log line: the state file is written durably (fsync), and
	// the swap is logged when it happens, not a sync later.
	s.writeState("")
	// Every search redacts its results' paths: the rules are built now,
	// beside serving, not by the first search (a tenth of a second). Not
	// at start, beside the load: that made novad ready 50 ms later.
	s.redactionOnce.Do(func() { go s.loadRedaction() })
	if !next.profileOK {
		s.log.Warn("The active generation was embedded with another profile; searches answer embedding-profile-mismatch until it is rebuilt",
			"generation", rec.EmbeddingProfile.Provider+"/"+rec.EmbeddingProfile.Model, "configured", s.cfg.Embedding.Provider)
	}
}

// loadChinese reads the Chinese tables (lexical.LoadChinese) and says so:
// they are the 20 MiB novad grows by once its memory holds Chinese.
func (s *Server) loadChinese() {
	start := time.Now()
	lexical.LoadChinese()
	s.log.Info("Chinese word tables loaded", "ms", time.Since(start).Milliseconds())
}

// loadRedaction builds redaction's rules (redact.Warm) and says so.
func (s *Server) loadRedaction() {
	start := time.Now()
	redact.Warm()
	s.log.Info("Redaction rules loaded", "ms", time.Since(start).Milliseconds())
}

// queryEmbedder returns the embedder of g's vector space: the builtin
// model the generation carries, or the configured provider.
func (s *Server) queryEmbedder(g *generation.Generation) embedding.Embedder {
	if g.Meta.EmbeddingProfile.Provider == config.ProviderBuiltin {
		if g.Model == nil {
			return nil
		}
		return g.Model
	}
	return s.embedder
}

// failReload records that the generation the manifest names (runID) could
// not be served; hash is the manifest content and stamp its files' (see
// filesStamp), so that the watcher's poll does not retry it until either
// changes.
func (s *Server) failReload(hash, stamp, runID string, err error) {
	s.statusMu.Lock()
	s.failedStamp = stamp
	s.statusMu.Unlock()
	s.setReloadStatus(false, err, hash, runID)
}

// knownFailure reports whether hash is the manifest content (m, nil when
// it could not be parsed) whose generation last failed to load (failed),
// and whether that failure is known: the files m names are as they were
// then. Their stamp is taken only for a failed manifest: a poll of a
// healthy one reads nothing but the manifest.
func (s *Server) knownFailure(hash string, m *manifest.Manifest) (known, failed bool) {
	s.statusMu.Lock()
	failedHash, failedStamp := s.failedHash, s.failedStamp
	s.statusMu.Unlock()
	if hash == "" || hash != failedHash {
		return false, false
	}
	return m == nil || filesStamp(s.home.IndexDir(), m) == failedStamp, true
}

// filesStamp sums up the state of every file m names under indexDir (its
// size and modification time, or that it is missing) without reading
// any: it changes when a file is added, removed or rewritten.
func filesStamp(indexDir string, m *manifest.Manifest) string {
	var b strings.Builder
	all := m.AllFiles()
	for _, dir := range slices.Sorted(maps.Keys(all)) {
		for _, name := range manifest.SortedFiles(all[dir]) {
			b.WriteString(dir + "/" + name)
			if fi, err := os.Stat(filepath.Join(indexDir, dir, name)); err == nil {
				fmt.Fprintf(&b, " %d %d", fi.Size(), fi.ModTime().UnixNano())
			}
			b.WriteByte('\n')
		}
	}
	return manifest.HashBytes([]byte(b.String()))
}

// publish serves next (nil: nothing) in place of the generation served,
// which it returns, and records with record (which holds statusMu: the
// ...Locked setters) what the status says of it. Both happen under
// statusMu, where servedStatus reads them, so that no answer pairs one
// generation with another's integrity or reload status.
func (s *Server) publish(next *served, record func()) (old *served) {
	s.statusMu.Lock()
	defer s.statusMu.Unlock()
	record()
	return s.current.Swap(next)
}

// servedStatus returns the generation served (nil: none) with what was
// recorded with it (see publish): the reload status, the integrity, and,
// when none is served, whether the generation the manifest names has
// another embedding profile than the configured one. It is what one
// answer about the server reads.
func (s *Server) servedStatus() (*served, api.ReloadStatus, api.Integrity, bool) {
	s.statusMu.Lock()
	defer s.statusMu.Unlock()
	return s.current.Load(), s.reload, s.integrity, s.unservedMismatch
}

// setReloadStatus records a reload attempt: a swap (ok) or a failure.
func (s *Server) setReloadStatus(ok bool, err error, hash, runID string) {
	s.statusMu.Lock()
	defer s.statusMu.Unlock()
	s.setReloadStatusLocked(ok, err, hash, runID)
}

// setReloadStatusLocked is setReloadStatus with statusMu held.
func (s *Server) setReloadStatusLocked(ok bool, err error, hash, runID string) {
	now := s.opts.Now().UTC().Format(time.RFC3339)
	s.reload.LastAttemptAt = now
	s.reload.LastReloadSuccessful = ok
	if ok {
		s.reload.LastSuccessAt = now
		s.reload.LastError, s.reload.FailedRunID, s.failedHash, s.failedStamp = "", "", "", ""
		s.reload.Reloads++
		return
	}
	s.reload.LastError = err.Error()
	s.reload.FailedRunID = runID
	s.failedHash = hash
}

// clearFailure marks the served generation, which the manifest names
// again, healthy without counting a reload (the manifest went back to the
// content being served).
func (s *Server) clearFailure(runID string) {
	s.statusMu.Lock()
	s.reload.LastReloadSuccessful = true
	s.reload.LastError, s.reload.FailedRunID, s.failedHash, s.failedStamp = "", "", "", ""
	s.statusMu.Unlock()
	s.setIntegrity(api.IntegrityVerified, runID, runID, nil, nil, false)
}

// setIntegrity records what is served against what the manifest names.
// opened says servedID was just opened (every checksum verified now);
// otherwise the check times carry over while the same generation is
// served.
func (s *Server) setIntegrity(status, activeID, servedID string, problem error, skipped []error, opened bool) {
	s.statusMu.Lock()
	defer s.statusMu.Unlock()
	s.setIntegrityLocked(status, activeID, servedID, problem, skipped, opened)
}

// setIntegrityLocked is setIntegrity with statusMu held.
func (s *Server) setIntegrityLocked(status, activeID, servedID string, problem error, skipped []error, opened bool) {
	in := api.Integrity{Status: status, ActiveRunID: activeID, ServedRunID: servedID}
	if problem != nil {
		in.Problem = problem.Error()
	}
	for _, e := range skipped {
		in.Skipped = append(in.Skipped, e.Error())
	}
	switch {
	case opened:
		now := s.opts.Now().UTC().Format(time.RFC3339)
		in.CheckedAt, in.DeepCheckedAt = now, now
	case servedID != "" && servedID == s.integrity.ServedRunID:
		in.CheckedAt, in.DeepCheckedAt = s.integrity.CheckedAt, s.integrity.DeepCheckedAt
	}
	s.integrity = in
}

func (s *Server) integrityStatus() string {
	s.statusMu.Lock()
	defer s.statusMu.Unlock()
	return s.integrity.Status
}
