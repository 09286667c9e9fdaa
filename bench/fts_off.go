//go:build !fts5

package bench

// corpusSystems is empty: the only one, the SQLite FTS5 baseline, needs
// modernc.org/sqlite, which the shipped binaries do not carry.
var corpusSystems []system

// notCompiled says how to get the FTS5 baseline.
var notCompiled = map[string]string{
	SystemFTS5: "the SQLite FTS5 baseline is not compiled into this binary (the shipped novactl carries no SQLite); " +
		"build bin/novactl-bench with it: make bench-build (go build -tags fts5 ./cmd/novactl)",
}
