//go:build !race

package ingest

// raceOn is set in a build with the race detector (see race_on_test.go).
const raceOn = false
