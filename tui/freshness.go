package tui

import (
	"fmt"
	"time"

	"github.com/nova-recall/nova/api"
)

// freshnessPart is the status header's word on how current memory is,
// from the report's freshness: "memory fresh (caught up 12s ago)" while
// the source watcher runs and nothing waits, "memory catching up (lag
// 4s)" while a change waits for its sync, "no active index" while it runs
// with no index active (its lag then grows without anything to catch up
// with), and "watcher off" when no watcher runs (memory then changes only
// with novactl index sync). Times are relative to when the report was
// made, so a frozen report does not pretend to age. "" when the report
// has no freshness.
func freshnessPart(f *api.Freshness, checkedAt string, st styles) string {
	if f == nil {
		return ""
	}
	if !f.Watcher.Running {
		return st.muted.Render("watcher off")
	}
	if f.Status == api.FreshnessMissing {
		return st.degraded.Render("no active index")
	}
	if f.LagSeconds != nil && *f.LagSeconds > 0 {
		lag := time.Duration(*f.LagSeconds * float64(time.Second)).Round(time.Second)
		return st.degraded.Render(fmt.Sprintf("memory catching up (lag %s)", lag))
	}
	word := st.ready.Render("memory fresh")
	at, err1 := time.Parse(time.RFC3339, checkedAt)
	if f.IndexCaughtUpAt == nil || err1 != nil {
		return word
	}
	caught, err := time.Parse(time.RFC3339, *f.IndexCaughtUpAt)
	if err != nil {
		return word
	}
	return word + st.muted.Render(" (caught up "+shortAgo(at.Sub(caught))+")")
}

func shortAgo(d time.Duration) string {
	switch {
	case d < time.Second:
		return "just now"
	case d < time.Minute:
		return fmt.Sprintf("%ds ago", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return fmt.Sprintf("%dd ago", int(d.Hours()/24))
}
