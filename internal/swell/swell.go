// Package swell makes a generation's build report a sparse file of many
// GiB for the tests of what Ctrl-C or a stop cuts short: hashing it takes
// far longer than a test's bound on any disk, and it takes no room. Await
// tells when a process has begun hashing it.
package swell

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

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

// Await waits until process pid is hashing the build report Report made
// in dir: the file open and read past its first 16 MiB, so a check of
// its size or a peek at its start does not count, and the hash has
// passed several of its looks at a context. A test cancels only then,
// so that on a slow machine it cannot cancel before the hash it guards
// begins and pass without reaching it. Await fails t when the hash has
// not begun within a minute, or when done yields first (what was
// watched finished without it). Without /proc (macOS) it cannot see the
// hash: it waits half a second, and only logs that it could not tell.
func Await(t testing.TB, pid int, dir string, done <-chan error) {
	t.Helper()
	fds := fmt.Sprintf("/proc/%d/fd", pid)
	if _, err := os.Stat(fds); err != nil {
		t.Logf("cannot see the hash begin (%v): cancelling after 0.5 s", err)
		select {
		case err := <-done:
			t.Fatalf("finished before its build report was hashed: %v", err)
		case <-time.After(500 * time.Millisecond):
		}
		return
	}
	report := filepath.Join(dir, generation.FileReport)
	if real, err := filepath.EvalSymlinks(report); err == nil {
		report = real
	}
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	bound := time.After(time.Minute)
	for {
		if at, ok := reading(pid, report); ok && at > hashing {
			t.Logf("cancelling with the build report hashed to %d MiB", at>>20)
			return
		}
		select {
		case err := <-done:
			t.Fatalf("finished before its build report was hashed: %v", err)
		case <-bound:
			t.Fatal("its build report was not hashed within a minute")
		case <-tick.C:
		}
	}
}

// hashing is how far into the build report Await must see a read.
const hashing = 16 << 20

// reading reports how far process pid has read the file at path, when
// it has it open (the furthest of its descriptors on it).
func reading(pid int, path string) (int64, bool) {
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 0, false
	}
	var at int64
	found := false
	for _, e := range ents {
		if target, err := os.Readlink(filepath.Join(dir, e.Name())); err != nil || target != path {
			continue
		}
		info, err := os.ReadFile(fmt.Sprintf("/proc/%d/fdinfo/%s", pid, e.Name()))
		if err != nil {
			continue // closed since
		}
		for line := range strings.Lines(string(info)) {
			if pos, ok := strings.CutPrefix(line, "pos:"); ok {
				if n, err := strconv.ParseInt(strings.TrimSpace(pos), 10, 64); err == nil {
					found = true
					at = max(at, n)
				}
			}
		}
	}
	return at, found
}
