package tui

import (
	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/doctor"
)

// statusMsg carries one doctor report (or the reason there is none).
type statusMsg struct {
	report doctor.Report
	err    error
}

// statusTickMsg says it is time to poll the status again.
type statusTickMsg struct{}

// searchDoneMsg carries the answer to the search numbered seq. Answers to
// searches other than the latest are dropped.
type searchDoneMsg struct {
	seq  int
	body api.SearchBody
	resp *api.SearchResponse
	err  error
}
