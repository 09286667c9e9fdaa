package generation_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/nova-recall/nova/index/generation"
	"github.com/nova-recall/nova/vector"
)

// spaceSeeds returns real space.bin encodings: exact search, inverted
// file cells, and a space written before the centre (NOVSPC02).
func spaceSeeds() [][]byte {
	const dim = 4
	rng := rand.New(rand.NewPCG(3, 4))
	sample := make([]float32, 64*dim)
	for i := range sample {
		sample[i] = rng.Float32()*2 - 1
	}
	q := vector.TrainQuantizer(sample, dim)
	cells := vector.TrainCells(sample, dim, 2, 2, 1)
	cells.Probe = 2
	old := binary.LittleEndian.AppendUint32([]byte("NOVSPC02"), dim)
	for _, s := range q.Scale {
		old = binary.LittleEndian.AppendUint32(old, math.Float32bits(s))
	}
	old = binary.LittleEndian.AppendUint32(old, 0)
	return [][]byte{
		generation.MarshalSpace(vector.Space{Quantizer: q}, 0),
		generation.MarshalSpace(vector.Space{Quantizer: q, Cells: cells}, 0.97),
		old,
	}
}

// FuzzParseSpace decodes arbitrary bytes as a generation's space.bin: no
// panic, a refusal wraps ErrCorrupt (what the daemon and doctor test for),
// a space that parses is consistent, and a space as written reads back.
func FuzzParseSpace(f *testing.F) {
	seeds := spaceSeeds()
	for _, b := range seeds {
		f.Add(b)
		f.Add(b[:len(b)/2])
		f.Add(b[:len(b)-1])
		for _, at := range []int{8, 12, len(b) - 20, len(b) - 4} {
			f.Add(flipAt(b, at))
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		sp, ann, err := generation.ParseSpace(b)
		if err != nil {
			if !errors.Is(err, generation.ErrCorrupt) {
				t.Fatalf("refused without ErrCorrupt: %v", err)
			}
			return
		}
		if ann == nil || sp.Quantizer.Dim() <= 0 || (sp.Cells != nil) != ann.Enabled ||
			(sp.Cells != nil && (sp.Cells.Dim != sp.Quantizer.Dim() || ann.Probe <= 0 || ann.Probe > sp.Cells.N())) {
			t.Fatalf("parsed an inconsistent space: %+v %+v", sp, ann)
		}
		if bytes.Equal(b, seeds[0]) || bytes.Equal(b, seeds[1]) {
			again := generation.MarshalSpace(sp, ann.RecallAt10)
			got, _, err := generation.ParseSpace(again)
			if err != nil || !slices.Equal(got.Quantizer.Scale, sp.Quantizer.Scale) || !slices.Equal(got.Quantizer.Centre, sp.Quantizer.Centre) {
				t.Fatalf("a space as written does not read back: %v", err)
			}
		}
	})
}

func flipAt(b []byte, at int) []byte {
	out := slices.Clone(b)
	if at >= 0 && at < len(out) {
		out[at] ^= 0x41
	}
	return out
}
