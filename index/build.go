// Package index turns a person's sources into immutable, verified index
// generations and manages which one is active: build (sources to a
// candidate), verify, promote (atomic manifest replacement), sync (all
// three), rollback to a kept generation, list, and retention. One writer
// runs at a time (index/lock); every build, promotion and rollback is a
// line in index/history.jsonl.
package index

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/embedding"
	"github.com/nova-recall/nova/index/chunk"
	"github.com/nova-recall/nova/index/generation"
	"github.com/nova-recall/nova/index/ingest"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/manifest"
	"github.com/nova-recall/nova/memory"
	"github.com/nova-recall/nova/paths"
	"github.com/nova-recall/nova/vector"
)

// Options tune an Indexer. The zero value works.
type Options struct {
	// Now is the clock; nil uses time.Now.
	Now func() time.Time
	// Logger receives operational messages; nil discards them.
	Logger *slog.Logger
	// Progress, when set, is told about long work as it happens.
	Progress func(Progress)
	// Retrain forces a fresh builtin model.
	Retrain bool
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
}

// Progress reports long work: Stage is read, embed, lexical or write.
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
	}
	if opts.Hook == nil {
		opts.Hook = func(string) {}
	}
	return &Indexer{cfg: cfg, home: cfg.Home, opts: opts, analyzer: lexical.NewAnalyzer(), log: opts.Logger}
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
	Missing  bool   `json:"missing,omitempty"`
	Error    string `json:"error,omitempty"`
	// NewestModTime is the newest modification time among the files read.
	NewestModTime time.Time `json:"newestModTime,omitzero"`
}

// BuildResult summarises a build.
type BuildResult struct {
	RunID            string               `json:"runId"`
	Path             string               `json:"path"`
	Records          int                  `json:"records"`
	Chunks           int                  `json:"chunks"`
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
	Bytes            int64                `json:"bytes"`
	DurationMs       int64                `json:"durationMs"`
	// ANN reports the approximate vector index decision.
	ANN     *generation.ANNMeta `json:"ann"`
	Timings map[string]int64    `json:"timingsMs"`
}

// maxReportedProblems bounds the problems kept in results and reports.
const maxReportedProblems = 200

// Build builds a candidate generation from the configured sources.
func (x *Indexer) Build(ctx context.Context) (*BuildResult, error) {
	lock, err := x.lock("build")
	if err != nil {
		return nil, err
	}
	defer lock.release()
	return x.build(ctx)
}

// lock takes the writer lock. Every writer comes through here, so this is
// where the home is made private (created 0700, or tightened when a plain
// mkdir or an older Nova left it readable by others) before anything is
// written into it.
func (x *Indexer) lock(op string) (*writerLock, error) {
	narrowed, err := x.home.Secure()
	if len(narrowed) > 0 {
		x.log.Info("Made the home private (other users could read it)", "paths", len(narrowed), "first", narrowed[0])
	}
	if err != nil {
		return nil, fmt.Errorf("make %s private: %w", x.home.Root, err)
	}
	return acquireLock(x.home.Lock(), op, x.opts.Now())
}

// build runs with the lock held.
func (x *Indexer) build(ctx context.Context) (*BuildResult, error) {
	start := x.opts.Now()
	res := &BuildResult{Timings: map[string]int64{}, Problems: []ingest.Problem{}}
	stage := func(name string, t0 time.Time) { res.Timings[name] = time.Since(t0).Milliseconds() }

	t0 := time.Now()
	chunks, err := x.collect(ctx, res)
	if err != nil {
		return nil, err
	}
	stage("read", t0)
	if len(chunks) == 0 {
		return nil, errors.New("the sources produced no memory to index: check the paths in config.yaml (novactl doctor lists what each source can read)")
	}

	// Analyse every chunk once: the terms feed BM25 and the builtin
	// embedder alike.
	t0 = time.Now()
	own, context, before := x.analyze(ctx, chunks)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	lb, cb := lexical.NewBuilder(), lexical.NewBuilder()
	terms := make([][]string, len(chunks))
	for i := range own {
		lb.Add(own[i])
		cb.Add(context[i])
		// The dense channel sees the text and the words before it (see
		// memory.Chunk.IndexText).
		terms[i] = append(append(make([]string, 0, len(own[i])+len(before[i])), own[i]...), before[i]...)
	}
	lex, ctxIndex := lb.Build(), cb.Build()
	x.opts.Progress(Progress{Stage: "lexical", Done: len(chunks), Total: len(chunks)})
	stage("lexical", t0)

	t0 = time.Now()
	emb, model, err := x.embedder(ctx, terms, res)
	if err != nil {
		return nil, err
	}
	vecs, err := x.embedAll(ctx, emb, model, chunks, terms, res)
	if err != nil {
		return nil, err
	}
	stage("embed", t0)
	res.EmbeddingProfile = emb.Profile()
	t0 = time.Now()
	ann, annMeta := x.approximateIndex(vecs)
	res.ANN = annMeta
	stage("ann", t0)

	t0 = time.Now()
	runID := manifest.NewRunID(x.opts.Now())
	dir := x.home.Candidate(runID)
	if err := paths.MkdirPrivate(x.home.Candidates()); err != nil {
		return nil, fmt.Errorf("create candidates directory: %w", err)
	}
	if err := os.Mkdir(dir, paths.DirMode); err != nil {
		return nil, fmt.Errorf("create candidate %s: %w", runID, err)
	}
	meta := generation.Meta{
		FormatVersion: generation.FormatVersion, RunID: runID, CreatedAt: x.opts.Now().UTC(),
		ChunkCount: len(chunks), RecordCount: res.Records, EmbeddingProfile: emb.Profile(),
		Analyzer: generation.AnalyzerVersion, ANN: annMeta,
	}
	x.opts.Progress(Progress{Stage: "write", Total: 1})
	written, err := generation.Write(dir, generation.Contents{
		Meta: meta, Chunks: chunks, Lexical: lex, Context: ctxIndex, Vectors: vecs, Model: model, ANN: ann,
		Report: buildReport{RunID: runID, Sources: res.Sources, Problems: res.Problems, ProblemCount: res.ProblemCount,
			Embedded: res.Embedded, Cached: res.Cached, Carried: res.Carried, EmbeddingSource: res.EmbeddingSource},
	})
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	// The candidate record is written last: a candidate directory without
	// it is an interrupted build and is cleaned up by the next writer.
	cand := &manifest.Manifest{
		SchemaVersion: manifest.SchemaVersion, Status: "candidate", RunID: runID,
		GenerationPath: "generations/" + runID, CreatedAt: meta.CreatedAt,
		ChunkCount: len(chunks), RecordCount: res.Records,
		EmbeddingProfile: emb.Profile(), EmbeddingProfileHash: manifest.ProfileHash(emb.Profile()),
		SourceProfile: x.sourceProfile(), Files: written.Files,
	}
	cand.SourceProfileHash = cand.SourceProfile.Hash()
	if err := writeCandidate(dir, cand); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	stage("write", t0)
	res.RunID, res.Path = runID, dir
	res.Chunks = len(chunks)
	res.Bytes = written.Bytes
	res.DurationMs = x.opts.Now().Sub(start).Milliseconds()
	if err := appendHistory(x.home.History(), Event{
		Time: x.opts.Now().UTC(), Event: EventBuild, RunID: runID, Chunks: res.Chunks, Records: res.Records,
		Embedded: res.Embedded, Cached: res.Cached, Carried: res.Carried, Problems: res.ProblemCount, DurationMs: res.DurationMs,
	}); err != nil {
		return nil, err
	}
	x.log.Info("Candidate built", "runId", runID, "chunks", res.Chunks, "embedded", res.Embedded, "cached", res.Cached)
	return res, nil
}

type buildReport struct {
	RunID           string           `json:"runId"`
	Sources         []SourceSummary  `json:"sources"`
	ProblemCount    int              `json:"problemCount"`
	Problems        []ingest.Problem `json:"problems"`
	Embedded        int              `json:"embedded"`
	Cached          int              `json:"cached"`
	Carried         int              `json:"carried"`
	EmbeddingSource string           `json:"embeddingSource"`
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

// collect reads every source into chunks, adds neighbouring context,
// carries forward memory whose source file disappeared, and assigns
// governance.
func (x *Indexer) collect(ctx context.Context, res *BuildResult) ([]memory.Chunk, error) {
	var all []memory.Chunk
	seen := map[string]bool{}
	var mu sync.Mutex
	problem := func(p ingest.Problem) {
		mu.Lock()
		defer mu.Unlock()
		res.ProblemCount++
		if len(res.Problems) < maxReportedProblems {
			res.Problems = append(res.Problems, p)
		}
	}
	for si, src := range x.cfg.Sources {
		sum := SourceSummary{Name: src.Name, Kind: src.Kind, Path: src.Path}
		var records []memory.Record
		err := ingest.Read(ctx, src, ingest.Sink{
			Record: func(r memory.Record) error {
				records = append(records, r)
				return nil
			},
			Problem: func(p ingest.Problem) {
				if p.Source == "" {
					p.Source = src.Name
				}
				sum.Problems++
				problem(p)
			},
			File: func(p string) {
				sum.Files++
				if fi, err := os.Stat(p); err == nil && fi.ModTime().After(sum.NewestModTime) {
					sum.NewestModTime = fi.ModTime()
				}
				x.opts.Progress(Progress{Stage: "read", Done: si, Total: len(x.cfg.Sources), Note: p})
			},
		})
		if err != nil {
			if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
				return nil, err
			}
			sum.Error = err.Error()
			sum.Missing = errors.Is(err, ingest.ErrSourceMissing)
			problem(ingest.Problem{Source: src.Name, Path: src.Path, Reason: err.Error()})
		}
		contexts := neighbourContext(records, x.cfg.Index.ContextWords)
		for i, r := range records {
			cs := x.chunkRecord(src, r, contexts[i])
			if len(cs) > 0 && seen[cs[0].ID] {
				res.DuplicateIDs++
				problem(ingest.Problem{Source: src.Name, Path: r.Path, Line: r.Line, Reason: fmt.Sprintf("duplicate id %q: kept the first record with this id", r.ID)})
				continue
			}
			for _, c := range cs {
				seen[c.ID] = true
			}
			all = append(all, cs...)
			sum.Records++
			sum.Chunks += len(cs)
		}
		res.Records += sum.Records
		res.Sources = append(res.Sources, sum)
	}
	x.opts.Progress(Progress{Stage: "read", Done: len(x.cfg.Sources), Total: len(x.cfg.Sources)})
	if !x.opts.PruneMissing {
		carried, err := x.carryForward(seen)
		if err != nil {
			x.log.Warn("Cannot read the active generation to carry forward vanished memory", "err", err)
		}
		res.Carried = len(carried)
		all = append(all, carried...)
	}
	return all, nil
}

// carryForward returns the chunks of the active generation whose source is
// still configured but whose source file no longer exists.
func (x *Indexer) carryForward(seen map[string]bool) ([]memory.Chunk, error) {
	m, _, err := manifest.Read(x.home.Manifest())
	if errors.Is(err, manifest.ErrNoManifest) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	configured := map[string]bool{}
	for _, s := range x.cfg.Sources {
		configured[s.Name] = true
	}
	old, err := readChunks(filepath.Join(x.home.IndexDir(), m.GenerationPath), m.Files)
	if err != nil {
		return nil, err
	}
	exists := map[string]bool{}
	var out []memory.Chunk
	for _, c := range old {
		if seen[c.ID] || !configured[c.SourceName] || c.SourcePath == "" {
			continue
		}
		ok, known := exists[c.SourcePath]
		if !known {
			_, err := os.Stat(c.SourcePath)
			ok = !errors.Is(err, fs.ErrNotExist)
			exists[c.SourcePath] = ok
		}
		if !ok {
			out = append(out, c)
			seen[c.ID] = true
		}
	}
	return out, nil
}

// chunkRecord applies the source's defaults to r and cuts it into chunks;
// near is the neighbouring text indexed with every piece.
func (x *Indexer) chunkRecord(src config.Source, r memory.Record, near neighbours) []memory.Chunk {
	text, redactions := ingest.Redact(r.Text)
	text = ingest.StripBinary(text)
	r.Redactions += redactions
	if r.Project == "" {
		r.Project = src.Project
	}
	if r.Agent == "" {
		r.Agent = src.Agent
	}
	if r.SourceSet == "" {
		r.SourceSet = src.SourceSet
	}
	if r.SourceSet == "" {
		r.SourceSet = ingest.DefaultSourceSet(src.Kind)
	}
	lifecycle := r.Lifecycle
	if lifecycle == "" {
		lifecycle = src.Lifecycle
	}
	layer := r.Layer
	if layer == "" {
		layer = "record"
	}
	pieces := chunk.Split(text, chunk.Options{MaxChars: x.cfg.Index.ChunkMaxChars, OverlapChars: x.cfg.Index.ChunkOverlapChars})
	tags := append(append([]string(nil), r.Tags...), src.Tags...)
	var t string
	if !r.Time.IsZero() {
		t = r.Time.UTC().Format(time.RFC3339)
	}
	out := make([]memory.Chunk, 0, len(pieces))
	for i, p := range pieces {
		c := memory.Chunk{
			ID: memory.ChunkID(src.Name, r.ID, i+1, len(pieces)), Text: p, Context: strings.TrimSpace(near.before + " … " + near.after), Before: near.before,
			Title: r.Title, Date: r.Date, Time: t, Agent: r.Agent, Role: r.Role, Project: r.Project,
			Layer: layer, SourceName: src.Name, SourceSet: r.SourceSet, SourceType: r.Kind,
			SourceID: r.ID, SourcePath: r.Path, LineNumber: r.Line, SessionID: r.SessionID,
			HeadingPath: r.HeadingPath, Part: i + 1, Parts: len(pieces),
		}
		c.TextHash = memory.HashText(p)
		head := p
		if rs := []rune(head); len(rs) > 160 {
			head = string(rs[:160])
		}
		c.DedupeKey = memory.HashText(c.SourceSet + "|" + c.SourceID + "|" + fmt.Sprint(c.Part) + "|" + head)
		c.Tags = memory.InferTags(c.Title+"\n"+p, tags, c.Date != "", layer)
		c.WorkType = r.WorkType
		if c.WorkType == "" {
			c.WorkType = src.WorkType
		}
		if c.WorkType == "" {
			c.WorkType = memory.InferWorkType(c.Tags)
		}
		c.Governance = memory.Govern(&c, memory.Override{AuthorityRank: src.AuthorityRank, RetrievalWeight: src.RetrievalWeight, Lifecycle: lifecycle})
		out = append(out, c)
	}
	return out
}

// neighbours is the text around a record in its conversation.
type neighbours struct {
	before, after string
}

// neighbourContext returns, for each record, the first few words of the
// records before and after it in the same conversation: a question about a
// turn is often answered in words of the turns around it.
func neighbourContext(records []memory.Record, words int) []neighbours {
	ctx := make([]neighbours, len(records))
	if words == 0 {
		return ctx
	}
	groups := map[string][]int{}
	var order []string
	for i, r := range records {
		if r.Conversation == "" {
			continue
		}
		if _, ok := groups[r.Conversation]; !ok {
			order = append(order, r.Conversation)
		}
		groups[r.Conversation] = append(groups[r.Conversation], i)
	}
	for _, key := range order {
		idx := groups[key]
		for j, i := range idx {
			if j > 0 {
				ctx[i].before = firstWords(records[idx[j-1]].Text, words)
			}
			if j+1 < len(idx) {
				ctx[i].after = firstWords(records[idx[j+1]].Text, words)
			}
		}
	}
	return ctx
}

func firstWords(s string, n int) string {
	f := strings.Fields(s)
	if len(f) > n {
		f = f[:n]
	}
	return strings.Join(f, " ")
}

// analyze returns the index terms of every chunk's own text, of its
// context, and of the part of the context before it, in parallel.
func (x *Indexer) analyze(ctx context.Context, chunks []memory.Chunk) (own, context, before [][]string) {
	own, context, before = make([][]string, len(chunks)), make([][]string, len(chunks)), make([][]string, len(chunks))
	workers := max(1, runtime.GOMAXPROCS(0))
	var next int64
	var mu sync.Mutex
	var wg sync.WaitGroup
	const batch = 256
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				mu.Lock()
				lo := int(next)
				next += batch
				mu.Unlock()
				if lo >= len(chunks) {
					return
				}
				for i := lo; i < min(lo+batch, len(chunks)); i++ {
					own[i] = x.analyzer.Terms(chunks[i].OwnText())
					context[i] = x.analyzer.Terms(chunks[i].Context)
					before[i] = x.analyzer.Terms(chunks[i].Before)
				}
				x.opts.Progress(Progress{Stage: "analyze", Done: min(lo+batch, len(chunks)), Total: len(chunks)})
			}
		}()
	}
	wg.Wait()
	return own, context, before
}

// embedder picks the embedder of this build: the builtin model (reused
// while it fits the corpus, else trained) or the openai endpoint; and a
// running novad's /encode when it serves the same profile.
func (x *Indexer) embedder(ctx context.Context, terms [][]string, res *BuildResult) (embedding.Embedder, *embedding.LSA, error) {
	if x.opts.Embedder != nil {
		res.EmbeddingSource = "injected"
		if m, ok := x.opts.Embedder.(*embedding.LSA); ok {
			return m, m, nil
		}
		return x.opts.Embedder, nil, nil
	}
	var local embedding.Embedder
	var model *embedding.LSA
	switch x.cfg.Embedding.Provider {
	case config.ProviderBuiltin:
		m, err := x.builtinModel(ctx, terms, res)
		if err != nil {
			return nil, nil, err
		}
		local, model = m, m
	case config.ProviderOpenAI:
		local = embedding.NewOpenAI(embedding.OpenAIOptions{
			Endpoint: x.cfg.Embedding.Endpoint, Model: x.cfg.Embedding.Model, Dimension: x.cfg.Embedding.Dimension,
			APIKey: paths.Lookup(x.opts.Environ, x.cfg.Embedding.APIKeyEnv), BatchSize: x.cfg.Embedding.BatchSize,
			Timeout: time.Duration(x.cfg.Embedding.TimeoutSeconds) * time.Second,
		})
	default:
		return nil, nil, fmt.Errorf("unknown embedding provider %q", x.cfg.Embedding.Provider)
	}
	res.EmbeddingSource = "in-process"
	if !x.opts.NoRemote {
		remote, err := discoverEncoder(ctx, x.home, local.Profile())
		if err != nil {
			return nil, nil, err
		}
		if remote != nil {
			res.EmbeddingSource = "novad"
			return remote, model, nil
		}
	}
	return local, model, nil
}

// builtinModel reuses the current corpus model unless it is stale, else
// trains a new one and makes it current.
func (x *Indexer) builtinModel(ctx context.Context, terms [][]string, res *BuildResult) (*embedding.LSA, error) {
	dir := x.home.ModelDir()
	dim := x.cfg.Embedding.Dimension
	if !x.opts.Retrain {
		if id, err := os.ReadFile(filepath.Join(dir, "current")); err == nil {
			if f, err := os.Open(filepath.Join(dir, strings.TrimSpace(string(id))+".lsa")); err == nil {
				m, err := embedding.ReadLSA(f, x.analyzer)
				f.Close()
				if err == nil && !m.Stale(len(terms), dim) {
					return m, nil
				}
			}
		}
	}
	x.opts.Progress(Progress{Stage: "train", Total: len(terms), Note: "training the builtin embedder on this corpus"})
	m, err := embedding.TrainLSATerms(ctx, terms, dim, x.analyzer)
	if err != nil {
		return nil, fmt.Errorf("train builtin embedder: %w", err)
	}
	res.ModelTrained = true
	if err := paths.MkdirPrivate(dir); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, m.ID()+".lsa")
	if err := writeFileAtomic(path, func(f *os.File) error { _, err := m.WriteTo(f); return err }); err != nil {
		return nil, fmt.Errorf("save builtin model: %w", err)
	}
	if err := writeFileAtomic(filepath.Join(dir, "current"), func(f *os.File) error { _, err := f.WriteString(m.ID() + "\n"); return err }); err != nil {
		return nil, fmt.Errorf("save builtin model: %w", err)
	}
	return m, nil
}

// embedAll returns the vectors of every chunk: from the cache when the
// same text was embedded before under the same profile, else computed.
func (x *Indexer) embedAll(ctx context.Context, emb embedding.Embedder, model *embedding.LSA, chunks []memory.Chunk, terms [][]string, res *BuildResult) (*vector.Store, error) {
	prof := emb.Profile()
	dim := prof.Dimension
	cache, err := embedding.OpenCache(x.home.EmbeddingCache(), manifest.ProfileHash(prof), dim)
	if err != nil {
		return nil, err
	}
	data := make([]float32, len(chunks)*dim)
	var missing []int
	for i := range chunks {
		k := embedding.KeyOf(chunks[i].IndexText())
		if v, ok := cache.Get(k); ok {
			copy(data[i*dim:], v)
			res.Cached++
			continue
		}
		missing = append(missing, i)
	}
	total := len(missing)
	x.opts.Progress(Progress{Stage: "embed", Done: 0, Total: total})
	local := model != nil && emb == embedding.Embedder(model)
	batch := max(1, x.cfg.Embedding.BatchSize)
	if local {
		batch = 1024
	}
	for start := 0; start < len(missing); start += batch {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		idx := missing[start:min(len(missing), start+batch)]
		var vecs [][]float32
		if local {
			vecs = make([][]float32, len(idx))
			for j, i := range idx {
				vecs[j] = model.EmbedTerms(terms[i])
			}
		} else {
			texts := make([]string, len(idx))
			for j, i := range idx {
				texts[j] = chunks[i].IndexText()
			}
			vecs, err = emb.Embed(ctx, texts)
			if err != nil {
				return nil, fmt.Errorf("embed: %w", err)
			}
			if err := embedding.CheckVectors(vecs, len(texts), dim); err != nil {
				return nil, fmt.Errorf("embed: %w", err)
			}
		}
		for j, i := range idx {
			copy(data[i*dim:], vecs[j])
			cache.Put(embedding.KeyOf(chunks[i].IndexText()), vecs[j])
		}
		res.Embedded += len(idx)
		x.opts.Progress(Progress{Stage: "embed", Done: min(total, start+batch), Total: total})
	}
	if err := cache.Flush(); err != nil {
		x.log.Warn("Cannot save the embedding cache; the next build will embed again", "err", err)
	}
	return vector.NewStore(dim, data)
}

// readChunks reads the chunks of a generation, verifying the file.
func readChunks(dir string, files map[string]manifest.FileSum) ([]memory.Chunk, error) {
	one := map[string]manifest.FileSum{generation.FileChunks: files[generation.FileChunks]}
	if err := generation.Verify(dir, one); err != nil {
		return nil, err
	}
	return generation.ReadChunks(filepath.Join(dir, generation.FileChunks))
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// annSample is how many vectors the cheap first recall check uses.
const annSample = 20_000

// approximateIndex decides whether this generation gets an approximate
// vector index. Below index.annMinChunks exact search is fast enough. Above
// it, an index is built first on a sample and kept only if its recall@10
// (shortlist plus exact re-ranking, against exact search) reaches 0.95 on
// the sample and then on the whole generation.
func (x *Indexer) approximateIndex(vecs *vector.Store) (*vector.HNSW, *generation.ANNMeta) {
	threshold := x.cfg.Index.ANNMinChunks
	if threshold == 0 {
		return nil, &generation.ANNMeta{Enabled: false, Reason: "exact search: the approximate index is off (index.annMinChunks 0)"}
	}
	if vecs.Len() < threshold {
		return nil, &generation.ANNMeta{Enabled: false, Reason: fmt.Sprintf("exact search: %d chunks is below index.annMinChunks (%d)", vecs.Len(), threshold)}
	}
	const seed = 0x616e6e // "ann": builds are reproducible
	x.opts.Progress(Progress{Stage: "ann", Note: "checking the approximate vector index on a sample"})
	rows := vector.SampleRows(vecs, annSample, seed)
	sampleSize := len(rows)
	if rows == nil {
		sampleSize = vecs.Len()
	}
	sample := vector.BuildHNSW(vecs, rows, vector.HNSWOptions{Seed: seed})
	r := vector.Recall(vecs, sample, rows, 100, 10, seed)
	if r < vector.ANNMinRecall {
		x.log.Info("Approximate vector index refused", "recallAt10", r, "sample", sampleSize)
		return nil, &generation.ANNMeta{Enabled: false, RecallAt10: round4(r),
			Reason: fmt.Sprintf("recall@10 %.3f on a %d-vector sample is below %.2f: exact search", r, sampleSize, vector.ANNMinRecall)}
	}
	x.opts.Progress(Progress{Stage: "ann", Note: "building the approximate vector index"})
	full := vector.BuildHNSW(vecs, nil, vector.HNSWOptions{Seed: seed})
	r = vector.Recall(vecs, full, nil, 200, 10, seed)
	if r < vector.ANNMinRecall {
		return nil, &generation.ANNMeta{Enabled: false, RecallAt10: round4(r),
			Reason: fmt.Sprintf("recall@10 %.3f on the whole generation is below %.2f: exact search", r, vector.ANNMinRecall)}
	}
	return full, &generation.ANNMeta{Enabled: true, RecallAt10: round4(r), Reason: "approximate shortlist with exact re-ranking"}
}

func round4(f float64) float64 { return float64(int64(f*10000+0.5)) / 10000 }
