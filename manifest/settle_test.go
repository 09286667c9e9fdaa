package manifest

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"
)

// TestSettle: a reader whose manifest a promotion replaces while it reads
// (the hook writes another one there) is handed the new one, and is done
// once the manifest stays as it was read; one that keeps changing stops
// after three readings; a manifest that appears meanwhile is read; an
// error from the reader stops it at once.
func TestSettle(t *testing.T) {
	gen := func(i int) *Manifest {
		m := validManifest()
		m.RunID = NewRunID(time.Date(2026, 3, 1, 8, i, 0, 0, time.UTC))
		m.GenerationPath = "generations/" + m.RunID
		return m
	}
	write := func(t *testing.T, path string, m *Manifest) {
		t.Helper()
		if err := WriteAtomic(path, m, nil); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name     string
		start    bool // a manifest is there before
		promotes int  // readings after which the hook promotes another
		want     int  // readings
	}{
		{"unchanged", true, 0, 1},
		{"promoted once", true, 1, 2},
		{"promoted at every reading", true, 5, 3},
		{"appears meanwhile", false, 1, 2},
		{"none", false, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "manifest.json")
			if tc.start {
				write(t, path, gen(0))
			}
			var read []string
			last := ""
			err := Settle(path, func(m *Manifest, hash string, err error) error {
				switch {
				case m != nil:
					read = append(read, m.RunID)
				case !errors.Is(err, ErrNoManifest):
					t.Fatalf("reading %d: %v", len(read)+1, err)
				default:
					read = append(read, "")
				}
				if len(read) <= tc.promotes {
					next := gen(len(read))
					write(t, path, next)
					last = next.RunID
				}
				return nil
			})
			if err != nil || len(read) != tc.want {
				t.Fatalf("readings %q, %v; want %d", read, err, tc.want)
			}
			if tc.promotes > 0 && tc.promotes < tc.want && read[len(read)-1] != last {
				t.Errorf("last reading %s, want %s, the manifest now", read[len(read)-1], last)
			}
		})
	}
	t.Run("reader fails", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "manifest.json")
		write(t, path, gen(0))
		n := 0
		err := Settle(path, func(*Manifest, string, error) error {
			n++
			write(t, path, gen(n))
			return context.Canceled
		})
		if !errors.Is(err, context.Canceled) || n != 1 {
			t.Errorf("reader cancelled: %v after %d readings; want context.Canceled after 1", err, n)
		}
	})
}
