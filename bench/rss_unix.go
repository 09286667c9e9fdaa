//go:build unix && !linux

package bench

import (
	"errors"
	"runtime"
	"syscall"
	"time"
)

// selfMemory returns 0 for the current RSS (not portable) and the
// process' lifetime peak from getrusage.
func selfMemory() (rss, peak int64) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, 0
	}
	peak = int64(ru.Maxrss)
	if runtime.GOOS != "darwin" {
		peak *= 1024 // kilobytes everywhere but macOS
	}
	return 0, peak
}

// resetPeak cannot reset getrusage's peak.
func resetPeak() bool { return false }

// peakMethod names how the peak RSS is measured.
const peakMethod = "getrusage maxrss (process lifetime peak)"

// childMemory is only implemented on Linux.
func childMemory(int) (procMem, error) {
	return procMem{}, errors.New("reading another process' memory is only implemented on Linux")
}

// childCPU is only implemented on Linux.
func childCPU(int) (time.Duration, error) {
	return 0, errors.New("reading another process' CPU time is only implemented on Linux")
}
