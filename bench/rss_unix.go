//go:build unix && !linux

package bench

import (
	"errors"
	"os"
	"runtime"
	"syscall"
	"time"
)

// selfMemory returns the process' current RSS (from ps; 0 when it cannot
// be read) and its lifetime peak from getrusage.
func selfMemory() (rss, peak int64) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, 0
	}
	rss, _ = psRSS(os.Getpid())
	peak = int64(ru.Maxrss)
	if runtime.GOOS != "darwin" {
		peak *= 1024 // kilobytes everywhere but macOS
	}
	return rss, peak
}

// resetPeak cannot reset getrusage's peak.
func resetPeak() bool { return false }

// peakMethod names how the peak RSS is measured.
const peakMethod = "getrusage maxrss (process lifetime peak)"

// childMemory returns another process's resident set, from ps. Its peak
// is not read: ps has none, and the maxrss of a child's usage, read once
// it exits, can hold its parent's peak from before its exec (Linux's
// does), which would be the bench's own memory, not novad's.
func childMemory(pid int) (procMem, error) {
	rss, err := psRSS(pid)
	return procMem{RSS: rss}, err
}

// childCPU is only implemented on Linux.
func childCPU(int) (time.Duration, error) {
	return 0, errors.New("reading another process' CPU time is only implemented on Linux")
}
