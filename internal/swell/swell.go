// Package swell makes a generation's build report a sparse file of many
// GiB for the tests of what Ctrl-C or a stop cuts short: hashing it takes
// far longer than a test's bound on any disk, and it takes no room.
package swell

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-recall/nova/index/generation"
	"github.com/nova-recall/nova/manifest"
)

// Size is what Report makes a build report: 64 GiB.
const Size = 64 << 30

// Report makes the build report of the generation in dir (a promoted
// one, under index/generations) a sparse file of Size bytes, its
// modification time kept, and seals the generation's record again to
// match, and the manifest when it names that generation: every check
// but a checksum finds the generation intact.
func Report(t testing.TB, dir string) {
	t.Helper()
	report := filepath.Join(dir, generation.FileReport)
	fi, err := os.Stat(report)
	must(t, err)
	must(t, os.Chmod(report, 0o600))
	must(t, os.Truncate(report, Size))
	// Its time kept: a file changed after its promotion is hashed by
	// checks that would otherwise only look at its size.
	must(t, os.Chtimes(report, fi.ModTime(), fi.ModTime()))
	records := []string{filepath.Join(dir, generation.FileCandidate)}
	manifestPath := filepath.Join(filepath.Dir(filepath.Dir(dir)), "manifest.json")
	if m, _, err := manifest.Read(manifestPath); err == nil && m.RunID == filepath.Base(dir) {
		records = append(records, manifestPath)
	}
	for _, record := range records {
		b, err := os.ReadFile(record)
		must(t, err)
		var r manifest.Manifest
		must(t, json.Unmarshal(b, &r))
		r.Files[generation.FileReport] = manifest.FileSum{Size: Size, XXH3: strings.Repeat("0", 32)}
		r.Seal()
		b, err = json.MarshalIndent(&r, "", "  ")
		must(t, err)
		must(t, os.Chmod(record, 0o600))
		must(t, os.WriteFile(record, b, 0o600))
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
