package tui

import (
	"context"
	"errors"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/nova-recall/nova/doctor"
	"github.com/nova-recall/nova/inert"
)

// errNoEnvelope is a Backend that returned neither an envelope nor an
// error; it is shown like any other search failure.
var errNoEnvelope = errors.New("novad returned no response")

// errSearchCancelled stands for the answer to a search the person gave up
// with esc.
var errSearchCancelled = errors.New("search cancelled")

// errEmptyQuery stands for Enter pressed with nothing (or only spaces) in
// the search box: nothing is sent, and the person is told why nothing
// happened.
var errEmptyQuery = errors.New("nothing to search for")

// Update applies one message to the model. It does no I/O: anything that
// talks to Nova is returned as a tea.Cmd from cmds.go.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if m.quitting {
		return m, nil
	}
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		if m.screen != screenDetail {
			m.resize(msg.Width, msg.Height)
			return m, nil
		}
		// The text re-wraps to the new width, so the same line number is
		// another place in it: keep the end, or the same share of the
		// text above the view.
		atEnd := m.detail.AtBottom() && !m.detail.AtTop()
		share := float64(m.detail.YOffset) / float64(max(m.detail.TotalLineCount(), 1))
		m.resize(msg.Width, msg.Height)
		m.detail.SetContent(m.detailContent())
		if atEnd {
			m.detail.GotoBottom()
		} else {
			m.detail.SetYOffset(int(share*float64(m.detail.TotalLineCount()) + 0.5))
		}
		return m, nil

	case statusMsg:
		m.statusInFlight = false
		if msg.err != nil {
			m.statusErr = msg.err
		} else {
			rep := msg.report
			m.report, m.statusErr = &rep, nil
		}
		m.clampCursor()
		return m, m.armStatusTick()

	case statusTickMsg:
		m.tickPending = false
		return m, m.refreshStatus()

	case searchDoneMsg:
		if msg.seq != m.searchSeq {
			return m, nil // an answer to a search the person already replaced
		}
		m.stopSearch()
		m.resp, m.searchErr = msg.resp, msg.err
		if m.searchErr != nil {
			m.resp = nil
		} else if m.resp == nil {
			m.searchErr = errNoEnvelope
		}
		m.cursor, m.offset = 0, 0
		if m.screen == screenDetail {
			m.screen = screenList
		}
		if isNotRunning(m.searchErr) || (m.searchErr == nil && m.reportSaysNovadDown()) {
			// The status pane should agree with the search, without
			// waiting for the next poll.
			return m, m.refreshStatus()
		}
		return m, nil

	case tea.KeyMsg:
		return m.updateKey(msg)
	}

	// Anything else (cursor blinks) belongs to the focused text field.
	var cmd tea.Cmd
	if m.screen == screenFilters {
		m.form, cmd = m.form.update(msg)
	} else {
		m.input, cmd = m.input.Update(msg)
	}
	return m, cmd
}

// reportSaysNovadDown reports whether the last status report found novad
// not serving, which an answered search shows to be out of date.
func (m Model) reportSaysNovadDown() bool {
	if m.report == nil {
		return false
	}
	for _, c := range m.report.Checks {
		if c.ID == daemonCheckID {
			return c.State != doctor.Ready
		}
	}
	return false
}

// reportSaysNovadHeld reports whether the last report says a novad holds
// the home without answering (it waits for its ports, or hangs).
func (m Model) reportSaysNovadHeld() bool {
	if m.report == nil {
		return false
	}
	for _, c := range m.report.Checks {
		if c.ID == daemonCheckID {
			return c.Code == doctor.CodeNotResponding
		}
	}
	return false
}

// reportSaysNovadStopped returns the advice of the last report's daemon
// check when it says novad is not running (how to start it, as it is
// installed here), "" otherwise.
func (m Model) reportSaysNovadStopped() string {
	return m.reportAdvice(daemonCheckID, doctor.CodeNotRunning)
}

// reportAdvice returns the advice of the last report's check id when its
// code is code, "" otherwise: doctor knows this home (how novad is
// installed, what the sources hold), the search's own advice does not.
func (m Model) reportAdvice(id, code string) string {
	if m.report == nil {
		return ""
	}
	for _, c := range m.report.Checks {
		if c.ID == id && c.Code == code {
			return c.Advice
		}
	}
	return ""
}

// IDs of doctor's checks the search pane reads: that novad answers, and
// that an index is active.
const (
	daemonCheckID = "daemon"
	indexCheckID  = "index"
)

// armStatusTick schedules the next poll unless one is already scheduled.
func (m *Model) armStatusTick() tea.Cmd {
	if m.tickPending {
		return nil
	}
	m.tickPending = true
	return tickStatus(m.statusInterval)
}

// refreshStatus starts a poll now unless one is running.
func (m *Model) refreshStatus() tea.Cmd {
	if m.statusInFlight {
		return nil
	}
	m.statusInFlight = true
	return fetchStatus(m.backend, m.statusTimeout)
}

func (m Model) quit() (Model, tea.Cmd) {
	m.stopSearch()
	m.quitting = true
	m.input.Blur()
	return m, tea.Quit
}

// updateKey routes a key by screen and focus.
func (m Model) updateKey(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	if key.Matches(msg, m.keys.ForceQuit) {
		return m.quit()
	}
	if key.Matches(msg, m.keys.Suspend) {
		// In raw mode the terminal hands ctrl+z over as a key instead of
		// stopping the program, as the shell's job control expects.
		return m, tea.Suspend
	}
	if msg.Paste {
		// Bubble Tea passes a paste's bytes on as they are, and the text
		// fields keep every control character but newlines and tabs: a
		// paste copied from a log or a transcript would be drawn into
		// the terminal, where its escape sequences act, and sent to
		// novad in the query.
		// A pasted line end is a carriage return from many terminals
		// (and tmux): dropped as a control character, it would join the
		// last word of a line to the first of the next. The fields make
		// a newline a space.
		pasted := strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(string(msg.Runes))
		msg.Runes = []rune(inert.Text(pasted))
	}
	if msg.Paste && !m.typing() {
		// Pasted text is a query (a question copied from elsewhere), as
		// if / had been pressed first.
		m.screen = screenList
		m.input.CursorEnd()
		focus := m.input.Focus()
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(msg)
		m.clampCursor() // the limit notice may have taken a row
		return m, tea.Batch(focus, cmd)
	}
	if msg.Type == tea.KeyRunes && len(msg.Runes) > 1 && !m.typing() {
		return m.updateEachRune(msg)
	}
	switch {
	case m.screen == screenDetail:
		return m.updateDetailKey(msg)
	case m.screen == screenFilters:
		return m.updateFormKey(msg)
	case m.input.Focused():
		return m.updateSearchKey(msg)
	}
	return m.updateListKey(msg)
}

// updateEachRune applies letters that Bubble Tea read from the terminal
// together (keys typed faster than the screen is drawn: a held j, a slow
// link, "/" and a query) one by one, as the keys they are. Once one of
// them focuses a text field, the rest are typed into it.
func (m Model) updateEachRune(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	var cmds []tea.Cmd
	for i, r := range msg.Runes {
		var next tea.Model
		var cmd tea.Cmd
		if m.typing() {
			rest := msg
			rest.Runes = msg.Runes[i:]
			next, cmd = m.updateKey(rest)
			return next, tea.Batch(append(cmds, cmd)...)
		}
		next, cmd = m.updateKey(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: msg.Alt})
		m, cmds = next.(Model), append(cmds, cmd)
		if m.quitting {
			break
		}
	}
	return m, tea.Batch(cmds...)
}

// updateSearchKey handles keys while the search box has focus: text goes
// into the box, Enter runs the search, Esc leaves the box. The arrow keys
// still move through the results, since the box does not use them.
func (m Model) updateSearchKey(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	switch {
	case key.Matches(msg, m.keys.Run):
		query := strings.TrimSpace(m.input.Value())
		if query == "" {
			m.resp, m.searchErr = nil, errEmptyQuery
			return m, nil
		}
		m.input.Blur()
		return m, m.startSearch(query)
	case key.Matches(msg, m.keys.Back):
		m.input.Blur()
		return m, nil
	case msg.Type == tea.KeyUp:
		m.moveCursor(-1)
		return m, nil
	case msg.Type == tea.KeyDown:
		m.moveCursor(1)
		return m, nil
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	m.clampCursor() // the limit notice may have taken a row
	return m, cmd
}

// startSearch issues a search for query with the current filters. A
// search still running is stopped: its answer would be dropped anyway,
// and novad serves only a few searches at once.
func (m *Model) startSearch(query string) tea.Cmd {
	m.stopSearch()
	m.searchSeq++
	m.searching = true
	m.resp, m.searchErr = nil, nil
	m.cursor, m.offset = 0, 0
	m.lastBody = m.filters.body(query)
	ctx, cancel := context.WithCancel(context.Background())
	m.cancelSearch = cancel
	return runSearch(ctx, m.backend, m.searchSeq, m.lastBody, m.searchTimeout)
}

// stopSearch ends the running search's request, if any; its answer, when
// one still comes, is dropped as stale.
func (m *Model) stopSearch() {
	if m.cancelSearch != nil {
		m.cancelSearch()
		m.cancelSearch = nil
	}
	m.searching = false
}

// updateListKey handles keys on the main screen when no text field has
// focus.
func (m Model) updateListKey(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	switch {
	case key.Matches(msg, m.keys.Quit):
		return m.quit()
	case m.searching && key.Matches(msg, m.keys.Cancel):
		// Give up a search novad is slow to answer; the next answer for
		// this number is dropped.
		m.stopSearch()
		m.searchSeq++
		m.searchErr = errSearchCancelled
		return m, nil
	case m.help.ShowAll && key.Matches(msg, m.keys.Back):
		// The full help is an overlay, and esc is how every other one
		// closes.
		m.help.ShowAll = false
		m.clampCursor()
		return m, nil
	case key.Matches(msg, m.keys.Search):
		m.input.CursorEnd()
		return m, m.input.Focus()
	case key.Matches(msg, m.keys.Open):
		if len(m.results()) == 0 {
			return m, nil
		}
		m.screen = screenDetail
		m.fitDetail() // its help may not be the list's
		m.detail.SetContent(m.detailContent())
		m.detail.GotoTop()
		return m, nil
	case key.Matches(msg, m.keys.Up):
		m.moveCursor(-1)
	case key.Matches(msg, m.keys.Down):
		m.moveCursor(1)
	case key.Matches(msg, m.keys.PageUp):
		m.moveCursor(-max(m.layout().resultRows, 1))
	case key.Matches(msg, m.keys.PageDown):
		m.moveCursor(max(m.layout().resultRows, 1))
	case key.Matches(msg, m.keys.Home):
		m.moveCursor(-len(m.results()))
	case key.Matches(msg, m.keys.End):
		m.moveCursor(len(m.results()))
	case key.Matches(msg, m.keys.Filters):
		var cmd tea.Cmd
		m.form, cmd = newFilterForm(m.filters, m.styles, m.width)
		m.screen = screenFilters
		return m, cmd
	case key.Matches(msg, m.keys.Refresh):
		return m, m.refreshStatus()
	case key.Matches(msg, m.keys.Help):
		m.help.ShowAll = !m.help.ShowAll
		m.clampCursor()
	}
	return m, nil
}

// updateDetailKey handles keys in the detail view.
func (m Model) updateDetailKey(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	switch {
	case m.help.ShowAll && key.Matches(msg, m.keys.Back):
		// The full help is an overlay here too: esc closes it first.
		m.help.ShowAll = false
		m.fitDetail()
	case key.Matches(msg, m.keys.Back):
		m.screen = screenList
	case key.Matches(msg, m.keys.Quit):
		return m.quit()
	case key.Matches(msg, m.keys.Search):
		m.screen = screenList
		m.input.CursorEnd()
		return m, m.input.Focus()
	case key.Matches(msg, m.keys.Up):
		m.detail.ScrollUp(1)
	case key.Matches(msg, m.keys.Down):
		m.detail.ScrollDown(1)
	case key.Matches(msg, m.keys.PageUp):
		m.detail.PageUp()
	case key.Matches(msg, m.keys.PageDown):
		m.detail.PageDown()
	case key.Matches(msg, m.keys.Home):
		m.detail.GotoTop()
	case key.Matches(msg, m.keys.End):
		m.detail.GotoBottom()
	case key.Matches(msg, m.keys.Refresh):
		return m, m.refreshStatus()
	case key.Matches(msg, m.keys.Help):
		m.help.ShowAll = !m.help.ShowAll
		m.fitDetail()
	}
	return m, nil
}

// updateFormKey handles keys in the filter form: text goes to the focused
// field, Enter applies (and re-runs the search if there is a query), Esc
// cancels.
func (m Model) updateFormKey(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	switch {
	case key.Matches(msg, m.keys.Back):
		m.screen = screenList
		return m, nil
	case key.Matches(msg, m.keys.Apply):
		f, err := m.form.values()
		if err != nil {
			m.form.err = err.Error()
			return m, nil
		}
		m.filters = f
		m.screen = screenList
		if query := strings.TrimSpace(m.input.Value()); query != "" {
			return m, m.startSearch(query)
		}
		return m, nil
	case key.Matches(msg, m.keys.NextField):
		var cmd tea.Cmd
		m.form, cmd = m.form.move(1)
		return m, cmd
	case key.Matches(msg, m.keys.PrevField):
		var cmd tea.Cmd
		m.form, cmd = m.form.move(-1)
		return m, cmd
	case key.Matches(msg, m.keys.Clear):
		m.form = m.form.clear()
		return m, nil
	}
	var cmd tea.Cmd
	m.form, cmd = m.form.update(msg)
	return m, cmd
}

// moveCursor moves the selection by delta results and scrolls the list so
// the selection stays visible.
func (m *Model) moveCursor(delta int) {
	m.cursor += delta
	m.clampCursor()
}

// clampCursor keeps the cursor on a result and the list window around it.
func (m *Model) clampCursor() {
	n := len(m.results())
	m.cursor = max(0, min(m.cursor, n-1))
	rows := max(m.layout().resultRows, 1)
	if m.cursor < m.offset {
		m.offset = m.cursor
	}
	if m.cursor >= m.offset+rows {
		m.offset = m.cursor - rows + 1
	}
	m.offset = max(0, min(m.offset, n-rows))
}
