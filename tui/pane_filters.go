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
