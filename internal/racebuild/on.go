//go:build race

package racebuild

// Enabled is true: this binary is built with the race detector.
const Enabled = true
