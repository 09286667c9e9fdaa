//go:build !linux

package manifest

import "os"

// evictWritten does nothing outside Linux (see written_linux.go).
func evictWritten(*os.File) {}
