package daemon

import (
	"context"
	"errors"
	"path/filepath"
	"time"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/embedding"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/index/generation"
	"github.com/nova-recall/nova/manifest"
	"github.com/nova-recall/nova/search"
)

// reloadLoop loads the active generation at start, then whenever the
// manifest watcher, the checksum poll or SIGHUP says it may have changed.
// Loading happens here, off the request path; searches keep using the
// previous snapshot until the new one is swapped in.
func (s *Server) reloadLoop(ctx context.Context) {
	w := manifest.Watch(s.home.IndexDir(), filepath.Base(s.home.Manifest()), manifest.WatchOptions{Debounce: s.opts.Debounce, Poll: s.opts.Poll})
	defer w.Close()
	s.reloadOnce(ctx, "start") // Run set loading before serving
	s.loading.Store(false)
	for {
		select {
		case <-ctx.Done():
			return
		case <-w.C:
			s.reloadOnce(ctx, "watch")
		case <-s.hup:
			s.reloadOnce(ctx, "signal")
		}
	}
}

// reloadOnce reads the manifest and, if its content changed, loads,
// verifies and swaps in the generation it names. A generation that fails
// to load is logged and reported in /health; the previous one keeps
// serving.
func (s *Server) reloadOnce(ctx context.Context, trigger string) {
	s.reloadMu.Lock()
	defer s.reloadMu.Unlock()
	m, hash, err := manifest.Read(s.home.Manifest())
	cur := s.current.Load()
	if errors.Is(err, manifest.ErrNoManifest) {
		// Nothing promoted yet (or the manifest was removed): keep what is
		// served; searches without a generation answer unavailable.
		return
	}
	if cur != nil && hash == cur.hash {
		// Unchanged (a touch, a chmod, or a revert to the active content
		// after a failed attempt): make sure status says healthy.
		s.clearFailure()
		return
	}
	s.statusMu.Lock()
	knownBad := hash != "" && hash == s.failedHash && trigger != "signal"
	s.statusMu.Unlock()
	if knownBad {
		return
	}
	if err != nil {
		s.failReload(hash, "", err)
		return
	}
	t0 := time.Now()
	g, err := generation.Open(filepath.Join(s.home.IndexDir(), m.GenerationPath), m.RunID, m.Files, s.analyzer)
	if err != nil {
		s.failReload(hash, m.RunID, err)
		return
	}
	if g.Meta.EmbeddingProfile != m.EmbeddingProfile || g.Count() != m.ChunkCount {
		s.failReload(hash, m.RunID, errors.New("generation does not match its manifest (profile or chunk count)"))
		return
	}
	next := &served{snap: &search.Snapshot{Gen: g}, manifest: m, hash: hash, loadedAt: time.Now(), profileOK: index.ProfileMatchesConfig(s.cfg, m.EmbeddingProfile)}
	if next.profileOK {
		next.snap.Query = s.queryEmbedder(g)
	}
	s.current.Store(next)
	s.setReloadStatus(true, nil, "", "")
	s.writeState("")
	s.log.Info("Generation loaded", "runId", m.RunID, "chunks", g.Count(), "loadMs", time.Since(t0).Milliseconds(),
		"trigger", trigger, "profileMatches", next.profileOK)
	if !next.profileOK {
		s.log.Warn("The active generation was embedded with another profile; searches answer embedding-profile-mismatch until it is rebuilt",
			"generation", m.EmbeddingProfile.Provider+"/"+m.EmbeddingProfile.Model, "configured", s.cfg.Embedding.Provider)
	}
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

func (s *Server) failReload(hash, runID string, err error) {
	s.setReloadStatus(false, err, hash, runID)
	s.log.Error("Generation not loaded; the previous one keeps serving", "runId", runID, errAttr(err))
}

// setReloadStatus records a reload attempt: a swap (ok) or a failure.
func (s *Server) setReloadStatus(ok bool, err error, hash, runID string) {
	s.statusMu.Lock()
	defer s.statusMu.Unlock()
	now := time.Now().UTC().Format(time.RFC3339)
	s.reload.LastAttemptAt = now
	s.reload.LastReloadSuccessful = ok
	if ok {
		s.reload.LastSuccessAt = now
		s.reload.LastError, s.reload.FailedRunID, s.failedHash = "", "", ""
		s.reload.Reloads++
		return
	}
	s.reload.LastError = err.Error()
	s.reload.FailedRunID = runID
	s.failedHash = hash
}

// clearFailure marks the served generation healthy again without counting
// a reload (the manifest went back to the active content).
func (s *Server) clearFailure() {
	s.statusMu.Lock()
	defer s.statusMu.Unlock()
	s.reload.LastReloadSuccessful = true
	s.reload.LastError, s.reload.FailedRunID, s.failedHash = "", "", ""
}
