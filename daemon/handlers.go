package daemon

import (
	"encoding/json"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/embedding"
	"github.com/nova-recall/nova/freshness"
	"github.com/nova-recall/nova/internal/version"
	"github.com/nova-recall/nova/manifest"
	"github.com/nova-recall/nova/secrets"
)

// servingProfile is the embedding profile novad serves with cur (nil for
// none): the active builtin generation's model, or the configured
// provider.
//
// Every answer is about one snapshot: a handler loads s.current once and
// passes it to each of these, so that a swap in the middle of a request
// never mixes two generations in one answer.
func (s *Server) servingProfile(cur *served) api.EmbeddingProfile {
	if cur != nil && cur.profileOK {
		return cur.gen.Record.EmbeddingProfile
	}
	p := api.EmbeddingProfile{Provider: s.cfg.Embedding.Provider, Dimension: s.cfg.Embedding.Dimension}
	if p.Provider == config.ProviderOpenAI {
		p.Model = s.cfg.Embedding.Model
	}
	return p
}

// availability returns "" when searches can run on cur, else the reason.
func (s *Server) availability(cur *served) string {
	switch {
	case cur == nil && s.loading.Load():
		return api.ReasonIndexLoading
	case cur == nil:
		return api.ReasonIndexNotLoaded
	case !cur.profileOK:
		return api.ReasonProfileMismatch
	}
	return ""
}

// profileView is p in the contract's shape: the builtin model embeds in
// novad's process (local); any other provider is reached through its API.
func profileView(p api.EmbeddingProfile) *api.ProfileView {
	mode := api.ModeCloud
	if p.Provider == embedding.ProviderBuiltin {
		mode = api.ModeLocal
	}
	return &api.ProfileView{Mode: mode, ProviderID: p.Provider, Model: p.Model, Dimension: p.Dimension}
}

// sourceCommit is the commit novad was built from, when the build
// recorded a full one (40 hex digits, or 64 for SHA-256 repositories).
func sourceCommit() *string {
	c := version.Get().Commit
	if len(c) != 40 && len(c) != 64 || strings.Trim(c, "0123456789abcdef") != "" {
		return nil
	}
	return &c
}

// health is /health: every field is of one generation (cur, with the
// reload status and integrity recorded with it), read together once.
func (s *Server) health() api.Health {
	cur, reload, integrity, mismatch := s.servedStatus()
	prof := s.servingProfile(cur)
	view := profileView(prof)
	h := api.Health{
		Status: "ok", Version: version.Get().Version, SourceCommit: sourceCommit(), Model: prof.Model, Dimension: prof.Dimension,
		Provider: view.Mode, ProviderID: view.ProviderID,
		EmbeddingProfile: view, EmbeddingProfileHash: manifest.ProfileHash(prof), IndexSource: "v2",
		StartedAt: s.startedAt.UTC().Format(time.RFC3339),
	}
	h.InternalEncodeAuthorized = s.tokenFileServed()
	if s.loading.Load() {
		// Booting until the first load has finished, state file included:
		// "ok" promises that what novad serves is settled.
		h.Status = "booting"
	}
	h.Reload, h.Integrity = reload, integrity
	reason := s.availability(cur)
	h.IndexUnavailableReason = api.ActiveIndexReady
	switch {
	case reason != "" && reason != api.ReasonIndexNotLoaded:
		h.IndexUnavailableReason = reason
	case h.Integrity.ActiveRunID != h.Integrity.ServedRunID || h.Integrity.Status == api.IntegrityNone:
		// The manifest's generation failed verification: another one (or
		// none) is served; integrity says which and why.
		h.IndexUnavailableReason = api.ActiveIndexMissing
	case reason != "":
		h.IndexUnavailableReason = reason
	}
	// indexExists is about disk, indexLoaded about memory: a promoted
	// generation that is still loading (or failed to load) exists but is
	// not loaded.
	if _, err := os.Stat(s.home.Manifest()); err == nil {
		h.IndexExists = true
	}
	if cur != nil {
		p := filepath.Join(s.home.IndexDir(), cur.gen.Record.GenerationPath)
		h.IndexPath = &p
		h.IndexExists, h.IndexLoaded = true, true
		h.IndexReady = cur.profileOK
		h.Entries = cur.snap.Gen.Count()
		h.Generation = cur.runID()
		h.ProviderLoaded = cur.snap.Query != nil
	} else {
		h.ProviderLoaded = s.encoder() != nil
	}
	h.Freshness = s.ragStatus(cur, integrity, mismatch).Freshness
	return h
}

func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, http.StatusOK, s.health())
	return nil
}

func (s *Server) stats(cur *served) api.Stats {
	prof := s.servingProfile(cur)
	view := profileView(prof)
	st := api.Stats{
		Status: "ready",
		Server: api.StatsSrv{Title: "Nova recall server", Version: version.Get().Version, Model: prof.Model, Dimension: prof.Dimension,
			Provider: view.Mode, ProviderID: view.ProviderID, EmbeddingProfile: view, EmbeddingProfileHash: manifest.ProfileHash(prof)},
		API: api.StatsAPI{ReadOnly: true, MutationAllowed: false, RejectedMutationStatus: 403,
			Endpoints: map[string]string{"health": "GET /health", "stats": "GET /stats", "search": "POST /search"}},
		Index: api.StatsIndex{Source: "v2", Layers: map[string]int{}, Agents: map[string]int{}, Projects: map[string]int{},
			SourceSets: map[string]int{}, Tags: map[string]int{}},
	}
	reason := s.availability(cur)
	st.Index.UnavailableReason = "v2-active-ready"
	if reason != "" {
		st.Index.UnavailableReason = reason
		if reason == api.ReasonIndexLoading {
			st.Status = "booting"
		}
	}
	if cur == nil {
		return st
	}
	p := filepath.Join(s.home.IndexDir(), cur.gen.Record.GenerationPath)
	st.Index.Path, st.Index.Generation = &p, cur.runID()
	st.Index.Exists, st.Index.Loaded, st.Index.Ready = true, true, cur.profileOK
	st.Index.Entries = cur.snap.Gen.Count()
	st.Index.DenseSearch = "exact"
	if cur.snap.Gen.HasANN() {
		st.Index.DenseSearch = "approximate-shortlist-exact-rerank"
	}
	sum := cur.snap.Gen.Summary()
	st.Index.Layers, st.Index.Agents, st.Index.Projects = maps.Clone(sum.Layers), maps.Clone(sum.Agents), maps.Clone(sum.Projects)
	st.Index.SourceSets, st.Index.Tags = maps.Clone(sum.SourceSets), maps.Clone(sum.Tags)
	// The days search gives its results in, not the days the sources wrote.
	if first, last := s.engine.DateRange(cur.snap); first != "" {
		st.Index.DateRange = api.DateSpan{Start: &first, End: &last}
	}
	return st
}

func (s *Server) handleStats(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, http.StatusOK, s.stats(s.current.Load()))
	return nil
}

// handleEncode is the internal embedding endpoint `novactl index` uses.
// The token file is checked first: an unsafe file (a symlink, another
// owner, a mode wider than 0600) disables /encode outright, because the
// secret it holds can no longer be assumed private.
func (s *Server) handleEncode(w http.ResponseWriter, r *http.Request) error {
	if !s.tokenFileServed() {
		return api.NewError(http.StatusForbidden, api.CodeAuthUnavailable, api.MessageAuthUnavailable)
	}
	if !s.token.Equal(r.Header.Get(api.HeaderInternalToken)) {
		return api.NewError(http.StatusForbidden, api.CodeAuthRequired, api.MessageAuthRequired)
	}
	if e := requireJSON(r); e != nil {
		return e
	}
	body, e := readBody(w, r, api.MaxEncodeBodyBytes)
	if e != nil {
		return e
	}
	// The body, not the texts: json.Unmarshal puts U+FFFD in place of
	// bytes that are not UTF-8, so the texts always are.
	if !utf8.Valid(body) {
		return api.NewError(http.StatusUnprocessableEntity, api.CodeInvalidField, "texts must be valid UTF-8.")
	}
	var req api.EncodeRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return api.NewError(http.StatusBadRequest, api.CodeBadRequest, `Body must be {"texts": ["..."]}.`)
	}
	if len(req.Texts) == 0 || len(req.Texts) > api.MaxEncodeTexts {
		return api.NewError(http.StatusUnprocessableEntity, api.CodeInvalidField, "texts must hold 1 to 512 strings.")
	}
	enc := s.encoder()
	if enc == nil {
		return api.NewError(http.StatusServiceUnavailable, api.CodeEncoderUnavailable, api.MessageEncoderUnavailable)
	}
	vecs, err := enc.Embed(r.Context(), req.Texts)
	if err != nil {
		s.log.Warn("Encode failed", errAttr(err))
		return api.NewError(http.StatusServiceUnavailable, api.CodeEncoderUnavailable, api.MessageEncoderUnavailable)
	}
	writeJSON(w, http.StatusOK, vecs)
	return nil
}

// encoder is what /encode embeds with: the served generation's query
// embedder, or before any generation is served the configured endpoint's
// (the first build of an openai home embeds through novad); nil when
// there is none, as for the builtin model before its first generation.
func (s *Server) encoder() embedding.Embedder {
	if cur := s.current.Load(); cur != nil {
		return cur.snap.Query
	}
	return s.embedder
}

// tokenFileServed reports whether the token file is safe to read and
// holds the token this novad serves: only then can a client that reads it
// use /encode, and only then does /health say so.
func (s *Server) tokenFileServed() bool {
	onDisk, err := secrets.ReadToken(s.home.TokenFile())
	return err == nil && onDisk.Equal(s.token.Reveal())
}

// contract returns the external-agent contract with the profile novad
// serves with cur, in the embedding profile's keys (mode, providerId,
// model, dimension) as /health and /stats give it; provider, the
// providerId, is kept for clients that read it.
func (s *Server) contract(cur *served) *api.Contract {
	p := s.servingProfile(cur)
	v := profileView(p)
	return api.NewContract(map[string]any{"mode": v.Mode, "providerId": v.ProviderID, "provider": p.Provider, "model": p.Model, "dimension": p.Dimension})
}

func (s *Server) handleContract(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, http.StatusOK, s.contract(s.current.Load()))
	return nil
}

// freshness reports how current memory is: the source watcher's state
// (read from its state file; novad never watches sources itself) and the
// build time of cur, the generation served. status is the caller's.
func (s *Server) freshness(cur *served, status string) api.Freshness {
	var built time.Time
	if cur != nil {
		built = cur.gen.Record.CreatedAt
	}
	f, _ := freshness.Load(s.home, s.opts.Now(), built)
	f.Status = status
	return f
}

// ragStatus is the search status of cur with in, the integrity recorded
// with it, and mismatch, whether the unserved active generation has
// another embedding profile (all from one servedStatus).
func (s *Server) ragStatus(cur *served, in api.Integrity, mismatch bool) api.RagStatus {
	st := api.RagStatus{
		Freshness: s.freshness(cur, "ready"),
		NetworkBoundary: api.NetworkBoundary{SchemaVersion: 1, Policy: "loopback-only", Status: "ready",
			EncodeExposure: "internal-token-and-loopback"},
	}
	reason := s.availability(cur)
	switch {
	case reason == api.ReasonIndexNotLoaded && in.Status == api.IntegrityNone && mismatch:
		// The contract's order puts the profile before the server's
		// readiness: a load that failed too is fixed by the same rebuild.
		st.Freshness.Status = api.ReasonProfileMismatch
	case reason == api.ReasonIndexNotLoaded && in.Status == api.IntegrityNone:
		// An index is active but failed verification, and nothing else
		// is intact: not "missing", which says to build a first one.
		st.Freshness.Status = api.FreshnessServerIndexNotReady
	case reason == api.ReasonIndexNotLoaded:
		st.Freshness.Status = api.FreshnessMissing
	case reason != "":
		st.Freshness.Status = reason
	}
	if cur != nil {
		st.Ready = true
		st.Generation = cur.runID()
		st.ChunkCount = cur.snap.Gen.Count()
		p := cur.gen.Record.EmbeddingProfile
		st.Profile = &p
	}
	st.SearchAvailable = reason == ""
	if in.Status != "" && in.Status != api.IntegrityVerified {
		st.Integrity = &in
		if reason == "" && in.ActiveRunID != in.ServedRunID {
			// Searches work, from an older generation than the manifest
			// names: the contract's status for a server behind the
			// active index.
			st.Freshness.Status = api.FreshnessServerIndexNotReady
		}
	}
	return st
}

func (s *Server) handleFacadeHealth(w http.ResponseWriter, r *http.Request) error {
	cur, _, in, mismatch := s.servedStatus()
	rs := s.ragStatus(cur, in, mismatch)
	h := api.FacadeHealth{Available: rs.SearchAvailable, ReadOnly: true, MutationAllowed: false,
		ExternalAgentContract: s.contract(cur), RagStatus: rs}
	if !rs.SearchAvailable {
		h.Reason = rs.Freshness.Status
	}
	writeJSON(w, http.StatusOK, h)
	return nil
}

// facadeStats is the facade's /stats: the direct stats with availability
// and the contract.
type facadeStats struct {
	Available             bool          `json:"available"`
	Reason                string        `json:"reason,omitempty"`
	RagStatus             api.RagStatus `json:"ragStatus"`
	ExternalAgentContract *api.Contract `json:"externalAgentContract"`
	api.Stats
}

func (s *Server) handleFacadeStats(w http.ResponseWriter, r *http.Request) error {
	cur, _, in, mismatch := s.servedStatus()
	rs := s.ragStatus(cur, in, mismatch)
	out := facadeStats{Available: rs.SearchAvailable, RagStatus: rs, ExternalAgentContract: s.contract(cur), Stats: s.stats(cur)}
	if !rs.SearchAvailable {
		out.Reason = rs.Freshness.Status
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}
