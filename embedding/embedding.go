// Package embedding computes dense vectors. An Embedder turns texts into
// vectors of one embedding profile (provider, model, dimension); vectors of
// different profiles are never compared. Providers: the builtin embedder
// (a latent semantic model trained on the person's own corpus: pure Go, no
// model download, no network), any OpenAI-compatible /v1/embeddings
// endpoint, and the remote embedder that asks a running novad through its
// internal /encode endpoint. A Cache keyed by profile and text hash lets a
// rebuild embed only new or changed text.
package embedding

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/manifest"
)

// Embedder turns texts into vectors of its profile's dimension, one per
// text, in order. Implementations are safe for concurrent use.
type Embedder interface {
	Profile() api.EmbeddingProfile
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// ProfileHash returns the canonical hash of an embedder's profile.
func ProfileHash(e Embedder) string { return manifest.ProfileHash(e.Profile()) }

// DimensionError means a provider returned vectors of the wrong size.
type DimensionError struct {
	Want, Got int
}

func (e *DimensionError) Error() string {
	return fmt.Sprintf("embedding dimension %d does not match the configured %d", e.Got, e.Want)
}

// ErrUnavailable means the embedding provider cannot be reached.
var ErrUnavailable = errors.New("embedding provider unavailable")

// Normalize scales v to unit length in place (a zero vector stays zero).
func Normalize(v []float32) {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	if s == 0 {
		return
	}
	inv := 1 / math.Sqrt(s)
	if inv > math.MaxFloat32 {
		// Subnormal components: the inverse of their norm is beyond
		// float32, and multiplying by +Inf gave Inf and NaN.
		for i := range v {
			v[i] = float32(float64(v[i]) * inv)
		}
		return
	}
	inv32 := float32(inv)
	for i := range v {
		v[i] *= inv32
	}
}

// CheckVectors verifies count, dimension and finiteness of vectors.
func CheckVectors(vecs [][]float32, n, dim int) error {
	if len(vecs) != n {
		return fmt.Errorf("provider returned %d vectors for %d texts", len(vecs), n)
	}
	for _, v := range vecs {
		if len(v) != dim {
			return &DimensionError{Want: dim, Got: len(v)}
		}
		for _, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return errors.New("provider returned a non-finite vector component")
			}
		}
	}
	return nil
}
