package index

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"testing"

	"github.com/nova-recall/nova/embedding"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/memory"
	"github.com/nova-recall/nova/vector"
)

// TestForwardRoundTrip writes one record of each kind of the vector-input
// file, then the vocabularies, and reads them back in order; a record cut
// short is an error, not a shorter record, and so is a term id beyond its
// vocabulary.
func TestForwardRoundTrip(t *testing.T) {
	const dim = 4
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	dense := &denseInput{text: []uint32{3, 0, 2, 3}, context: []uint32{1, 1, 0}, terms: []string{"deploy", "port", "端口", "", "deploy"}}
	vocab := vocabularies[string]{text: []string{"why", "port", "down", "deploy"}, context: []string{"earlier", "turn"}}
	rows := vocabularies[int32]{text: make([]int32, len(vocab.text)), context: make([]int32, len(vocab.context))}
	text := memory.Chunk{Text: "why the port was down"}
	records := []struct {
		pc    pendingChunk
		dense *denseInput
	}{
		{pendingChunk{codes: []int8{1, -2, 127, -127}}, dense},
		{pendingChunk{}, dense},
		{pendingChunk{}, &denseInput{}},
		{pendingChunk{c: text}, nil},
	}
	for _, rec := range records {
		if err := writeForward(w, &rec.pc, rec.dense); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	recordsEnd := buf.Len()
	if err := writeVocabularies(w, vocab); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	whole := buf.Bytes()[:recordsEnd]

	got, err := readVocabularies(bufio.NewReader(bytes.NewReader(buf.Bytes()[recordsEnd:])))
	if err != nil || !slices.Equal(got.text, vocab.text) || !slices.Equal(got.context, vocab.context) {
		t.Fatalf("vocabularies %q, %v; want %q", got, err, vocab)
	}
	for cut := recordsEnd; cut < buf.Len(); cut++ {
		if v, err := readVocabularies(bufio.NewReader(bytes.NewReader(buf.Bytes()[recordsEnd:cut]))); err == nil {
			t.Errorf("vocabularies cut at byte %d read as %q", cut-recordsEnd, v)
		}
	}

	r := bufio.NewReader(bytes.NewReader(whole))
	var entries []forwardEntry
	for {
		e, err := readForward(r, dim, rows)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, e)
	}
	if len(entries) != 4 {
		t.Fatalf("read %d records, want 4", len(entries))
	}
	if e := entries[0]; e.kind != fwdCodes || !slices.Equal(e.codes, []int8{1, -2, 127, -127}) {
		t.Errorf("codes record: %+v", e)
	}
	if d := entries[1].dense; entries[1].kind != fwdTerms || !slices.Equal(d.text, dense.text) || !slices.Equal(d.context, dense.context) || !slices.Equal(d.terms, dense.terms) {
		t.Errorf("terms record: %+v, want %+v", d, *dense)
	}
	if d := entries[2].dense; entries[2].kind != fwdTerms || len(d.text)+len(d.context)+len(d.terms) != 0 {
		t.Errorf("empty terms record: %+v", entries[2])
	}
	if e := entries[3]; e.kind != fwdText || e.text != text.IndexText() {
		t.Errorf("text record: %q, want %q", e.text, text.IndexText())
	}

	// An id beyond its vocabulary is damage.
	for _, short := range []vocabularies[int32]{{text: rows.text[:3], context: rows.context}, {text: rows.text, context: rows.context[:1]}} {
		r = bufio.NewReader(bytes.NewReader(whole))
		if _, err := readForward(r, dim, short); err != nil {
			t.Fatal(err)
		}
		if _, err := readForward(r, dim, short); err == nil {
			t.Errorf("ids read past vocabularies of %d and %d terms", len(short.text), len(short.context))
		}
	}

	// Every cut inside the file but at a record boundary fails.
	boundaries := map[int]bool{0: true, len(whole): true}
	off := 0
	for _, rec := range records {
		var one bytes.Buffer
		ow := bufio.NewWriter(&one)
		_ = writeForward(ow, &rec.pc, rec.dense)
		_ = ow.Flush()
		off += one.Len()
		boundaries[off] = true
	}
	for cut := 1; cut < len(whole); cut++ {
		if boundaries[cut] {
			continue
		}
		r := bufio.NewReader(bytes.NewReader(whole[:cut]))
		var err error
		for err == nil {
			_, err = readForward(r, dim, rows)
		}
		if errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("cut at byte %d of %d read as a clean end", cut, len(whole))
		}
	}
}

// TestEmbedThroughVocabularies: a chunk embedded from its vector-input
// record (its terms' ids in the segment's lexical fields, through the
// model's rows of their vocabularies) has the vector of its dense terms
// embedded directly, bit for bit, terms the model does not know included
// and whether the context field holds the words before it as they are or
// not (a context trimmed at its end).
func TestEmbedThroughVocabularies(t *testing.T) {
	an := lexical.NewAnalyzer()
	var docs [][]string
	for i := range 40 {
		docs = append(docs, an.Terms(fmt.Sprintf("deploy the payments service on port %d, then check the ledger and the billing queue %d", 8000+i%5, i%3)))
		docs = append(docs, an.Terms(fmt.Sprintf("the search index rebuild took %d minutes; compaction and retention ran after it", i%7)))
	}
	m, err := embedding.TrainLSATerms(context.Background(), docs, 8, an)
	if err != nil {
		t.Fatal(err)
	}
	before := []string{"the search index rebuild, anotherunknown", "ledger billing queue"}
	after := []string{"compaction ran after it"}
	for _, after := range [][]string{after, nil} {
		chunk := memory.Chunk{Text: "deploy payments on port 8001, unknownword ledger ledger zzyzx"}
		chunk.Context, chunk.Before = memory.NeighbourContext(before, after)
		ca := newContextAnalyzer(an)
		a := analysed{text: an.Terms(chunk.OwnText()), context: ca.parts(chunk.Context), dense: true}
		a.beforeParts, a.before = ca.before(chunk.Before, a.context)
		if after == nil && a.beforeParts == 2 {
			t.Fatalf("a context without words after holds the last part before as it is: %q", chunk.Context)
		}
		want := m.EmbedTerms(an.Terms(chunk.IndexText()))
		if got := m.EmbedTerms(a.denseTerms()); !slices.Equal(got, want) {
			t.Fatalf("dense terms %q embed unlike the index text", a.denseTerms())
		}

		text, ctx := lexical.NewFieldWriter(0), lexical.NewFieldWriter(0)
		text.Add(an.Terms("billing queue search")) // ids are not positions in a chunk
		ctx.AddParts(ca.parts("retention ran"))
		textIDs, ctxIDs := slices.Clone(text.Add(a.text)), slices.Clone(ctx.AddParts(a.context))
		var buf bytes.Buffer
		w := bufio.NewWriter(&buf)
		d := a.denseInput(textIDs, ctxIDs)
		if err := writeForward(w, &pendingChunk{}, &d); err != nil {
			t.Fatal(err)
		}
		_ = w.Flush()
		rowsOf := func(terms []string) []int32 {
			rows := make([]int32, len(terms))
			for i, term := range terms {
				row, ok := m.Row(term)
				if !ok {
					row = -1
				}
				rows[i] = row
			}
			return rows
		}
		rows := vocabularies[int32]{text: rowsOf(text.Vocabulary()), context: rowsOf(ctx.Vocabulary())}
		e, err := readForward(bufio.NewReader(&buf), 8, rows)
		if err != nil {
			t.Fatal(err)
		}
		if got := embedTerms(m, rows, &e.dense, make([]float32, len(want))); !slices.Equal(got, want) || vector.IsZero(want) {
			t.Errorf("through the vocabularies %v, directly %v", got, want)
		}
	}
}
