//go:build !fts5

package bench

// corpusSystems is empty: the only one, the SQLite FTS5 baseline, is
// compiled only with -tags fts5 (novad must not link SQLite; novactl links
// it for Hermes sources, but not this baseline).
var corpusSystems []system

// notCompiled says how to get the FTS5 baseline.
var notCompiled = map[string]string{
	SystemFTS5: "the SQLite FTS5 baseline is not compiled into this binary (the shipped novactl leaves it out); " +
		"build bin/novactl-bench with it: make bench-build (go build -tags fts5 ./cmd/novactl)",
}
