package index

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"slices"
	"testing"

	"github.com/nova-recall/nova/memory"
)

// TestForwardRoundTrip writes one record of each kind of the vector-input
// file and reads them back in order; a record cut short is an error, not
// a shorter record.
func TestForwardRoundTrip(t *testing.T) {
	const dim = 4
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	dense := []string{"deploy", "port", "端口", "", "deploy"}
	text := memory.Chunk{Text: "why the port was down"}
	for _, rec := range []struct {
		pc    pendingChunk
		dense []string
	}{
		{pendingChunk{codes: []int8{1, -2, 127, -127}}, nil},
		{pendingChunk{}, dense},
		{pendingChunk{}, []string{}},
		{pendingChunk{c: text}, nil},
	} {
		if err := writeForward(w, &rec.pc, rec.dense); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	whole := buf.Bytes()

	r := bufio.NewReader(bytes.NewReader(whole))
	var got []forwardEntry
	for {
		e, err := readForward(r, dim)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, e)
	}
	if len(got) != 4 {
		t.Fatalf("read %d records, want 4", len(got))
	}
	if got[0].kind != fwdCodes || !slices.Equal(got[0].codes, []int8{1, -2, 127, -127}) {
		t.Errorf("codes record: %+v", got[0])
	}
	if got[1].kind != fwdTerms || !slices.Equal(got[1].terms, dense) {
		t.Errorf("terms record: %q, want %q", got[1].terms, dense)
	}
	if got[2].kind != fwdTerms || len(got[2].terms) != 0 {
		t.Errorf("empty terms record: %+v", got[2])
	}
	if got[3].kind != fwdText || got[3].text != text.IndexText() {
		t.Errorf("text record: %q, want %q", got[3].text, text.IndexText())
	}

	// Every cut inside the file but at a record boundary fails.
	boundaries := map[int]bool{0: true, len(whole): true}
	off := 0
	for _, e := range got {
		var one bytes.Buffer
		ow := bufio.NewWriter(&one)
		switch e.kind {
		case fwdCodes:
			_ = writeForward(ow, &pendingChunk{codes: e.codes}, nil)
		case fwdTerms:
			_ = writeForward(ow, &pendingChunk{}, append([]string{}, e.terms...))
		case fwdText:
			_ = writeForward(ow, &pendingChunk{c: text}, nil)
		}
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
			_, err = readForward(r, dim)
		}
		if errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("cut at byte %d of %d read as a clean end", cut, len(whole))
		}
	}
}
