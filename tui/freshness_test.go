package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/nova-recall/nova/api"
)

func TestFreshnessInStatusHeader(t *testing.T) {
	caught := "2026-11-30T08:22:26Z" // 12 s before the report's CheckedAt
	cases := []struct {
		name string
		f    *api.Freshness
		want string
	}{
		{"no freshness", nil, "Nova · Ready · checked"},
		{"watcher off", &api.Freshness{IndexCaughtUpAt: &caught}, "Nova · Ready · watcher off · checked"},
		{"fresh", &api.Freshness{IndexCaughtUpAt: &caught, LagSeconds: ptr(0.0), Watcher: api.WatcherStatus{Running: true}},
			"Nova · Ready · memory fresh (caught up 12s ago) · checked"},
		{"catching up", &api.Freshness{IndexCaughtUpAt: &caught, LagSeconds: ptr(3.6), Watcher: api.WatcherStatus{Running: true}},
			"Nova · Ready · memory catching up (lag 4s) · checked"},
		// A watcher whose syncs cannot build a first index (its sources
		// hold nothing yet) catches up with nothing.
		{"no index", &api.Freshness{Status: api.FreshnessMissing, LagSeconds: ptr(3.0), Watcher: api.WatcherStatus{Running: true}},
			"Nova · Ready · no active index · checked"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rep := readyReport()
			rep.Freshness = c.f
			m := started(t, &fakeBackend{report: rep})
			first := ansi.Strip(strings.SplitN(m.View(), "\n", 2)[0])
			if !strings.HasPrefix(first, c.want) {
				t.Fatalf("header %q, want it to start with %q", first, c.want)
			}
		})
	}
}
