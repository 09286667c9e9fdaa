// Package golden compares test output with a file checked in under
// testdata, and rewrites that file when the test binary runs with -update.
// A reviewer then reads the change to the golden file in the diff instead
// of trusting an assertion that was edited to match.
package golden

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// updateFlag is -update. A test binary that also links charmbracelet's
// golden package (teatest does) has that flag already, and defining it
// twice panics. Go initializes packages in import-path order as far as
// their imports allow, so github.com/charmbracelet/... is initialized
// before this package and its flag is found here and shared.
var updateFlag = func() *flag.Flag {
	if f := flag.Lookup("update"); f != nil {
		return f
	}
	flag.Bool("update", false, "rewrite the golden files in testdata instead of comparing with them")
	return flag.Lookup("update")
}()

func updating() bool { return updateFlag.Value.String() == "true" }

// Check fails t unless got equals the file at path byte for byte. With
// -update it writes got to path (creating its folder) and passes.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if updating() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run '%s' -update to create it)", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s; run go test -run '%s' -update and review the diff\n%s", path, t.Name(), FirstDifference(string(want), string(got)))
	}
}

// FirstDifference describes the first line at which want and got differ.
func FirstDifference(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range min(len(wl), len(gl)) {
		if wl[i] != gl[i] {
			return fmt.Sprintf("line %d:\n  want %s\n  got  %s", i+1, wl[i], gl[i])
		}
	}
	return fmt.Sprintf("want %d lines, got %d", len(wl), len(gl))
}
