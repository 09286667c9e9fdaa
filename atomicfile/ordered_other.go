//go:build !darwin

package atomicfile

import "os"

// syncOrdered is fsync(2): elsewhere than macOS it already makes the data
// durable, drive cache included.
func syncOrdered(f *os.File) error { return f.Sync() }
