package tui

// The filter row under the search box and the form that edits it.

import (
	"fmt"
	"strings"
)

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

// formLines renders the filter form in at most rows lines (rows < 1: as
// many as it takes). When it does not fit, the heading goes first, then
// the fields far from the focused one; the focused field and the reason
// the last Enter was refused stay.
func (m Model) formLines(rows int) []string {
	st := m.styles
	header := st.section.Render("Edit filters") + st.muted.Render("  (tab moves, enter applies, esc cancels)")
	fields := make([]string, 0, fieldCount)
	for i, in := range m.form.inputs {
		label := fitCells(fieldLabels[i], formLabelCells(m.width))
		if i == m.form.focus {
			fields = append(fields, st.focused.Render("› "+label)+" "+in.View())
		} else {
			fields = append(fields, "  "+st.label.Render(label)+" "+in.View())
		}
	}
	var errLines []string
	if m.form.err != "" {
		errLines = m.wrapped(st.errorText.Render("Not applied: ")+m.form.err, "Fix the field, or press ctrl+r to clear every filter.")
	}
	if rows < 1 || 1+len(fields)+len(errLines) <= rows {
		return append(append([]string{header}, fields...), errLines...)
	}
	// Without the heading; then a window of fields around the focus, and
	// the reason cut last.
	n := max(rows-len(errLines), 1)
	if n < len(fields) {
		start := max(0, min(m.form.focus-n/2, len(fields)-n))
		fields = fields[start : start+n]
	}
	lines := append(fields, errLines...)
	return lines[:min(len(lines), max(rows, 1))]
}
