package tui

// The status pane: the header line and the doctor checks above the search.

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/nova-recall/nova/doctor"
)

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
		if f := freshnessPart(r.Freshness, r.CheckedAt, st); f != "" {
			parts = append(parts, f)
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
		short := head
		if needsCare(c.State) && ansi.StringWidth(head) > m.width {
			short = m.narrowCheckLine(c)
		}
		v := checkView{state: c.State, compact: short, full: []string{head}}
		if needsCare(c.State) && ansi.StringWidth(head) > m.width {
			// The finding says what is wrong: in full, it wraps under the
			// check like the advice does.
			lines := strings.Split(wrapKeeping(head, m.width, c.Code), "\n")
			rest := strings.Join(lines[1:], " ")
			v.full = lines[:1]
			for _, l := range strings.Split(wrapKeeping(rest, max(m.width-6, 10), c.Code), "\n") {
				v.full = append(v.full, "      "+l)
			}
		}
		if advice != "" {
			v.compact = short
			if ansi.StringWidth(short)+4 <= m.width {
				// Room for the arrow and the start of the advice: the
				// cut at the edge then takes the advice, not the code.
				v.compact += m.styles.advice.Render(" → " + advice)
			}
			if ansi.StringWidth(head+" → "+advice) > m.width {
				for _, l := range strings.Split(wrapAdvice("→ "+advice, max(m.width-6, 10)), "\n") {
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
// does not fit, advice is cut to one line, and what to do about a Blocked
// check (then a Degraded one) is worth more than a Ready check's line:
// Ready checks give way to it and are counted. If even one line per check
// does not fit, the checks that are not Ready come first and the rest are
// counted.
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
	care := 0
	for _, v := range views {
		if needsCare(v.state) {
			care++
		}
	}
	if n > 1 && care < n {
		return append(lines, m.foldedStatusLines(views, n)...)
	}
	// Not even the checks that need care fit: the worst come first.
	var order []checkView
	for _, state := range []string{doctor.Blocked, doctor.Degraded, doctor.Ready} {
		for _, v := range views {
			if v.state == state || (state == doctor.Ready && !needsCare(v.state)) {
				order = append(order, v)
			}
		}
	}
	if n <= 1 {
		// One row: the worst check, or the all-clear.
		if needsCare(order[0].state) {
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

// foldedStatusLines renders the checks in n rows, n greater than the
// number of checks that need care: each check on one line, then advice
// spread over what is left, Blocked checks first, with Ready checks folded
// into a count when that makes the room (or when they do not all fit).
func (m Model) foldedStatusLines(views []checkView, n int) []string {
	readyShown, care := 0, 0
	for _, v := range views {
		if needsCare(v.state) {
			care++
		} else {
			readyShown++
		}
	}
	spare, folded := n-len(views), false
	if spare < 0 {
		readyShown, spare, folded = n-care-1, 0, true
	}
	expand := make([]bool, len(views))
	for _, state := range []string{doctor.Blocked, doctor.Degraded} {
		for i, v := range views {
			extra := len(v.full) - 1
			if v.state != state || extra <= 0 {
				continue
			}
			if extra <= spare {
				expand[i], spare = true, spare-extra
				continue
			}
			cost := extra - spare // Ready lines to give up, and one for the count
			if !folded {
				cost++
			}
			if cost <= readyShown {
				expand[i], readyShown, folded, spare = true, readyShown-cost, true, 0
			}
		}
	}
	var lines []string
	hidden := 0
	for i, v := range views {
		switch {
		case expand[i]:
			lines = append(lines, v.full...)
		case needsCare(v.state):
			lines = append(lines, v.compact)
		case readyShown > 0:
			lines = append(lines, v.compact)
			readyShown--
		default:
			hidden++
		}
	}
	if folded {
		lines = append(lines, m.styles.ready.Render(fmt.Sprintf("  ✓ %d more check(s) Ready; enlarge the window to see them", hidden)))
	}
	return lines
}

// needsCare reports whether a check in state is Blocked or Degraded.
func needsCare(state string) bool { return state == doctor.Blocked || state == doctor.Degraded }

// checkTitleWidth fits the longest doctor title ("Loopback-only boundary").
const checkTitleWidth = 23

// minFindingCells is the room a finding needs beside the title column:
// "Blocked: " and the longest code ("service-definition-outdated").
const minFindingCells = 36

// checkTitleCells is the width of the title column in a window width
// cells wide: narrower than the column and a finding, the titles go
// unpadded, as the column would push the code (what is wrong) past the
// window's edge.
func checkTitleCells(width int) int {
	if width < 4+checkTitleWidth+1+minFindingCells {
		return 0
	}
	return checkTitleWidth
}

// checkLine renders one check's mark, title and finding, and returns its
// advice (for a check that is not Ready) separately. A Blocked or Degraded
// check's code is highlighted.
func (m Model) checkLine(c doctor.Check) (line, advice string) {
	st := m.styles
	title := c.Title
	if w := checkTitleCells(m.width); w > 0 {
		title = fitCells(title, w)
	}
	switch c.State {
	case doctor.Ready:
		return st.ready.Render("  ✓ ") + title + " " + st.muted.Render(oneLine(c.Message)), ""
	case doctor.Degraded, doctor.Blocked:
		mark, word, code := m.checkMarks(c)
		rest := strings.TrimPrefix(strings.TrimPrefix(c.Message, c.State+": "+c.Code), ":")
		finding := word + ": " + code
		if rest = strings.TrimSpace(rest); rest != "" {
			finding += ": " + oneLine(rest)
		}
		return mark + title + " " + finding, oneLine(c.Advice)
	}
	return "  ? " + title + " " + oneLine(c.Message), ""
}

// checkMarks styles a Blocked or Degraded check's mark, state word and
// code.
func (m Model) checkMarks(c doctor.Check) (mark, word, code string) {
	st := m.styles
	if c.State == doctor.Blocked {
		return st.errorText.Render("  ✗ "), st.errorText.Render(c.State), st.blocked.Render(c.Code)
	}
	return st.degraded.Render("  ! "), st.degraded.Render(c.State), st.degraded.Render(c.Code)
}

// narrowCheckLine is a Blocked or Degraded check on one line in a window
// too narrow for checkLine's: without the state word (the mark and the
// header say it), then without the title, so that the code, which says
// what is wrong, shows whole instead of being cut at the window's edge.
func (m Model) narrowCheckLine(c doctor.Check) string {
	mark, _, code := m.checkMarks(c)
	if l := mark + c.Title + " " + code; ansi.StringWidth(l) <= m.width {
		return l
	}
	return mark + code
}
