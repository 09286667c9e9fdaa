package index

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/atomicfile"
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
	// StepStatesWritten: an incremental build wrote a new base of the
	// source states (index/states), before its candidate.
	StepStatesWritten = "states-written"
	// StepVerifyRecordRead: a verification read the candidate record and
	// is about to check the files it lists. Verify takes no lock, so a
	// writer may move or remove the generation from here on.
	StepVerifyRecordRead = "verify-record-read"
	// StepListManifestRead: a listing read the manifest and is about to
	// read the generations. List takes no lock either.
	StepListManifestRead = "list-manifest-read"
)

// ErrNotFound means a named generation or candidate does not exist.
var ErrNotFound = errors.New("no such generation")

// writeCandidateRecord seals m and writes it as dir's candidate record.
func writeCandidateRecord(dir string, m *manifest.Manifest) error {
	m.Seal()
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	// Both fsyncs are kept: the rename must not publish an empty record
	// (a candidate with a record is taken as complete), and the record's
	// entry must be durable before the manifest names the generation.
	// Ordered ones: only the manifest, written later with a full sync,
	// makes the generation reachable, and a candidate a crash damaged
	// before that fails its verification at promotion.
	return atomicfile.Write(filepath.Join(dir, generation.FileCandidate), append(b, '\n'), paths.FileMode, atomicfile.Ordered())
}

// readCandidateRecord reads and checks the candidate record of dir (a
// candidate or a promoted generation: the record is the same).
func readCandidateRecord(dir string) (*manifest.Manifest, error) {
	b, err := readGenerationFile(filepath.Join(dir, generation.FileCandidate))
	if err != nil {
		return nil, err
	}
	if err := manifest.NewerSchema(b, "generation "+filepath.Base(dir)); err != nil {
		return nil, err
	}
	if err := manifest.OlderSchema(b, "generation "+filepath.Base(dir)); err != nil {
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
	if want != m.Checksum || !manifest.ValidRunID(m.RunID) || filepath.Base(dir) != m.RunID || m.SchemaVersion != manifest.SchemaVersion {
		return nil, fmt.Errorf("%w: candidate record of %s is corrupt or of another format", manifest.ErrInvalid, filepath.Base(dir))
	}
	return &m, nil
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
// candidate. It takes no lock: a candidate promoted meanwhile is verified
// where the promotion moved it, and one removed meanwhile (retention) is
// reported with ErrNotFound, not as damage. A cancelled ctx stops it
// between files and within a file's checksum, with an error that wraps
// ctx's and says nothing of the generation's state.
func (x *Indexer) Verify(ctx context.Context, runID string) (*VerifyResult, error) {
	dir, where, err := x.locate(runID)
	if err != nil {
		return nil, err
	}
	v, err := x.verifyDir(ctx, dir, where)
	if err == nil || ctx.Err() != nil || !gone(dir) {
		return v, err
	}
	// A writer beside it moved the directory away while its files were
	// checked, and a file missing with it is no damage.
	id := filepath.Base(dir)
	if where == "candidate" && dirExists(x.home.Generation(id)) {
		dir = x.home.Generation(id)
		if v, err = x.verifyDir(ctx, dir, "generation"); err == nil || ctx.Err() != nil || !gone(dir) {
			return v, err
		}
	}
	again := ""
	if runID == "" {
		again = "; run novactl index verify again for the newest candidate"
	}
	return nil, fmt.Errorf("verify %s: it was removed while it was verified, by a sync, promote or rollback running beside it: %w%s", id, x.missing(id), again)
}

// gone reports whether nothing is at path any more.
func gone(path string) bool {
	_, err := os.Lstat(path)
	return errors.Is(err, fs.ErrNotExist)
}

func (x *Indexer) verifyDir(ctx context.Context, dir, where string) (*VerifyResult, error) {
	cand, err := readCandidateRecord(dir)
	if errors.Is(err, fs.ErrNotExist) && where == "candidate" {
		// The record is written last: without it the build was stopped.
		return nil, fmt.Errorf("verify %s: the candidate's build did not finish (it has no candidate record); run novactl index build again: %w", filepath.Base(dir), err)
	}
	if err != nil {
		return nil, fmt.Errorf("verify %s: %w", filepath.Base(dir), err)
	}
	x.opts.Hook(StepVerifyRecordRead)
	files := 0
	for _, f := range cand.AllFiles() {
		files += len(f)
	}
	// Hashing a large generation on a slow disk takes a while: its files
	// are counted as they are checked, on several goroutines at once.
	var mu sync.Mutex
	done := 0
	checked := func(n int) {
		mu.Lock()
		defer mu.Unlock()
		done += n
		x.opts.Progress(Progress{Stage: "verify", Done: done, Total: files})
	}
	checked(0)
	g, err := generation.Open(ctx, x.home.IndexDir(), cand, x.analyzer, generation.Options{Dir: dir, Checked: checked})
	if err != nil {
		return nil, fmt.Errorf("verify %s: %w", cand.RunID, err)
	}
	if g.Meta.EmbeddingProfile != cand.EmbeddingProfile || manifest.ProfileHash(cand.EmbeddingProfile) != cand.EmbeddingProfileHash {
		return nil, fmt.Errorf("verify %s: embedding profile of the files does not match the candidate record", cand.RunID)
	}
	return &VerifyResult{
		RunID: cand.RunID, Where: where, Chunks: g.Count(), Files: files, Bytes: cand.Bytes(),
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
// newest complete candidate or, when there is none, a generation whose
// promotion was interrupted (moved into generations/ but never made
// active: a full disk, a crash), so that promoting again finishes it.
func (x *Indexer) locate(runID string) (dir, where string, err error) {
	if runID == "" {
		if cands, _ := x.candidates(); len(cands) > 0 {
			return x.home.Candidate(cands[len(cands)-1]), "candidate", nil
		}
		if id := x.interruptedPromotion(); id != "" {
			return x.home.Generation(id), "generation", nil
		}
		if id, newer := x.newerKept(); id != "" {
			// After a rollback: the way forward is a generation, not a build.
			return "", "", fmt.Errorf("%w: there is no candidate; novactl index promote %s makes the newest kept generation active again, novactl index build makes a new candidate%s", ErrNotFound, id, newerNova(newer))
		} else if newer != "" {
			return "", "", fmt.Errorf("%w: there is no candidate; novactl index build makes one%s", ErrNotFound, newerNova(newer))
		}
		if m, _, err := manifest.Read(x.home.Manifest()); err == nil {
			// A build that found nothing changed made no candidate: a
			// plain build again would make none either.
			return "", "", fmt.Errorf("%w: there is no candidate; %s is active, and novactl index build makes a candidate only when a source changed since it was built (novactl index build --full makes one anyway)", ErrNotFound, m.RunID)
		}
		return "", "", fmt.Errorf("%w: there is no candidate; run novactl index build first", ErrNotFound)
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
	return "", "", x.missing(runID)
}

// missing says why runID is neither a candidate nor a kept generation:
// retention or a compaction removed it (history.jsonl says so), or it is
// not of this home. The error wraps ErrNotFound.
func (x *Indexer) missing(runID string) error {
	events, _ := ReadHistory(x.home.History())
	for i := len(events) - 1; i >= 0; i-- {
		e := events[i]
		if e.Event != EventPrune || !slices.Contains(e.Deleted, runID) {
			continue
		}
		why := e.Note
		switch {
		case why != "":
		case slices.Contains(x.activations(), runID):
			why = fmt.Sprintf("retention keeps the last %d generations", x.keepGenerations())
		default:
			why = "a candidate older than the active generation, removed when that one was made active"
		}
		return fmt.Errorf("%w: %s was removed (%s); novactl index list shows the kept ones", ErrNotFound, runID, why)
	}
	return fmt.Errorf("%w: %s is neither a candidate nor a kept generation of this home; novactl index list shows what exists", ErrNotFound, runID)
}

// interruptedPromotion returns the latest generation (promotionOrder)
// that came after the active one and was never activated, or "". A newer Nova's
// generation is none: this build cannot finish its promotion, and its
// history may not say that Nova made it active (a downgrade past a
// history this build cannot read, or a history lost).
func (x *Indexer) interruptedPromotion() string {
	active := ""
	if m, _, err := manifest.Read(x.home.Manifest()); err == nil {
		active = m.RunID
	}
	activated := map[string]bool{}
	for _, id := range x.activations() {
		activated[id] = true
	}
	ids := x.promotionOrder()
	for i := len(ids) - 1; i >= 0 && ids[i] != active && !promotedBefore(ids, i, active); i-- {
		if id := ids[i]; !activated[id] && !x.newerFormat(x.home.Generation(id)) {
			return id
		}
	}
	return ""
}

// newerKept returns the newest kept generation newer than the active
// one (a rollback went back from it) that this build can make active, and
// the newest one newer than that which a newer Nova wrote (after a
// downgrade), which only that Nova can; "" for none. Advice names the
// second with newerNova, never as a command this build would refuse.
func (x *Indexer) newerKept() (id, newer string) {
	m, _, err := manifest.Read(x.home.Manifest())
	if err != nil {
		return "", ""
	}
	ids := x.promotionOrder()
	for i := len(ids) - 1; i >= 0 && ids[i] != m.RunID && !promotedBefore(ids, i, m.RunID); i-- {
		if !x.newerFormat(x.home.Generation(ids[i])) {
			return ids[i], newer
		}
		if newer == "" {
			newer = ids[i]
		}
	}
	return "", newer
}

// newerNova is the sentence that ends advice about the way forward when
// newer, a kept generation a newer Nova wrote, lies ahead: "" for none.
func newerNova(newer string) string {
	if newer == "" {
		return ""
	}
	return fmt.Sprintf("; %s was written by a newer Nova, which this build cannot make active: upgrade Nova to return to it", newer)
}

// generationIDs lists the promoted generations, oldest first.
func (x *Indexer) generationIDs() []string { return GenerationIDs(x.home) }

// GenerationIDs lists the run ids of the generations home keeps (every
// one promoted and not yet retired), oldest first.
func GenerationIDs(home paths.Home) []string {
	entries, _ := os.ReadDir(home.Generations())
	var out []string
	for _, e := range entries {
		if e.IsDir() && manifest.ValidRunID(e.Name()) {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out
}

// readGenerationFile reads a file of a generation's or candidate's own
// directory (its record, its source states) or a base of source states.
// Only a regular file is read: a named pipe in its place would block the
// read, and with it novactl (which catches SIGTERM to cancel, so that
// did not end it either) and novad's fallback. What is not a file is
// damage (manifest.ErrInvalid), as a link in place of any other
// generation file is (generation.CheckFile).
func readGenerationFile(path string) ([]byte, error) {
	b, _, err := paths.ReadRegular(path, 0)
	if nf, ok := errors.AsType[*paths.NotFileError](err); ok {
		return nil, fmt.Errorf("%w: %v", manifest.ErrInvalid, nf)
	}
	return b, err
}

// promotionOrder returns the kept generations' run ids, oldest first, in
// the order they were last promoted, or built if never promoted (an
// interrupted promotion), as history.jsonl records it. Run ids sort by
// the clock of the build that named them, and a clock can go back
// (corrected after running ahead): a generation built after that sorts
// before the ones built while it ran ahead, though it came after them.
// The history is in the order things happened. A generation the history
// does not name (trimmed, or lost with its writer) keeps its place by
// run id.
func (x *Indexer) promotionOrder() []string { return historyOrder(x.home, x.generationIDs()) }

// historyOrder puts ids, run ids of home's generations or candidates
// sorted by name, in the order of their last promotion or build in
// history.jsonl (see Indexer.promotionOrder), in place, and returns them.
func historyOrder(home paths.Home, ids []string) []string {
	events, _ := ReadHistory(home.History())
	last := map[string]int{}
	for i, e := range events {
		if e.Event == EventPromote || e.Event == EventBuild {
			last[e.RunID] = i
		}
	}
	var known []string
	var places []int
	for i, id := range ids {
		if _, ok := last[id]; ok {
			known, places = append(known, id), append(places, i)
		}
	}
	slices.SortFunc(known, func(a, b string) int { return cmp.Compare(last[a], last[b]) })
	for k, i := range places {
		ids[i] = known[k]
	}
	return ids
}

// promotedBefore reports whether the kept generation at place i of ids (a
// promotionOrder) was promoted (or built) before current: by place when
// current is kept too, by run id when it is not (its directory is gone).
func promotedBefore(ids []string, i int, current string) bool {
	if at := slices.Index(ids, current); at >= 0 {
		return i < at
	}
	return ids[i] < current
}

// candidates lists complete candidate run ids, oldest first: in the
// order they were built (historyOrder), so that "the newest candidate" is
// the one built last even after the clock went back.
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
	return historyOrder(x.home, out), nil
}

// PromoteResult reports a promotion or rollback.
type PromoteResult struct {
	RunID         string   `json:"runId"`
	PreviousRunID string   `json:"previousRunId,omitempty"`
	Chunks        int      `json:"chunks"`
	Deleted       []string `json:"deleted"`
	// Skipped says why newer kept generations were passed over (a
	// rollback skips damaged ones).
	Skipped []string `json:"skipped,omitempty"`
	// NextRollback is the kept generation the next plain rollback would
	// try first (one step further back in the promotions), or "" when
	// there is none.
	NextRollback string `json:"nextRollback,omitempty"`
	// Kept are the run ids of the skipped generations that are not
	// damaged and stay (unreadable now, or written by a newer Nova).
	Kept []string `json:"kept,omitempty"`
}

// Promote verifies a candidate and makes it the active generation. runID
// "" promotes the newest candidate (or finishes an interrupted promotion).
func (x *Indexer) Promote(ctx context.Context, runID string) (res *PromoteResult, err error) {
	defer func() { err = x.diskFull(err) }()
	lock, err := x.lock(ctx, "promote")
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	return x.promote(ctx, runID, "promote")
}

func (x *Indexer) promote(ctx context.Context, runID, by string) (*PromoteResult, error) {
	dir, where, err := x.locate(runID)
	if err != nil {
		return nil, err
	}
	if where == "generation" {
		if m, _, err := manifest.Read(x.home.Manifest()); err == nil && m.RunID == filepath.Base(dir) {
			return nil, fmt.Errorf("%s is already the active generation", m.RunID)
		}
	}
	// Ctrl-C stops the verification, before anything is moved; a
	// compaction's too (the sync it ends has already promoted its build,
	// which stays, and the compaction is dropped: the next sync makes it).
	v, err := x.verifyDir(ctx, dir, where)
	if err != nil && by == "promote" && where == "candidate" && errors.Is(err, generation.ErrCorrupt) {
		return nil, fmt.Errorf("%w; the candidate is damaged and cannot be promoted: novactl index build makes a new one", err)
	}
	if err != nil {
		return nil, err
	}
	if !v.ProfileMatches {
		return nil, x.otherEmbedder(v, "rebuild it")
	}
	x.opts.Hook(StepCandidateVerified)
	cand, err := readCandidateRecord(dir)
	if err != nil {
		return nil, err
	}
	if where == "candidate" {
		if err := paths.MkdirPrivate(x.home.Generations()); err != nil {
			return nil, err
		}
		if err := os.Rename(dir, x.home.Generation(cand.RunID)); err != nil {
			return nil, fmt.Errorf("move candidate %s into generations: %w", cand.RunID, err)
		}
		// generations/ is synced so that the generation's entry is
		// durable before the manifest names it. candidates/ is not: a
		// rename is one transaction of a journaling file system, and were
		// the candidate's old entry ever to come back, retention removes
		// candidates older than the active generation.
		if err := manifest.SyncDir(x.home.Generations()); err != nil {
			return nil, x.interrupted(cand.RunID, err)
		}
	}
	x.opts.Hook(StepGenerationMoved)
	res, err := x.activate(ctx, cand, by, nil)
	if err != nil {
		return nil, x.interrupted(cand.RunID, err)
	}
	return res, nil
}

// otherEmbedder says that v's vectors are not searchable with the
// configured embedder, naming both, and fix.
func (x *Indexer) otherEmbedder(v *VerifyResult, fix string) error {
	p := v.EmbeddingProfile
	return fmt.Errorf("%s %s was embedded with %s/%s/%d, which the configured embedder (%s, dimension %d) cannot search; %s",
		v.Where, v.RunID, p.Provider, p.Model, p.Dimension, x.cfg.Embedding.Provider, x.cfg.Embedding.Dimension, fix)
}

// interrupted explains a promotion that failed after its generation was
// moved into place: promoting again (with no argument) finishes it.
func (x *Indexer) interrupted(runID string, err error) error {
	return &interruptedError{runID: runID, err: err}
}

type interruptedError struct {
	runID string
	err   error
}

func (e *interruptedError) Error() string {
	return fmt.Sprintf("promotion of %s was interrupted after the generation was moved into place (%v); once the cause is fixed, run novactl index promote to finish it", e.runID, e.err)
}

func (e *interruptedError) Unwrap() error { return e.err }

// activate writes the manifest naming cand, records it, and applies
// retention, which a cancelled ctx cuts short (the promotion stands). The
// lock is held.
// damaged names generations found damaged on the way (a rollback's full
// check sees rot a quick check cannot): retention removes them first.
func (x *Indexer) activate(ctx context.Context, cand *manifest.Manifest, by string, damaged []string) (*PromoteResult, error) {
	prev, replaced := "", ""
	if m, _, err := manifest.Read(x.home.Manifest()); err == nil {
		prev = m.RunID
		if by == byCompaction {
			// A compaction holds exactly what the generation it replaces
			// held: that one is not a rollback point, the one before it is.
			prev, replaced = m.PreviousRunID, m.RunID
		}
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
	// The manifest is published: the promotion has happened, and a
	// history that cannot take its line (a disk that just filled up) must
	// not report it as interrupted, nor skip the retention that frees
	// space. Retention keeps prev without its history line.
	if err := appendHistory(x.home.History(), Event{Time: x.opts.Now().UTC(), Event: event, RunID: m.RunID, PreviousRunID: prev, Chunks: m.ChunkCount}); err != nil {
		x.log.Warn("The generation is active, but history.jsonl does not record it", "runId", m.RunID, "err", err)
	}
	if replaced != "" && removeRunDir(x.home.Generations(), replaced, x) {
		_ = appendHistory(x.home.History(), Event{Time: x.opts.Now().UTC(), Event: EventPrune, RunID: m.RunID, Deleted: []string{replaced}, Note: "replaced by its compaction"})
	}
	deleted := x.retain(ctx, m.RunID, prev, damaged)
	if deleted == nil {
		deleted = []string{} // [] in JSON: a list, even empty
	}
	// What a sync promotes, its caller reports (the watcher's "Sync
	// finished", novactl's summary); a promotion or rollback by hand is
	// worth a line of its own.
	level := slog.LevelInfo
	if by == bySync || by == byCompaction {
		level = slog.LevelDebug
	}
	x.log.Log(context.Background(), level, "Generation active", "runId", m.RunID, "previous", prev, "by", by)
	return &PromoteResult{RunID: m.RunID, PreviousRunID: prev, Chunks: m.ChunkCount, Deleted: deleted, NextRollback: x.nextRollback(&m)}, nil
}

// SyncResult reports a sync.
type SyncResult struct {
	Build   *BuildResult   `json:"build"`
	Promote *PromoteResult `json:"promote"`
	// Compaction reports the compaction that followed, if any.
	Compaction *SyncResult `json:"compaction,omitempty"`
}

// Active returns the run id the sync left active: the compaction's, the
// promoted build's, or (nothing changed) the one that was active.
func (r *SyncResult) Active() string {
	switch {
	case r.Compaction != nil && r.Compaction.Promote != nil:
		return r.Compaction.Promote.RunID
	case r.Promote != nil:
		return r.Promote.RunID
	}
	return r.Build.RunID
}

// PromotedBy of a sync's generation and of a compaction's.
const (
	bySync       = "sync"
	byCompaction = "compaction"
)

// Sync builds, verifies and promotes in one locked operation. When
// nothing changed it promotes nothing (Build.Mode is unchanged). After a
// delta is promoted, deltas that piled up are merged, and then promoted
// again: the change is searchable before the compaction starts.
func (x *Indexer) Sync(ctx context.Context) (res *SyncResult, err error) {
	defer func() { err = x.diskFull(err) }()
	lock, err := x.lock(ctx, "sync")
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	defer x.giveRoomBack(&err)
	defer x.limitMemory()()
	x.cleanInterrupted()
	b, err := x.build(ctx)
	if err != nil {
		return nil, err
	}
	if b.Mode == ModeUnchanged {
		return &SyncResult{Build: b}, nil
	}
	if err := ctx.Err(); err != nil {
		// Cancelled after the last write: the candidate is dropped, not
		// promoted, as the command says.
		os.RemoveAll(x.home.Candidate(b.RunID))
		return nil, err
	}
	p, err := x.promote(ctx, b.RunID, bySync)
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		// Interrupted in its verification: dropped, as above.
		os.RemoveAll(x.home.Candidate(b.RunID))
		return nil, err
	}
	if err != nil && errors.Is(err, generation.ErrCorrupt) && b.Recovery == nil {
		// The candidate's verification hashes every file, the shared ones
		// too, where the build opened the active generation with a quick
		// check: bit rot keeps a file's size and time. A damaged active
		// generation would have every sync fail here; build past it.
		if damage := x.activeDamage(ctx); damage != nil {
			os.RemoveAll(x.home.Candidate(b.RunID))
			if err := ctx.Err(); err != nil {
				// Interrupted while hashing: nothing was found damaged.
				return nil, err
			}
			if b, err = x.buildPast(ctx, damage); err != nil {
				return nil, err
			}
			p, err = x.promote(ctx, b.RunID, bySync)
		}
	}
	if err != nil {
		return &SyncResult{Build: b}, err
	}
	out := &SyncResult{Build: b, Promote: p}
	if x.opts.NoCompact {
		return out, nil
	}
	cb, err := x.compact(ctx)
	if err != nil || cb == nil {
		if err != nil {
			x.log.Warn("Compaction failed; the deltas stay as they are and are merged next time", "err", err)
		}
		return out, nil
	}
	cp, err := x.promote(ctx, cb.RunID, byCompaction)
	if err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		// Interrupted in its verification: dropped, as a sync's build is.
		os.RemoveAll(x.home.Candidate(cb.RunID))
		x.log.Info("Compaction interrupted; the deltas stay as they are and are merged next time", "runId", cb.RunID)
		return out, nil
	}
	if err != nil {
		x.log.Warn("Compaction could not be promoted", "err", err)
		return out, nil
	}
	out.Compaction = &SyncResult{Build: cb, Promote: cp}
	return out, nil
}

// activeDamage hashes every file of the active generation and returns
// what is wrong with it, or nil (none, or no readable manifest). A
// cancelled ctx stops it with an error wrapping ctx's, which is no damage.
func (x *Indexer) activeDamage(ctx context.Context) error {
	m, _, err := manifest.Read(x.home.Manifest())
	if err != nil {
		return nil
	}
	return CheckGeneration(ctx, x.home, m, Deep)
}

// Rollback makes an older kept generation active again. toRunID "" picks
// the generation that was active before the current one, skipping any
// that is damaged (and saying so). It works from the kept generations
// alone: a missing or damaged manifest does not stop it.
func (x *Indexer) Rollback(ctx context.Context, toRunID string) (res *PromoteResult, err error) {
	defer func() { err = x.diskFull(err) }()
	lock, err := x.lock(ctx, "rollback")
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	cur, _, curErr := manifest.Read(x.home.Manifest())
	current := ""
	if curErr == nil {
		current = cur.RunID
	}
	var skipped, damaged, kept []string
	older := 0
	if toRunID == "" {
		order := x.rollbackOrder(cur, current)
		for _, id := range order {
			if _, err := os.Stat(x.home.Generation(id)); err != nil {
				continue
			}
			if _, err := x.verifyDir(ctx, x.home.Generation(id), "generation"); err != nil {
				if ctx.Err() != nil {
					// Interrupted: not checked, so no damage to skip.
					return nil, err
				}
				skipped = append(skipped, fmt.Sprintf("%s: %v", id, err))
				switch {
				case errors.Is(err, manifest.ErrOldFormat):
					// Intact for the Nova that wrote it; retention removes
					// it once this build has promoted its own.
					older++
					x.log.Info("Rollback skips a generation an older Nova wrote, in a format this one does not read", "runId", id, "err", err)
				case isDamage(err):
					damaged = append(damaged, id)
					x.log.Warn("Rollback skips a damaged generation", "runId", id, "err", err)
				case errors.Is(err, manifest.ErrNewerFormat):
					kept = append(kept, id)
					x.log.Warn("Rollback skips a generation a newer Nova wrote, and keeps it", "runId", id, "err", err)
				default:
					kept = append(kept, id)
					x.log.Warn("Rollback skips a generation it cannot read now, and keeps it", "runId", id, "err", err)
				}
				continue
			}
			toRunID = id
			break
		}
		if toRunID == "" {
			return nil, x.nothingToRollBackTo(current, len(skipped)-older, older)
		}
	}
	if toRunID == current {
		return nil, fmt.Errorf("%s is already the active generation", toRunID)
	}
	if !manifest.ValidRunID(toRunID) {
		return nil, fmt.Errorf("%w: %q is not a run id", ErrNotFound, toRunID)
	}
	dir := x.home.Generation(toRunID)
	if _, err := os.Stat(dir); err != nil {
		if _, err := os.Stat(x.home.Candidate(toRunID)); err == nil {
			return nil, fmt.Errorf("%s is a candidate, never made active: novactl index promote %s makes it active", toRunID, toRunID)
		}
		return nil, x.missing(toRunID)
	}
	v, err := x.verifyDir(ctx, dir, "generation")
	if err != nil {
		return nil, err
	}
	if !v.ProfileMatches {
		return nil, x.otherEmbedder(v, "set embedding in config.yaml back to that to roll back to it, or name another with --to (novactl index list shows them)")
	}
	cand, err := readCandidateRecord(dir)
	if err != nil {
		return nil, err
	}
	res, err = x.activate(ctx, cand, "rollback", damaged)
	if err != nil {
		return nil, err
	}
	res.Skipped, res.Kept = skipped, kept
	return res, nil
}

// rollbackOrder returns the kept generations a plain rollback from
// current (whose manifest is cur, nil when unreadable) tries, in order:
// those below it on the stack of promotions (rollbackStack), most recent
// first; then the generation cur replaced, which stands in for a history
// that lost its last line, unless cur was itself reached by a rollback
// (it then replaced the generation rolled back from, no step back); then
// any other kept generation promoted before current (promotionOrder, not
// run ids, which a clock set back misorders), the latest first (a later
// one was never made active before it: an interrupted promotion, which
// promote finishes, not rollback). Each is listed once, current never.
func (x *Indexer) rollbackOrder(cur *manifest.Manifest, current string) []string {
	stack := x.rollbackStack()
	if i := slices.Index(stack, current); i >= 0 {
		stack = stack[:i]
	}
	var order []string
	for i := len(stack) - 1; i >= 0; i-- {
		order = append(order, stack[i])
	}
	if cur != nil && cur.PromotedBy != "rollback" {
		order = append(order, cur.PreviousRunID)
	}
	ids := x.promotionOrder()
	for i := len(ids) - 1; i >= 0; i-- {
		if current == "" || promotedBefore(ids, i, current) {
			order = append(order, ids[i])
		}
	}
	seen := map[string]bool{"": true, current: true}
	out := order[:0]
	for _, id := range order {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// rollbackStack replays history.jsonl's activations into the stack a
// plain rollback steps back through, oldest first, the active generation
// on top. A promotion (by hand, a sync's, a compaction's) stacks on the
// generation it replaced, dropping what was above that one (generations
// rollbacks left, or the delta a compaction replaced); a rollback pops
// down to the generation it made active, or, when that one is not on the
// stack (--to a generation whose activation the trimmed history lost),
// starts the stack again from it. A generation is on the stack once, at
// its latest activation, so each step back reaches another generation.
func (x *Indexer) rollbackStack() []string {
	events, _ := ReadHistory(x.home.History())
	var stack []string
	for _, e := range events {
		switch e.Event {
		case EventPromote:
			if i := slices.Index(stack, e.PreviousRunID); i >= 0 {
				stack = stack[:i+1]
			} else if e.PreviousRunID != "" {
				// Active before, its own line lost (a writer killed
				// between the manifest and the history).
				stack = append(stack, e.PreviousRunID)
			}
			stack = append(slices.DeleteFunc(stack, func(id string) bool { return id == e.RunID }), e.RunID)
		case EventRollback:
			if i := slices.Index(stack, e.RunID); i >= 0 {
				stack = stack[:i+1]
			} else {
				stack = []string{e.RunID}
			}
		}
	}
	return stack
}

// nextRollback returns the first kept generation a plain rollback from
// the active generation m would try, or "". It does not verify it: the
// rollback does, and passes over a damaged one. A newer Nova's generation
// (after a downgrade) is passed over here too: the rollback always skips
// it, so naming it would say the rollback goes where it does not.
func (x *Indexer) nextRollback(m *manifest.Manifest) string {
	for _, id := range x.rollbackOrder(m, m.RunID) {
		if dirExists(x.home.Generation(id)) && !x.newerFormat(x.home.Generation(id)) {
			return id
		}
	}
	return ""
}

// nothingToRollBackTo says why a rollback found no generation to make
// active: nothing was ever promoted, or current is the only intact one.
func (x *Indexer) nothingToRollBackTo(current string, damaged, older int) error {
	if current == "" && len(x.generationIDs()) == 0 {
		return fmt.Errorf("%w: nothing has been promoted yet, so there is nothing to roll back to; novactl index sync builds and promotes the first generation", ErrNotFound)
	}
	if ids := x.promotionOrder(); current != "" && damaged+older == 0 && len(ids) > 0 && ids[len(ids)-1] != current && !promotedBefore(ids, len(ids)-1, current) {
		// Plain rollbacks stepped back to the oldest kept promotion; the
		// way forward is named, not taken.
		id, newer := x.newerKept()
		forward := newerNova(newer)
		if id != "" {
			forward = fmt.Sprintf("; novactl index rollback --to %s returns to the newest kept one%s", id, forward)
		}
		return fmt.Errorf("%w: %s, the active generation, is the oldest kept, so a plain rollback has nothing further back%s (novactl index list shows them all)",
			ErrNotFound, current, forward)
	}
	why := "no other intact generation is kept"
	if current != "" {
		why = current + ", the active generation, is the only one kept"
		if damaged > 0 {
			why = current + ", the active generation, is the only intact one kept"
		}
	}
	if damaged > 0 {
		why += fmt.Sprintf(" (%d damaged skipped)", damaged)
	}
	if older > 0 {
		why += fmt.Sprintf(" (%d written by an older Nova, in a format this one does not read, skipped: novactl index sync builds one this version reads, keeping the memory of files that are gone)", older)
	}
	return fmt.Errorf("%w: %s, so there is nothing to roll back to; novactl index list shows what exists", ErrNotFound, why)
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
