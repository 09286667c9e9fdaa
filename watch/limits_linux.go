package watch

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/nova-recall/nova/freshness"
)

// On Linux every watched folder costs one inotify watch, whatever it
// holds: files are covered by their folder's watch.
const budgetLimit = freshness.LimitInotifyWatches

func watchCost(string) (int, error) { return 1, nil }

// defaultBudget is half of fs.inotify.max_user_watches: the limit is
// shared by every program of the user (editors and IDEs spend many), so
// the watcher leaves them the other half.
func defaultBudget() int {
	if n := inotifyMaxWatches(); n > 0 {
		return max(n/2, 1)
	}
	return 0
}

func inotifyMaxWatches() int { return inotifySetting("max_user_watches") }

// inotifySetting reads /proc/sys/fs/inotify/<name>; 0 when unknown.
func inotifySetting(name string) int {
	b, err := os.ReadFile("/proc/sys/fs/inotify/" + name)
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return n
}

func inotifyMessage() string {
	return fmt.Sprintf("the inotify watch limit (fs.inotify.max_user_watches = %d) is reached; folders beyond it are rescanned instead of watched. Raise it: sudo sysctl fs.inotify.max_user_watches=524288 (and in /etc/sysctl.d to keep it)", inotifyMaxWatches())
}

func budgetMessage(budget int) string {
	return fmt.Sprintf("the watcher uses at most half of fs.inotify.max_user_watches (%d of %d) and has used them; folders beyond it are rescanned instead of watched. Raise it: sudo sysctl fs.inotify.max_user_watches=524288 (and in /etc/sysctl.d to keep it)", budget, inotifyMaxWatches())
}

// notifierLimit names the limit that kept a notifier from being made:
// inotify_init1 fails with EMFILE once the user has
// fs.inotify.max_user_instances notifiers (editors and tools take many).
func notifierLimit(err error) (name string, value int, msg string) {
	if errors.Is(err, syscall.EMFILE) {
		n := inotifySetting("max_user_instances")
		return freshness.LimitInotifyInstances, n, fmt.Sprintf("the inotify instance limit (fs.inotify.max_user_instances = %d) is reached: this watcher has no file system notifications and rescans every folder instead. Raise it: sudo sysctl fs.inotify.max_user_instances=1024 (and in /etc/sysctl.d to keep it), then restart the watcher", n)
	}
	return freshness.LimitOpenFiles, openFilesLimit(), openFilesMessage()
}
