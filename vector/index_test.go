package vector

import (
	"bytes"
	"cmp"
	"errors"
	"math"
	"math/rand"
	"slices"
	"testing"

	"github.com/nova-recall/nova/internal/racebuild"
)

// clustered returns n unit vectors of dim around a few random centres, the
// shape corpus embeddings have (topics), so an inverted file has
// something to find.
func clustered(t testing.TB, n, dim int, seed int64) *Store {
	rng := rand.New(rand.NewSource(seed))
	centres := make([][]float64, 12)
	for c := range centres {
		centres[c] = make([]float64, dim)
		for j := range centres[c] {
			centres[c][j] = rng.NormFloat64()
		}
	}
	data := make([]float32, n*dim)
	for i := range n {
		c := centres[rng.Intn(len(centres))]
		v := data[i*dim : (i+1)*dim]
		for j := range v {
			v[j] = float32(c[j] + 0.8*rng.NormFloat64())
		}
		normalize(v)
	}
	s, err := NewStore(dim, data)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// codesOf writes rows [lo, hi) of s as one segment's codes file.
func codesOf(t testing.TB, s *Store, q Quantizer, lo, hi int) *Codes {
	t.Helper()
	var buf bytes.Buffer
	w := NewCodesWriter(&buf, q)
	for i := lo; i < hi; i++ {
		if err := w.Add(s.Row(i)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	c, err := OpenCodes(buf.Bytes(), s.Dim())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestQuantizerKeepsDotProducts(t *testing.T) {
	s := clustered(t, 2000, 64, 1)
	q := TrainQuantizer(s.data, 64)
	b, _ := q.MarshalBinary()
	q2, rest, err := ParseQuantizer(append(b, 9), true)
	if err != nil || !slices.Equal(q2.Scale, q.Scale) || !slices.Equal(q2.Centre, q.Centre) || !bytes.Equal(rest, []byte{9}) {
		t.Fatalf("round trip: %v %v", err, rest)
	}
	// The layout written before the centre: the scales alone.
	old := b[:4+4*64]
	if q3, rest, err := ParseQuantizer(append(old, 9), false); err != nil || !slices.Equal(q3.Scale, q.Scale) || q3.Centre != nil || !bytes.Equal(rest, []byte{9}) {
		t.Fatalf("old layout: %v, centre %v, rest %v", err, q3.Centre, rest)
	}
	nan := slices.Clone(b)
	copy(nan[4+4*64:], []byte{0, 0, 0xc0, 0x7f})
	if _, _, err := ParseQuantizer(nan, true); err == nil {
		t.Error("a NaN centre accepted")
	}
	codes := make([]int8, 64)
	worst := 0.0
	for i := range 200 {
		a, b := s.Row(i), s.Row(i+1000)
		q.Encode(b, codes)
		p := q.Prepare(a)
		exact := float64(dot(a, b))
		worst = max(worst, math.Abs(float64(p.Exact(codes))-exact))
		if d := math.Abs(float64(p.Fast(codes)) - exact); d > 0.05 {
			t.Errorf("int8 estimate off by %v", d)
		}
	}
	if worst > 0.02 {
		t.Errorf("decoded dot product off by up to %v", worst)
	}
	if _, _, err := ParseQuantizer(b[:len(b)-1], true); err == nil {
		t.Error("short quantizer accepted")
	}
}

// TestQuantizerFromFewVectors: a quantizer trained on the first few
// vectors of a space (an openai space's scales come from its first build's
// first batch, and the space is kept while the corpus grows) still codes
// the vectors that come later. Each dimension's range was the largest
// component the few had in it: most later components were clamped, and an
// exact scan over 5 000 vectors coded with scales from 1 to 30 of them
// found 43-89% of the true top 10.
func TestQuantizerFromFewVectors(t *testing.T) {
	const n, dim = 5000, 384
	s := clustered(t, n, dim, 3)
	truth := ExactNeighbours(s, RowQueries(s, 100, 4), 10)
	for _, rows := range []int{1, 3, 30} {
		q := TrainQuantizer(s.data[:rows*dim], dim)
		ix, err := NewIndex(Space{Quantizer: q}, []*Codes{codesOf(t, s, q, 0, n)}, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if r := truth.Recall(func(v []float32, k int) []int { return docs(t, ix, v, k, nil) }); r < 0.95 {
			t.Errorf("scales from %d vectors: exact scan recall@10 %.3f", rows, r)
		}
	}
	// A sample of zero vectors (empty chunks) keeps the unit range.
	if q := TrainQuantizer(make([]float32, 3*dim), dim); q.Scale[0] != 1.0/127 {
		t.Errorf("scale of an all-zero sample %v, want 1/127", q.Scale[0])
	}
}

func TestCodesRefuseDamage(t *testing.T) {
	s := clustered(t, 10, 8, 2)
	q := TrainQuantizer(s.data, 8)
	var buf bytes.Buffer
	w := NewCodesWriter(&buf, q)
	for i := range 10 {
		_ = w.Add(s.Row(i))
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	raw := buf.Bytes()
	for _, bad := range [][]byte{raw[:4], raw[:len(raw)-1], append(slices.Clone(raw), 1), append([]byte("NOVVEC99"), raw[8:]...)} {
		if _, err := OpenCodes(bad, 8); !errors.Is(err, ErrCorrupt) {
			t.Errorf("damaged codes accepted: %v", err)
		}
	}
	if _, err := OpenCodes(raw, 16); !errors.Is(err, ErrCorrupt) {
		t.Error("wrong dimension accepted")
	}
	if err := NewCodesWriter(&bytes.Buffer{}, q).Add(make([]float32, 3)); err == nil {
		t.Error("a vector of the wrong dimension was written")
	}
}

// TestExactScanFindsTheTrueNeighbours: the int8 scan with exact re-scoring
// returns the float top 10 (allowing for quantization at the boundary),
// honours the filter, and a generation cut into segments answers like one
// segment.
func TestExactScanFindsTheTrueNeighbours(t *testing.T) {
	s := clustered(t, 3000, 48, 3)
	q := TrainQuantizer(s.data, 48)
	one, err := NewIndex(Space{Quantizer: q}, []*Codes{codesOf(t, s, q, 0, 3000)}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	segs, err := NewIndex(Space{Quantizer: q}, []*Codes{codesOf(t, s, q, 0, 700), codesOf(t, s, q, 700, 2900), codesOf(t, s, q, 2900, 3000)}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := Recall(s, func(v []float32, k int) []int { return docs(t, one, v, k, nil) }, RowQueries(s, 100, 4), 10)
	// Only quantization can cost recall here, at the boundary of the top 10.
	if r < 0.97 {
		t.Errorf("exact scan recall@10 %v", r)
	}
	odd := func(i int) bool { return i%2 == 1 }
	for i := range 30 {
		v := s.Row(i * 7)
		a, b := docs(t, one, v, 10, odd), docs(t, segs, v, 10, odd)
		if !slices.Equal(a, b) {
			t.Fatalf("segments answer %v, one segment %v", b, a)
		}
		for _, d := range a {
			if !odd(d) {
				t.Fatalf("filtered search returned %d", d)
			}
		}
		hits, _ := one.Search(v, 3, nil)
		if exact := one.Scorer(v)(hits[0].Doc); hits[0].Score != exact {
			t.Errorf("search score %v, Scorer %v", hits[0].Score, exact)
		}
	}
	if _, err := one.Search(make([]float32, 5), 3, nil); !errors.Is(err, ErrDimension) {
		t.Errorf("wrong dimension: %v", err)
	}
}

func docs(t testing.TB, ix *Index, q []float32, k int, accept func(int) bool) []int {
	hits, err := ix.Search(q, k, accept)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]int, len(hits))
	for i, h := range hits {
		out[i] = h.Doc
	}
	return out
}

// TestCellsReachTheRecallGate: the inverted file, probing enough cells,
// keeps recall@10 at or above ANNMinRecall, its lists round trip, and a
// damaged lists file is refused.
func TestCellsReachTheRecallGate(t *testing.T) {
	const n, dim = 6000, 32
	s := clustered(t, n, dim, 5)
	q := TrainQuantizer(s.data, dim)
	cells := TrainCells(s.data, dim, 8, 8, 1)
	b, _ := cells.MarshalBinary()
	cells2, err := ParseCells(b)
	if err != nil || cells2.N() != 64 || !slices.Equal(cells2.cells, cells.cells) {
		t.Fatalf("cells round trip: %v", err)
	}
	if _, err := ParseCells(b[:len(b)-4]); !errors.Is(err, ErrCorrupt) {
		t.Error("short cells accepted")
	}
	var segs []*Codes
	var lists []*Lists
	for _, r := range [][2]int{{0, 4000}, {4000, n}} {
		segs = append(segs, codesOf(t, s, q, r[0], r[1]))
		assign := make([]uint32, 0, r[1]-r[0])
		for i := r[0]; i < r[1]; i++ {
			assign = append(assign, uint32(cells.Assign(s.Row(i))))
		}
		var buf bytes.Buffer
		if _, err := WriteLists(&buf, cells.N(), assign); err != nil {
			t.Fatal(err)
		}
		l, err := OpenLists(buf.Bytes(), cells.N(), r[1]-r[0])
		if err != nil {
			t.Fatal(err)
		}
		raw := buf.Bytes()
		bad := slices.Clone(raw)
		bad[len(bad)-1] = 0xff // a row number out of range
		if _, err := OpenLists(bad, cells.N(), r[1]-r[0]); !errors.Is(err, ErrCorrupt) {
			t.Error("damaged lists accepted")
		}
		lists = append(lists, l)
	}
	var recall float64
	for probe := 1; probe <= cells.N(); probe *= 2 {
		cells.Probe = probe
		ix, err := NewIndex(Space{Quantizer: q, Cells: cells}, segs, lists, nil)
		if err != nil {
			t.Fatal(err)
		}
		recall = Recall(s, func(v []float32, k int) []int { return docs(t, ix, v, k, nil) }, RowQueries(s, 100, 6), 10)
		if recall >= ANNMinRecall {
			t.Logf("probe %d of %d cells: recall@10 %.3f", probe, cells.N(), recall)
			if probe == cells.N() {
				t.Error("only probing every cell reached the gate")
			}
			break
		}
	}
	if recall < ANNMinRecall {
		t.Errorf("recall@10 %v never reached %v", recall, ANNMinRecall)
	}
}

// TestBestOfIsTheHeapsChoice: picking the best estimates from an array
// keeps exactly the hits the scan's heap kept (scanBetter: score, then
// document), ties at the cut-off included, never a hit the filter
// refused, whatever the count asked: sizes on both sides of the sampled
// floor, few or many distinct values, ascending, descending and refused
// runs that an evenly spaced sample reads badly (the floor then keeps
// fewer than asked and every score is looked at).
func TestBestOfIsTheHeapsChoice(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	// The race detector has nothing to check in bestOf and makes each
	// trial about twenty times slower; make test's purego pass runs all.
	trials := 600
	if racebuild.Enabled {
		trials = 100
	}
	for trial := 0; trial < trials; trial++ {
		n := r.Intn(600)
		if r.Intn(2) == 0 {
			n = r.Intn(20_000)
		}
		docs := make([]int, n)
		scores := make([]float32, n)
		d := 0
		levels := 1 + r.Intn(1+[]int{3, 40, 1 << 20}[trial%3])
		for i := range docs {
			d += 1 + r.Intn(5)
			docs[i] = d
			scores[i] = float32(r.Intn(levels)-levels/4) * 0.25 // many ties
		}
		switch trial % 6 {
		case 1:
			slices.Sort(scores)
		case 2:
			slices.Sort(scores)
			slices.Reverse(scores)
		case 3: // a run of refused vectors
			if n > 0 {
				lo := r.Intn(n)
				for i := lo; i < min(n, lo+r.Intn(n+1)); i++ {
					scores[i] = refusedScore
				}
			}
		case 4: // refused here and there
			for i := range scores {
				if r.Intn(3) == 0 {
					scores[i] = refusedScore
				}
			}
		case 5: // the best just where the sample looks: its floor is too high
			if stride := n / floorSample; stride > 0 {
				for i := 0; i < n; i += stride {
					scores[i] += 1000
				}
			}
		}
		for _, want := range []int{0, 1, r.Intn(n + 3), n / 30, n / 3, max(0, n-1), n, n + 2} {
			h := newScanTop(want)
			for i, d := range docs {
				if scores[i] != refusedScore {
					h.push(d, scores[i])
				}
			}
			ref := slices.Clone(h.heap.Items())
			got := bestOf(scores, func(i int) int { return docs[i] }, want)
			sortHits := func(s []Hit) { slices.SortFunc(s, func(a, b Hit) int { return cmp.Compare(a.Doc, b.Doc) }) }
			sortHits(ref)
			sortHits(got)
			if !slices.Equal(ref, got) && len(ref)+len(got) > 0 {
				t.Fatalf("trial %d (n %d, want %d): got %d hits %v, heap kept %d", trial, n, want, len(got), got, len(ref))
			}
		}
	}
}
