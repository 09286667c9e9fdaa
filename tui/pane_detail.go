package tui

// The detail screen: one result in full, scrollable.

import (
	"fmt"
	"sort"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/nova-recall/nova/api"
)

// detailView renders one result in full: a header, the scrollable body and
// the help.
func (m Model) detailView() []string {
	res := m.results()
	if len(res) == 0 {
		return []string{"No result selected."}
	}
	lines := []string{m.detailHeader()}
	lines = append(lines, strings.Split(m.detail.View(), "\n")...)
	return append(lines, strings.Split(m.helpView(), "\n")...)
}

// detailHeader is the detail view's first line: which result it shows,
// its citation, relevance and confidence, and how far the view is
// scrolled. A narrow window drops the words around the position first
// ("Nova", then the confidence, then the relevance, then "result … of"):
// cut at the window's edge, the header lost how far one had scrolled.
func (m Model) detailHeader() string {
	st := m.styles
	res := m.results()
	r, c := res[m.cursor], m.citationFor(m.cursor)
	scrolled := ""
	if !(m.detail.AtTop() && m.detail.AtBottom()) {
		scrolled = st.muted.Render(fmt.Sprintf("%d%%", int(m.detail.ScrollPercent()*100)))
	}
	confidence := ""
	if c.Confidence != "" {
		confidence = "confidence " + c.Confidence
	}
	join := func(parts ...string) string {
		var kept []string
		for _, p := range parts {
			if p != "" {
				kept = append(kept, p)
			}
		}
		return strings.Join(kept, " · ")
	}
	position := fmt.Sprintf("result %d of %d", m.cursor+1, len(res))
	citation, relevance := st.citation.Render(c.CitationID), fmt.Sprintf("relevance %.3f", r.Score)
	for _, h := range []string{
		join(st.title.Render("Nova"), position, citation, relevance, confidence, scrolled),
		join(position, citation, relevance, confidence, scrolled),
		join(position, citation, relevance, scrolled),
		join(position, citation, scrolled),
	} {
		if ansi.StringWidth(h) <= m.width {
			return h
		}
	}
	return join(fmt.Sprintf("%d/%d", m.cursor+1, len(res)), citation, scrolled)
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
		for i, l := range strings.Split(ansi.Wrap(value, max(w-12, 1), "/"), "\n") {
			if i == 0 {
				add("  " + st.label.Render(fitCells(name, 9)) + " " + l)
			} else {
				add("            " + l)
			}
		}
	}

	// Every line wraps to the window: this view is where a result is
	// shown in full.
	wrap := func(s string, style lipgloss.Style) {
		for _, l := range strings.Split(ansi.Wrap(s, w, ""), "\n") {
			add(style.Render(l))
		}
	}
	if r.Title != "" {
		wrap(r.Title, st.section)
	}
	// The timestamp is the day and, for a memory with an exact time, its
	// time in the user's zone; the provenance below keeps the time as
	// recorded, often UTC and on another day.
	meta := []string{api.StringOr(r.Source, "memory"), api.StringOr(r.Timestamp, api.StringOr(r.Date, "undated"))}
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
	wrap(strings.Join(meta, " · "), st.muted)
	if r.Superseded {
		// An older state shown like the current one reads as current.
		wrap("superseded by "+r.SupersededBy+", a newer version", st.degraded)
	}
	add("")

	add(st.section.Render("Citation ") + st.citation.Render(orDash(c.CitationID)))
	if c.Excerpt != "" {
		para(reflow(c.Excerpt))
	}
	if len(c.WhySelected) > 0 {
		add(m.indented("why: "+strings.Join(c.WhySelected, ", "), st.muted)...)
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

	add("")
	wrap("Quality of this search", st.section)
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
// when the window is wide enough, and with each value under its name when
// one column of names and values is too wide for it.
func (m Model) scoreLines(comp map[string]float64, w int) []string {
	if len(comp) == 0 {
		return []string{m.styles.muted.Render("  none reported")}
	}
	names := make([]string, 0, len(comp))
	nameW, valueW := 0, 0
	value := func(n string) string { return fmt.Sprintf("%.4g", comp[n]) }
	for n := range comp {
		names = append(names, n)
		nameW = max(nameW, ansi.StringWidth(n))
		valueW = max(valueW, ansi.StringWidth(value(n)))
	}
	sort.Strings(names)
	label := m.styles.label.Render
	if 2+nameW+1+valueW > w {
		lines := make([]string, 0, 2*len(names))
		for _, n := range names {
			lines = append(lines, "  "+label(n), "    "+value(n))
		}
		return lines
	}
	cell := func(n string) string {
		return label(fitCells(n, nameW)) + " " + fitCells(value(n), 9)
	}
	cellW := nameW + 1 + 9
	if 2+2*cellW+3 > w {
		// One column: no padding after the value, which would run past
		// the window's edge.
		lines := make([]string, 0, len(names))
		for _, n := range names {
			lines = append(lines, "  "+label(fitCells(n, nameW))+" "+value(n))
		}
		return lines
	}
	rows := (len(names) + 1) / 2
	lines := make([]string, 0, rows)
	for i := range rows {
		line := "  " + cell(names[i])
		if j := i + rows; j < len(names) {
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
