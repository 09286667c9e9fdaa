//go:build darwin || freebsd || openbsd || netbsd || dragonfly

package watch

import (
	"fmt"

	"github.com/nova-recall/nova/freshness"
)

// kqueue (macOS, BSD) holds one open file descriptor per watched folder
// and per entry of it: fsnotify watches every file of a watched folder to
// see writes to it. So the budget is descriptors.
const budgetLimit = freshness.LimitOpenFiles

func watchCost(dir string) (int, error) { return kqueueCost(dir) }

// defaultBudget leaves a quarter of the descriptor limit (at least 256)
// for the sync itself, which opens source files, generation files and
// the connection to novad.
func defaultBudget() int {
	n := openFilesLimit()
	if n <= 0 {
		return 0
	}
	return max(n-max(256, n/4), 1)
}

func inotifyMaxWatches() int { return 0 }

func inotifyMessage() string { return "inotify is not used on this platform" }

func budgetMessage(budget int) string {
	return fmt.Sprintf("watching more folders would need more than %d open files (kqueue holds one per watched file; the limit is %d); folders beyond it are rescanned instead of watched. Raise it: sudo launchctl limit maxfiles 65536 200000, then restart the watcher", budget, openFilesLimit())
}

// notifierLimit names the limit that kept a notifier from being made:
// the open file limit.
func notifierLimit(error) (name string, value int, msg string) {
	return freshness.LimitOpenFiles, openFilesLimit(), openFilesMessage()
}
