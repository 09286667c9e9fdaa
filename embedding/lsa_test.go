package embedding_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"testing"

	"github.com/nova-recall/nova/embedding"
	"github.com/nova-recall/nova/lexical"
)

// lsaCorpus is a small corpus with a few topics, so the latent space has
// structure: deploys, billing, databases and the on-call rota.
func lsaCorpus(n int) []string {
	topics := [][]string{
		{"deploy", "release", "rollback", "canary", "image", "registry", "pipeline"},
		{"invoice", "billing", "rounding", "total", "currency", "refund", "ledger"},
		{"postgres", "migration", "index", "query", "vacuum", "replica", "schema"},
		{"oncall", "pager", "incident", "escalation", "rota", "alert", "runbook"},
	}
	out := make([]string, n)
	for i := range out {
		w := topics[i%len(topics)]
		out[i] = fmt.Sprintf("%s %s %s after the %s on day %d; see the %s notes and the %s", w[i%7], w[(i+1)%7], w[(i+3)%7], w[(i+2)%7], i%28, w[(i+5)%7], w[(i+6)%7])
	}
	return out
}

func train(t *testing.T, texts []string, dim int) *embedding.LSA {
	t.Helper()
	m, err := embedding.TrainLSA(context.Background(), texts, dim, lexical.NewAnalyzer())
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestLSA_deterministic(t *testing.T) {
	corpus := lsaCorpus(300)
	a, b := train(t, corpus, 32), train(t, corpus, 32)
	if a.ID() != b.ID() || a.Profile() != b.Profile() {
		t.Fatalf("two trainings on one corpus gave models %s and %s", a.ID(), b.ID())
	}
	if p := a.Profile(); p.Provider != "builtin" || p.Dimension != 32 || p.Model != a.ID() {
		t.Errorf("profile %+v", p)
	}
	if a.Rank() == 0 || a.Rank() > 32 || a.TrainedDocs() != 300 || a.Vocabulary() == 0 {
		t.Errorf("rank %d trained on %d docs, vocabulary %d", a.Rank(), a.TrainedDocs(), a.Vocabulary())
	}
	va, err := a.Embed(context.Background(), corpus[:20])
	if err != nil {
		t.Fatal(err)
	}
	vb, _ := b.Embed(context.Background(), corpus[:20])
	for i := range va {
		if !slices.Equal(va[i], vb[i]) {
			t.Fatalf("vector %d differs between the two models", i)
		}
		var norm float64
		for _, x := range va[i] {
			norm += float64(x) * float64(x)
		}
		if math.Abs(norm-1) > 1e-4 {
			t.Errorf("vector %d has norm² %f, want 1", i, norm)
		}
	}
	// Another corpus is another model.
	if c := train(t, lsaCorpus(301), 32); c.ID() == a.ID() {
		t.Errorf("a different corpus gave the same model id")
	}
	// Texts of one topic are nearer each other than texts of two topics.
	q, _ := a.Embed(context.Background(), []string{"rollback of the canary release", "refund rounding on the invoice"})
	if dot(q[0], va[0]) <= dot(q[0], va[1]) {
		t.Errorf("a deploy query is no nearer a deploy note (%.3f) than a billing note (%.3f)", dot(q[0], va[0]), dot(q[0], va[1]))
	}
	// Unknown words embed to the zero vector, not NaN.
	z, _ := a.Embed(context.Background(), []string{"zzzqqq xxyyzz"})
	for _, x := range z[0] {
		if x != 0 {
			t.Fatalf("unknown words gave %v", z[0])
		}
	}
	// EmbedTerms of the analyzer's terms is Embed.
	if v := a.EmbedTerms(lexical.NewAnalyzer().Terms(corpus[3])); !slices.Equal(v, va[3]) {
		t.Errorf("EmbedTerms differs from Embed")
	}
}

func dot(a, b []float32) float32 {
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func TestLSA_roundTrip(t *testing.T) {
	m := train(t, lsaCorpus(200), 24)
	var buf bytes.Buffer
	n, err := m.WriteTo(&buf)
	if err != nil || n != int64(buf.Len()) {
		t.Fatalf("WriteTo: %d bytes reported, %d written, %v", n, buf.Len(), err)
	}
	raw := bytes.Clone(buf.Bytes())
	r, err := embedding.ReadLSA(&buf, lexical.NewAnalyzer())
	if err != nil {
		t.Fatal(err)
	}
	if r.ID() != m.ID() || r.Profile() != m.Profile() || r.Rank() != m.Rank() || r.TrainedDocs() != m.TrainedDocs() || r.Vocabulary() != m.Vocabulary() {
		t.Errorf("read model %s rank %d docs %d, wrote %s rank %d docs %d", r.ID(), r.Rank(), r.TrainedDocs(), m.ID(), m.Rank(), m.TrainedDocs())
	}
	texts := lsaCorpus(10)
	a, _ := m.Embed(context.Background(), texts)
	b, _ := r.Embed(context.Background(), texts)
	for i := range a {
		if !slices.Equal(a[i], b[i]) {
			t.Errorf("vector %d differs after the round trip", i)
		}
	}
	var again bytes.Buffer
	if _, err := r.WriteTo(&again); err != nil || !bytes.Equal(again.Bytes(), raw) {
		t.Errorf("the model does not serialise to the same bytes twice")
	}
	// A loaded model embeds from its stored float16 rows; expanded (as a
	// build does) it embeds and serialises the same.
	r.Expand()
	c, _ := r.Embed(context.Background(), texts)
	for i := range a {
		if !slices.Equal(a[i], c[i]) {
			t.Errorf("vector %d differs after Expand", i)
		}
	}
	again.Reset()
	if _, err := r.WriteTo(&again); err != nil || !bytes.Equal(again.Bytes(), raw) {
		t.Errorf("the expanded model serialises to other bytes")
	}
	for name, b := range map[string][]byte{
		"empty":     nil,
		"bad magic": append([]byte("NOTLSA01"), raw[8:]...),
		"truncated": raw[:len(raw)-3],
		"trailing":  append(bytes.Clone(raw), 0),
	} {
		if _, err := embedding.ReadLSA(bytes.NewReader(b), lexical.NewAnalyzer()); err == nil {
			t.Errorf("ReadLSA of a %s model succeeded", name)
		}
	}
	// A model cut short anywhere (in its header, a term, the weights or
	// the basis) is refused, never read past its end.
	for cut := 0; cut < len(raw); cut += 1 + cut/64 {
		if _, err := embedding.ParseLSA(raw[:cut:cut], lexical.NewAnalyzer()); err == nil {
			t.Fatalf("ParseLSA of a model cut to %d of %d bytes succeeded", cut, len(raw))
		}
	}
	// Parsed in place, it embeds the same.
	p, err := embedding.ParseLSA(raw, lexical.NewAnalyzer())
	if err != nil || p.ID() != m.ID() {
		t.Fatalf("ParseLSA: %v", err)
	}
	d, _ := p.Embed(context.Background(), texts)
	for i := range a {
		if !slices.Equal(a[i], d[i]) {
			t.Errorf("vector %d differs when parsed in place", i)
		}
	}
}

func TestLSA_stale(t *testing.T) {
	m := train(t, lsaCorpus(100), 16)
	tests := []struct {
		n, dim int
		stale  bool
	}{
		{100, 16, false},
		{250, 16, false}, // 2x + 50 is the limit
		{251, 16, true},
		{40, 16, false}, // a shrinking corpus keeps its model
		{100, 32, true}, // another dimension is another model
	}
	for _, tt := range tests {
		if got := m.Stale(tt.n, tt.dim); got != tt.stale {
			t.Errorf("Stale(%d, %d) = %v, want %v", tt.n, tt.dim, got, tt.stale)
		}
	}
	// A model trained on the capped sample is never stale for its size.
	if testing.Short() {
		return
	}
	big := train(t, lsaCorpus(12_500), 8)
	if big.TrainedDocs() != 12_000 {
		t.Errorf("trained on %d docs, want the 12 000 cap", big.TrainedDocs())
	}
	if big.Stale(1_000_000, 8) {
		t.Errorf("a capped model is stale for a larger corpus")
	}
}

// TestLSA_sameOnAnyCores: the model's bytes do not depend on how many
// cores trained it. The corpus is large enough for several of each piece
// the cores share (the test matrix's row blocks, the Gram matrices' row
// blocks) and for a basis written in several pieces.
func TestLSA_sameOnAnyCores(t *testing.T) {
	docs := zipfDocs(3000)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var first []byte
	for _, procs := range []int{1, 2, 3} {
		runtime.GOMAXPROCS(procs)
		m, err := embedding.TrainLSATerms(context.Background(), docs, 64, lexical.NewAnalyzer())
		if err != nil {
			t.Fatal(err)
		}
		if m.Vocabulary() < 4096 || m.Vocabulary()*64 < 1<<19 {
			t.Fatalf("vocabulary %d is too small to test the shares", m.Vocabulary())
		}
		var buf bytes.Buffer
		if _, err := m.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = buf.Bytes()
			// A loaded model writes the bytes it was read from.
			r, err := embedding.ReadLSA(bytes.NewReader(first), lexical.NewAnalyzer())
			if err != nil {
				t.Fatal(err)
			}
			var again bytes.Buffer
			if _, err := r.WriteTo(&again); err != nil || !bytes.Equal(again.Bytes(), first) || r.ID() != m.ID() {
				t.Fatalf("the loaded model writes other bytes or has another id (%s, trained %s)", r.ID(), m.ID())
			}
			continue
		}
		if !bytes.Equal(buf.Bytes(), first) {
			t.Errorf("trained on %d cores, the model differs from the one trained on 1", procs)
		}
	}
}
