package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/nova-recall/nova/internal/novatest"
)

// Bounds on what Nova's own packages allocate before novactl's main runs,
// which every "novactl search" an agent starts pays again. Package-level
// patterns and tables are built on first use (sync.OnceValue), so these
// cover only what is left: 117,304 bytes and 784 allocations on
// linux/amd64 with Go 1.26 on 2026-12-07, most of it small static maps
// in index/ingest, search and lexical (with index/ingest's markdown.go
// and notetags.go patterns at init too, it was 1.05 MB and 6,820; with
// every pattern at init, 4.66 MB and 32,146). The bounds leave about a
// quarter's headroom. Allocations are deterministic; times are not, so
// none is asserted.
const (
	maxInitBytes  = 150_000
	maxInitAllocs = 1_000
)

// initLine is one package's line of GODEBUG=inittrace=1: "init <pkg> @t
// ms, c ms clock, N bytes, M allocs".
var initLine = regexp.MustCompile(`(?m)^init (github\.com/nova-recall/nova/\S*) @.*, (\d+) bytes, (\d+) allocs$`)

func TestInitCost(t *testing.T) {
	home := t.TempDir()
	cmd := exec.Command(novatest.Binary(t, "novactl"), "version")
	cmd.Env = append(cmd.Environ(), "HOME="+home, "NOVA_HOME="+filepath.Join(home, "nova"), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("novactl version: %v\n%s", err, stderr.Bytes())
	}
	var total, allocs int
	lines := initLine.FindAllSubmatch(stderr.Bytes(), -1)
	if len(lines) == 0 {
		t.Fatalf("no init line of a nova package in novactl's inittrace:\n%s", stderr.Bytes())
	}
	for _, m := range lines {
		b, _ := strconv.Atoi(string(m[2]))
		a, _ := strconv.Atoi(string(m[3]))
		total += b
		allocs += a
		t.Logf("%s: %d bytes, %d allocs", m[1], b, a)
	}
	if total > maxInitBytes || allocs > maxInitAllocs {
		t.Errorf("nova packages' init: %d bytes, %d allocs; want at most %d bytes, %d allocs: build a package-level pattern or table on first use (sync.OnceValue)",
			total, allocs, maxInitBytes, maxInitAllocs)
	}
}
