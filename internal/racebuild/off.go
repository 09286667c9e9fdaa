//go:build !race

// Package racebuild says whether the running binary was built with the
// race detector: tests build the programs they run the same way, and the
// few tests the detector only slows (one goroutine reading tens of MiB)
// leave themselves to make test's plain pass.
package racebuild

// Enabled is false: this binary is built without the race detector.
const Enabled = false
