package vector

import (
	"bytes"
	"errors"
	"io"
	"math"
	"math/rand"
	"slices"
	"testing"
	"unsafe"
)

// TestSignPrefilter: above signMinDocs a search goes through the sign
// prefilter and still finds the true neighbours (against the exact scan);
// a filter is honoured before the prefilter keeps anything; below the
// threshold, and for Exact, every vector is scanned. Prepare computes the
// bits before any search.
func TestSignPrefilter(t *testing.T) {
	const n, dim = signMinDocs + 5000, 64
	s := clustered(t, n, dim, 7)
	q := TrainQuantizer(s.data, dim)
	ix, err := NewIndex(Space{Quantizer: q}, []*Codes{codesOf(t, s, q, 0, n/2), codesOf(t, s, q, n/2, n)}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !ix.Approximate() || ix.Exact().Approximate() {
		t.Fatalf("approximate: %v, exact copy: %v", ix.Approximate(), ix.Exact().Approximate())
	}
	if ix.Prepare(); ix.signs == nil {
		t.Fatal("Prepare left the sign bits to the first search")
	}
	exact := ix.Exact()
	rng := rand.New(rand.NewSource(3))
	var found, want int
	for range 50 {
		// A query between neighbours, as a typed query is.
		a, b := s.Row(rng.Intn(n)), s.Row(rng.Intn(n))
		v := make([]float32, dim)
		for j := range v {
			v[j] = a[j] + 0.3*b[j]
		}
		truth := docs(t, exact, v, 10, nil)
		got := docs(t, ix, v, 10, nil)
		for _, d := range got {
			if slices.Contains(truth, d) {
				found++
			}
		}
		want += len(truth)

		even := func(d int) bool { return d%2 == 0 }
		for _, d := range docs(t, ix, v, 10, even) {
			if d%2 != 0 {
				t.Fatalf("the filter let document %d through", d)
			}
		}
	}
	if r := float64(found) / float64(want); r < 0.9 {
		t.Errorf("recall@10 through the prefilter %.3f, want at least 0.9", r)
	} else {
		t.Logf("recall@10 through the prefilter: %.3f", r)
	}

	small, err := NewIndex(Space{Quantizer: q}, []*Codes{codesOf(t, s, q, 0, signMinDocs-1)}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if small.Approximate() {
		t.Error("a small index does not scan every vector")
	}
}

// TestNearestKeepsTheNearest: the prefilter keeps every document nearer
// than its cut-off and exactly keep documents in all.
func TestNearestKeepsTheNearest(t *testing.T) {
	// Two segments of 60 and 40 documents.
	s := &signs{words: 1, centre: make([]float32, 64), bases: []int{0, 60}, n: 100, segs: make([][]uint64, 2)}
	q := make([]float32, 64) // all bits 0
	for d := range 100 {
		// Document d has d%10 bits set: distance d%10 from q.
		seg := min(d/60, 1)
		s.segs[seg] = append(s.segs[seg], uint64(1)<<(d%10)-1)
	}
	got := s.nearest(q, 25, nil)
	if len(got) != 25 {
		t.Fatalf("kept %d, want 25", len(got))
	}
	for _, d := range got {
		if d%10 > 2 {
			t.Errorf("kept document %d at distance %d; 30 documents are nearer than 3", d, d%10)
		}
	}
	if got := s.nearest(q, 500, func(d int) bool { return d < 7 }); len(got) != 7 {
		t.Errorf("with 7 documents accepted, kept %d", len(got))
	}
	// Whatever is asked, and whatever the filter, the documents kept are
	// every one nearer than the cut-off and, at it, the first in document
	// order.
	for keep := range 120 {
		for _, accept := range []func(int) bool{nil, func(d int) bool { return d%3 != 0 }} {
			var want []int
			for dist := 0; dist < 10 && len(want) < keep; dist++ {
				for d := range 100 {
					if d%10 == dist && (accept == nil || accept(d)) && len(want) < keep {
						want = append(want, d)
					}
				}
			}
			slices.Sort(want)
			if got := s.nearest(q, keep, accept); !slices.Equal(got, want) {
				t.Fatalf("keep %d (filter %v): kept %v, want %v", keep, accept != nil, got, want)
			}
		}
	}
}

// TestSignBits: the branch-free bits are the comparison they replace,
// code > mean, at every position of a dimension that is not a multiple
// of 64, for codes at the ends of the range and means between codes, on
// them and beyond them.
func TestSignBits(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	const dim = 150
	means := make([]float32, dim)
	floor := make([]int32, dim)
	for j := range means {
		switch j % 4 {
		case 0:
			means[j] = float32(rng.Intn(255) - 127) // on a code
		case 1:
			means[j] = float32(rng.Float64()*254 - 127)
		case 2:
			means[j] = []float32{-200, 200, 127.5, -127.5}[rng.Intn(4)]
		default:
			means[j] = float32(rng.NormFloat64())
		}
		floor[j] = int32(math.Floor(float64(means[j])))
	}
	for range 200 {
		codes := make([]int8, dim)
		for j := range codes {
			codes[j] = int8([]int{-127, 127, 0, rng.Intn(255) - 127}[rng.Intn(4)])
		}
		got := make([]uint64, 3)
		signBits(codes, floor, got)
		for j, c := range codes {
			want := float32(c) > means[j]
			if set := got[j/64]&(1<<(j%64)) != 0; set != want {
				t.Fatalf("code %d against mean %v: bit %v, want %v", c, means[j], set, want)
			}
		}
		if got[2]>>(dim-128) != 0 {
			t.Fatalf("bits beyond the dimension set: %b", got[2])
		}
	}
}

// TestSignsFollowTheCentre: vectors far from zero in some dimensions, as an
// embedding endpoint's often are, still find their neighbours through the
// prefilter because the bits compare with the quantizer's centre; with
// zero as the centre those dimensions give every vector the same bit and
// recall falls. A segment shared by two generations of the same space
// computes its bits once; a quantizer without a centre (a space written
// before it) compares with the generation's mean.
func TestSignsFollowTheCentre(t *testing.T) {
	// Two segments, the second alone large enough to prefilter.
	const first, dim = 10_000, 64
	const n = first + signMinDocs
	s := clustered(t, n, dim, 11)
	for i := range n {
		v := s.data[i*dim : (i+1)*dim]
		for j := range dim * 7 / 8 {
			v[j] += 0.5 // most dimensions far on one side of zero
		}
		normalize(v)
	}
	q := TrainQuantizer(s.data, dim)
	segs := []*Codes{codesOf(t, s, q, 0, first), codesOf(t, s, q, first, n)}
	recall := func(q Quantizer) float64 {
		ix, err := NewIndex(Space{Quantizer: q}, segs, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		exact := ix.Exact()
		rng := rand.New(rand.NewSource(4))
		found, want := 0, 0
		for range 50 {
			v := slices.Clone(s.Row(rng.Intn(n)))
			truth := docs(t, exact, v, 10, nil)
			for _, d := range docs(t, ix, v, 10, nil) {
				if slices.Contains(truth, d) {
					found++
				}
			}
			want += len(truth)
		}
		return float64(found) / float64(want)
	}
	centred := recall(q)
	zero := recall(Quantizer{Scale: q.Scale, Centre: make([]float32, dim)})
	mean := recall(Quantizer{Scale: q.Scale})
	t.Logf("recall@10 through the prefilter: centre %.3f, zero %.3f, generation mean %.3f", centred, zero, mean)
	if centred < 0.9 || mean < 0.9 {
		t.Errorf("recall@10 with the centre %.3f, with the generation's mean %.3f; want at least 0.9", centred, mean)
	}
	if zero >= centred {
		t.Errorf("zero as the centre kept recall %.3f (centre: %.3f): the test data does not test the centre", zero, centred)
	}

	a, err := NewIndex(Space{Quantizer: q}, segs, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewIndex(Space{Quantizer: q}, segs[1:], nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	a.Prepare()
	b.Prepare()
	if &a.signs.segs[1][0] != &b.signs.segs[0][0] {
		t.Error("a segment shared by two generations of one space computed its bits twice")
	}
}

// BenchmarkSignsOf: a generation's first prefiltered search, or novad
// before it serves, computes the sign bits of every vector whose segment
// has none; a fresh segment each time here.
func BenchmarkSignsOf(b *testing.B) {
	const n, dim = 100_000, 384
	rng := rand.New(rand.NewSource(1))
	data := make([]int8, n*dim)
	for i := range data {
		data[i] = int8(rng.Intn(255) - 127)
	}
	scale := make([]float32, dim)
	for j := range scale {
		scale[j] = 1.0 / 127
	}
	b.ResetTimer()
	for range b.N {
		codes := &Codes{dim: dim, rows: n, data: data}
		ix, err := NewIndex(Space{Quantizer: Quantizer{Scale: scale, Centre: make([]float32, dim)}}, []*Codes{codes}, nil, nil)
		if err != nil {
			b.Fatal(err)
		}
		signsOf(ix)
	}
}

// TestSignsFile: the build's sign bits round trip through signs.bin and
// are used in place when they were computed against the floor a search
// asks for (recomputed against any other); a damaged file is refused; a
// quantizer without a centre writes none.
func TestSignsFile(t *testing.T) {
	const n, dim = 300, 72 // a dimension that is not a multiple of 64
	s := clustered(t, n, dim, 9)
	q := TrainQuantizer(s.data, dim)
	var codesBuf, signsBuf bytes.Buffer
	w := NewCodesWriter(&codesBuf, q)
	if !w.SignsTo(&signsBuf) {
		t.Fatal("SignsTo refused a quantizer with a centre")
	}
	for i := range n {
		if err := w.Add(s.Row(i)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	open := func() *Codes {
		c, err := OpenCodes(codesBuf.Bytes(), dim)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	stored, computed := open(), open()
	file := signsBuf.Bytes()
	if err := OpenSigns(file, stored); err != nil {
		t.Fatal(err)
	}
	floor := q.signFloor()
	got, want := stored.signs(floor), computed.signs(floor)
	if !slices.Equal(got, want) {
		t.Fatal("the stored bits differ from the computed ones")
	}
	if body := file[signsHeaderSize(dim):]; unsafe.Pointer(&got[0]) != unsafe.Pointer(&body[0]) {
		t.Error("the stored bits were copied or recomputed, not read in place")
	}
	other := slices.Clone(floor)
	other[0]++
	if again := stored.signs(other); &again[0] == &got[0] {
		t.Error("bits stored against one floor served a search against another")
	}

	damaged := map[string][]byte{
		"truncated": file[:len(file)-1],
		"magic":     append([]byte("NOVSGN00"), file[8:]...),
		"floor":     slices.Concat(file[:16], []byte{0, 1, 0, 0}, file[20:]),
	}
	for name, b := range damaged {
		if err := OpenSigns(b, open()); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v, want ErrCorrupt", name, err)
		}
	}
	if err := OpenSigns(file, codesOf(t, s, q, 0, n-1)); !errors.Is(err, ErrCorrupt) {
		t.Errorf("signs of %d rows for codes of %d: %v", n, n-1, err)
	}
	if NewCodesWriter(io.Discard, Quantizer{Scale: q.Scale}).SignsTo(io.Discard) {
		t.Error("a quantizer without a centre wrote sign bits")
	}
}
