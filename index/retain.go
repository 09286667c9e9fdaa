package index

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/atomicfile"
	"github.com/nova-recall/nova/index/generation"
	"github.com/nova-recall/nova/lockfile"
	"github.com/nova-recall/nova/manifest"
	"github.com/nova-recall/nova/paths"
)

// retain keeps the active generation, the one it replaced, and the most
// recently active others up to index.keepGenerations, counting only
// generations whose files pass a quick check: a damaged generation is
// deleted first and never takes the place of an intact one. Then it
// deletes candidates built before the active generation (historyOrder), and the segments
// and spaces that nothing kept refers to. The replaced generation is kept
// even when history does not list its activation (a writer killed after
// the manifest rename but before the history append). Generations named
// in damaged (a caller's full check found them so) are never kept. Only directories
// named like run ids directly under our directories are ever removed;
// symlinks are not followed. A cancelled ctx (Ctrl-C) stops a check's
// hash; when it cut one short, which generations to keep is not known,
// and retention removes none this time (the next promotion's does).
func (x *Indexer) retain(ctx context.Context, active, previous string, damaged []string) []string {
	// Each generation is checked once: the replaced one is also the most
	// recently active, and a damaged one was checked, and logged, twice.
	checked := map[string]bool{}
	cut := false
	intact := func(id string) bool {
		if ok, done := checked[id]; done {
			return ok
		}
		ok := !slices.Contains(damaged, id)
		if ok {
			rec, err := readCandidateRecord(x.home.Generation(id))
			if err == nil {
				err = CheckGeneration(ctx, x.home, rec, Quick)
			}
			switch {
			case err != nil && ctx.Err() != nil:
				// Interrupted, not damaged.
				cut, err = true, nil
			case errors.Is(err, manifest.ErrNewerFormat):
				// Kept below, beyond the count: it is not this build's.
				err = errNewer
			case errors.Is(err, manifest.ErrOldFormat):
				// Not damage, but never this build's to serve or roll
				// back to: the generations it promoted take its place.
				x.log.Info("A generation an older Nova wrote is removed: this build does not read its format", "runId", id, "err", err)
			case err != nil && isDamage(err):
				x.log.Warn("A kept generation is damaged; retention removes it first", "runId", id, "err", err)
			case err != nil:
				x.log.Warn("A kept generation cannot be checked now; retention keeps it", "runId", id, "err", err)
				err = nil
			}
			ok = err == nil
		}
		checked[id] = ok
		return ok
	}
	keep := map[string]bool{active: true}
	want := x.keepGenerations()
	if previous != "" && previous != active && intact(previous) {
		keep[previous] = true
	}
	for _, id := range x.activations() {
		if len(keep) >= want {
			break
		}
		if !keep[id] && dirExists(x.home.Generation(id)) && intact(id) {
			keep[id] = true
		}
	}
	var deleted []string
	for _, id := range x.generationIDs() {
		if cut {
			x.log.Debug("Retention removes no generation: Ctrl-C cut its checks short")
			break
		}
		if !keep[id] && x.newerFormat(x.home.Generation(id)) {
			// A newer Nova's generation, after a downgrade: never this
			// build's to delete, nor counted among the ones it keeps.
			keep[id] = true
		}
		if !keep[id] && removeRunDir(x.home.Generations(), id, x) {
			deleted = append(deleted, id)
		}
	}
	if entries, err := os.ReadDir(x.home.Candidates()); err == nil {
		// The candidates built before the active generation, in the
		// history's order: by run id, one built while the clock ran ahead
		// would outlive every later promotion until the clock caught up.
		ids := []string{active}
		for _, e := range entries {
			if e.IsDir() && manifest.ValidRunID(e.Name()) && e.Name() != active {
				ids = append(ids, e.Name())
			}
		}
		sort.Strings(ids)
		ids = historyOrder(x.home, ids)
		for _, id := range ids[:slices.Index(ids, active)] {
			if !x.newerFormat(x.home.Candidate(id)) && removeRunDir(x.home.Candidates(), id, x) {
				deleted = append(deleted, id)
			}
		}
	}
	x.collectGarbage()
	if len(deleted) > 0 {
		_ = appendHistory(x.home.History(), Event{Time: x.opts.Now().UTC(), Event: EventPrune, RunID: active, Deleted: deleted})
	}
	return deleted
}

// errNewer marks, inside retain, a generation of a newer format.
var errNewer = errors.New("newer format")

// newerFormat reports whether dir's candidate record is of a format newer
// than this build's (manifest.ErrNewerFormat).
func (x *Indexer) newerFormat(dir string) bool {
	_, err := readCandidateRecord(dir)
	return errors.Is(err, manifest.ErrNewerFormat)
}

// statesLost returns why the base state file the sources.json in dir
// names cannot be read (ErrBaseStateLost), or nil: the files checks do
// not cover it (a base is shared by the generations built on it).
func statesLost(dir string) error {
	s, err := readSourceStates(filepath.Join(dir, generation.FileSources))
	if err != nil || s.lost == nil {
		return nil // a sources.json that cannot be read is its record's files' damage
	}
	return s.lost
}

// keepGenerations is how many promoted generations retention keeps: the
// configured number, and never fewer than the active one and the one a
// rollback returns to.
func (x *Indexer) keepGenerations() int { return max(2, x.cfg.Index.KeepGenerations) }

func dirExists(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.IsDir()
}

// removeRunDir removes root/name, a directory named like a run id.
func removeRunDir(root, name string, x *Indexer) bool {
	p := filepath.Join(root, name)
	if !manifest.ValidRunID(name) || !dirExists(p) {
		return false
	}
	// Moved out of its folder first, then removed: a reader without the
	// lock (index list, doctor) sees the whole directory or none, never
	// one half deleted, which it would report as damaged. What a crash
	// leaves in tmp/ the next build or sync removes (cleanInterrupted).
	if err := paths.MkdirPrivate(x.tmpDir()); err == nil {
		gone := filepath.Join(x.tmpDir(), "removing-"+name)
		if err := os.Rename(p, gone); err == nil {
			p = gone
		}
	}
	if err := os.RemoveAll(p); err != nil {
		x.log.Warn("Cannot remove an old index directory", "path", p, "err", err)
		return false
	}
	return true
}

// collectGarbage removes the segments, spaces and base source states
// that no generation, candidate or manifest refers to: those of
// generations retention removed, and those a crashed build left. The lock
// is held, so no build is writing one.
func (x *Indexer) collectGarbage() {
	used := map[string]bool{}
	bases := map[string]bool{}
	note := func(m *manifest.Manifest) {
		used[manifest.SpaceDir(m.Space.ID)] = true
		for _, p := range m.Segments {
			used[manifest.SegmentDir(p.ID)] = true
		}
	}
	if m, _, err := manifest.Read(x.home.Manifest()); err == nil {
		note(m)
	} else if !errors.Is(err, manifest.ErrNoManifest) && !errors.Is(err, manifest.ErrOldFormat) {
		// A damaged manifest may still name parts a rollback needs:
		// collect nothing until it is repaired.
		return
	}
	for _, root := range []string{x.home.Generations(), x.home.Candidates()} {
		entries, _ := os.ReadDir(root)
		for _, e := range entries {
			if !e.IsDir() || !manifest.ValidRunID(e.Name()) {
				continue
			}
			rec, err := readCandidateRecord(filepath.Join(root, e.Name()))
			if errors.Is(err, manifest.ErrNewerFormat) {
				// A newer Nova's: what it names is kept if its record
				// still says so in the fields this build knows; the base
				// states it may share are kept alike.
				parts, perr := looseParts(filepath.Join(root, e.Name()))
				if perr != nil {
					return
				}
				note(parts)
				if base, err := baseOf(filepath.Join(root, e.Name(), generation.FileSources)); err == nil {
					bases[base] = true
				}
				continue
			}
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) && root == x.home.Candidates() {
					continue // an interrupted build, removed by cleanInterrupted
				}
				// Unreadable: it may be repaired; keep everything.
				return
			}
			note(rec)
			base, err := baseOf(filepath.Join(root, e.Name(), generation.FileSources))
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return // as unreadable as a damaged record
			}
			bases[base] = true
		}
	}
	if entries, err := os.ReadDir(filepath.Join(x.home.IndexDir(), statesDir)); err == nil {
		for _, e := range entries {
			id, ok := strings.CutSuffix(e.Name(), ".json")
			if e.Type().IsRegular() && ok && manifest.ValidRunID(id) && !bases[id] {
				if err := os.Remove(filepath.Join(x.home.IndexDir(), statesDir, e.Name())); err != nil {
					x.log.Warn("Cannot remove an old base of source states", "path", e.Name(), "err", err)
				}
			}
		}
	}
	for _, kind := range []string{"segments", "spaces"} {
		root := filepath.Join(x.home.IndexDir(), kind)
		entries, _ := os.ReadDir(root)
		for _, e := range entries {
			if e.IsDir() && manifest.ValidRunID(e.Name()) && !used[kind+"/"+e.Name()] {
				removeRunDir(root, e.Name(), x)
			}
		}
	}
}

// looseParts reads the space and segment ids of the candidate record in
// dir without checking it: a newer Nova's record, whose other fields this
// build may not know. It fails unless every id it finds is a run id, so
// that garbage collection keeps everything when in doubt.
func looseParts(dir string) (*manifest.Manifest, error) {
	b, err := readGenerationFile(filepath.Join(dir, generation.FileCandidate))
	if err != nil {
		return nil, err
	}
	var m manifest.Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	if !manifest.ValidRunID(m.Space.ID) || len(m.Segments) == 0 {
		return nil, fmt.Errorf("%w: no space or segments named", manifest.ErrInvalid)
	}
	for _, p := range m.Segments {
		if !manifest.ValidRunID(p.ID) {
			return nil, fmt.Errorf("%w: segment id %q", manifest.ErrInvalid, p.ID)
		}
	}
	return &m, nil
}

// cleanInterrupted removes what a crashed writer left: candidate
// directories without a candidate record, temporary files (of the
// manifest, lost.json and the history), and segments
// and spaces nothing refers to. The lock is held.
func (x *Indexer) cleanInterrupted() {
	manifest.CleanTemps(x.home.IndexDir())
	// The other files written whole beside it: the lost memory's record
	// and the history, rewritten when it is trimmed.
	atomicfile.RemoveTemps(lostFile(x.home))
	atomicfile.RemoveTemps(x.home.History())
	os.RemoveAll(x.tmpDir())
	if entries, err := os.ReadDir(x.home.Candidates()); err == nil {
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
	x.collectGarbage()
}

// GenerationInfo describes one generation or candidate.
type GenerationInfo struct {
	RunID            string               `json:"runId"`
	State            string               `json:"state"` // active, kept, interrupted (novactl index promote finishes it), candidate, incomplete, writing (StateWriting)
	CreatedAt        time.Time            `json:"createdAt,omitzero"`
	Chunks           int                  `json:"chunks"`
	Segments         int                  `json:"segments"`
	Bytes            int64                `json:"bytes"`
	EmbeddingProfile api.EmbeddingProfile `json:"embeddingProfile"`
	// Integrity is "intact" or "damaged" (with Problem) after a check at
	// the depth List was given, IntegrityNewer (with Problem) for a
	// generation a newer Nova wrote; "" for an incomplete build.
	Integrity string `json:"integrity,omitempty"`
	Problem   string `json:"problem,omitempty"`
	// StatesLost is set (with Problem) when the base state file the
	// generation's sources.json names is damaged or missing
	// (ErrBaseStateLost): its memory is intact, but how far each source
	// file was read is not known, and the sync after it is active reads
	// every source file again.
	StatesLost bool `json:"statesLost,omitempty"`
}

// IntegrityNewer is GenerationInfo.Integrity of a generation written by a
// newer Nova, in a format this build does not read: kept, not checked.
const IntegrityNewer = "newer-format"

// IntegrityOlder is GenerationInfo.Integrity of a generation an older
// Nova wrote, in a format this build no longer reads: intact for that
// Nova, never made active by this one, and removed by retention after
// this build's first promotion.
const IntegrityOlder = "older-format"

// StateWriting is GenerationInfo.State of a candidate or generation that
// the index command holding the lock is writing now: the candidate it
// builds (no record yet), the generation it promotes (moved into place,
// not active yet).
const StateWriting = "writing"

// List returns every generation and candidate, newest first, each checked
// at depth d (see CheckGeneration). It takes no lock: while another
// command writes the index, what that command is writing is listed as
// StateWriting, and what it removed meanwhile is left out. A cancelled
// ctx stops it with an error wrapping ctx's, and no listing: a
// generation whose files were not all checked is neither intact nor
// damaged.
func (x *Indexer) List(ctx context.Context, d Depth) ([]GenerationInfo, error) {
	// A promotion while the generations are read makes the manifest read
	// first stale: the generation it names may be retired meanwhile (a
	// compaction removes the one it replaces at once), and would be
	// listed as an active one gone missing. While the manifest changes,
	// the list is made again, a few times at most.
	var out []GenerationInfo
	err := manifest.Settle(x.home.Manifest(), func(m *manifest.Manifest, _ string, err error) error {
		if err != nil {
			m = nil
		}
		out = x.list(ctx, d, m)
		return ctx.Err()
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// list is one listing of List, of the generations beside m, the active
// manifest (nil: none could be read).
func (x *Indexer) list(ctx context.Context, d Depth, m *manifest.Manifest) []GenerationInfo {
	writing := lockfile.Held(x.home.Lock())
	active := ""
	if m != nil {
		active = m.RunID
	}
	x.opts.Hook(StepListManifestRead)
	// A generation moved into place whose manifest was never written (a
	// full disk) is no rollback point: promote finishes it.
	interrupted := x.interruptedPromotion()
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
			dir := filepath.Join(root, e.Name())
			cand, err := readCandidateRecord(dir)
			switch {
			case errors.Is(err, manifest.ErrNewerFormat):
				// Complete, but not this build's to read: named, and kept.
				info.Integrity, info.Problem = IntegrityNewer, err.Error()
			case errors.Is(err, manifest.ErrOldFormat):
				// Complete for the Nova that wrote it, which "incomplete"
				// (a build that did not finish) would deny.
				info.Integrity, info.Problem = IntegrityOlder, err.Error()
			case err != nil:
				info.State = "incomplete"
			default:
				info.CreatedAt, info.Chunks, info.EmbeddingProfile = cand.CreatedAt, cand.ChunkCount, cand.EmbeddingProfile
				info.Segments, info.Bytes = len(cand.Segments), cand.Bytes()
				info.Integrity = "intact"
				if err := checkRecord(ctx, x.home.IndexDir(), dir, cand, d); err != nil {
					info.Integrity, info.Problem = "damaged", err.Error()
				} else if lost := statesLost(dir); lost != nil {
					info.StatesLost = true
					info.Problem = fmt.Sprintf("generation %s: %v; its memory is intact, and the sync after it is active reads every source file again", e.Name(), lost)
				}
			}
			if (info.State == "incomplete" || info.Integrity == "damaged") && !dirExists(dir) {
				// Removed while it was read (retention, a promotion's
				// move, a build's cleanup): no longer in the index.
				continue
			}
			switch e.Name() {
			case active:
				info.State = "active"
			case interrupted:
				if info.State == "kept" {
					info.State = "interrupted"
				}
			}
			out = append(out, info)
		}
	}
	add(x.home.Generations(), "kept")
	add(x.home.Candidates(), "candidate")
	if writing || lockfile.Held(x.home.Lock()) {
		for i, g := range out {
			if g.State == "incomplete" || g.State == "interrupted" {
				out[i].State = StateWriting
			}
		}
	}
	if active != "" && !slices.ContainsFunc(out, func(g GenerationInfo) bool { return g.RunID == active }) {
		// The manifest names a generation whose directory is gone: listed
		// from the manifest, or the list would show nothing amiss.
		out = append(out, GenerationInfo{
			RunID: active, State: "active", CreatedAt: m.CreatedAt, Chunks: m.ChunkCount, Segments: len(m.Segments), Bytes: m.Bytes(),
			EmbeddingProfile: m.EmbeddingProfile, Integrity: "damaged",
			Problem: fmt.Sprintf("generation %s, which the manifest names as active, is missing (%s is gone): novactl index rollback makes a kept generation active, novactl index sync builds a new one",
				active, x.home.Generation(active)),
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].RunID > out[j].RunID })
	return out
}
