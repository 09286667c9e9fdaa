//go:build !unix

package bench

import (
	"errors"
	"time"
)

func selfMemory() (rss, peak int64) { return 0, 0 }

func resetPeak() bool { return false }

const peakMethod = "unavailable on this platform"

func childMemory(int) (procMem, error) {
	return procMem{}, errors.New("reading another process' memory is only implemented on Linux")
}

func childCPU(int) (time.Duration, error) {
	return 0, errors.New("reading another process' CPU time is only implemented on Linux")
}
