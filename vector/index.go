package vector

import (
	"errors"
	"math"
	"sync"

	"github.com/nova-recall/nova/internal/lazy"
	"github.com/nova-recall/nova/parallel"
	"github.com/nova-recall/nova/topk"
)

// Space is what every segment of one vector space shares: the quantizer
// of its codes and, for large generations, the cells of the inverted-file
// index. A full build and an incremental one of the same space write the
// same codes and lists for a document.
type Space struct {
	Quantizer Quantizer
	// Cells is nil when searches scan every vector.
	Cells *Cells
}

// Index is the dense channel over the segments of a generation, numbered
// one after the other. It is immutable and safe for concurrent use.
type Index struct {
	space Space
	segs  []*Codes
	lists []*Lists // per segment; nil entries when the space has no cells
	bases []int
	n     int
	tie   func(a, b int) bool
	// exact turns the approximations off (the reference of recall).
	exact bool
	// signs are computed on the first search that uses them.
	signOnce lazy.Once
	signs    *signs
}

// ErrDimension means a query vector has the wrong dimension.
var ErrDimension = errors.New("query vector dimension does not match the store")

// NewIndex joins the segments' codes (and lists, when the space has
// cells). tie, when set, orders documents of equal score.
func NewIndex(space Space, segs []*Codes, lists []*Lists, tie func(a, b int) bool) (*Index, error) {
	ix := &Index{space: space, segs: segs, lists: lists, bases: make([]int, len(segs)), tie: tie}
	if space.Cells != nil && len(lists) != len(segs) {
		return nil, errors.New("vector index: every segment needs its lists")
	}
	for i, s := range segs {
		ix.bases[i] = ix.n
		ix.n += s.Len()
		if s.Len() > 0 && s.dim != space.Quantizer.Dim() {
			return nil, ErrDimension
		}
	}
	return ix, nil
}

// Prepare gathers the sign prefilter's bits, when searches use it, if the
// first search has not: a read of every vector of the segments that have
// no bits for this centre yet.
func (ix *Index) Prepare() {
	if ix.prefilters() {
		ix.signOnce.Do(func() { ix.signs = signsOf(ix) })
	}
}

// Exact returns the same vectors searched by an int8 scan of every one,
// without the inverted file or the sign prefilter: the reference that
// measures what they cost in recall.
func (ix *Index) Exact() *Index {
	return &Index{space: Space{Quantizer: ix.space.Quantizer}, segs: ix.segs, bases: ix.bases, n: ix.n, tie: ix.tie, exact: true}
}

// Dim is the vector dimension.
func (ix *Index) Dim() int { return ix.space.Quantizer.Dim() }

// Len is the number of vectors (document slots).
func (ix *Index) Len() int { return ix.n }

// Approximate reports whether unfiltered searches probe cells rather than
// scan every vector.
func (ix *Index) Approximate() bool { return ix.space.Cells != nil || ix.prefilters() }

// prefilters reports whether searches go through the sign prefilter.
func (ix *Index) prefilters() bool { return !ix.exact && ix.space.Cells == nil && ix.n >= signMinDocs }

// Hit is a scored vector.
type Hit struct {
	Doc   int
	Score float32
}

func (ix *Index) better(a, b Hit) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	if ix.tie != nil {
		return ix.tie(a.Doc, b.Doc)
	}
	return a.Doc < b.Doc
}

// prefetchAhead is how many candidates ahead the prefiltered scan asks
// for a row.
const prefetchAhead = 8

// scanBetter orders the int8 scan's candidates: equal estimates by
// document number, not by ix.tie, which decodes both ids. Integer dot
// products tie often, and the order among candidates does not reach the
// results: the candidates are re-scored exactly and ordered by ix.better.
func scanBetter(a, b Hit) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return a.Doc < b.Doc
}

// row returns document doc's codes.
func (ix *Index) row(doc int) []int8 {
	for s := len(ix.bases) - 1; s >= 0; s-- {
		if doc >= ix.bases[s] {
			return ix.segs[s].Row(doc - ix.bases[s])
		}
	}
	return nil
}

// Codes returns document doc's codes (do not modify).
func (ix *Index) Codes(doc int) []int8 { return ix.row(doc) }

// Vector returns document doc's decoded vector.
func (ix *Index) Vector(doc int) []float32 {
	v := make([]float32, ix.Dim())
	ix.space.Quantizer.Decode(ix.row(doc), v)
	return v
}

// Scorer returns the dot product of q with a document's decoded vector.
// q is prepared once: a search scores many candidates with it.
func (ix *Index) Scorer(q []float32) func(doc int) float32 {
	p := ix.space.Quantizer.Prepare(q)
	return func(doc int) float32 { return p.Exact(ix.row(doc)) }
}

// IsZero reports whether every component of v is zero.
func IsZero(v []float32) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}

// rerankFactor is how many candidates per result the fast int8 scan
// keeps for exact re-scoring: enough that the int8 estimate never decides
// the final order.
const rerankFactor = 4

// Search returns the k documents whose vectors have the highest dot
// product with q, best first. accept, when non-nil, is the hard filter
// (it must also refuse dead documents). Candidates are found with int8
// arithmetic, by probing cells when the space has them, and re-scored
// exactly against the decoded vectors.
func (ix *Index) Search(q []float32, k int, accept func(int) bool) ([]Hit, error) {
	if len(q) != ix.Dim() {
		return nil, ErrDimension
	}
	if k <= 0 || ix.n == 0 || IsZero(q) {
		// A zero query (none of its words known to the embedder) is as
		// near to every vector: there is no order to return.
		return nil, nil
	}
	p := ix.space.Quantizer.Prepare(q)
	want := max(rerankFactor*k, 64)
	var cands []Hit
	if c := ix.space.Cells; c != nil {
		probe := c.Probe
		if accept != nil {
			probe = min(c.N(), 4*probe) // a filter thins every cell
		}
		cands = ix.scanCells(p, c.probe(q, probe), want, accept)
		if accept != nil && len(cands) < k {
			cands = ix.scanAll(p, want, accept) // too selective for cells
		}
	} else if ix.prefilters() {
		ix.Prepare()
		cands = ix.scanDocs(p, ix.signs.nearest(q, signKeep(ix.n), accept), want)
	} else {
		cands = ix.scanAll(p, want, accept)
	}
	best := topk.New(k, ix.better)
	for _, h := range cands {
		best.Push(Hit{Doc: h.Doc, Score: p.Exact(ix.row(h.Doc))})
	}
	return best.Sorted(), nil
}

// scanSpan is the fewest vectors a core scans on its own: with the vector
// kernel, 16 384 vectors of 384 dimensions take about 0.2 ms, several
// times what starting and waking a goroutine costs on a busy machine.
const scanSpan = 16_384

// scanAll scores every accepted vector with int8 arithmetic, in parallel
// when there are enough of them, and returns the want best (scanBetter).
// As in scanDocs, the estimates go into an array and the best are picked
// from it afterwards (bestOf) instead of being offered to a heap: at
// 10 000 vectors and 320 wanted, one vector in seven got into the heap,
// and its sifting cost nearly as much as the dot products.
func (ix *Index) scanAll(p Query, want int, accept func(int) bool) []Hit {
	buf := scoresPool.Get().(*[]float32)
	defer scoresPool.Put(buf)
	scores := grow(buf, ix.n)
	parallel.Spans(ix.n, scanSpan, func(lo, hi int) {
		for s, seg := range ix.segs {
			base := ix.bases[s]
			from, to := max(lo, base), min(hi, base+seg.Len())
			if accept == nil {
				if from < to {
					p.fastRows(seg.data[(from-base)*seg.dim:], scores[from:to])
				}
				continue
			}
			for d := from; d < to; d++ {
				if !accept(d) {
					scores[d] = refusedScore
					continue
				}
				scores[d] = p.Fast(seg.Row(d - base))
			}
		}
	})
	return bestOf(scores, func(i int) int { return i }, want)
}

// scanDocs scores docs (already accepted, in document order) with int8
// arithmetic and returns the want best. The prefilter's thousands of
// candidates split over the cores: their scoring is most of a search's
// time. The scores are kept in an array and the best picked from it
// afterwards (bestOf), not offered to a heap one by one: about one
// candidate in six got into the heap, and its sifting cost a sixth of the
// scan.
func (ix *Index) scanDocs(p Query, docs []int, want int) []Hit {
	buf := scoresPool.Get().(*[]float32)
	defer scoresPool.Put(buf)
	scores := grow(buf, len(docs))
	parallel.Spans(len(docs), scanSpan, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			// The rows are scattered: asking for one a few ahead overlaps
			// its cache and TLB misses with the arithmetic.
			if j := i + prefetchAhead; j < hi {
				if r := ix.row(docs[j]); len(r) > 0 {
					prefetchRow(&r[0], len(r))
				}
			}
			scores[i] = p.Fast(ix.row(docs[i]))
		}
	})
	return bestOf(scores, func(i int) int { return docs[i] }, want)
}

// refusedScore marks a vector the filter refused in scanAll's array: an
// estimate is always finite (an integer times a finite step), so nothing
// scored can be mistaken for it, and bestOf never returns it.
var refusedScore = float32(math.Inf(-1))

// scoresPool holds the scans' arrays of estimates (40 KB at 10 000
// vectors) and bestOf's scratch from one search to the next.
var (
	scoresPool = sync.Pool{New: func() any { return new([]float32) }}
	pickPool   = sync.Pool{New: func() any { return new(pickScratch) }}
)

// pickScratch is bestOf's: the hits kept above the floor, and a copy of
// their scores for the selection to reorder.
type pickScratch struct {
	kept []Hit
	work []float32
}

// grow returns (*buf)[:n], reallocated when it is too short.
func grow(buf *[]float32, n int) []float32 {
	if cap(*buf) < n {
		*buf = make([]float32, n)
	}
	return (*buf)[:n]
}

// floorSample is how many estimates bestOf samples to set its floor.
const floorSample = 512

// bestOf returns the want best of the hits (doc(i), scores[i]) in the
// order scanBetter gives, in no particular order: every hit above the
// want-th best score and, at that score, the first in document order.
// doc must be ascending in i; hits scored refusedScore are not returned.
//
// A selection over every score cost a 10k search as much as the int8
// scan, its comparisons with the pivot as random as the estimates. Most
// of them are far below the cut instead: a floor read off an evenly
// spaced sample, set where about twice as many as wanted should lie at or
// above it, leaves a few hundred to select from after one predictable
// pass. If fewer than want lie there, every score is kept instead. Either
// way the choice is the same: when want hits lie at or above the floor,
// so does the want-th best, and every hit from it up is kept.
func bestOf(scores []float32, doc func(i int) int, want int) []Hit {
	if want <= 0 {
		return nil
	}
	sc := pickPool.Get().(*pickScratch)
	defer pickPool.Put(sc)
	floor, sampled := refusedScore, false
	if n, stride := len(scores), len(scores)/floorSample; stride >= 4 {
		sample := grow(&sc.work, 0)
		for i := 0; i < n; i += stride {
			sample = append(sample, scores[i])
		}
		sc.work = sample
		if r := 2*want*len(sample)/n + 8; r < len(sample) {
			floor, sampled = nthBest(sample, r), true
		}
	}
	kept := keepFrom(scores, floor, sc.kept[:0])
	if sampled && len(kept) < want {
		kept = keepFrom(scores, refusedScore, kept[:0])
	}
	sc.kept = kept
	if len(kept) <= want {
		out := make([]Hit, len(kept))
		for i, h := range kept {
			out[i] = Hit{Doc: doc(h.Doc), Score: h.Score}
		}
		return out
	}
	work := grow(&sc.work, len(kept))
	for i, h := range kept {
		work[i] = h.Score
	}
	cut := nthBest(work, want-1)
	atCut := want
	for _, h := range kept {
		if h.Score > cut {
			atCut--
		}
	}
	out := make([]Hit, 0, want)
	for _, h := range kept {
		switch {
		case h.Score > cut:
		case h.Score == cut && atCut > 0:
			atCut--
		default:
			continue
		}
		out = append(out, Hit{Doc: doc(h.Doc), Score: h.Score})
	}
	return out
}

// keepFrom appends to kept, in order, (i, scores[i]) for every score at or
// above floor that is not refusedScore.
func keepFrom(scores []float32, floor float32, kept []Hit) []Hit {
	for i, s := range scores {
		if s >= floor && s != refusedScore {
			kept = append(kept, Hit{Doc: i, Score: s})
		}
	}
	return kept
}

// nthBest returns the value that would sit at index n if s were sorted
// in descending order (0 <= n < len(s)); it reorders s.
func nthBest(s []float32, n int) float32 {
	lo, hi := 0, len(s)-1
	for lo < hi {
		// Median of three as the pivot, then a three-way partition:
		// integer estimates tie often.
		a, b, c := s[lo], s[lo+(hi-lo)/2], s[hi]
		if a < b {
			a, b = b, a
		}
		if b < c {
			b = c
			if a < b {
				b = a
			}
		}
		pivot := b
		// [lo, gt) > pivot, [gt, i) == pivot, (lt, hi] < pivot.
		gt, i, lt := lo, lo, hi
		for i <= lt {
			switch x := s[i]; {
			case x > pivot:
				s[gt], s[i] = s[i], s[gt]
				gt++
				i++
			case x < pivot:
				s[i], s[lt] = s[lt], s[i]
				lt--
			default:
				i++
			}
		}
		switch {
		case n < gt:
			hi = gt - 1
		case n > lt:
			lo = lt + 1
		default:
			return pivot
		}
	}
	return s[n]
}

// scanCells scores the accepted vectors of the probed cells.
func (ix *Index) scanCells(p Query, cells []int, want int, accept func(int) bool) []Hit {
	h := newScanTop(want)
	for s, seg := range ix.segs {
		base, lists := ix.bases[s], ix.lists[s]
		for _, c := range cells {
			for _, local := range lists.cell(c) {
				d := base + int(local)
				if accept != nil && !accept(d) {
					continue
				}
				h.push(d, p.Fast(seg.Row(int(local))))
			}
		}
	}
	return h.heap.Items()
}

// scanTop keeps the best hits of a scan. Once it is full, most vectors
// score below the worst hit kept: comparing with that floor first spares
// them the heap and its comparison function.
type scanTop struct {
	heap  *topk.Heap[Hit]
	floor float32
}

func newScanTop(want int) *scanTop {
	return &scanTop{heap: topk.New(want, scanBetter), floor: float32(math.Inf(-1))}
}

func (t *scanTop) push(doc int, score float32) {
	if score < t.floor {
		return // an equal score may still win on its tie-break
	}
	t.heap.Push(Hit{Doc: doc, Score: score})
	if w, ok := t.heap.Worst(); ok {
		t.floor = w.Score
	}
}
