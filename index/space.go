package index

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/embedding"
	"github.com/nova-recall/nova/index/generation"
	"github.com/nova-recall/nova/manifest"
	"github.com/nova-recall/nova/paths"
	"github.com/nova-recall/nova/vector"
)

// space is the vector space of a build: how chunks become vectors (the
// builtin model or the openai endpoint), the int8 quantizer of their
// codes and, for large generations, the inverted-file cells. A build
// reuses the previous generation's space while it fits, so unchanged
// chunks keep their codes and a delta is embedded like the base.
type space struct {
	prof  api.EmbeddingProfile
	model *embedding.LSA     // builtin; nil until trained
	texts embedding.Embedder // openai (or an injected embedder): embeds texts
	quant *vector.Quantizer  // nil until trained
	cells *vector.Cells
	// recall is the cells' measured recall@10.
	recall float64
	// part is the space as a manifest lists it; its ID is empty until
	// the space is written.
	part manifest.Part
	// cache keeps the openai endpoint's vectors by text.
	cache *embedding.Cache
	// reused is set when the space came from the previous generation.
	reused bool
	// annReason says why the build did or did not index cells.
	annReason string
}

// builtin reports whether chunks are embedded from their terms.
func (s *space) builtin() bool { return s.texts == nil }

// release closes the connections s's embedder keeps for a next call,
// once the build is done embedding: each build makes an embedder of its
// own, so they would be no one's, yet open (in novad too, for /encode)
// until the other end's idle timeout, one set for every sync the watcher
// ran meanwhile.
func (s *space) release() {
	if c, ok := s.texts.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// reuseSpace returns the previous generation's space when this build may
// keep it: same provider and dimension, the same openai model, and (for
// the builtin model) one that is not stale for a corpus of about chunks.
func (x *Indexer) reuseSpace(prev *previous, chunks int) *space {
	if prev == nil || prev.gen == nil || x.opts.Retrain || x.opts.Embedder != nil {
		return nil // nothing active, or a generation of an older format
	}
	p := prev.gen.Meta.EmbeddingProfile
	if !ProfileMatchesConfig(x.cfg, p) {
		return nil
	}
	if p.Provider == config.ProviderBuiltin && (prev.gen.Model == nil || prev.gen.Model.Stale(chunks, x.cfg.Embedding.Dimension) ||
		prev.gen.Meta.Analyzer != x.analyzer.Version()) {
		// The builtin model's vocabulary is the terms of the analyzer it
		// was trained with.
		return nil
	}
	sp, _, err := generation.ParseSpace(prev.spaceBytes)
	if err != nil {
		return nil
	}
	if prev.gen.Model != nil {
		prev.gen.Model.Expand() // this build embeds its chunks with it
	}
	s := &space{prof: p, model: prev.gen.Model, quant: &sp.Quantizer, cells: sp.Cells, part: prev.manifest.Space, reused: true}
	if prev.gen.Meta.ANN != nil {
		s.recall = prev.gen.Meta.ANN.RecallAt10
		s.annReason = prev.gen.Meta.ANN.Reason
	}
	if p.Provider != config.ProviderBuiltin {
		s.texts = x.openaiEmbedder()
	}
	return s
}

// newSpace starts a space to be trained by this build.
func (x *Indexer) newSpace() *space {
	if e := x.opts.Embedder; e != nil {
		if m, ok := e.(*embedding.LSA); ok {
			return &space{prof: m.Profile(), model: m}
		}
		return &space{prof: e.Profile(), texts: e}
	}
	s := &space{prof: api.EmbeddingProfile{Provider: x.cfg.Embedding.Provider, Dimension: x.cfg.Embedding.Dimension}}
	if x.cfg.Embedding.Provider == config.ProviderOpenAI {
		s.texts = x.openaiEmbedder()
		s.prof = s.texts.Profile()
	}
	return s
}

func (x *Indexer) openaiEmbedder() embedding.Embedder {
	return embedding.NewOpenAI(embedding.OpenAIOptions{
		Endpoint: x.cfg.Embedding.Endpoint, Model: x.cfg.Embedding.Model, Dimension: x.cfg.Embedding.Dimension,
		APIKey: paths.Lookup(x.opts.Environ, x.cfg.Embedding.APIKeyEnv), BatchSize: x.cfg.Embedding.BatchSize,
		Timeout: time.Duration(x.cfg.Embedding.TimeoutSeconds) * time.Second,
	})
}

// preferNovad embeds texts through a running novad's /encode when it
// serves this space's profile (so the endpoint is called from one place).
func (x *Indexer) preferNovad(ctx context.Context, s *space, res *BuildResult) error {
	res.EmbeddingSource = "in-process"
	if x.opts.Embedder != nil {
		res.EmbeddingSource = "injected"
		return nil
	}
	if s.builtin() || x.opts.NoRemote {
		return nil
	}
	remote, err := discoverEncoder(ctx, x.home, s.prof)
	if err != nil {
		return err
	}
	if remote != nil {
		s.texts = remote
		res.EmbeddingSource = "novad"
	}
	return nil
}

// train learns the builtin model from a sample of the chunks' dense terms.
func (x *Indexer) train(ctx context.Context, s *space, sample [][]string, res *BuildResult) error {
	if s.model != nil {
		return nil
	}
	x.opts.Progress(Progress{Stage: "train", Total: len(sample), Note: "training the builtin embedder on this corpus"})
	m, err := embedding.TrainLSATerms(ctx, sample, x.cfg.Embedding.Dimension, x.analyzer)
	if err != nil {
		return fmt.Errorf("train builtin embedder: %w", err)
	}
	s.model, s.prof = m, m.Profile()
	res.ModelTrained = true
	return nil
}

// Inverted-file parameters: cells are trained on a sample of the vectors,
// in two levels of cellGroups; the recall check runs on annSample vectors.
const (
	annSample     = 20_000
	maxProbeShare = 8 // probe at most 1/maxProbeShare of the cells
	annQueries    = 200
	cellsPerGroup = 32
	annSeed       = 0x616e6e // "ann": builds are reproducible
)

// chooseCells decides, for a new space of n vectors, whether searches
// probe an inverted file: only from index.annMinChunks up, and only if a
// probe count reaches recall@10 of vector.ANNMinRecall (against exact
// float search over a sample of the vectors) on queries; otherwise every
// vector is scanned. queries are short runs of chunks' words for the
// builtin model (what agents type); nil uses sampled vectors instead.
func (x *Indexer) chooseCells(ctx context.Context, s *space, sample []float32, queries [][]float32, n int) error {
	dim := s.prof.Dimension
	threshold := x.cfg.Index.ANNMinChunks
	switch {
	case threshold == 0:
		s.annReason = "exact search: the inverted file is off (index.annMinChunks 0)"
		return nil
	case n < threshold:
		s.annReason = fmt.Sprintf("exact search: %d chunks is below index.annMinChunks (%d)", n, threshold)
		return nil
	}
	rows := len(sample) / dim
	groups := max(4, min(64, n/(cellsPerGroup*256)))
	x.opts.Progress(Progress{Stage: "ann", Note: fmt.Sprintf("training %d inverted-file cells on %d vectors", groups*cellsPerGroup, rows)})
	cells := vector.TrainCells(sample, dim, groups, cellsPerGroup, annSeed)
	if err := ctx.Err(); err != nil {
		return err
	}
	ref, _ := vector.NewStore(dim, sample)
	if queries == nil {
		queries = vector.RowQueries(ref, annQueries, annSeed)
	}
	truth := vector.ExactNeighbours(ref, queries, 10)
	codes := make([][]int8, rows)
	cellOf := make([]int, rows)
	members := make([][]int, cells.N())
	decoded := make([]float32, dim)
	for i := range rows {
		codes[i] = make([]int8, dim)
		s.quant.Encode(sample[i*dim:(i+1)*dim], codes[i])
		s.quant.Decode(codes[i], decoded)
		cellOf[i] = cells.Assign(decoded)
		members[cellOf[i]] = append(members[cellOf[i]], i)
	}
	// Probing more than an eighth of the cells saves too little over a
	// scan for the recall it costs: at 1M chunks a quarter of the cells
	// passed this check (0.956 on the sample) yet found 0.895 of the true
	// neighbours of the bench's queries, for half the time of a scan.
	for probe := 1; probe*maxProbeShare <= cells.N(); probe *= 2 {
		if err := ctx.Err(); err != nil {
			return err
		}
		cells.Probe = probe
		search := func(q []float32, k int) []int {
			return vector.SearchCells(cells, *s.quant, q, k, func(c int) []int { return members[c] }, func(i int) []int8 { return codes[i] })
		}
		r := truth.Recall(search)
		s.recall = r
		if r >= vector.ANNMinRecall {
			s.cells = cells
			s.annReason = fmt.Sprintf("inverted file: %d of %d cells probed, recall@10 %.3f for %d queries over a %d-vector sample", probe, cells.N(), r, len(queries), rows)
			return nil
		}
	}
	s.annReason = fmt.Sprintf("exact search: probing up to an eighth of %d cells reached recall@10 %.3f for %d queries over a %d-vector sample, below %.2f", cells.N(), s.recall, len(queries), rows, vector.ANNMinRecall)
	return nil
}

// probeQueries embeds a run of 3 to 8 consecutive terms of each term
// list, as a typed query would be: the inverted file is judged on the
// queries it will serve, which sit between clusters more often than a
// chunk's own vector does.
func probeQueries(m *embedding.LSA, lists [][]string) [][]float32 {
	rng := rand.New(rand.NewPCG(annSeed, 0x70726f62))
	var out [][]float32
	for _, terms := range lists {
		if len(terms) == 0 {
			continue
		}
		n := min(len(terms), 3+rng.IntN(6))
		start := rng.IntN(len(terms) - n + 1)
		if v := m.EmbedTerms(terms[start : start+n]); !vector.IsZero(v) {
			out = append(out, v)
		}
	}
	return out
}

// reservoir keeps a uniform sample of up to cap items of a stream,
// deterministically for a given seed.
type reservoir[T any] struct {
	items []T
	seen  int
	cap   int
	rng   *rand.Rand
}

func newReservoir[T any](capacity int, seed uint64) *reservoir[T] {
	return &reservoir[T]{cap: capacity, rng: rand.New(rand.NewPCG(seed, 0x72657376))}
}

func (r *reservoir[T]) add(x T) { r.addMade(func(T) T { return x }) }

// addMade is add for an item made only if the sample keeps it, from the
// item it replaces (the zero T while the sample fills): the same draws,
// so the same sample.
func (r *reservoir[T]) addMade(made func(replaced T) T) {
	r.seen++
	if len(r.items) < r.cap {
		var none T
		r.items = append(r.items, made(none))
		return
	}
	if j := r.rng.IntN(r.seen); j < r.cap {
		r.items[j] = made(r.items[j])
	}
}

// addVector adds a copy of v to a sample of vectors. The vector the
// sample drops lends its buffer to the one that takes its place: a clone
// for each replaced a hundred thousand times was about 3% of a 100k
// build's allocation.
func addVector(r *reservoir[[]float32], v []float32) {
	r.addMade(func(replaced []float32) []float32 {
		if len(replaced) != len(v) {
			return slices.Clone(v)
		}
		copy(replaced, v)
		return replaced
	})
}

// spaceWrite is a new space's directory while it is written: the model
// file from the moment the model is trained, in the background while the
// segments are embedded, and the space file (which needs the cells) last.
type spaceWrite struct {
	id, dir string
	files   map[string]manifest.FileSum
	// model reports the end of the model file's write, and err is what
	// it reported once wait has received it.
	model chan error
	err   error
}

// beginSpace creates a new space's directory and starts writing its model
// there, if it has one (nil for a reused space). The 19 MB model of a
// 100k build took a tenth of a second on one core at the end of the build.
func (x *Indexer) beginSpace(s *space) (*spaceWrite, error) {
	if s.reused {
		return nil, nil
	}
	id := manifest.NewRunID(x.opts.Now())
	dir := filepath.Join(x.home.IndexDir(), manifest.SpaceDir(id))
	if err := paths.MkdirPrivate(filepath.Dir(dir)); err != nil {
		return nil, err
	}
	if err := os.Mkdir(dir, paths.DirMode); err != nil {
		return nil, fmt.Errorf("create space: %w", err)
	}
	w := &spaceWrite{id: id, dir: dir, files: map[string]manifest.FileSum{}, model: make(chan error, 1)}
	if s.model == nil {
		w.model <- nil
		return w, nil
	}
	// The model is only read from here on (embedding reads it too).
	go func() {
		sum, err := writeSealedFrom(filepath.Join(dir, generation.FileModel), func(out io.Writer) error {
			_, err := s.model.WriteTo(out)
			return err
		})
		w.files[generation.FileModel] = sum // read only after the send
		w.model <- err
	}()
	return w, nil
}

// wait waits for the model's write (a nil w has none) and returns its
// error. The builder's goroutine calls it, as often as it needs.
func (w *spaceWrite) wait() error {
	if w == nil {
		return nil
	}
	if w.model != nil {
		w.err = <-w.model
		w.model = nil
	}
	return w.err
}

// writeSpace finishes writing a new space begun by beginSpace (nil for a
// reused space) and fills in its manifest part.
func (x *Indexer) writeSpace(s *space, w *spaceWrite) error {
	if s.reused {
		return nil
	}
	if err := w.wait(); err != nil {
		return err
	}
	var sp vector.Space
	sp.Quantizer, sp.Cells = *s.quant, s.cells
	sum, err := writeSealed(filepath.Join(w.dir, generation.FileSpace), generation.MarshalSpace(sp, s.recall))
	w.files[generation.FileSpace] = sum
	if err != nil {
		return err
	}
	if err := manifest.SyncDir(w.dir); err != nil {
		return err
	}
	s.part = manifest.Part{ID: w.id, Files: w.files}
	return nil
}

// writeSealed writes an immutable file: created 0600, then sealed
// (manifest.Seal) like every file of a segment.
func writeSealed(path string, b []byte) (manifest.FileSum, error) {
	return writeSealedFrom(path, func(out io.Writer) error {
		_, err := out.Write(b)
		return err
	})
}

// writeSealedFrom is writeSealed of what write writes, streamed to the
// file (write buffers its small writes): the 19 MB model of a 100k build
// was gathered in a slice grown by doubling, 64 MB of garbage under the
// build's memory limit.
func writeSealedFrom(path string, write func(io.Writer) error) (manifest.FileSum, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, paths.FileMode)
	if err != nil {
		return manifest.FileSum{}, err
	}
	h := manifest.NewHasher()
	err = write(io.MultiWriter(f, h))
	if err == nil {
		err = manifest.Seal(f)
	}
	if err != nil {
		f.Close()
		return manifest.FileSum{}, err
	}
	return h.Sum(), f.Close()
}
