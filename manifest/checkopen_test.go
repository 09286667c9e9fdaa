package manifest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// cancelAfter is a context whose Err reports it cancelled from its n-th
// look on: CheckOpen, given it, is stopped in the middle of a file.
type cancelAfter struct {
	context.Context
	n int
}

func (c *cancelAfter) Err() error {
	if c.n--; c.n < 0 {
		return context.Canceled
	}
	return nil
}

// CheckOpen stops hashing a large file once its context is cancelled,
// whether before the file or part way through it, with the context's
// error: not the caller's corrupt error, since nothing was found wrong.
func TestCheckOpen_cancelled(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big")
	b := make([]byte, 3*checkEvery+5)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	h := NewHasher()
	_, _ = h.Write(b)
	want := h.Sum()
	corrupt := errors.New("corrupt")
	check := func(ctx context.Context) (int64, error) {
		t.Helper()
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		err = CheckOpen(ctx, f, want, true, corrupt)
		at, _ := f.Seek(0, 1)
		return at, err
	}
	if _, err := check(context.Background()); err != nil {
		t.Fatalf("intact file: %v", err)
	}
	for _, n := range []int{0, 1, 2} {
		at, err := check(&cancelAfter{Context: context.Background(), n: n})
		if !errors.Is(err, context.Canceled) || errors.Is(err, corrupt) {
			t.Errorf("cancelled after %d looks: %v, want context.Canceled", n, err)
		}
		if at != int64(n)*checkEvery {
			t.Errorf("cancelled after %d looks: read %d bytes, want %d", n, at, int64(n)*checkEvery)
		}
	}
}
