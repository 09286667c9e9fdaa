package atomicfile

import (
	"os"
	"syscall"
)

// syncOrdered is a plain fsync(2): on macOS it moves the data to the
// drive but leaves it in the drive's cache, where os.File.Sync's
// F_FULLFSYNC also flushes that cache (5-50 ms each). The next full sync
// flushes the cache for every file before it.
func syncOrdered(f *os.File) error {
	for {
		err := syscall.Fsync(int(f.Fd()))
		if err != syscall.EINTR {
			return err
		}
	}
}
