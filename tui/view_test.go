package tui

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/doctor"
	"github.com/nova-recall/nova/internal/golden"
)

// TestView compares whole screens at 80x24 without colour against
// testdata/TestView/<case>.golden. Run with -update to rewrite them.
func TestView(t *testing.T) {
	notRunning := func(api.SearchBody) (*api.SearchResponse, error) {
		return nil, fmt.Errorf("%w: dial tcp 127.0.0.1:7412: connect: connection refused", ErrNotRunning)
	}
	unavailable := func(b api.SearchBody) (*api.SearchResponse, error) {
		return api.Unavailable(b.Query, 5, api.ReasonIndexNotLoaded), nil
	}
	empty := func(b api.SearchBody) (*api.SearchResponse, error) { return emptyFixture(b.Query), nil }
	cases := []struct {
		name   string
		report doctor.Report
		answer func(api.SearchBody) (*api.SearchResponse, error)
		keys   []string
	}{
		{name: "status_blocked", report: blockedReport()},
		{name: "search_focused", report: readyReport(), keys: []string{"/", "dashboard port"}},
		{name: "results", report: readyReport(), keys: []string{"/", "dashboard port", "enter", "down"}},
		{name: "detail", report: readyReport(), keys: []string{"/", "dashboard port", "enter", "enter"}},
		{name: "detail_scrolled", report: readyReport(), keys: []string{"/", "dashboard port", "enter", "enter", "pgdown"}},
		{name: "unavailable", report: readyReport(), answer: unavailable, keys: []string{"/", "dashboard port", "enter"}},
		{name: "not_running", report: blockedReport(), answer: notRunning, keys: []string{"/", "dashboard port", "enter"}},
		{name: "no_matches", report: readyReport(), answer: empty, keys: []string{"/", "zebra giraffe", "enter"}},
		{name: "filters_form", report: readyReport(), keys: []string{"f", "infra", "tab", "tab", "2026-13-01", "enter"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := started(t, &fakeBackend{report: c.report, answer: c.answer})
			m = press(t, m, c.keys...)
			golden.Check(t, filepath.Join("testdata", t.Name()+".golden"), []byte(normalize(m.View())))
		})
	}
}

// normalize drops trailing spaces, which lipgloss pads lines with, and
// ends the screen with a newline.
func normalize(view string) string {
	lines := strings.Split(view, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n") + "\n"
}

func TestReflow(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"hard-wrapped paragraph", "one two\nthree four", "one two three four"},
		{"paragraphs", "one\ntwo\n\nthree", "one two\n\nthree"},
		{"list", "Steps:\n- one\n- two\n  more", "Steps:\n- one\n- two\n  more"},
		{"numbered", "Do:\n1. this\n2) that", "Do:\n1. this\n2) that"},
		{"heading", "# Title\ntext\nmore", "# Title\ntext more"},
		{"fence", "run:\n```\na\nb\n```\ndone", "run:\n```\na\nb\n```\ndone"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := reflow(c.in); got != c.want {
				t.Fatalf("reflow(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}
