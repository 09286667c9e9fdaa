//go:build !linux

package manifest

import "os"

// EvictWritten does nothing outside Linux (see written_linux.go).
func EvictWritten(*os.File) {}
