package tui

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/doctor"
)

// View renders the model. It reads the model only.
func (m Model) View() string {
	if m.quitting {
		return ""
	}
	var lines []string
	if m.screen == screenDetail {
		lines = m.detailView()
	} else {
		lines = m.mainView()
	}
	return fitLines(lines, m.width, m.height)
}

// layout is how the main screen's rows are shared out.
type layout struct {
	statusRows int // check lines in the status pane (below its header)
	bodyRows   int // rows under the filter row, above the help
	resultRows int // result rows within the body
	helpRows   int
}

// Fixed rows of the main screen: the status header, the separator, the
// search box and the filter row.
const fixedRows = 4

// minBodyRows is what the status pane leaves for results at the least.
const minBodyRows = 6

func (m Model) layout() layout {
	l := layout{helpRows: m.helpHeight()}
	avail := max(m.height-fixedRows-l.helpRows, 0)
	l.statusRows = max(1, min(m.statusRowsWanted(), avail-minBodyRows))
	l.bodyRows = max(avail-l.statusRows, 0)
	l.resultRows = max(l.bodyRows-len(m.qualityLines()), 0)
	return l
}

// helpHeight is the number of rows the help takes.
func (m Model) helpHeight() int {
	return strings.Count(m.helpView(), "\n") + 1
}

// helpView renders the help for the current screen and focus.
func (m Model) helpView() string {
	if m.help.ShowAll && !m.typing() {
		return m.help.FullHelpView(m.keys.fullHelp())
	}
	var b []key.Binding
	switch {
	case m.screen == screenDetail:
		b = m.keys.detailHelp()
	case m.screen == screenFilters:
		b = m.keys.formHelp()
	case m.input.Focused():
		b = m.keys.searchHelp()
	default:
		b = m.keys.listHelp(len(m.results()) > 0)
	}
	return m.help.ShortHelpView(b)
}

// mainView renders the status pane, the search box, the filter row, and the
// results (or the filter form).
func (m Model) mainView() []string {
	l := m.layout()
	lines := []string{m.statusHeader()}
	lines = append(lines, m.statusLines(l.statusRows)...)
	lines = append(lines, m.styles.muted.Render(strings.Repeat("─", m.width)))
	lines = append(lines, m.input.View())
	lines = append(lines, m.filterRow())
	var body []string
	if m.screen == screenFilters {
		body = m.formLines()
	} else {
		body = append(m.qualityLines(), m.bodyLines(l.resultRows)...)
	}
	lines = append(lines, padLines(body, l.bodyRows)...)
	return append(lines, strings.Split(m.helpView(), "\n")...)
}

// statusHeader is the first line: Nova's overall state and when it was
// checked.
func (m Model) statusHeader() string {
	st := m.styles
	parts := []string{st.title.Render("Nova")}
	switch {
	case m.report != nil:
		r := m.report
		word := r.Status
		switch r.Status {
		case doctor.Ready:
			word = st.ready.Render(word)
		case doctor.Degraded:
			word = st.degraded.Render(word)
		case doctor.Blocked:
			word = st.errorText.Render(word)
		}
		parts = append(parts, word)
		if r.Blocked+r.Degraded > 0 {
			parts = append(parts, fmt.Sprintf("%d blocked, %d degraded", r.Blocked, r.Degraded))
		}
		if t, err := time.Parse(time.RFC3339, r.CheckedAt); err == nil {
			parts = append(parts, st.muted.Render("checked "+t.Local().Format("15:04:05")))
		}
	case m.statusErr == nil:
		parts = append(parts, st.muted.Render("checking…"))
	default:
		parts = append(parts, st.errorText.Render("status unknown"))
	}
	if m.statusInFlight && m.report != nil {
		parts = append(parts, st.muted.Render("refreshing…"))
	}
	return strings.Join(parts, " · ")
}

// checkView is one doctor check rendered two ways: on one line (advice cut
// at the window's edge), and in full (advice wrapped under the finding).
type checkView struct {
	state   string
	compact string
	full    []string
}

// checkViews renders the report's checks.
func (m Model) checkViews() []checkView {
	if m.report == nil {
		return nil
	}
	out := make([]checkView, 0, len(m.report.Checks))
	for _, c := range m.report.Checks {
		head, advice := m.checkLine(c)
		v := checkView{state: c.State, compact: head, full: []string{head}}
		if advice != "" {
			v.compact = head + m.styles.advice.Render(" → "+advice)
			if ansi.StringWidth(v.compact) > m.width {
				for _, l := range strings.Split(ansi.Wrap("→ "+advice, max(m.width-6, 10), ""), "\n") {
					v.full = append(v.full, m.styles.advice.Render("      "+l))
				}
			} else {
				v.full = []string{v.compact}
			}
		}
		out = append(out, v)
	}
	return out
}

// statusRowsWanted is how many rows the status pane would use with every
// check in full.
func (m Model) statusRowsWanted() int {
	views := m.checkViews()
	if len(views) == 0 {
		return 1
	}
	n := 0
	for _, v := range views {
		n += len(v.full)
	}
	if m.statusErr != nil {
		n++
	}
	return n
}

// statusLines renders the status pane in at most n rows. When everything
// does not fit, advice is cut to one line, Blocked checks keep theirs
// longest, and if the checks still do not fit the ones that are not Ready
// come first and the rest are counted.
func (m Model) statusLines(n int) []string {
	views := m.checkViews()
	if len(views) == 0 {
		if m.statusErr != nil {
			return []string{m.styles.errorText.Render("  ✗ status check failed: ") + oneLine(m.statusErr.Error())}
		}
		return []string{m.styles.muted.Render("  Running the doctor checks…")}
	}
	var lines []string
	if m.statusErr != nil {
		lines = append(lines, m.styles.errorText.Render("  ✗ status check failed: ")+oneLine(m.statusErr.Error())+m.styles.muted.Render(" (last report below)"))
		n--
	}
	if m.statusRowsWanted()-len(lines) <= n {
		for _, v := range views {
			lines = append(lines, v.full...)
		}
		return lines
	}
	if len(views) <= n {
		// Every check fits on one line; spend what is left on advice,
		// Blocked checks first.
		spare := n - len(views)
		expand := make([]bool, len(views))
		for _, state := range []string{doctor.Blocked, doctor.Degraded} {
			for i, v := range views {
				if v.state == state && len(v.full) > 1 && len(v.full)-1 <= spare {
					expand[i], spare = true, spare-(len(v.full)-1)
				}
			}
		}
		for i, v := range views {
			if expand[i] {
				lines = append(lines, v.full...)
			} else {
				lines = append(lines, v.compact)
			}
		}
		return lines
	}
	var order []checkView
	for _, state := range []string{doctor.Blocked, doctor.Degraded, doctor.Ready} {
		for _, v := range views {
			if v.state == state || (state == doctor.Ready && v.state != doctor.Blocked && v.state != doctor.Degraded) {
				order = append(order, v)
			}
		}
	}
	if n <= 1 {
		// One row: the worst check, or the all-clear.
		if order[0].state == doctor.Blocked || order[0].state == doctor.Degraded {
			return append(lines, order[0].compact)
		}
		return append(lines, m.styles.ready.Render(fmt.Sprintf("  ✓ all %d checks Ready", len(order))))
	}
	shown := n - 1
	for _, v := range order[:shown] {
		lines = append(lines, v.compact)
	}
	return append(lines, m.styles.muted.Render(fmt.Sprintf("  … %d more check(s); enlarge the window to see them", len(order)-shown)))
}

// checkTitleWidth fits the longest doctor title ("Loopback-only boundary").
const checkTitleWidth = 23

// checkLine renders one check's mark, title and finding, and returns its
// advice (for a check that is not Ready) separately. A Blocked or Degraded
// check's code is highlighted.
func (m Model) checkLine(c doctor.Check) (line, advice string) {
	st := m.styles
	title := ansi.Truncate(c.Title, checkTitleWidth, "…")
	title += strings.Repeat(" ", max(checkTitleWidth-ansi.StringWidth(title), 0))
	switch c.State {
	case doctor.Ready:
		return st.ready.Render("  ✓ ") + title + " " + st.muted.Render(oneLine(c.Message)), ""
	case doctor.Degraded, doctor.Blocked:
		mark, word := st.degraded.Render("  ! "), st.degraded.Render(c.State)
		code := st.degraded.Render(c.Code)
		if c.State == doctor.Blocked {
			mark, word, code = st.errorText.Render("  ✗ "), st.errorText.Render(c.State), st.blocked.Render(c.Code)
		}
		rest := strings.TrimPrefix(strings.TrimPrefix(c.Message, c.State+": "+c.Code), ":")
		finding := word + ": " + code
		if rest = strings.TrimSpace(rest); rest != "" {
			finding += ": " + oneLine(rest)
		}
		return mark + title + " " + finding, oneLine(c.Advice)
	}
	return "  ? " + title + " " + oneLine(c.Message), ""
}

// filterRow summarises the filters the next search uses.
func (m Model) filterRow() string {
	f := m.filters
	var set []string
	if f.Project != "" {
		set = append(set, "project "+f.Project)
	}
	if f.Agent != "" {
		set = append(set, "agent "+f.Agent)
	}
	switch {
	case f.DateFrom != "" && f.DateTo != "":
		set = append(set, "dates "+f.DateFrom+".."+f.DateTo)
	case f.DateFrom != "":
		set = append(set, "since "+f.DateFrom)
	case f.DateTo != "":
		set = append(set, "until "+f.DateTo)
	}
	if len(f.SourceSets) > 0 {
		set = append(set, "sources "+strings.Join(f.SourceSets, ","))
	}
	set = append(set, fmt.Sprintf("top %d", f.TopK))
	label := m.styles.label.Render("Filters ")
	if len(set) == 1 {
		return label + m.styles.muted.Render("none · "+set[0]+" · f edits")
	}
	return label + strings.Join(set, " · ") + m.styles.muted.Render(" · f edits")
}

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
		return []string{st.muted.Render(fmt.Sprintf("Searching for %q…", m.lastBody.Query))}
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
	cid := m.citationFor(i).CitationID
	head := fmt.Sprintf("%2d %-4s %-10s %-10s ", i+1, cid, ansi.Truncate(api.StringOr(r.Source, "memory"), 10, "…"), api.StringOr(r.Date, "undated"))
	score := fmt.Sprintf("%6.3f", r.Score)
	used := 2 + ansi.StringWidth(head) + len(score) + 2
	preview := ansi.Truncate(oneLine(previewOf(r)), max(m.width-used, 1), "…")
	if i == m.cursor && !m.input.Focused() {
		return st.selected.Render("› " + head + score + "  " + preview)
	}
	return "  " + head + st.score.Render(score) + "  " + preview
}

// failureLines say why a search got no answer at all, and what to do.
func (m Model) failureLines() []string {
	st := m.styles
	if isNotRunning(m.searchErr) {
		return m.wrapped(
			st.errorText.Render("novad is not running, so nothing could be searched."),
			"Start it with novactl service install (it then runs at login), or run novad in a terminal. The status pane turns Ready when it answers; then press / and Enter to search again.",
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
	head := m.styles.errorText.Render("Search unavailable: ") + a.What
	if reason != "" {
		head += m.styles.muted.Render(" (" + reason + ")")
	}
	return m.wrapped(head, a.Do)
}

// emptyLines explain an answer with no results.
func (m Model) emptyLines() []string {
	st := m.styles
	q := m.resp.Quality
	lines := m.wrapped(
		fmt.Sprintf("No memory matched %q. Quality %s · needsMoreEvidence %t.", m.resp.Query, verdict(st, q.Status), q.NeedsMoreEvidence),
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

// wrapped renders a headline and an advice line, each wrapped to the width.
func (m Model) wrapped(head, advice string) []string {
	lines := strings.Split(ansi.Wrap(head, m.width, ""), "\n")
	for _, l := range strings.Split(ansi.Wrap("→ "+advice, m.width-2, ""), "\n") {
		lines = append(lines, m.styles.advice.Render("  "+l))
	}
	return lines
}

// indented wraps s to the width under a two-space indent, in style.
func (m Model) indented(s string, style lipgloss.Style) []string {
	var lines []string
	for _, l := range strings.Split(ansi.Wrap(s, max(m.width-2, 10), " ;,"), "\n") {
		lines = append(lines, style.Render("  "+l))
	}
	return lines
}

// formLines renders the filter form.
func (m Model) formLines() []string {
	st := m.styles
	lines := []string{st.section.Render("Edit filters") + st.muted.Render("  (tab moves, enter applies, esc cancels)")}
	for i, in := range m.form.inputs {
		label := fmt.Sprintf("%-*s", formLabelWidth, fieldLabels[i])
		if i == m.form.focus {
			lines = append(lines, st.focused.Render("› "+label)+" "+in.View())
		} else {
			lines = append(lines, "  "+st.label.Render(label)+" "+in.View())
		}
	}
	if m.form.err != "" {
		lines = append(lines, m.wrapped(st.errorText.Render("Not applied: ")+m.form.err, "Fix the field, or press ctrl+r to clear every filter.")...)
	}
	return lines
}

// detailView renders one result in full: a header, the scrollable body and
// the help.
func (m Model) detailView() []string {
	res := m.results()
	if len(res) == 0 {
		return []string{"No result selected."}
	}
	r := res[m.cursor]
	c := m.citationFor(m.cursor)
	header := fmt.Sprintf("%s · result %d of %d · %s · relevance %.3f",
		m.styles.title.Render("Nova"), m.cursor+1, len(res), m.styles.citation.Render(c.CitationID), r.Score)
	if c.Confidence != "" {
		header += " · confidence " + c.Confidence
	}
	if !(m.detail.AtTop() && m.detail.AtBottom()) {
		header += m.styles.muted.Render(fmt.Sprintf(" · %d%%", int(m.detail.ScrollPercent()*100)))
	}
	lines := []string{header}
	lines = append(lines, strings.Split(m.detail.View(), "\n")...)
	return append(lines, strings.Split(m.helpView(), "\n")...)
}

// detailContent renders the scrollable body of the detail view for the
// selected result. Update calls it when the view opens or resizes.
func (m Model) detailContent() string {
	res := m.results()
	if len(res) == 0 {
		return ""
	}
	st := m.styles
	w := max(m.width, 20)
	r := res[m.cursor]
	c := m.citationFor(m.cursor)
	var b []string
	add := func(s ...string) { b = append(b, s...) }
	para := func(text string) {
		for _, l := range strings.Split(ansi.Wrap(strings.TrimSpace(text), w-2, ""), "\n") {
			add("  " + l)
		}
	}
	field := func(name, value string) {
		for i, l := range strings.Split(ansi.Wrap(value, max(w-12, 10), "/"), "\n") {
			if i == 0 {
				add("  " + st.label.Render(fmt.Sprintf("%-9s", name)) + " " + l)
			} else {
				add("            " + l)
			}
		}
	}

	if r.Title != "" {
		add(st.section.Render(r.Title))
	}
	meta := []string{api.StringOr(r.Source, "memory"), api.StringOr(r.Date, "undated")}
	if r.Project != nil && *r.Project != "" {
		meta = append(meta, "project "+*r.Project)
	}
	if r.Agent != nil && *r.Agent != "" {
		meta = append(meta, "agent "+*r.Agent)
	}
	if r.WorkType != nil && *r.WorkType != "" {
		meta = append(meta, *r.WorkType)
	}
	if len(r.Tags) > 0 {
		meta = append(meta, "tags "+strings.Join(r.Tags, ","))
	}
	add(st.muted.Render(strings.Join(meta, " · ")), "")

	add(st.section.Render("Citation ") + st.citation.Render(orDash(c.CitationID)))
	if c.Excerpt != "" {
		para(reflow(c.Excerpt))
	}
	if len(c.WhySelected) > 0 {
		add(st.muted.Render("  why: " + strings.Join(c.WhySelected, ", ")))
	}
	add("", st.section.Render("Text"))
	text := r.TextPreview
	if r.Text != nil && *r.Text != "" {
		text = *r.Text
	}
	para(reflow(text))

	add("", st.section.Render("Score components"))
	add(m.scoreLines(r.ScoreComponents, w)...)

	add("", st.section.Render("Provenance"))
	p := r.Provenance
	path := api.StringOr(p.SourcePath, "")
	if path != "" && p.LineNumber > 0 {
		path = fmt.Sprintf("%s:%d", path, p.LineNumber)
	}
	field("path", orDash(path))
	field("session", orDash(p.SessionID))
	field("sourceId", orDash(firstNonEmpty(p.SourceID, r.SourceID)))
	src := api.StringOr(p.Source, api.StringOr(r.Source, "-"))
	if p.SourceSet != nil || p.SourceType != nil || p.Layer != nil {
		src += fmt.Sprintf(" (set %s, %s, layer %s)", api.StringOr(p.SourceSet, "-"), api.StringOr(p.SourceType, "-"), api.StringOr(p.Layer, "-"))
	}
	field("source", src)
	if len(p.HeadingPath) > 0 {
		field("heading", strings.Join(p.HeadingPath, " › "))
	}
	if p.Time != "" {
		field("time", p.Time)
	}

	add("", st.section.Render("Governance"))
	if g := r.Governance; g != nil {
		field("lifecycle", orDash(g.Lifecycle))
		field("authority", fmt.Sprintf("rank %d · provenance score %.2f · retrieval weight %.2f", g.AuthorityRank, g.ProvenanceScore, g.RetrievalWeight))
		field("retention", fmt.Sprintf("%s · canonical eligible %t", orDash(g.Retention), g.CanonicalEligible))
		if len(g.Warnings) > 0 {
			field("warnings", strings.Join(g.Warnings, "; "))
		}
	} else {
		add(st.muted.Render("  none reported"))
	}

	add("", st.section.Render("Quality of this search"))
	q := m.resp.Quality
	field("verdict", fmt.Sprintf("%s · needsMoreEvidence %t · coverage %.0f%%", orDash(q.Status), q.NeedsMoreEvidence, q.Coverage*100))
	var raised []string
	for name, on := range q.Flags {
		if on {
			raised = append(raised, name)
		}
	}
	sort.Strings(raised)
	field("flags", orNone(strings.Join(raised, ", ")))
	field("missing", orNone(strings.Join(q.MissingTerms, ", ")))
	field("advice", orNone(strings.Join(q.Recommendations, "; ")))
	return strings.Join(b, "\n")
}

// scoreLines lays out score components sorted by name, in two columns
// when the window is wide enough.
func (m Model) scoreLines(comp map[string]float64, w int) []string {
	if len(comp) == 0 {
		return []string{m.styles.muted.Render("  none reported")}
	}
	names := make([]string, 0, len(comp))
	nameW := 0
	for n := range comp {
		names = append(names, n)
		nameW = max(nameW, len(n))
	}
	sort.Strings(names)
	cell := func(n string) string {
		return m.styles.label.Render(fmt.Sprintf("%-*s", nameW, n)) + " " + fmt.Sprintf("%-9s", fmt.Sprintf("%.4g", comp[n]))
	}
	cellW := nameW + 1 + 9
	cols := 1
	if 2+2*cellW+3 <= w {
		cols = 2
	}
	rows := (len(names) + cols - 1) / cols
	lines := make([]string, 0, rows)
	for i := range rows {
		line := "  " + cell(names[i])
		if j := i + rows; cols == 2 && j < len(names) {
			line += "   " + cell(names[j])
		}
		lines = append(lines, line)
	}
	return lines
}

// citationFor returns the citation of result i: the one naming its id, or
// the i-th.
func (m Model) citationFor(i int) api.Citation {
	if m.resp == nil || i >= len(m.resp.Results) {
		return api.Citation{}
	}
	id := m.resp.Results[i].ID
	for _, c := range m.resp.CitationPack {
		if c.ResultID == id {
			return c
		}
	}
	if i < len(m.resp.CitationPack) {
		return m.resp.CitationPack[i]
	}
	return api.Citation{}
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

// fitLines makes lines exactly h rows of at most w cells: long lines are cut,
// missing rows are added above the last line (the help) so it stays at the
// bottom, and extra rows are dropped from the end of the body.
func fitLines(lines []string, w, h int) string {
	if len(lines) < h && len(lines) > 0 {
		last := lines[len(lines)-1]
		lines = append(padLines(lines[:len(lines)-1], h-1), last)
	}
	if len(lines) > h {
		lines = append(lines[:h-1], lines[len(lines)-1])
	}
	for i, l := range lines {
		if ansi.StringWidth(l) > w {
			lines[i] = ansi.Truncate(l, w, "")
		}
	}
	return strings.Join(lines, "\n")
}

// padLines returns exactly n lines: lines cut or padded with empty ones.
func padLines(lines []string, n int) []string {
	out := make([]string, n)
	copy(out, lines)
	return out
}

// reflow joins the hard-wrapped lines of a paragraph so the text can be
// wrapped to the window, keeping blank lines, list items, headings, tables,
// indented lines and fenced code as they are.
func reflow(text string) string {
	lines := strings.Split(strings.TrimSpace(text), "\n")
	var b strings.Builder
	fenced := false
	for i, l := range lines {
		l = strings.TrimRight(l, " \t")
		trimmed := strings.TrimSpace(l)
		if strings.HasPrefix(trimmed, "```") {
			fenced = !fenced
		}
		if i > 0 {
			prev := strings.TrimSpace(lines[i-1])
			if fenced || trimmed == "" || prev == "" || keepsLine(l) || strings.HasPrefix(trimmed, "```") || endsBlock(prev) {
				b.WriteByte('\n')
			} else {
				b.WriteByte(' ')
				l = trimmed
			}
		}
		b.WriteString(l)
	}
	return b.String()
}

// endsBlock reports whether a line is a block on its own (a heading, a
// fence or a table row), so the next line starts anew.
func endsBlock(l string) bool {
	return strings.HasPrefix(l, "#") || strings.HasPrefix(l, "```") || strings.HasPrefix(l, "|")
}

// keepsLine reports whether a line starts a block of its own.
func keepsLine(l string) bool {
	if l != strings.TrimLeft(l, " \t") {
		return true
	}
	for _, p := range []string{"- ", "* ", "+ ", "#", "|", ">"} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	digits := len(l) - len(strings.TrimLeft(l, "0123456789"))
	return digits > 0 && digits < len(l) && (l[digits] == '.' || l[digits] == ')')
}

// oneLine folds whitespace, newlines included, into single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
