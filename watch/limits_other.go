//go:build !linux && !darwin && !freebsd && !openbsd && !netbsd && !dragonfly

package watch

import "github.com/nova-recall/nova/freshness"

const budgetLimit = freshness.LimitOpenFiles

func watchCost(string) (int, error) { return 1, nil }

func defaultBudget() int { return 0 }

func inotifyMaxWatches() int { return 0 }

func inotifyMessage() string { return "inotify is not used on this platform" }

func budgetMessage(budget int) string {
	return "the watch budget is used up; folders beyond it are rescanned instead of watched"
}

// notifierLimit names the limit that kept a notifier from being made:
// the open file limit.
func notifierLimit(error) (name string, value int, msg string) {
	return freshness.LimitOpenFiles, openFilesLimit(), openFilesMessage()
}
