//go:build unix

package bench

import (
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// psRSS returns process pid's resident set size in bytes, read from
// ps(1): macOS has no /proc, and its per-process usage call is not in
// Go's syscall package. ps is in every macOS install; -o rss= prints
// kilobytes without a header there and on Linux.
func psRSS(pid int) (int64, error) {
	// ps answers at once; the bound keeps a stuck one from holding the
	// run, which reads memory between its timed phases.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "ps", "-o", "rss=", "-p", strconv.Itoa(pid)).Output()
	if err != nil {
		// ps exits 1 when no process has pid.
		return 0, fmt.Errorf("ps -p %d: %w", pid, err)
	}
	kb, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("ps -p %d: rss %q: %w", pid, out, err)
	}
	return kb * 1024, nil
}
