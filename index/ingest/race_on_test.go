//go:build race

package ingest

// raceOn is set in a build with the race detector, whose instrumentation
// allocates: allocation bounds are not checked there.
const raceOn = true
