package lexical

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"testing"
)

// BenchmarkFieldWriter adds 20 000 documents of 200 terms drawn from a
// Zipfian vocabulary (a segment's context field) and writes the field.
//
//	go test -run '^$' -bench FieldWriter -benchmem ./lexical/
func BenchmarkFieldWriter(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	zipf := rand.NewZipf(rng, 1.1, 2, 199_999)
	vocab := make([]string, 200_000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("t%d", i)
	}
	docs := make([][]string, 20_000)
	for i := range docs {
		docs[i] = make([]string, 200)
		for j := range docs[i] {
			docs[i][j] = vocab[zipf.Uint64()]
		}
	}
	b.ResetTimer()
	for range b.N {
		w := NewFieldWriter(0)
		for _, d := range docs {
			w.Add(d)
		}
		if _, err := w.WriteTo(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFieldWriterWriteTo writes a field of 200 000 distinct terms
// (a build's segment has about that many, most of them numbers and ids
// met once), the part of sealing a segment that the build's adder waits
// for.
//
//	go test -run '^$' -bench FieldWriterWriteTo -benchmem ./lexical/
func BenchmarkFieldWriterWriteTo(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	w := NewFieldWriter(0)
	d := make([]string, 20)
	for range 10_000 {
		for j := range d {
			d[j] = fmt.Sprintf("%x", rng.Uint32())
		}
		w.Add(d)
	}
	b.ResetTimer()
	for range b.N {
		if _, err := w.WriteTo(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}

// TestFieldWriter_blocks: a term's postings read back across block
// boundaries (127 to 300 postings), each block's table entry naming its
// last document and its end, and frequencies above 1 kept.
func TestFieldWriter_blocks(t *testing.T) {
	for _, n := range []int{1, 127, 128, 129, 256, 300} {
		w := NewFieldWriter(0)
		var docs, tfs []uint32
		for d := 0; d < 2*n; d++ {
			if d%2 == 1 {
				w.Add([]string{"other"})
				continue
			}
			tf := uint32(1 + d%3)
			terms := []string{"other"}
			for range tf {
				terms = append(terms, "term")
			}
			w.Add(terms)
			docs, tfs = append(docs, uint32(d)), append(tfs, tf)
		}
		var buf bytes.Buffer
		if _, err := w.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		f, err := OpenField(buf.Bytes())
		if err != nil {
			t.Fatalf("%d postings: %v", n, err)
		}
		l := f.list(f.lookup("term"))
		if want := (n + BlockSize - 1) / BlockSize; l.blocks != want {
			t.Fatalf("%d postings: %d blocks, want %d", n, l.blocks, want)
		}
		doc, i, at := uint32(0), 0, 0
		for b := 0; b < l.blocks; b++ {
			for at < int(l.blockEnd(b)) {
				delta, tf, used := next(l.data[at:])
				if used == 0 {
					t.Fatalf("%d postings: damaged at byte %d", n, at)
				}
				doc += delta
				if doc != docs[i] || tf != tfs[i] {
					t.Fatalf("%d postings: posting %d is doc %d tf %d, want %d tf %d", n, i, doc, tf, docs[i], tfs[i])
				}
				at += used
				i++
			}
			if l.blockLast(b) != doc {
				t.Fatalf("%d postings: block %d ends at doc %d, table says %d", n, b, doc, l.blockLast(b))
			}
		}
		if i != n || at != len(l.data) {
			t.Fatalf("%d postings: read %d postings and %d of %d bytes", n, i, at, len(l.data))
		}
	}
}

// TestFieldWriter_addParts: documents added part by part, with parts that
// recur across documents and within one, and empty ones, give the same
// field file as their terms added whole.
func TestFieldWriter_addParts(t *testing.T) {
	a := NewAnalyzer()
	parts := []string{"port 2096 was down", "", "the cron job retried", "端口不可用", "port 2096 was down again"}
	docs := [][]int{{0, 2}, {2, 3}, {0}, {1, 4, 0}, {3, 3}, {}, {4, 2, 1}}
	whole, byParts := NewFieldWriter(0), NewFieldWriter(0)
	for _, d := range docs {
		var p Parts
		var terms []string
		for _, i := range d {
			ts := a.Terms(parts[i])
			p.Parts = append(p.Parts, parts[i])
			p.Terms = append(p.Terms, ts)
			terms = append(terms, ts...)
		}
		if p.Len() != len(terms) {
			t.Fatalf("Len %d, want %d", p.Len(), len(terms))
		}
		whole.Add(terms)
		byParts.AddParts(p)
	}
	var want, got bytes.Buffer
	if _, err := whole.WriteTo(&want); err != nil {
		t.Fatal(err)
	}
	if _, err := byParts.WriteTo(&got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Fatal("the field added part by part differs from the one added whole")
	}
}

// TestFieldLookup finds every term of a dictionary, and none of the
// strings between them, without copying dictionary terms into strings (a
// term longer than 32 bytes would be allocated): a query looks its terms
// up in every segment's fields.
func TestFieldLookup(t *testing.T) {
	long := "src/payments/ledger/reconciliation_worker.go"
	words := []string{"alpha", "beta", "delta", "epsilon", "gamma", long, "zeta", "中文"}
	docs := make([][]string, len(words))
	for i, word := range words {
		docs[i] = []string{word}
	}
	f := fieldOfTerms(t, docs...)
	for _, word := range words {
		id := f.lookup(word)
		if id < 0 || f.term(id) != word {
			t.Fatalf("lookup(%q) = %d", word, id)
		}
	}
	for _, absent := range []string{"", "a", "alphab", "c", "gammb", "zz", "中"} {
		if id := f.lookup(absent); id >= 0 {
			t.Fatalf("lookup(%q) = %d (%q), want -1", absent, id, f.term(id))
		}
	}
	longer := long + "x"
	if n := testing.AllocsPerRun(100, func() { f.lookup(long); f.lookup(longer) }); n != 0 {
		t.Fatalf("lookup allocates %v times", n)
	}
}

// TestCursorFindsWhatFindFinds: walking a list with a cursor over
// ascending documents (repeats included) gives every document the term
// frequency a block lookup gives it, across block boundaries, for lists
// from one posting to many blocks.
func TestCursorFindsWhatFindFinds(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 9))
	const docs = 3000
	w := NewFieldWriter(0)
	for d := 0; d < docs; d++ {
		var terms []string
		for _, share := range []int{1, 3, 40, 400, 2999} { // df from all to a few
			if r.IntN(share) == 0 {
				for range 1 + r.IntN(3) { // tf 1-3
					terms = append(terms, fmt.Sprintf("t%d", share))
				}
			}
		}
		w.Add(terms)
	}
	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	f, err := OpenField(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	for term := range f.Terms() {
		l := f.list(term)
		for trial := 0; trial < 20; trial++ {
			c := l.cursor()
			doc := uint32(0)
			for doc < docs+5 {
				if got, want := c.find(doc), l.find(doc); got != want {
					t.Fatalf("term %q (%d blocks), doc %d: cursor %d, find %d", f.term(term), l.blocks, doc, got, want)
				}
				if r.IntN(4) > 0 { // else ask for the same document again
					doc += uint32(1 + r.IntN(1+r.IntN(300)))
				}
			}
		}
	}
}

// TestScoresAreTheFormulas: with the length norms kept in a table, a
// posting scores the float32 of the BM25 formula computed in full, for
// documents shorter and longer than the table, term frequencies 1 and more.
func TestScoresAreTheFormulas(t *testing.T) {
	var docs [][]string
	for _, n := range []int{1, 7, normsKept - 1, normsKept, normsKept + 1, 3 * normsKept} {
		for tf := 1; tf <= 3; tf++ {
			d := make([]string, n)
			for i := range d {
				d[i] = "pad"
				if i < tf {
					d[i] = "x"
				}
			}
			docs = append(docs, d)
		}
	}
	ix := Build(docs, B)
	all := make([]int, len(docs))
	for i := range all {
		all[i] = i
	}
	got := ix.ScoreDocs([]string{"x"}, all)
	var total float64
	for _, d := range docs {
		total += float64(len(d))
	}
	avg, idf := total/float64(len(docs)), ix.IDF("x")
	for i, d := range docs {
		tf := 0
		for _, w := range d {
			if w == "x" {
				tf++
			}
		}
		t64, dl := float64(tf), float64(len(d))
		want := float64(float32(idf * t64 * (K1 + 1) / (t64 + K1*(1-B+B*dl/avg))))
		if got[i] != want {
			t.Errorf("doc of %d terms, tf %d: %v, the formula gives %v", len(d), tf, got[i], want)
		}
	}
}

// TestFieldWriter_termOrder: the terms are written in byte order, and each
// keeps its own postings, when their first 8 bytes (the sort's prefix
// key) tie, hold zero bytes, or are all a short term has.
func TestFieldWriter_termOrder(t *testing.T) {
	terms := []string{
		"b", "a", "a\x00", "a\x00\x00\x00\x00\x00\x00\x00", "a\x00\x00\x00\x00\x00\x00\x00\x00",
		"abcdefgh", "abcdefgh1", "abcdefgh0", "abcdefgi", "abcdefg", "abcdefgh\x00",
		"\xff", "\xff\xff\xff\xff\xff\xff\xff\xff\x01", "é", "éa", "2026", "20261", "202", "zz", "z",
	}
	w := NewFieldWriter(0)
	for _, term := range terms {
		w.Add([]string{term, "common"})
	}
	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	f, err := OpenField(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	f.EachTerm(func(term string, df int) { got = append(got, term) })
	want := slices.Sorted(slices.Values(append(slices.Clone(terms), "common")))
	if !slices.Equal(got, want) {
		t.Fatalf("terms in the order %q, want %q", got, want)
	}
	for doc, term := range terms {
		var docs []uint32
		f.list(f.lookup(term)).each(func(d, _ uint32) { docs = append(docs, d) })
		if !slices.Equal(docs, []uint32{uint32(doc)}) {
			t.Errorf("%q in documents %v, want [%d]", term, docs, doc)
		}
	}
}
