package index

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index/generation"
	"github.com/nova-recall/nova/manifest"
	"github.com/nova-recall/nova/paths"
)

// Steps of promotion at which Options.Hook is called, in order (the
// manifest write adds its own steps between the last two).
const (
	StepCandidateVerified = "candidate-verified"
	StepGenerationMoved   = "generation-moved"
	StepManifestWritten   = "manifest-written"
)

// ErrNotFound means a named generation or candidate does not exist.
var ErrNotFound = errors.New("no such generation")

func writeCandidate(dir string, m *manifest.Manifest) error {
	m.Seal()
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(dir, generation.FileCandidate), func(f *os.File) error {
		_, err := f.Write(append(b, '\n'))
		return err
	})
}

func readCandidate(dir string) (*manifest.Manifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, generation.FileCandidate))
	if err != nil {
		return nil, err
	}
	var m manifest.Manifest
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("%w: candidate record: %v", manifest.ErrInvalid, err)
	}
	want := m.Checksum
	m.Seal()
	if want != m.Checksum || !manifest.ValidRunID(m.RunID) || filepath.Base(dir) != m.RunID {
		return nil, fmt.Errorf("%w: candidate record of %s is corrupt", manifest.ErrInvalid, filepath.Base(dir))
	}
	return &m, nil
}

// writeFileAtomic writes path through a temp file in the same directory,
// fsynced and renamed.
func writeFileAtomic(path string, write func(*os.File) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	if err := write(f); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return manifest.SyncDir(filepath.Dir(path))
}

// VerifyResult reports a verification.
type VerifyResult struct {
	RunID            string               `json:"runId"`
	Where            string               `json:"where"` // candidate or generation
	Chunks           int                  `json:"chunks"`
	Files            int                  `json:"files"`
	Bytes            int64                `json:"bytes"`
	EmbeddingProfile api.EmbeddingProfile `json:"embeddingProfile"`
	ProfileMatches   bool                 `json:"profileMatchesConfig"`
	LoadMs           int64                `json:"loadMs"`
}

// Verify fully loads a candidate (or a generation) and checks its counts,
// checksums, dimension and embedding profile. runID "" picks the newest
// candidate.
func (x *Indexer) Verify(ctx context.Context, runID string) (*VerifyResult, error) {
	dir, where, err := x.locate(runID)
	if err != nil {
		return nil, err
	}
	return x.verifyDir(dir, where)
}

func (x *Indexer) verifyDir(dir, where string) (*VerifyResult, error) {
	cand, err := readCandidate(dir)
	if err != nil {
		return nil, fmt.Errorf("verify %s: %w", filepath.Base(dir), err)
	}
	g, err := generation.Open(dir, cand.RunID, cand.Files, x.analyzer)
	if err != nil {
		return nil, fmt.Errorf("verify %s: %w", cand.RunID, err)
	}
	if g.Count() != cand.ChunkCount {
		return nil, fmt.Errorf("verify %s: %d chunks, candidate record says %d", cand.RunID, g.Count(), cand.ChunkCount)
	}
	if g.Meta.EmbeddingProfile != cand.EmbeddingProfile || manifest.ProfileHash(cand.EmbeddingProfile) != cand.EmbeddingProfileHash {
		return nil, fmt.Errorf("verify %s: embedding profile of the files does not match the candidate record", cand.RunID)
	}
	var bytes int64
	for _, f := range cand.Files {
		bytes += f.Size
	}
	return &VerifyResult{
		RunID: cand.RunID, Where: where, Chunks: g.Count(), Files: len(cand.Files), Bytes: bytes,
		EmbeddingProfile: cand.EmbeddingProfile, ProfileMatches: ProfileMatchesConfig(x.cfg, cand.EmbeddingProfile),
		LoadMs: g.LoadDuration.Milliseconds(),
	}, nil
}

// ProfileMatchesConfig reports whether vectors of profile p can be searched
// with the configured embedder: the builtin model travels with each
// generation, so provider and dimension must match; an openai generation
// must also match the model.
func ProfileMatchesConfig(cfg config.Config, p api.EmbeddingProfile) bool {
	if p.Provider != cfg.Embedding.Provider || p.Dimension != cfg.Embedding.Dimension {
		return false
	}
	return p.Provider == config.ProviderBuiltin || p.Model == cfg.Embedding.Model
}

// locate finds runID among candidates, then generations. "" means the
// newest complete candidate.
func (x *Indexer) locate(runID string) (dir, where string, err error) {
	if runID == "" {
		cands, _ := x.candidates()
		if len(cands) == 0 {
			return "", "", fmt.Errorf("%w: there is no candidate; run novactl index build first", ErrNotFound)
		}
		return x.home.Candidate(cands[len(cands)-1]), "candidate", nil
	}
	if !manifest.ValidRunID(runID) {
		return "", "", fmt.Errorf("%w: %q is not a run id (YYYYMMDDTHHMMSSZ-xxxxxxxx)", ErrNotFound, runID)
	}
	if _, err := os.Stat(x.home.Candidate(runID)); err == nil {
		return x.home.Candidate(runID), "candidate", nil
	}
	if _, err := os.Stat(x.home.Generation(runID)); err == nil {
		return x.home.Generation(runID), "generation", nil
	}
	return "", "", fmt.Errorf("%w: %s", ErrNotFound, runID)
}

// candidates lists complete candidate run ids, oldest first.
func (x *Indexer) candidates() ([]string, error) {
	entries, err := os.ReadDir(x.home.Candidates())
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() || !manifest.ValidRunID(e.Name()) {
			continue
		}
		if _, err := os.Stat(filepath.Join(x.home.Candidate(e.Name()), generation.FileCandidate)); err == nil {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out, nil
}

// PromoteResult reports a promotion or rollback.
type PromoteResult struct {
	RunID         string   `json:"runId"`
	PreviousRunID string   `json:"previousRunId,omitempty"`
	Chunks        int      `json:"chunks"`
	Deleted       []string `json:"deleted"`
}

// Promote verifies a candidate and makes it the active generation. runID
// "" promotes the newest candidate.
func (x *Indexer) Promote(ctx context.Context, runID string) (*PromoteResult, error) {
	lock, err := x.lock("promote")
	if err != nil {
		return nil, err
	}
	defer lock.release()
	return x.promote(ctx, runID, "promote")
}

func (x *Indexer) promote(ctx context.Context, runID, by string) (*PromoteResult, error) {
	dir, where, err := x.locate(runID)
	if err != nil {
		return nil, err
	}
	if where != "candidate" {
		return nil, fmt.Errorf("%s is already a promoted generation; use novactl index rollback --to %s to make it active again", runID, runID)
	}
	v, err := x.verifyDir(dir, where)
	if err != nil {
		return nil, err
	}
	if !v.ProfileMatches {
		p := v.EmbeddingProfile
		return nil, fmt.Errorf("candidate %s was embedded with %s/%s/%d, which the configured embedder (%s, dimension %d) cannot search; rebuild it",
			v.RunID, p.Provider, p.Model, p.Dimension, x.cfg.Embedding.Provider, x.cfg.Embedding.Dimension)
	}
	x.opts.Hook(StepCandidateVerified)
	cand, err := readCandidate(dir)
	if err != nil {
		return nil, err
	}
	if err := paths.MkdirPrivate(x.home.Generations()); err != nil {
		return nil, err
	}
	if err := os.Rename(dir, x.home.Generation(cand.RunID)); err != nil {
		return nil, fmt.Errorf("move candidate %s into generations: %w", cand.RunID, err)
	}
	if err := manifest.SyncDir(x.home.Generations()); err != nil {
		return nil, err
	}
	if err := manifest.SyncDir(x.home.Candidates()); err != nil {
		return nil, err
	}
	x.opts.Hook(StepGenerationMoved)
	return x.activate(cand, by)
}

// activate writes the manifest naming cand, records it, and applies
// retention. The lock is held.
func (x *Indexer) activate(cand *manifest.Manifest, by string) (*PromoteResult, error) {
	prev := ""
	if m, _, err := manifest.Read(x.home.Manifest()); err == nil {
		prev = m.RunID
	}
	m := *cand
	m.Status = manifest.StatusActive
	m.PromotedAt = x.opts.Now().UTC()
	m.PromotedBy = by
	m.PreviousRunID = prev
	if err := manifest.WriteAtomic(x.home.Manifest(), &m, x.opts.Hook); err != nil {
		return nil, err
	}
	x.opts.Hook(StepManifestWritten)
	event := EventPromote
	if by == "rollback" {
		event = EventRollback
	}
	if err := appendHistory(x.home.History(), Event{Time: x.opts.Now().UTC(), Event: event, RunID: m.RunID, PreviousRunID: prev, Chunks: m.ChunkCount}); err != nil {
		return nil, err
	}
	deleted := x.retain(m.RunID, prev)
	x.log.Info("Generation active", "runId", m.RunID, "previous", prev, "by", by)
	return &PromoteResult{RunID: m.RunID, PreviousRunID: prev, Chunks: m.ChunkCount, Deleted: deleted}, nil
}

// SyncResult reports a sync.
type SyncResult struct {
	Build   *BuildResult   `json:"build"`
	Promote *PromoteResult `json:"promote"`
}

// Sync builds, verifies and promotes in one locked operation.
func (x *Indexer) Sync(ctx context.Context) (*SyncResult, error) {
	lock, err := x.lock("sync")
	if err != nil {
		return nil, err
	}
	defer lock.release()
	x.cleanInterrupted()
	b, err := x.build(ctx)
	if err != nil {
		return nil, err
	}
	p, err := x.promote(ctx, b.RunID, "sync")
	if err != nil {
		return &SyncResult{Build: b}, err
	}
	return &SyncResult{Build: b, Promote: p}, nil
}

// Rollback makes an older kept generation active again. toRunID "" picks
// the generation that was active before the current one.
func (x *Indexer) Rollback(ctx context.Context, toRunID string) (*PromoteResult, error) {
	lock, err := x.lock("rollback")
	if err != nil {
		return nil, err
	}
	defer lock.release()
	cur, _, err := manifest.Read(x.home.Manifest())
	if err != nil {
		return nil, fmt.Errorf("nothing to roll back from: %w", err)
	}
	if toRunID == "" {
		// The manifest names the generation it replaced; history covers
		// the rest (and a manifest that predates the field).
		for _, id := range append([]string{cur.PreviousRunID}, x.activations()...) {
			if id != "" && id != cur.RunID {
				if _, err := os.Stat(x.home.Generation(id)); err == nil {
					toRunID = id
					break
				}
			}
		}
		if toRunID == "" {
			return nil, fmt.Errorf("%w: no older generation is kept; novactl index list shows what exists", ErrNotFound)
		}
	}
	if toRunID == cur.RunID {
		return nil, fmt.Errorf("%s is already the active generation", toRunID)
	}
	if !manifest.ValidRunID(toRunID) {
		return nil, fmt.Errorf("%w: %q is not a run id", ErrNotFound, toRunID)
	}
	dir := x.home.Generation(toRunID)
	if _, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("%w: generation %s is not kept (retention keeps the last %d)", ErrNotFound, toRunID, x.cfg.Index.KeepGenerations)
	}
	v, err := x.verifyDir(dir, "generation")
	if err != nil {
		return nil, err
	}
	if !v.ProfileMatches {
		return nil, fmt.Errorf("generation %s was embedded with a profile the configured embedder cannot search", toRunID)
	}
	cand, err := readCandidate(dir)
	if err != nil {
		return nil, err
	}
	return x.activate(cand, "rollback")
}

// activations returns run ids in order of their most recent activation,
// newest first.
func (x *Indexer) activations() []string {
	events, _ := ReadHistory(x.home.History())
	var out []string
	seen := map[string]bool{}
	for i := len(events) - 1; i >= 0; i-- {
		e := events[i]
		if (e.Event == EventPromote || e.Event == EventRollback) && !seen[e.RunID] {
			seen[e.RunID] = true
			out = append(out, e.RunID)
		}
	}
	return out
}

// retain deletes generations beyond the newest KeepGenerations activations
// (never the active one or the one it replaced), and candidates older than
// the active one. The replaced one is kept even when history does not list
// its activation: a writer killed after the manifest rename but before the
// history append made it active without a record. Only directories named
// like run ids directly under our directories are ever removed; symlinks
// are not followed.
func (x *Indexer) retain(active, previous string) []string {
	keep := map[string]bool{active: true}
	if previous != "" {
		keep[previous] = true
	}
	for _, id := range x.activations() {
		if len(keep) >= x.cfg.Index.KeepGenerations {
			break
		}
		keep[id] = true
	}
	var deleted []string
	remove := func(root, name string) {
		p := filepath.Join(root, name)
		fi, err := os.Lstat(p)
		if err != nil || !fi.IsDir() {
			return
		}
		if err := os.RemoveAll(p); err != nil {
			x.log.Warn("Cannot remove an old generation", "path", p, "err", err)
			return
		}
		deleted = append(deleted, name)
	}
	if entries, err := os.ReadDir(x.home.Generations()); err == nil {
		for _, e := range entries {
			if e.IsDir() && manifest.ValidRunID(e.Name()) && !keep[e.Name()] {
				remove(x.home.Generations(), e.Name())
			}
		}
	}
	if entries, err := os.ReadDir(x.home.Candidates()); err == nil {
		for _, e := range entries {
			if e.IsDir() && manifest.ValidRunID(e.Name()) && e.Name() < active {
				remove(x.home.Candidates(), e.Name())
			}
		}
	}
	if len(deleted) > 0 {
		_ = appendHistory(x.home.History(), Event{Time: x.opts.Now().UTC(), Event: EventPrune, RunID: active, Deleted: deleted})
	}
	return deleted
}

// cleanInterrupted removes candidate directories that a crashed build left
// without a candidate record, and manifest temp files. The lock is held.
func (x *Indexer) cleanInterrupted() {
	manifest.CleanTemps(x.home.IndexDir())
	entries, err := os.ReadDir(x.home.Candidates())
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() || !manifest.ValidRunID(e.Name()) {
			continue
		}
		p := x.home.Candidate(e.Name())
		if _, err := os.Stat(filepath.Join(p, generation.FileCandidate)); errors.Is(err, fs.ErrNotExist) {
			os.RemoveAll(p)
		}
	}
}

// GenerationInfo describes one generation or candidate.
type GenerationInfo struct {
	RunID            string               `json:"runId"`
	State            string               `json:"state"` // active, kept, candidate, incomplete
	CreatedAt        time.Time            `json:"createdAt,omitzero"`
	Chunks           int                  `json:"chunks"`
	Bytes            int64                `json:"bytes"`
	EmbeddingProfile api.EmbeddingProfile `json:"embeddingProfile"`
	// Integrity is "intact" or "damaged" (with Problem) after a check at
	// the depth List was given; "" for an incomplete build.
	Integrity string `json:"integrity,omitempty"`
	Problem   string `json:"problem,omitempty"`
}

// List returns every generation and candidate, newest first, each checked
// at depth d (see CheckGeneration).
func (x *Indexer) List(d Depth) ([]GenerationInfo, error) {
	active := ""
	if m, _, err := manifest.Read(x.home.Manifest()); err == nil {
		active = m.RunID
	}
	var out []GenerationInfo
	add := func(root, state string) {
		entries, err := os.ReadDir(root)
		if err != nil {
			return
		}
		for _, e := range entries {
			if !e.IsDir() || !manifest.ValidRunID(e.Name()) {
				continue
			}
			info := GenerationInfo{RunID: e.Name(), State: state}
			cand, err := readCandidate(filepath.Join(root, e.Name()))
			if err != nil {
				info.State = "incomplete"
			} else {
				info.CreatedAt, info.Chunks, info.EmbeddingProfile = cand.CreatedAt, cand.ChunkCount, cand.EmbeddingProfile
				for _, f := range cand.Files {
					info.Bytes += f.Size
				}
				info.Integrity = "intact"
				if err := checkDir(filepath.Join(root, e.Name()), cand, d); err != nil {
					info.Integrity, info.Problem = "damaged", err.Error()
				}
			}
			if e.Name() == active {
				info.State = "active"
			}
			out = append(out, info)
		}
	}
	add(x.home.Generations(), "kept")
	add(x.home.Candidates(), "candidate")
	sort.Slice(out, func(i, j int) bool { return out[i].RunID > out[j].RunID })
	return out, nil
}
