package tui

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/inert"
	"github.com/nova-recall/nova/truncate"
)

// The screen: how View composes the panes into the window, and the help.

// View renders the model. It reads the model only.
func (m Model) View() string {
	if m.quitting {
		return ""
	}
	if m.tooSmall() {
		return m.tooSmallView()
	}
	var lines []string
	if m.screen == screenDetail {
		lines = m.detailView()
	} else {
		lines = m.mainView()
	}
	return fitLines(lines, m.width, m.height)
}

// tooSmall reports whether the window is smaller than the screens' least
// size. A side of 0 is unknown (a pseudo-terminal nobody sized), not
// small: the screen is drawn at the least size then, as before.
func (m Model) tooSmall() bool {
	return (m.winWidth > 0 && m.winWidth < minWidth) || (m.winHeight > 0 && m.winHeight < minHeight)
}

// tooSmallView fills a window smaller than minWidth x minHeight with the
// few words it holds, shortest first: that it is too small, the size it
// needs, and the key that quits.
func (m Model) tooSmallView() string {
	w, h := max(m.winWidth, 1), max(m.winHeight, 1)
	lines := []string{
		fmt.Sprintf("Too small: %dx%d", m.winWidth, m.winHeight),
		fmt.Sprintf("needs %dx%d", minWidth, minHeight),
		"ctrl+c quits", // q would be typed into a focused search box
	}
	if h < len(lines) {
		lines = lines[:h]
	}
	for i, l := range lines {
		lines[i] = truncate.Width(l, w)
	}
	return strings.Join(lines, "\n")
}

// layout is how the main screen's rows are shared out.
type layout struct {
	statusRows int // check lines in the status pane (below its header)
	bodyRows   int // rows under the filter row, above the help
	resultRows int // result rows within the body
	helpRows   int
	// compact is a window under fullHeight rows: the status pane is its
	// header alone (when header is set), without the separator, and the
	// filter row shows only when filterRow is set.
	compact, header, filterRow bool
}

// Fixed rows of the main screen: the status header, the separator, the
// search box and the filter row.
const fixedRows = 4

// minBodyRows is what the status pane leaves for results at the least.
const minBodyRows = 6

func (m Model) layout() layout {
	if m.height < fullHeight {
		return m.compactLayout()
	}
	l := layout{helpRows: m.helpHeight()}
	avail := max(m.height-fixedRows-l.helpRows, 0)
	body := minBodyRows
	if m.screen == screenFilters {
		// The form is what the person is working on: the status pane
		// gives way to it.
		body = max(body, len(m.formLines(avail)))
	}
	l.statusRows = max(1, min(m.statusRowsWanted(), avail-body))
	l.bodyRows = max(avail-l.statusRows, 0)
	l.resultRows = max(l.bodyRows-len(m.limitLines())-len(m.qualityLines()), 0)
	return l
}

// compactLayout shares out the rows of a window under fullHeight: the
// search box, the help and a row of results come first; then the status
// header, which says whether novad answers; then the filter row. The
// status checks, the separator, the quality verdict and the limit notice
// give way (the results, the detail view and f have what they say).
func (m Model) compactLayout() layout {
	l := layout{compact: true, helpRows: m.helpHeight()}
	avail := max(m.height-l.helpRows-1, 1) // less the search box
	if m.screen == screenFilters {
		// The form is what the person is working on: it takes every row
		// but the help's.
		l.bodyRows = max(m.height-l.helpRows, 1)
		return l
	}
	l.header = avail >= 2
	l.filterRow = avail >= 5
	l.bodyRows = avail
	if l.header {
		l.bodyRows--
	}
	if l.filterRow {
		l.bodyRows--
	}
	l.resultRows = l.bodyRows
	return l
}

// helpHeight is the number of rows the help takes.
func (m Model) helpHeight() int {
	return strings.Count(m.helpView(), "\n") + 1
}

// helpView renders the help for the current screen and focus.
func (m Model) helpView() string {
	if m.help.ShowAll && !m.typing() {
		if full, ok := m.fullHelpView(); ok {
			return full
		}
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
		b = m.keys.listHelp(len(m.results()) > 0, m.searching)
	}
	// The help model would cut the line at the window's edge, and how to
	// quit and to see every key (last) with it: drop the keys before them
	// instead, the least needed first, and in the narrowest windows the
	// last but one too, so that the way out (last) still shows whole.
	h := m.help
	h.Width = 0
	for len(b) > 1 && lipgloss.Width(h.ShortHelpView(b)) > m.width {
		i := max(len(b)-3, 0)
		b = append(b[:i:i], b[i+1:]...)
	}
	return m.help.ShortHelpView(b)
}

// fullHelpView renders every key binding in as many columns as the window
// holds (the help model would cut the columns that do not fit, and with
// them how to quit), or flowed onto lines when the columns are too tall
// for the rows the screen leaves the help. ok is false when not even that
// fits.
func (m Model) fullHelpView() (out string, ok bool) {
	var all []key.Binding
	for _, g := range m.keys.fullHelp() {
		all = append(all, g...)
	}
	// The main screen keeps its fixed rows and one status row, the detail
	// view its header and one row of text.
	room := m.height - fixedRows - 1
	if m.screen == screenDetail {
		room = m.height - 2
	}
	fits := func(s string) bool { return lipgloss.Width(s) <= m.width && strings.Count(s, "\n") < room }
	h := m.help
	h.Width = 0 // measured here instead
	if out = h.FullHelpView(m.keys.fullHelp()); fits(out) {
		return out, true // grouped by what the keys do
	}
	for cols := len(m.keys.fullHelp()); cols >= 1; cols-- {
		rows := (len(all) + cols - 1) / cols
		groups := make([][]key.Binding, 0, cols)
		for i := 0; i < len(all); i += rows {
			groups = append(groups, all[i:min(i+rows, len(all))])
		}
		if out = h.FullHelpView(groups); fits(out) {
			return out, true
		}
	}
	// Flowed: as many keys on a line as it holds.
	var lines []string
	for start := 0; start < len(all); {
		end := start + 1
		for end < len(all) && lipgloss.Width(h.ShortHelpView(all[start:end+1])) <= m.width {
			end++
		}
		lines = append(lines, h.ShortHelpView(all[start:end]))
		start = end
	}
	out = strings.Join(lines, "\n")
	return out, fits(out)
}

// mainView renders the status pane, the search box, the filter row, and the
// results (or the filter form).
func (m Model) mainView() []string {
	l := m.layout()
	if l.compact {
		return m.compactView(l)
	}
	lines := []string{m.statusHeader()}
	lines = append(lines, m.statusLines(l.statusRows)...)
	lines = append(lines, m.styles.muted.Render(strings.Repeat("─", m.width)))
	lines = append(lines, m.input.View())
	lines = append(lines, m.filterRow())
	body := m.limitLines()
	if m.screen == screenFilters {
		body = append(body, m.formLines(max(l.bodyRows-len(body), 1))...)
	} else {
		body = append(append(body, m.qualityLines()...), m.bodyLines(l.resultRows)...)
	}
	lines = append(lines, padLines(body, l.bodyRows)...)
	return append(lines, strings.Split(m.helpView(), "\n")...)
}

// compactView is mainView in a window under fullHeight rows, laid out by
// compactLayout.
func (m Model) compactView(l layout) []string {
	var lines []string
	if m.screen == screenFilters {
		lines = padLines(m.formLines(l.bodyRows), l.bodyRows)
		return append(lines, strings.Split(m.helpView(), "\n")...)
	}
	if l.header {
		lines = append(lines, m.statusHeader())
	}
	lines = append(lines, m.input.View())
	if l.filterRow {
		lines = append(lines, m.filterRow())
	}
	lines = append(lines, padLines(m.bodyLines(l.resultRows), l.bodyRows)...)
	return append(lines, strings.Split(m.helpView(), "\n")...)
}

// limitLines say that the query is at its limit: the box keeps the first
// MaxQueryRunes characters of a paste and drops the rest without a word.
func (m Model) limitLines() []string {
	if utf8.RuneCountInString(m.input.Value()) < api.MaxQueryRunes {
		return nil
	}
	return []string{m.styles.muted.Render(fmt.Sprintf("The query is at its limit of %d characters: what was typed or pasted beyond it was not kept.", api.MaxQueryRunes))}
}

// fitLines makes lines exactly h rows of at most w cells: long lines are cut
// (ending in an ellipsis),
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
			// The ellipsis says there is more: "(16 chunks)" cut bare
			// reads "(1".
			lines[i] = truncate.Width(l, w)
		}
	}
	return strings.Join(lines, "\n")
}

// fitCells shortens s to w terminal cells, or pads it with spaces to w:
// fmt's %-*s pads by characters, and a wide character takes two cells.
func fitCells(s string, w int) string {
	s = truncate.Width(s, w)
	return s + strings.Repeat(" ", max(w-ansi.StringWidth(s), 0))
}

// padLines returns exactly n lines: lines cut or padded with empty ones.
func padLines(lines []string, n int) []string {
	out := make([]string, n)
	copy(out, lines)
	return out
}

// oneLine folds whitespace, newlines included, into single spaces. It also
// makes s inert, as error messages can quote what novad sent.
func oneLine(s string) string { return strings.Join(strings.Fields(inert.Text(s)), " ") }

// wrapKeeping wraps s to width cells as ansi.Wrap does, but never within
// one of codes: a hyphen is a break point to ansi.Wrap, and a code cut at
// one ("novad-" over "not-running") is no longer read, copied or searched
// for as one. A code wider than the line is still cut.
func wrapKeeping(s string, width int, codes ...string) string {
	for _, c := range codes {
		if c != "" {
			s = strings.ReplaceAll(s, c, strings.ReplaceAll(c, "-", nbHyphen))
		}
	}
	return strings.ReplaceAll(ansi.Wrap(s, width, ""), nbHyphen, "-")
}

// wrapAdvice wraps advice to width cells at spaces, as ansi.Wrap does,
// but never at a hyphen: advice is made of commands, paths and codes
// ("NOVA_HOME=/home/jean-luc/.nova novad",
// "retry-exact-missing-terms:zebra,giraffe"), and one cut within a word
// is no longer what to type or look for. A word wider than the line is
// still cut.
func wrapAdvice(s string, width int) string {
	return strings.ReplaceAll(ansi.Wrap(strings.ReplaceAll(s, "-", nbHyphen), width, ""), nbHyphen, "-")
}

// nbHyphen stands for a hyphen while text is wrapped: one cell, and not a
// break point.
const nbHyphen = "\u2011"

// quoted puts s in double quotes as it is. %q would write a zero-width
// joiner as an escape, and Persian words (U+200C) and emoji sequences
// (U+200D) hold them.
func quoted(s string) string { return `"` + s + `"` }

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
