// Package index turns a person's sources into immutable, verified index
// generations and manages which one is active: build (sources to a
// candidate), verify, promote (atomic manifest replacement), sync (all
// three), rollback to a kept generation, list, and retention. One writer
// runs at a time (index/lock); every build, promotion and rollback is a
// line in index/history.jsonl.
//
// A sync is incremental: the active generation remembers every source
// file (size, time, identity, how far it was read), so only files that
// changed are read, and the new generation is the previous one's segments
// plus one small delta segment (the changed chunks, and the previous
// documents they retire). Neighbouring context, chunk ids and scores are
// computed so that the result answers exactly like a full rebuild of the
// same sources. Deltas are merged, and a generation with much retired
// content is rewritten, after the promotion that made the change
// searchable (compaction).
package index

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/embedding"
	"github.com/nova-recall/nova/index/generation"
	"github.com/nova-recall/nova/index/ingest"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/manifest"
	"github.com/nova-recall/nova/paths"
)

// Options tune an Indexer. The zero value works.
type Options struct {
	// Now is the clock; nil uses time.Now.
	Now func() time.Time
	// Logger receives operational messages; nil discards them.
	Logger *slog.Logger
	// Progress, when set, is told about long work as it happens; calls
	// come from one goroutine at a time.
	Progress func(Progress)
	// Retrain forces a fresh vector space (a retrained builtin model) and
	// so a full rebuild.
	Retrain bool
	// Full rebuilds every segment from the sources (keeping the vector
	// space while it fits) instead of writing a delta.
	Full bool
	// PruneMissing drops memory whose source file has disappeared. By
	// default such memory is carried forward: agents delete old
	// transcripts, and Nova must not forget them for it.
	PruneMissing bool
	// Hook is called at durability boundaries (tests crash writers there).
	Hook manifest.Hook
	// Environ is the environment (for the openai API key variable).
	Environ []string
	// Embedder, when set, replaces the configured embedder (tests).
	Embedder embedding.Embedder
	// NoRemote keeps embedding in-process even when novad is running.
	NoRemote bool
	// Analyzer, when set, replaces the default lexical analyzer (the
	// evaluation's ablations build with analyzer levers switched off).
	Analyzer *lexical.Analyzer
	// NoCompact leaves deltas as they are after a sync (tests, and the
	// benchmarks that time one step at a time).
	NoCompact bool
	// MergeDeltas is how many trailing small segments are merged into one
	// (0: maxSmallSegments); RewriteShare the share of retired document
	// slots from which the whole generation is rewritten (0:
	// maxRetiredShare). Tests set them to exercise each compaction.
	MergeDeltas  int
	RewriteShare float64
	// MaxSegments is the number of segments above which the whole
	// generation is rewritten (0: maxSegments). Tests make it small.
	MaxSegments int
	// PieceBytes is how much of a large file a full build reads at a time
	// (0: 4 MiB). Tests make it small to exercise the pieces.
	PieceBytes int64
	// WaitingInMemory is how many records waiting for the records after
	// them in their conversation a full build holds in memory before it
	// moves them to a temporary file (0: 20 000). Tests make it small.
	WaitingInMemory int
	// MemoryLimit is the Go heap's soft limit in bytes while a build or
	// sync runs (0: DefaultMemoryLimit; negative: none). GOMEMLIMIT, when
	// set, takes precedence.
	MemoryLimit int64

	// readFilePiece and listSource read and list the sources:
	// ingest.ReadFilePiece and ingest.List, unless a test makes them fail
	// as the system may (too many open files, an I/O error; see
	// export_test.go).
	readFilePiece func(ctx context.Context, src config.Source, f ingest.File, from ingest.Cursor, limit int64, sink ingest.Sink) (ingest.Cursor, bool, error)
	listSource    func(config.Source) (ingest.Listing, error)
}

// Progress reports long work: Stage is read, analyze, train, embed, ann,
// write or compact, or verify (files checked, of a verification).
type Progress struct {
	Stage string `json:"stage"`
	Done  int    `json:"done"`
	Total int    `json:"total"`
	Note  string `json:"note,omitempty"`
}

// Indexer runs index operations for one configuration.
type Indexer struct {
	cfg      config.Config
	home     paths.Home
	opts     Options
	analyzer *lexical.Analyzer
	log      *slog.Logger
}

// New returns an Indexer.
func New(cfg config.Config, opts Options) *Indexer {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Progress == nil {
		opts.Progress = func(Progress) {}
	} else {
		// The build tells progress from the goroutine that reads and the
		// one that adds to segments.
		var mu sync.Mutex
		report := opts.Progress
		opts.Progress = func(p Progress) {
			mu.Lock()
			defer mu.Unlock()
			report(p)
		}
	}
	if opts.readFilePiece == nil {
		opts.readFilePiece = ingest.ReadFilePiece
	}
	if opts.listSource == nil {
		opts.listSource = ingest.List
	}
	if opts.Hook == nil {
		opts.Hook = func(string) {}
	}
	analyzer := opts.Analyzer
	if analyzer == nil {
		analyzer = lexical.NewAnalyzer()
	}
	return &Indexer{cfg: cfg, home: cfg.Home, opts: opts, analyzer: analyzer, log: opts.Logger}
}

// SourceSummary is what one source contributed to a build.
type SourceSummary struct {
	Name     string `json:"name"`
	Kind     string `json:"kind"`
	Path     string `json:"path"`
	Files    int    `json:"files"`
	Records  int    `json:"records"`
	Chunks   int    `json:"chunks"`
	Problems int    `json:"problems"`
	// EarlierProblems counts what the files not read again this time
	// (or only read on from where the last sync stopped) skipped when
	// they were read before: a binary file stays skipped without being
	// reported again at every sync. novactl doctor lists them.
	EarlierProblems int `json:"earlierProblems,omitempty"`
	// NotDownloaded counts the iCloud stubs of files the source would
	// read (ingest.Listing.NotDownloaded): notes evicted from the Mac,
	// neither read nor a problem; the memory read from them before is
	// kept as that of any file gone. novactl doctor says how to download
	// them.
	NotDownloaded int    `json:"notDownloaded,omitempty"`
	Missing       bool   `json:"missing,omitempty"`
	Error         string `json:"error,omitempty"`
	// Gone lists files that disappeared but whose memory is kept.
	Gone []string `json:"gone,omitempty"`
	// NewestModTime is the newest modification time among the files.
	NewestModTime time.Time `json:"newestModTime,omitzero"`
}

// Build modes.
const (
	ModeFull        = "full"
	ModeIncremental = "incremental"
	ModeUnchanged   = "unchanged"
	ModeCompaction  = "compaction"
)

// BuildResult summarises a build.
type BuildResult struct {
	RunID string `json:"runId"`
	Path  string `json:"path"`
	// Mode is full, incremental, compaction or unchanged (nothing to
	// build: every source file is as the active generation read it).
	Mode string `json:"mode"`
	// Records and Chunks are the generation's totals.
	Records int `json:"records"`
	Chunks  int `json:"chunks"`
	// Added and Retired are the documents this build wrote and the
	// earlier documents it retired; FilesRead of the files how many were
	// read (the others were unchanged).
	Added     int `json:"added"`
	Retired   int `json:"retired"`
	FilesRead int `json:"filesRead"`
	// FilesResumed of the files read only grew: they were read on from
	// where the last sync stopped.
	FilesResumed int `json:"filesResumed"`
	// Unsettled files could not be read this time: they kept changing
	// while they were read, or their read failed for a reason that passes
	// (too many open files, an I/O error, a network volume's timeout). A
	// source whose folder could not be listed for such a reason counts
	// too. Their earlier memory (if any) is kept, and the next sync reads
	// them again; a watcher syncs again soon for them.
	Unsettled int `json:"unsettled"`
	// Embedded chunks were embedded, Cached found in the embedding cache,
	// Carried kept the vector of an earlier segment.
	Embedded         int                  `json:"embedded"`
	Cached           int                  `json:"cached"`
	Carried          int                  `json:"carried"`
	DuplicateIDs     int                  `json:"duplicateIds"`
	ProblemCount     int                  `json:"problemCount"`
	Problems         []ingest.Problem     `json:"problems"`
	Sources          []SourceSummary      `json:"sources"`
	EmbeddingProfile api.EmbeddingProfile `json:"embeddingProfile"`
	EmbeddingSource  string               `json:"embeddingSource"`
	ModelTrained     bool                 `json:"modelTrained"`
	Segments         int                  `json:"segments"`
	Bytes            int64                `json:"bytes"`
	// NewBytes is what this build wrote (the rest is shared with earlier
	// generations).
	NewBytes   int64               `json:"newBytes"`
	DurationMs int64               `json:"durationMs"`
	ANN        *generation.ANNMeta `json:"ann"`
	// Recovery is set when the active generation could not be built
	// upon (damaged): what the build started from instead, and the
	// memory it could not save.
	Recovery *Recovery `json:"recovery,omitempty"`
	// RemovedSources are the sources the active generation held memory
	// of that config.yaml no longer names: this build dropped their
	// memory (a rollback brings it back while that generation is kept).
	RemovedSources []RemovedSource `json:"removedSources,omitempty"`
	// Timings are the stages' wall times: read (sources read, chunked,
	// analysed and added to segments) and write (what follows), and
	// within write train (a new builtin model and its quantizer), embed
	// (vectors of the new segments) and segments (sealing them).
	Timings map[string]int64 `json:"timingsMs"`

	progress struct{ analysed, total int }
}

// maxReportedProblems bounds the problems kept in results and reports.
const maxReportedProblems = 200

func (r *BuildResult) problem(p ingest.Problem) {
	r.ProblemCount++
	if len(r.Problems) < maxReportedProblems {
		r.Problems = append(r.Problems, p)
	}
}

// ErrNothingToIndex means the sources produced no memory at all.
var ErrNothingToIndex = errors.New("the sources produced no memory to index: check the paths in config.yaml (novactl doctor lists what each source can read)")

// NothingToIndexError is ErrNothingToIndex with what the build found on
// the way: each source's files and the input problems that left it empty
// (every line refused, say, by a reader of another kind), which is the
// diagnosis the user needs.
type NothingToIndexError struct {
	Result *BuildResult
	// Config is the config.yaml that was read, "" when there is none.
	Config string
}

func (e *NothingToIndexError) Error() string {
	if e.Result != nil && len(e.Result.Sources) == 0 {
		// No paths to check: none are configured.
		if e.Config != "" {
			// The user has often just run config init, which found
			// nothing here to read; run again, it refuses to replace the
			// file without --force.
			return "no sources are configured in " + e.Config + ", so there is no memory to index: add one under sources: (README: Configuration), or run novactl config init --force --notes DIR to rewrite it with a folder of notes (the old file is backed up)"
		}
		return "no sources are configured, so there is no memory to index: add them under sources: in config.yaml (novactl config init writes them for the agent memory and notes found on this machine)"
	}
	return ErrNothingToIndex.Error()
}

// Unwrap makes errors.Is(err, ErrNothingToIndex) true.
func (e *NothingToIndexError) Unwrap() error { return ErrNothingToIndex }

// Build builds a candidate generation from the configured sources.
func (x *Indexer) Build(ctx context.Context) (res *BuildResult, err error) {
	defer func() { err = x.diskFull(err) }()
	lock, err := x.lock(ctx, "build")
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	defer x.giveRoomBack(&err)
	defer x.limitMemory()()
	x.cleanInterrupted()
	return x.build(ctx)
}

// build runs with the lock held. It returns a result with Mode unchanged
// (and no candidate) when nothing changed.
func (x *Indexer) build(ctx context.Context) (*BuildResult, error) {
	return x.buildPast(ctx, nil)
}

// buildPast builds as build does, but when damage is set (the active
// generation was found damaged, by a check deeper than the one that
// opens it) it does not build upon the active generation.
func (x *Indexer) buildPast(ctx context.Context, damage error) (*BuildResult, error) {
	start := x.opts.Now()
	res := &BuildResult{Timings: map[string]int64{}, Problems: []ingest.Problem{}}
	var prev *previous
	err := damage
	if err == nil {
		prev, err = x.openPrevious(ctx)
	}
	if err != nil && ctx.Err() != nil {
		return nil, ctx.Err() // interrupted while hashing: no damage found
	}
	if err != nil {
		if prev, err = x.buildPastDamage(ctx, err, res); err != nil {
			return nil, err
		}
	}
	var cand *manifest.Manifest
	var states *sourceStates
	switch {
	case prev != nil && prev.gen != nil && res.Recovery == nil && !x.opts.Full && !x.opts.Retrain && x.incrementalOK(prev):
		cand, states, err = x.incremental(ctx, prev, res)
	default:
		cand, states, err = x.full(ctx, prev, res)
	}
	if err != nil {
		return nil, err
	}
	if cand == nil {
		res.Mode = ModeUnchanged
		res.RunID, res.Chunks, res.Records = prev.manifest.RunID, prev.manifest.ChunkCount, prev.manifest.RecordCount
		res.Segments, res.Bytes, res.EmbeddingProfile = len(prev.manifest.Segments), prev.manifest.Bytes(), prev.manifest.EmbeddingProfile
		res.DurationMs = x.opts.Now().Sub(start).Milliseconds()
		return res, nil
	}
	if err := x.writeCandidate(cand, states, res); err != nil {
		return nil, err
	}
	if prev != nil && prev.states != nil {
		res.RemovedSources = removedSources(prev.states, x.cfg)
	}
	if res.Recovery != nil {
		if err := recordLost(x.home, res.Recovery.Lost); err != nil {
			x.log.Warn("Cannot record the memory lost in index/lost.json", "err", err)
		}
	}
	res.DurationMs = x.opts.Now().Sub(start).Milliseconds()
	if err := appendHistory(x.home.History(), Event{
		Time: x.opts.Now().UTC(), Event: EventBuild, RunID: res.RunID, Chunks: res.Chunks, Records: res.Records,
		Embedded: res.Embedded, Cached: res.Cached, Carried: res.Carried, Problems: res.ProblemCount, DurationMs: res.DurationMs,
		Note: res.Mode,
	}); err != nil {
		return nil, err
	}
	// A delta is routine (the watcher writes one after every burst an agent
	// writes, and logs the sync itself); a full build is news.
	level := slog.LevelInfo
	if res.Mode == ModeIncremental {
		level = slog.LevelDebug
	}
	x.log.Log(ctx, level, "Candidate built", "runId", res.RunID, "mode", res.Mode, "chunks", res.Chunks, "added", res.Added, "retired", res.Retired)
	return res, nil
}

// RemovedSource is a source whose memory a build dropped because
// config.yaml no longer names it.
type RemovedSource struct {
	Source  string `json:"source"`
	Files   int    `json:"files"`
	Records int    `json:"records"`
}

// removedSources lists, by name, the sources of states that cfg does not
// configure and that held memory: what a build started from states drops.
func removedSources(states *sourceStates, cfg config.Config) []RemovedSource {
	at := map[string]int{} // index in out
	var out []RemovedSource
	for _, f := range states.Files {
		if f.Records == 0 || slices.ContainsFunc(cfg.Sources, func(s config.Source) bool { return s.Name == f.Source }) {
			continue
		}
		i, ok := at[f.Source]
		if !ok {
			i = len(out)
			at[f.Source] = i
			out = append(out, RemovedSource{Source: f.Source})
		}
		out[i].Files++
		out[i].Records += f.Records
	}
	slices.SortFunc(out, func(a, b RemovedSource) int { return strings.Compare(a.Source, b.Source) })
	return out
}

// buildPastDamage is what a build starts from when the active generation
// cannot be built upon (damage). Building from scratch would drop the
// memory of every source file already gone: the build starts from the
// newest intact kept generation instead, reading every source file on
// top of it, and res.Recovery says what only the damaged generation held.
func (x *Indexer) buildPastDamage(ctx context.Context, damage error, res *BuildResult) (*previous, error) {
	prev, rec, err := x.recover(ctx, damage)
	if err != nil {
		return nil, err
	}
	res.Recovery = rec
	built := rec.BuiltOn
	if built == "" {
		built = "no intact kept generation: building from the sources alone"
	}
	x.log.Warn("The active generation cannot be built upon; rebuilding on the newest intact kept generation", "err", damage, "builtOn", built,
		"lostFiles", len(rec.Lost))
	return prev, nil
}

// buildProfile is everything in the configuration that shapes chunks: a
// generation built under another profile is rebuilt in full.
type buildProfile struct {
	Sources      []config.Source `json:"sources"`
	ChunkMax     int             `json:"chunkMaxChars"`
	ChunkOverlap int             `json:"chunkOverlapChars"`
	ContextWords int             `json:"contextWords"`
	ContextTurns int             `json:"contextTurns"`
	Analyzer     string          `json:"analyzer"`
	Reading      string          `json:"reading"`
}

func (x *Indexer) buildProfileHash() string {
	b, _ := json.Marshal(buildProfile{
		Sources: x.cfg.Sources, ChunkMax: x.cfg.Index.ChunkMaxChars, ChunkOverlap: x.cfg.Index.ChunkOverlapChars,
		ContextWords: x.cfg.Index.ContextWords, ContextTurns: x.cfg.Index.ContextTurns,
		Analyzer: x.analyzer.Version(), Reading: ingest.Version,
	})
	return manifest.HashBytes(b)
}

// incrementalOK reports whether prev can be built upon: same build
// profile, and a vector space this configuration can keep using.
func (x *Indexer) incrementalOK(prev *previous) bool {
	return prev.manifest.BuildProfileHash == x.buildProfileHash() && prev.states.Version == ingest.Version &&
		ProfileMatchesConfig(x.cfg, prev.manifest.EmbeddingProfile)
}

func (x *Indexer) sourceProfile() manifest.SourceProfile {
	p := manifest.SourceProfile{Sources: []manifest.SourceRef{}}
	for _, s := range x.cfg.Sources {
		set := s.SourceSet
		if set == "" {
			set = ingest.DefaultSourceSet(s.Kind)
		}
		p.Sources = append(p.Sources, manifest.SourceRef{Name: s.Name, Kind: s.Kind, Path: s.Path, SourceSet: set})
	}
	return p
}

// previous is the active generation a build starts from.
type previous struct {
	manifest   *manifest.Manifest
	gen        *generation.Generation // nil for a generation of an older format
	states     *sourceStates
	spaceBytes []byte
	// legacy is set for a generation of an older format: its chunks can
	// only be carried forward.
	legacy bool
}

// openPrevious opens the active generation (sizes and structure checked;
// its files are shared with the new generation, which novad verifies in
// full). It returns nil when nothing is active. A cancelled ctx stops the
// hash of files changed since the promotion with an error wrapping ctx's.
func (x *Indexer) openPrevious(ctx context.Context) (*previous, error) {
	m, _, err := manifest.Read(x.home.Manifest())
	switch {
	case errors.Is(err, manifest.ErrNoManifest) && len(x.generationIDs()) > 0:
		// The manifest was removed, not never written: building from the
		// sources alone would drop the memory of gone source files that
		// the kept generations hold. Build on the newest intact one, as
		// for a damaged manifest.
		return nil, fmt.Errorf("%w, though generations are kept (index/manifest.json is missing)", err)
	case errors.Is(err, manifest.ErrNoManifest):
		return nil, nil
	case errors.Is(err, manifest.ErrOldFormat):
		return &previous{legacy: true, states: &sourceStates{}}, nil
	case err != nil:
		return nil, err
	}
	if err := changedSincePromotion(ctx, x.home.IndexDir(), m); err != nil {
		return nil, err
	}
	return x.openBuilt(m)
}

// openBuilt opens the promoted generation m names (the active manifest,
// or a kept generation's record), with its source states and vector
// space, to build upon.
func (x *Indexer) openBuilt(m *manifest.Manifest) (*previous, error) {
	// Without checksums it reads no file whole: quick, not cancelled.
	g, err := generation.Open(context.Background(), x.home.IndexDir(), m, x.analyzer, generation.Options{SkipChecksums: true})
	if err != nil {
		return nil, err
	}
	states, err := readSourceStates(filepath.Join(x.home.IndexDir(), m.GenerationPath, generation.FileSources))
	if err != nil {
		return nil, err
	}
	sb, err := readGenerationFile(filepath.Join(x.home.IndexDir(), manifest.SpaceDir(m.Space.ID), generation.FileSpace))
	if err != nil {
		return nil, err
	}
	return &previous{manifest: m, gen: g, states: states, spaceBytes: sb}, nil
}

// changedSincePromotion hashes the files of m, the active generation,
// whose modification time is later than its promotion: generation files
// are written once, before, so such a file was changed in place. Building
// on it (or calling nothing changed) would carry the damage forward, and
// the next verification would refuse every build after. Hashing only those
// files keeps an incremental sync from reading the whole generation; a
// change that also restored the old time is found by novad's and doctor's
// checksums, and index sync --full rebuilds past it.
func changedSincePromotion(ctx context.Context, indexDir string, m *manifest.Manifest) error {
	promoted := m.PromotedAt
	if promoted.IsZero() {
		promoted = m.CreatedAt
	}
	promoted = promoted.Add(2 * time.Second) // coarse file-system clocks
	return checkFiles(ctx, indexDir, filepath.Join(indexDir, m.GenerationPath), m, Quick,
		func(_ string, st fileStamp) bool { return !st.mtime.After(promoted) }, nil)
}

// candidate returns the sealed record of a new generation.
func (x *Indexer) candidate(sp *space, segs []manifest.Part, chunks, records int) *manifest.Manifest {
	runID := manifest.NewRunID(x.opts.Now())
	m := &manifest.Manifest{
		SchemaVersion: manifest.SchemaVersion, Status: "candidate", RunID: runID,
		GenerationPath: "generations/" + runID, CreatedAt: x.opts.Now().UTC(),
		ChunkCount: chunks, RecordCount: records,
		EmbeddingProfile: sp.prof, EmbeddingProfileHash: manifest.ProfileHash(sp.prof),
		SourceProfile: x.sourceProfile(), BuildProfileHash: x.buildProfileHash(),
		Space: sp.part, Segments: segs, Files: map[string]manifest.FileSum{},
	}
	m.SourceProfileHash = m.SourceProfile.Hash()
	return m
}

// writeCandidate writes the candidate's own directory: the source states,
// the build report and, last, the sealed record (a candidate directory
// without it is an interrupted build, cleaned up by the next writer).
func (x *Indexer) writeCandidate(cand *manifest.Manifest, states *sourceStates, res *BuildResult) error {
	dir := x.home.Candidate(cand.RunID)
	if err := paths.MkdirPrivate(x.home.Candidates()); err != nil {
		return fmt.Errorf("create candidates directory: %w", err)
	}
	if err := os.Mkdir(dir, paths.DirMode); err != nil {
		return fmt.Errorf("create candidate %s: %w", cand.RunID, err)
	}
	res.RunID, res.Path = cand.RunID, dir
	res.Chunks, res.Records, res.Segments = cand.ChunkCount, cand.RecordCount, len(cand.Segments)
	res.EmbeddingProfile = cand.EmbeddingProfile
	states.Version = ingest.Version
	report, _ := json.MarshalIndent(buildReport{RunID: cand.RunID, Mode: res.Mode, Sources: res.Sources, Problems: res.Problems,
		ProblemCount: res.ProblemCount, Added: res.Added, Retired: res.Retired, Embedded: res.Embedded, Cached: res.Cached,
		Carried: res.Carried, EmbeddingSource: res.EmbeddingSource, Recovery: res.Recovery}, "", "  ")
	for name, b := range map[string][]byte{generation.FileSources: states.marshal(), generation.FileReport: append(report, '\n')} {
		sum, err := writeSealed(filepath.Join(dir, name), b)
		if err != nil {
			os.RemoveAll(dir)
			return fmt.Errorf("write %s: %w", name, err)
		}
		cand.Files[name] = sum
		res.NewBytes += sum.Size
	}
	res.Bytes = cand.Bytes()
	if err := writeCandidateRecord(dir, cand); err != nil {
		os.RemoveAll(dir)
		return err
	}
	return nil
}

type buildReport struct {
	RunID           string           `json:"runId"`
	Mode            string           `json:"mode"`
	Sources         []SourceSummary  `json:"sources"`
	ProblemCount    int              `json:"problemCount"`
	Problems        []ingest.Problem `json:"problems"`
	Added           int              `json:"added"`
	Retired         int              `json:"retired"`
	Embedded        int              `json:"embedded"`
	Cached          int              `json:"cached"`
	Carried         int              `json:"carried"`
	EmbeddingSource string           `json:"embeddingSource"`
	Recovery        *Recovery        `json:"recovery,omitempty"`
}

// tmpDir holds a build's temporary files (vector inputs); the next writer
// removes what a crashed one left.
func (x *Indexer) tmpDir() string { return filepath.Join(x.home.IndexDir(), "tmp") }

// finishSpace writes a new space and the sink's segments, and records the
// space in the result.
func (x *Indexer) finishSegments(s *segmentSink, res *BuildResult) ([]manifest.Part, error) {
	parts, err := s.finish()
	if err != nil {
		return nil, err
	}
	res.ANN = &generation.ANNMeta{Enabled: s.sp.cells != nil, RecallAt10: scalar.Round(s.sp.recall, 4), Reason: s.sp.annReason}
	if s.sp.cells != nil {
		res.ANN.Cells, res.ANN.Probe = s.sp.cells.N(), s.sp.cells.Probe
	}
	for _, p := range parts {
		for _, f := range p.Files {
			res.NewBytes += f.Size
		}
	}
	return parts, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
