package tui

// The results pane: the quality verdict, one row per result, and what
// stands in for results when a search got none.

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/doctor"
	"github.com/nova-recall/nova/truncate"
)

// qualityLines is the verdict above a non-empty result list.
func (m Model) qualityLines() []string {
	if m.screen == screenFilters || m.resp == nil || !m.resp.Available || len(m.resp.Results) == 0 {
		return nil
	}
	st := m.styles
	q := m.resp.Quality
	needs := st.ready.Render("needsMoreEvidence false")
	if q.NeedsMoreEvidence {
		needs = st.advice.Render("needsMoreEvidence true")
	}
	line := fmt.Sprintf("%s %s · %s · %d result(s) of %d indexed", st.label.Render("Quality"), verdict(st, q.Status), needs, len(m.resp.Results), m.resp.TotalIndexed)
	lines := []string{line}
	if len(q.Recommendations) > 0 {
		lines = append(lines, st.advice.Render("  try: "+strings.Join(q.Recommendations, "; ")))
	}
	return lines
}

// verdict colours a quality status.
func verdict(st styles, status string) string {
	switch status {
	case "strong", "sufficient":
		return st.ready.Render(status)
	case "insufficient", "":
		return st.advice.Render(orDash(status))
	}
	return st.degraded.Render(status)
}

// bodyLines renders the result list, or what stands in for it: a hint,
// "Searching…", or why there are no results and what to do.
func (m Model) bodyLines(rows int) []string {
	st := m.styles
	switch {
	case m.searching:
		return []string{st.muted.Render(fmt.Sprintf("Searching for %s… (esc cancels)", quoted(m.lastBody.Query)))}
	case errors.Is(m.searchErr, errEmptyQuery):
		return m.wrapped("Nothing to search for: the search box is empty.", "Type a question or a few words, then press Enter.")
	case errors.Is(m.searchErr, errSearchCancelled):
		return m.wrapped(fmt.Sprintf("Search for %s cancelled.", quoted(m.lastBody.Query)), "Press / and Enter to run it again.")
	case m.searchErr != nil:
		return m.failureLines()
	case m.resp == nil:
		return []string{
			st.muted.Render("Press / to search your memory, type a query and press Enter."),
			st.muted.Render("f sets filters: project, agent, dates, source sets and how many results."),
		}
	case !m.resp.Available:
		return m.unavailableLines()
	case len(m.resp.Results) == 0:
		return m.emptyLines()
	}
	res := m.resp.Results
	lines := make([]string, 0, rows)
	for i := m.offset; i < len(res) && i < m.offset+rows; i++ {
		lines = append(lines, m.resultRow(i))
	}
	return lines
}

// resultRow renders one result on one line: rank, citation, source, date,
// score and the start of its text.
func (m Model) resultRow(i int) string {
	st := m.styles
	r := m.resp.Results[i]
	cols := []string{
		fitCells(m.citationFor(i).CitationID, 4),
		fitCells(api.StringOr(r.Source, "memory"), 10),
		fitCells(api.StringOr(r.Date, "undated"), 10),
	}
	score := fmt.Sprintf("%6.3f", r.Score)
	// The selection mark, the rank, the columns and the score. In a
	// narrow window the columns give way to the text, the date first
	// (the detail view has them all): otherwise they took the whole row,
	// and no row showed what it was about. The choice depends on the
	// width only, so the columns line up from row to row.
	head := func() string { return fmt.Sprintf("%2d ", i+1) + strings.Join(append(cols, ""), " ") }
	used := func() int { return 2 + ansi.StringWidth(head()) + len(score) + 2 }
	for len(cols) > 0 && m.width-used() < minPreviewCells {
		cols = cols[:len(cols)-1]
	}
	room := max(m.width-used(), 1)
	preview := truncate.Width(oneLine(previewOf(r)), room)
	// An older version of a subject listed like the newest reads as
	// what is so now: its row says so first (the detail view says by
	// which id).
	mark, styledMark := "", ""
	if r.Superseded {
		mark = truncate.Width(supersededMark, room)
		styledMark = st.degraded.Render(mark)
		preview = truncate.Width(oneLine(previewOf(r)), max(room-ansi.StringWidth(mark), 0))
	}
	if i == m.cursor && !m.input.Focused() {
		return st.selected.Render("› " + head() + score + "  " + mark + preview)
	}
	return "  " + head() + st.score.Render(score) + "  " + styledMark + preview
}

// supersededMark starts the text of a superseded result's row.
const supersededMark = "superseded · "

// minPreviewCells is the least room a result row keeps for its text
// while it has columns to give up.
const minPreviewCells = 16

// failureLines say why a search got no answer at all, and what to do.
func (m Model) failureLines() []string {
	st := m.styles
	if isNotRunning(m.searchErr) && m.reportSaysNovadHeld() {
		// A novad holds the home but has not bound its ports: starting
		// one would only stand by; the status pane says what to do.
		return m.wrapped(
			st.errorText.Render("novad did not answer, so nothing could be searched."),
			"A novad holds this home but does not serve it yet: the status pane above says why and what to do. Then press / and Enter to search again.",
		)
	}
	if isNotRunning(m.searchErr) {
		start := "Start it with novactl service install (it then runs at login), or run novad in a terminal."
		if advice := m.reportSaysNovadStopped(); advice != "" {
			// Doctor knows how novad is installed here: novactl service
			// install refuses while Homebrew runs it.
			start = sentence(oneLine(advice))
		}
		return m.wrapped(
			st.errorText.Render("novad is not running, so nothing could be searched."),
			start+" The status pane turns Ready when it answers; then press / and Enter to search again.",
		)
	}
	if errors.Is(m.searchErr, context.DeadlineExceeded) {
		// The search's own time limit: say so, as novactl search does,
		// not the HTTP client's "Post …: context deadline exceeded".
		return m.wrapped(
			st.errorText.Render(fmt.Sprintf("novad did not answer within %s, so the search was given up.", m.searchTimeout)),
			"novad may be busy or stuck: the status pane above (or novactl doctor) says whether it answers; press / and Enter to try again.",
		)
	}
	return m.wrapped(
		st.errorText.Render("Search failed: ")+oneLine(m.searchErr.Error()),
		"The status pane above (or novactl doctor) shows what is wrong; press / and Enter to try again.",
	)
}

// unavailableLines explain an envelope with available=false.
func (m Model) unavailableLines() []string {
	reason := ""
	if m.resp.Reason != nil {
		reason = *m.resp.Reason
	}
	a := api.AdviceFor(reason)
	if reason == api.ReasonIndexNotLoaded || reason == api.FreshnessMissing {
		// Where the sources hold nothing to index, novactl index sync
		// only fails: doctor says what to fix first.
		if advice := m.reportAdvice(indexCheckID, doctor.CodeIndexMissing); advice != "" {
			a.Do = sentence(oneLine(advice))
		}
	}
	head := m.styles.errorText.Render("Search unavailable: ") + a.What
	if reason != "" {
		head += m.styles.muted.Render(" (" + reason + ")")
	}
	if api.RefusedAsInvalid(reason) && m.resp.Error != "" {
		// novad's own words: the advice is per family of reasons and
		// points to them ("the field the error names").
		head += "\n" + m.styles.label.Render("Error: ") + oneLine(m.resp.Error)
	}
	return m.wrapped(head, a.Do, reason)
}

// emptyLines explain an answer with no results.
func (m Model) emptyLines() []string {
	st := m.styles
	q := m.resp.Quality
	lines := m.wrapped(
		fmt.Sprintf("No memory matched %s. Quality %s · needsMoreEvidence %t.", quoted(m.resp.Query), verdict(st, q.Status), q.NeedsMoreEvidence),
		"Try other words, or loosen the filters (f).",
	)
	if len(q.MissingTerms) > 0 {
		lines = append(lines, m.indented("missing terms: "+strings.Join(q.MissingTerms, ", "), st.muted)...)
	}
	if len(q.Recommendations) > 0 {
		lines = append(lines, m.indented("recommendations: "+strings.Join(q.Recommendations, "; "), st.muted)...)
	}
	return lines
}

// wrapped renders a headline and an advice line, each wrapped to the width;
// codes in the headline are kept whole.
func (m Model) wrapped(head, advice string, codes ...string) []string {
	lines := strings.Split(wrapKeeping(head, m.width, codes...), "\n")
	for _, l := range strings.Split(wrapAdvice("→ "+advice, m.width-2), "\n") {
		lines = append(lines, m.styles.advice.Render("  "+l))
	}
	return lines
}

// indented wraps s to the width under a two-space indent, in style.
func (m Model) indented(s string, style lipgloss.Style) []string {
	var lines []string
	for _, l := range strings.Split(wrapAdvice(s, max(m.width-2, 10)), "\n") {
		lines = append(lines, style.Render("  "+l))
	}
	return lines
}

// previewOf is the text a result row shows.
func previewOf(r api.Result) string {
	if r.TextPreview != "" {
		return r.TextPreview
	}
	if r.Text != nil {
		return *r.Text
	}
	return r.Title
}

// sentence is doctor's advice (lower case, no period) as a sentence.
func sentence(s string) string {
	if s == "" {
		return s
	}
	s = strings.ToUpper(s[:1]) + s[1:]
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}
