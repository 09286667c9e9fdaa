package embedding

import (
	"bufio"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/parallel"
	"github.com/nova-recall/nova/vector"
)

// ProviderBuiltin is the provider name of the builtin embedder.
const ProviderBuiltin = "builtin"

// LSA is the builtin embedder: latent semantic analysis learned from the
// corpus. A text becomes a sublinear TF-IDF vector over the corpus
// vocabulary (the same analyzer as the lexical channel), projected onto the
// top singular directions of the corpus' TF-IDF matrix and normalised.
// Words that occur in similar contexts land near each other, which is what
// the lexical channel cannot see. The model is immutable (but for Expand,
// which a build calls before it embeds) and safe for concurrent use.
type LSA struct {
	id       string
	dim      int
	rank     int // non-zero columns of the basis
	terms    map[string]int32
	termList []string
	idf      []float32
	basis    []float32 // len(termList) x dim, row-major; nil in a loaded model until Expand
	// half is a loaded model's basis as stored: float16, little endian,
	// the same layout. Searches embed a few words each, so they read it in
	// place; a build, which embeds every chunk, expands it (Expand). A
	// float32 copy would double the model's share of novad's memory.
	half        []byte
	trainedDocs int
	analyzer    *lexical.Analyzer
}

// LSA training limits.
const (
	lsaMaxTrainDocs = 12_000
	lsaMaxVocab     = 40_000
	lsaOversample   = 12
	lsaPowerIters   = 1
	lsaSeed         = 0x6e6f7661 // "nova": training is deterministic
)

// Profile implements Embedder.
func (m *LSA) Profile() api.EmbeddingProfile {
	return api.EmbeddingProfile{Provider: ProviderBuiltin, Model: m.id, Dimension: m.dim}
}

// ID is the model id, "lsa-<hash>".
func (m *LSA) ID() string { return m.id }

// TrainedDocs is the number of documents the model was trained on.
func (m *LSA) TrainedDocs() int { return m.trainedDocs }

// Rank is the number of latent dimensions actually learned (at most the
// profile dimension; small corpora have fewer).
func (m *LSA) Rank() int { return m.rank }

// Vocabulary is the number of terms the model knows.
func (m *LSA) Vocabulary() int { return len(m.termList) }

// Embed implements Embedder.
func (m *LSA) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if i%256 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		out[i] = m.EmbedTerms(m.analyzer.Terms(t))
	}
	return out, nil
}

// EmbedTerms embeds already-analysed terms.
func (m *LSA) EmbedTerms(terms []string) []float32 {
	var buf [128]int32 // most texts: no allocation for the rows
	return m.EmbedRows(m.AppendRows(buf[:0], terms))
}

// AppendRows appends the model's row of each term it knows (repeats
// kept, unknown terms left out): EmbedRows of them is EmbedTerms of the
// terms. A build that embeds many texts of one vocabulary looks each
// distinct term up once instead of once a text.
func (m *LSA) AppendRows(rows []int32, terms []string) []int32 {
	for _, t := range terms {
		if id, ok := m.Row(t); ok {
			rows = append(rows, id)
		}
	}
	return rows
}

// Row is the model's row of term, if it knows the term.
func (m *LSA) Row(term string) (int32, bool) {
	id, ok := m.terms[term]
	return id, ok
}

// EmbedRows embeds a text given the rows of its terms (AppendRows), with
// repeats, in any order; it sorts ids in place.
func (m *LSA) EmbedRows(ids []int32) []float32 {
	return m.EmbedRowsTo(make([]float32, m.dim), ids)
}

// EmbedRowsTo is EmbedRows into v, which must have room for the
// model's dimension and which it overwrites; it returns v cut to the
// dimension. A build embeds a batch into one buffer it uses again for
// the next batch, instead of a new vector each.
func (m *LSA) EmbedRowsTo(v []float32, ids []int32) []float32 {
	v = v[:m.dim]
	clear(v)
	if len(ids) == 0 {
		return v
	}
	// Sorted ids make the float sums, and so the vectors, bit-for-bit
	// reproducible. Each distinct id is a run; ids is compacted to one
	// entry a run, and its weight kept beside it.
	slices.Sort(ids)
	var wbuf [128]float32
	weights := wbuf[:0]
	var norm float64
	n := 0
	for i := 0; i < len(ids); {
		j := i + 1
		for j < len(ids) && ids[j] == ids[i] {
			j++
		}
		w := termFrequencyWeight(j-i) * m.idf[ids[i]]
		norm += float64(w) * float64(w)
		ids[n], weights = ids[i], append(weights, w)
		n++
		i = j
	}
	ids = ids[:n]
	inv := float32(1 / math.Sqrt(norm))
	for i, id32 := range ids {
		id := int(id32)
		if m.basis == nil {
			halfAxpy(weights[i]*inv, m.half[2*id*m.dim:2*(id+1)*m.dim], v)
			continue
		}
		// The rows are scattered over a basis of tens of MB: the next one
		// is asked for while this one is added.
		if i+1 < len(ids) {
			next := int(ids[i+1])
			vector.Prefetch(m.basis[next*m.dim : (next+1)*m.dim])
		}
		vector.Axpy(weights[i]*inv, m.basis[id*m.dim:(id+1)*m.dim], v)
	}
	Normalize(v)
	return v
}

// termFrequencyWeight is 1 + ln(count), a term's sublinear weight in a
// text. Counts are small, so most come from a table: math.Log was a sixth
// of embedding a chunk.
func termFrequencyWeight(count int) float32 {
	if count < len(tfWeights) {
		return tfWeights[count]
	}
	return 1 + float32(math.Log(float64(count)))
}

var tfWeights = func() (t [64]float32) {
	for n := 1; n < len(t); n++ {
		t[n] = 1 + float32(math.Log(float64(n)))
	}
	return t
}()

// halfAxpy adds a times the float16 row to v, as vector.Axpy does with
// the expanded row (the same values: float16 converts to float32 exactly;
// the conversion keeps the product from being fused into the sum).
func halfAxpy(a float32, row []byte, v []float32) {
	for j := range v {
		v[j] += float32(a * halfAt(row, j))
	}
}

// halfAt is the i-th float16 (little endian) of b.
func halfAt(b []byte, i int) float32 {
	return halfValue(binary.LittleEndian.Uint16(b[2*i:]))
}

// Expand makes a loaded model hold its basis as float32, for embedding
// many texts (a build): converting each row on every use costs more than
// the copy there. It must not run while the model is embedding.
func (m *LSA) Expand() {
	if m.basis != nil {
		return
	}
	basis := make([]float32, len(m.half)/2)
	for i := range basis {
		basis[i] = halfAt(m.half, i)
	}
	m.basis, m.half = basis, nil
}

// TrainLSA learns a model of dimension dim from the corpus texts with a
// randomized truncated SVD (Halko, Martinsson and Tropp) of the TF-IDF
// matrix of a deterministic sample of at most 12 000 documents.
func TrainLSA(ctx context.Context, texts []string, dim int, analyzer *lexical.Analyzer) (*LSA, error) {
	docs := make([][]string, len(texts))
	for i, t := range texts {
		docs[i] = analyzer.Terms(t)
	}
	return TrainLSATerms(ctx, docs, dim, analyzer)
}

// TrainLSATerms is TrainLSA over already-analysed documents.
func TrainLSATerms(ctx context.Context, all [][]string, dim int, analyzer *lexical.Analyzer) (*LSA, error) {
	if dim <= 0 {
		return nil, errors.New("lsa: dimension must be positive")
	}
	docs := all
	if len(all) > lsaMaxTrainDocs {
		docs = make([][]string, 0, lsaMaxTrainDocs)
		step := float64(len(all)) / lsaMaxTrainDocs
		for i := 0; i < lsaMaxTrainDocs; i++ {
			docs = append(docs, all[int(float64(i)*step)])
		}
	}
	df := documentFrequencies(ctx, docs)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	minDF := 2
	if len(docs) < 200 {
		minDF = 1
	}
	type tdf struct {
		t  string
		df int
	}
	cands := make([]tdf, 0, len(df))
	for t, n := range df {
		if n >= minDF {
			cands = append(cands, tdf{t, n})
		}
	}
	// The size of Ω is known before the vocabulary is chosen, and its
	// entries do not depend on which terms it holds: it is drawn while
	// this goroutine sorts and indexes the vocabulary and makes the rows.
	v := min(len(cands), lsaMaxVocab)
	rows := len(docs)
	l := min(dim+lsaOversample, v, rows)
	omega := make(chan []float32, 1)
	if l > 0 {
		go func() { omega <- testMatrix(v, l) }()
	}
	// Terms are unique, so both orders are total.
	slices.SortFunc(cands, func(a, b tdf) int {
		return cmp.Or(cmp.Compare(b.df, a.df), strings.Compare(a.t, b.t))
	})
	if len(cands) > lsaMaxVocab {
		cands = cands[:lsaMaxVocab]
	}
	// Vocabulary order is lexical so the model bytes are deterministic.
	slices.SortFunc(cands, func(a, b tdf) int { return strings.Compare(a.t, b.t) })
	m := &LSA{dim: dim, terms: make(map[string]int32, len(cands)), analyzer: analyzer, trainedDocs: len(docs)}
	n := float64(len(docs))
	for i, c := range cands {
		m.terms[c.t] = int32(i)
		m.termList = append(m.termList, c.t)
		m.idf = append(m.idf, float32(math.Log(1+n/float64(c.df))))
	}
	if l == 0 {
		m.basis = make([]float32, v*dim)
		m.finishID()
		return m, nil
	}
	a := m.tfidfRows(docs)
	at := a.transpose()
	// Q (rows x l) is an orthonormal basis of A's column space, as far as
	// its l largest directions, and g = Qᵀ A Aᵀ Q, whose eigenvectors turn
	// Q's columns into A's left singular vectors.
	// The large matrices are fresh pages, which cost as much to fault in
	// as the products that fill them: vocabRows (v x l) holds Ω, then
	// the products by Aᵀ, then the model's basis; docRows (rows x l) each
	// float32 matrix of document rows in turn.
	vocabRows := <-omega
	docRows := make([]float32, rows*l)
	q, g, err := sketch(ctx, a, at, vocabRows, docRows, l)
	if err != nil {
		return nil, err
	}
	var eig mat.EigenSym
	if !eig.Factorize(g, true) {
		return nil, errors.New("lsa: eigen decomposition did not converge")
	}
	values := eig.Values(nil)
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	// Eigenvalues come in ascending order; take the largest k.
	k := 0
	for j := l - 1; j >= 0 && k < dim && values[j] > 1e-10; j-- {
		k++
	}
	if k > 0 {
		// The right singular vectors are Bᵀ u_i / sigma_i = Aᵀ (Q u_i /
		// sigma_i): a dense product, then a sparse one. The dense one's
		// result only feeds the float32 sparse product, and the basis is
		// stored as float16.
		u := make([]float64, l*k)
		for j := 0; j < k; j++ {
			idx := l - 1 - j
			sigma := math.Sqrt(values[idx])
			for r := 0; r < l; r++ {
				u[r*k+j] = vecs.At(r, idx) / sigma
			}
		}
		qu := docRows[:rows*k]
		mulDense(qu, q.RawMatrix(), blas64.General{Rows: l, Cols: k, Stride: k, Data: u})
		// Straight into the model's rows (dim wide; the last dim-k
		// columns zero).
		m.basis = basisBuffer(vocabRows, v*dim, k < dim)
		mulSparseDense(at, qu, k, m.basis, dim)
	} else {
		m.basis = make([]float32, v*dim)
	}
	m.rank = k
	m.seal()
	return m, nil
}

// documentFrequencies counts the documents each term occurs in. The cores
// count spans of the documents, merged at the end. It stops early, with a
// partial count, when ctx is done.
func documentFrequencies(ctx context.Context, docs [][]string) map[string]int {
	var mu sync.Mutex
	var parts []map[string]int
	parallel.Spans(len(docs), 1024, func(lo, hi int) {
		df := map[string]int{}
		seen := map[string]bool{}
		for i := lo; i < hi; i++ {
			if (i-lo)%512 == 0 && ctx.Err() != nil {
				return
			}
			clear(seen)
			for _, t := range docs[i] {
				if lexical.IsCharTerm(t) {
					// A character of a Chinese word is no dimension of
					// meaning: fed to the model, it lowered recall@1.
					continue
				}
				if !seen[t] {
					seen[t] = true
					df[t]++
				}
			}
		}
		mu.Lock()
		parts = append(parts, df)
		mu.Unlock()
	})
	if len(parts) == 0 {
		return map[string]int{}
	}
	// Merged into the largest count.
	slices.SortFunc(parts, func(a, b map[string]int) int { return len(b) - len(a) })
	for _, p := range parts[1:] {
		for t, n := range p {
			parts[0][t] += n
		}
	}
	return parts[0]
}

// tfidfRows returns the documents' TF-IDF rows over the vocabulary, each
// L2-normalised in float64 and then rounded to the float32 the products
// take (terms in id order within a row). Each core makes the
// rows of its span one after the other in slices of the span's own,
// sized for every term of the span, and the spans are then copied into
// place: a slice per row, and the matrix grown on one core, were a fifth
// of the training's time in a 10 000-record build.
func (m *LSA) tfidfRows(docs [][]string) *csr {
	type span struct {
		lo   int
		ends []int // the end of each row's entries in cols and vals
		cols []int32
		vals []float32
	}
	var (
		mu    sync.Mutex
		spans []span
	)
	parallel.Spans(len(docs), 256, func(lo, hi int) {
		terms := 0
		for _, d := range docs[lo:hi] {
			terms += len(d)
		}
		s := span{lo: lo, ends: make([]int, 0, hi-lo), cols: make([]int32, 0, terms), vals: make([]float32, 0, terms)}
		var ids []int32
		var ws []float64 // a row's weights before it is normalised
		for i := lo; i < hi; i++ {
			ids = ids[:0]
			for _, t := range docs[i] {
				if id, ok := m.terms[t]; ok {
					ids = append(ids, id)
				}
			}
			slices.Sort(ids)
			ws = ws[:0]
			var norm float64
			for j := 0; j < len(ids); {
				k := j + 1
				for k < len(ids) && ids[k] == ids[j] {
					k++
				}
				w := (1 + math.Log(float64(k-j))) * float64(m.idf[ids[j]])
				s.cols, ws = append(s.cols, ids[j]), append(ws, w)
				norm += w * w
				j = k
			}
			inv := 1.0
			if norm > 0 {
				inv = 1 / math.Sqrt(norm)
			}
			for _, w := range ws {
				s.vals = append(s.vals, float32(w*inv))
			}
			s.ends = append(s.ends, len(s.vals))
		}
		mu.Lock()
		spans = append(spans, s)
		mu.Unlock()
	})
	slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.lo, b.lo) })
	a := &csr{rowPtr: make([]int, 1, len(docs)+1), width: len(m.termList)}
	at := make([]int, len(spans)) // where each span's entries go
	n := 0
	for i, s := range spans {
		at[i] = n
		for _, e := range s.ends {
			a.rowPtr = append(a.rowPtr, n+e)
		}
		n += len(s.vals)
	}
	a.cols, a.vals = make([]int32, n), make([]float32, n)
	parallel.For(len(spans), 1, func(i int) {
		copy(a.cols[at[i]:], spans[i].cols)
		copy(a.vals[at[i]:], spans[i].vals)
	})
	return a
}

// testMatrix returns the v x l test matrix Ω of the sketch: random signs,
// ±1. The range finder needs only a random matrix whose products with A
// keep its largest directions apart, and signs do that as Gaussian
// entries do (Halko, Martinsson and Tropp); a Gaussian Ω of a full
// vocabulary was 16 million draws from one stream, a quarter of a second
// on one core while the training waited for it. Here each 64 signs are
// one draw, and each block of omegaBlock rows comes from its own seeded
// stream, so the cores share the blocks and Ω is the same on any number
// of them. Row i depends on i and l only, not on v.
func testMatrix(v, l int) []float32 {
	omega := make([]float32, v*l)
	parallel.Shared((v+omegaBlock-1)/omegaBlock, 1, func(lo, hi int) {
		for b := lo; b < hi; b++ {
			rng := rand.NewPCG(lsaSeed, uint64(b))
			block := omega[b*omegaBlock*l : min(v, (b+1)*omegaBlock)*l]
			for i := 0; i < len(block); i += 64 {
				bits := rng.Uint64()
				for j := range block[i:min(i+64, len(block))] {
					// The sign bit of 1.0 set from one random bit.
					block[i+j] = math.Float32frombits(0x3f800000 | uint32(bits>>j&1)<<31)
				}
			}
		}
	})
	return omega
}

// omegaBlock is how many rows of Ω one seeded stream draws: fixed, not a
// share per core, so that Ω does not depend on the machine.
const omegaBlock = 1024

// basisBuffer is buf as the model's basis of n values when it is large
// enough (the v x l matrices of the training are when l >= dim, as on
// any corpus of more than dim documents and terms), cleared if asked;
// otherwise a fresh one.
func basisBuffer(buf []float32, n int, zero bool) []float32 {
	if len(buf) < n {
		return make([]float32, n)
	}
	b := buf[:n:n]
	if zero {
		parallel.Spans(n, 1<<16, func(lo, hi int) { clear(b[lo:hi]) })
	}
	return b
}

// sketch returns an orthonormal basis Q (rows x l) of the span of A Aᵀ A Ω,
// which holds A's l largest singular directions (Halko, Martinsson and
// Tropp), and Qᵀ A Aᵀ Q. A is rows x v, at its transpose, and vocabRows
// holds Ω (v x l, see testMatrix); it and docRows (rows x l) are
// overwritten.
func sketch(ctx context.Context, a, at *csr, vocabRows, docRows []float32, l int) (*mat.Dense, *mat.SymDense, error) {
	// Y = A Ω.
	// The large matrices (v x l, about 63 MB for a full vocabulary) are
	// allocated once and reused as each product's output: clearing and
	// faulting in a fresh one for each was a tenth of the training's CPU.
	// vocabRows holds Ω, then each product by Aᵀ; q32 the float32 copy of
	// q that feeds it.
	// Aᵀ·X is a product by the transposed matrix: gathering each term's
	// documents, the cores split the terms (a scatter from the documents
	// would write to random rows of the v x l result).
	// Its result only feeds the next product, so it stays in float32.
	rows := a.rows()
	q32 := docRows
	aT := func(x *mat.Dense) []float32 {
		toFloat32(x.RawMatrix().Data, q32)
		mulSparseDense(at, q32, l, vocabRows, l)
		return vocabRows
	}
	q := mat.NewDense(rows, l, nil)
	mulSparseDense(a, vocabRows, l, q.RawMatrix().Data, l)
	// With one power iteration, A Aᵀ (A Ω) needs no orthonormal basis in
	// between: its span is the same, and float64 keeps the small singular
	// directions while σ₁/σₗ stays under about 10⁵ (cubed, under 1/ε).
	// Above about 500 the Cholesky QR below finds its Gram matrix not
	// positive definite and Householder QR takes over. It saves two Gram
	// matrices and two triangular solves: training 18% faster
	// (-bench TrainLSA).
	if lsaPowerIters == 0 {
		orthonormalize(q)
	}
	// The products go through the documents' side: with a 12 000-document
	// sample and a 40 000-term vocabulary, every dense matrix of vocabulary
	// rows costs three times one of document rows, and orthonormalising Aᵀ
	// Q between the steps would not change the span A Aᵀ Q has.
	for it := 0; it < lsaPowerIters; it++ {
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		z := aT(q) // v x l; q is not needed again, so the product replaces it
		mulSparseDense(a, z, l, q.RawMatrix().Data, l)
		orthonormalize(q)
	}
	// B = Qᵀ A (l x v); B Bᵀ = Qᵀ (A (Aᵀ Q)). A Aᵀ Q is a float32 sum, and
	// q32 is free once Aᵀ Q is made.
	z := aT(q)
	mulSparseDense(a, z, l, q32, l)
	return q, crossGram(q, dense[float32]{Rows: rows, Cols: l, Stride: l, Data: q32}), nil
}

func (m *LSA) finishID() {
	h := sha256.New()
	_, _ = m.writeBody(h)
	m.id = "lsa-" + hex.EncodeToString(h.Sum(nil))[:12]
}

// toFloat32 converts d into out, on every core.
func toFloat32(d []float64, out []float32) {
	parallel.Spans(len(d), 1<<16, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			out[i] = float32(d[i])
		}
	})
}

const lsaMagic = "NOVLSA02"

// WriteTo serialises the model.
func (m *LSA) WriteTo(w io.Writer) (int64, error) {
	bw := bufio.NewWriter(w)
	n1, err := bw.WriteString(lsaMagic)
	if err != nil {
		return int64(n1), err
	}
	n2, err := m.writeBody(bw)
	if err != nil {
		return int64(n1) + n2, err
	}
	return int64(n1) + n2, bw.Flush()
}

func (m *LSA) writeBody(w io.Writer) (int64, error) {
	n, err := m.writeHead(w)
	if err != nil {
		return n, err
	}
	var k int
	// The basis is stored as float16: half the bytes, and the model holds
	// exactly these values in memory too (seal), so a loaded model embeds
	// like the one just trained.
	if m.basis == nil {
		k, err = w.Write(m.half)
		return n + int64(k), err
	}
	// Converted a piece at a time: a buffer of the whole basis (30 MB
	// for a full vocabulary) was fresh pages to fault in for each id and
	// each save.
	le := binary.LittleEndian
	half := make([]byte, 2*min(len(m.basis), halfPiece))
	for p := 0; p < len(m.basis); p += halfPiece {
		piece := m.basis[p:min(len(m.basis), p+halfPiece)]
		parallel.Spans(len(piece), 1<<15, func(lo, hi int) {
			for i, x := range piece[lo:hi] {
				le.PutUint16(half[2*(lo+i):], halfBits(x))
			}
		})
		k, err = w.Write(half[:2*len(piece)])
		n += int64(k)
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// writeHead writes what precedes the basis in the model: its sizes, the
// terms and their idf.
func (m *LSA) writeHead(w io.Writer) (int64, error) {
	var n int64
	le := binary.LittleEndian
	var hdr [16]byte
	le.PutUint32(hdr[0:], uint32(m.dim))
	le.PutUint32(hdr[4:], uint32(m.rank))
	le.PutUint32(hdr[8:], uint32(len(m.termList)))
	le.PutUint32(hdr[12:], uint32(m.trainedDocs))
	k, err := w.Write(hdr[:])
	n += int64(k)
	if err != nil {
		return n, err
	}
	for _, t := range m.termList {
		var lb [2]byte
		le.PutUint16(lb[:], uint16(len(t)))
		if _, err := w.Write(lb[:]); err != nil {
			return n, err
		}
		k, err = io.WriteString(w, t)
		n += int64(k) + 2
		if err != nil {
			return n, err
		}
	}
	if len(m.idf) > 0 {
		k, err = w.Write(unsafe.Slice((*byte)(unsafe.Pointer(&m.idf[0])), len(m.idf)*4))
		n += int64(k)
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// halfPiece is how many basis values writeBody converts at a time.
const halfPiece = 1 << 18

// seal rounds the basis to the float16 values it is stored as and sets
// the model's id, in one pass: the cores convert each piece of the basis
// while another goroutine hashes the piece before it. Rounding, then
// converting the rounded basis again for the id, then hashing it on one
// core, was two passes over the basis and a serial one.
func (m *LSA) seal() {
	h := sha256.New()
	_, _ = m.writeHead(h)
	full, free := make(chan []byte, 2), make(chan []byte, 2)
	for range 2 {
		free <- make([]byte, 2*min(len(m.basis), halfPiece))
	}
	hashed := make(chan struct{})
	go func() {
		defer close(hashed)
		for b := range full {
			_, _ = h.Write(b)
			free <- b
		}
	}()
	le := binary.LittleEndian
	for p := 0; p < len(m.basis); p += halfPiece {
		piece := m.basis[p:min(len(m.basis), p+halfPiece)]
		half := (<-free)[:2*len(piece)]
		parallel.Spans(len(piece), 1<<15, func(lo, hi int) {
			for i, x := range piece[lo:hi] {
				// The nearest float16 is its own nearest: the bits of x
				// are those of its rounded value.
				b := halfBits(x)
				piece[lo+i] = halfValue(b)
				le.PutUint16(half[2*(lo+i):], b)
			}
		})
		full <- half
	}
	close(full)
	<-hashed
	m.id = "lsa-" + hex.EncodeToString(h.Sum(nil))[:12]
}

// ReadLSA loads a model written by WriteTo.
func ReadLSA(r io.Reader, analyzer *lexical.Analyzer) (*LSA, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read lsa model: %w", err)
	}
	return ParseLSA(b, analyzer)
}

// ParseLSA loads a model from the bytes WriteTo wrote. The model's basis
// is b itself, not a copy (a read-only mapping of the model file keeps
// the largest part of the model out of the process's own memory): b must
// stay unchanged while the model is in use.
func ParseLSA(b []byte, analyzer *lexical.Analyzer) (*LSA, error) {
	short := fmt.Errorf("read lsa model: %w", io.ErrUnexpectedEOF)
	if len(b) < len(lsaMagic)+16 {
		return nil, short
	}
	if string(b[:len(lsaMagic)]) != lsaMagic {
		return nil, errors.New("read lsa model: bad magic")
	}
	le := binary.LittleEndian
	h := b[len(lsaMagic):]
	m := &LSA{
		dim:         int(le.Uint32(h[0:])),
		rank:        int(le.Uint32(h[4:])),
		trainedDocs: int(le.Uint32(h[12:])),
		analyzer:    analyzer,
	}
	v := int(le.Uint32(h[8:]))
	if m.dim <= 0 || m.dim > 8192 || v > 1<<24 || m.rank > m.dim {
		return nil, errors.New("read lsa model: sizes out of range")
	}
	rest := b[len(lsaMagic)+16:]
	// The terms, each a u16 length and its bytes, are copied into one
	// string that every term slices.
	at := 0
	for range v {
		if len(rest)-at < 2 {
			return nil, short
		}
		at += 2 + int(le.Uint16(rest[at:]))
		if at > len(rest) {
			return nil, short
		}
	}
	terms := string(rest[:at])
	m.terms = make(map[string]int32, v)
	m.termList = make([]string, v)
	for i, p := 0, 0; i < v; i++ {
		n := int(le.Uint16(rest[p:]))
		m.termList[i] = terms[p+2 : p+2+n]
		m.terms[m.termList[i]] = int32(i)
		p += 2 + n
	}
	rest = rest[at:]
	if len(rest) < v*4+2*v*m.dim {
		return nil, short
	}
	m.idf = make([]float32, v)
	if v > 0 {
		copy(unsafe.Slice((*byte)(unsafe.Pointer(&m.idf[0])), v*4), rest)
	}
	rest = rest[v*4:]
	if len(rest) > 2*v*m.dim {
		return nil, errors.New("read lsa model: trailing data")
	}
	m.half = rest
	m.finishID()
	return m, nil
}

// Stale reports whether a model trained on m.TrainedDocs() documents should
// be retrained for a corpus of n documents at dimension dim: a different
// dimension, or a corpus that has more than doubled since training (while
// training was not already capped by the sample limit). Reusing a model
// keeps vectors stable, so a rebuild embeds only new text.
func (m *LSA) Stale(n, dim int) bool {
	if m.dim != dim {
		return true
	}
	return m.trainedDocs < lsaMaxTrainDocs && n > 2*m.trainedDocs+50
}
