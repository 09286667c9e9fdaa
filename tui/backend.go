// Package tui is novactl's terminal UI, a Bubble Tea v1 program: a status
// pane with the doctor checks (re-polled every few seconds), a search box
// with filters, a result list and a detail view with the citation, score
// components, provenance, governance and quality flags.
//
// The package keeps a strict Elm split: the Model holds state (model.go),
// Update changes it without doing I/O (update.go), View renders it
// (view.go), and every I/O step is a tea.Cmd (cmds.go) that talks to a
// Backend and answers with a typed message (msgs.go). It never imports the
// client or the daemon; novactl-tui passes in a Backend built on them, and
// Run runs the program (run.go).
package tui

import (
	"context"
	"errors"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/doctor"
)

// Backend is what the TUI needs from Nova. Implementations must be safe for
// concurrent use: a status poll and a search may run at the same time.
type Backend interface {
	// Status runs the doctor checks. An error means no report could be made
	// at all; a report with Blocked checks is not an error.
	Status(ctx context.Context) (doctor.Report, error)
	// Search runs one search on the facade. It returns the envelope for
	// every answer novad gives, including unavailable ones, and an error
	// only when no envelope came back. An error that matches
	// api.ErrNotRunning means nothing answered at novad's address.
	Search(ctx context.Context, body api.SearchBody) (*api.SearchResponse, error)
}

// isNotRunning reports whether err says novad did not answer, so the TUI
// can say so plainly and suggest how to start it.
func isNotRunning(err error) bool { return errors.Is(err, api.ErrNotRunning) }
