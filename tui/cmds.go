package tui

import (
	"context"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/inert"
)

// fetchStatus runs the doctor checks through b, bounded by timeout. Like
// every answer from outside, the report is made inert before it is shown.
func fetchStatus(b Backend, timeout time.Duration) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		rep, err := b.Status(ctx)
		inert.Value(&rep)
		return statusMsg{report: rep, err: err}
	}
}

// tickStatus waits d, once, then asks for the next status poll. Update
// re-arms it after each report, so exactly one poll loop runs.
func tickStatus(d time.Duration) tea.Cmd {
	return tea.Tick(d, func(time.Time) tea.Msg { return statusTickMsg{} })
}

// runSearch sends body through b, bounded by timeout and stopped when ctx
// is cancelled, and answers with the search's sequence number so stale
// answers can be told apart.
func runSearch(ctx context.Context, b Backend, seq int, body api.SearchBody, timeout time.Duration) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		resp, err := b.Search(ctx, body)
		inert.Value(resp)
		return searchDoneMsg{seq: seq, body: body, resp: resp, err: err}
	}
}
