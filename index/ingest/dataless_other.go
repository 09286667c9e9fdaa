//go:build !darwin

package ingest

import "io/fs"

// statDataless reports false: only macOS marks a file dataless (see
// dataless_darwin.go); tests elsewhere stand in for it with dataless.
func statDataless(fs.FileInfo) bool { return false }
