package tui

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/textinput"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/doctor"
)

// Defaults of Options.
const (
	// DefaultStatusInterval is the pause between two status polls.
	DefaultStatusInterval = 5 * time.Second
	// DefaultStatusTimeout bounds one status poll (doctor probes novad
	// with its own 2 s timeout).
	DefaultStatusTimeout = 15 * time.Second
	// DefaultSearchTimeout bounds one search, as novactl search does.
	DefaultSearchTimeout = api.CLITimeoutMs * time.Millisecond
)

// Fallback size before the first tea.WindowSizeMsg arrives.
const (
	defaultWidth  = 80
	defaultHeight = 24
)

// The smallest window the screens are laid out for: the search box, a
// row of results and the help line that says how to quit. A smaller one
// shows only that it is too small: drawn at this size, the terminal would
// cut the screen to its last rows (losing the search box) and wrap its
// lines.
const (
	minWidth  = 20
	minHeight = 3
)

// fullHeight is the least height of the whole main screen (status pane,
// separator, search box, filter row, results and help); below it the main
// screen is compact (see compactLayout).
const fullHeight = 8

// Options configure New.
type Options struct {
	// Backend answers status and search calls. Required.
	Backend Backend
	// StatusInterval is the pause between two status polls; 0 means
	// DefaultStatusInterval (5 s).
	StatusInterval time.Duration
	// StatusTimeout bounds one status poll; 0 means DefaultStatusTimeout.
	StatusTimeout time.Duration
	// SearchTimeout bounds one search; 0 means DefaultSearchTimeout (65 s,
	// as novactl search).
	SearchTimeout time.Duration
	// Renderer draws the styles; nil means lipgloss's default renderer.
	// novactl passes one bound to stderr, where the program draws.
	Renderer *lipgloss.Renderer
}

// screen is what fills the window.
type screen int

const (
	screenList    screen = iota // status pane, search box, filters, results
	screenFilters               // as screenList, with the filter form in place of the results
	screenDetail                // one result in full
)

// String names the screen, for tests and the Screen accessor.
func (s screen) String() string {
	switch s {
	case screenList:
		return "list"
	case screenFilters:
		return "filters"
	case screenDetail:
		return "detail"
	}
	return fmt.Sprintf("screen(%d)", int(s))
}

// Model is the state of the TUI; it implements tea.Model. Build it with
// New: the zero value is not usable. Like every Bubble Tea model it is a
// value that Update copies, so it is not shared between goroutines.
type Model struct {
	backend Backend
	keys    keyMap
	styles  styles
	help    help.Model

	statusInterval time.Duration
	statusTimeout  time.Duration
	searchTimeout  time.Duration

	width, height int // the size the screens are laid out for
	// winWidth and winHeight are the window's own size, which may be
	// smaller than width and height (see minWidth).
	winWidth, winHeight int
	screen              screen

	// Status pane.
	report         *doctor.Report // nil until the first poll answers
	statusErr      error          // the last poll's failure; the last report stays shown
	statusInFlight bool           // a poll is running
	tickPending    bool           // the next poll is scheduled

	// Search box, filters and results.
	input     textinput.Model
	filters   filters    // applied to the next search
	form      filterForm // open on screenFilters
	searchSeq int        // number of the latest search
	searching bool
	// cancelSearch stops the latest search's request; nil when none runs.
	cancelSearch context.CancelFunc
	lastBody     api.SearchBody      // what the latest search asked
	resp         *api.SearchResponse // the latest answer; nil before one or after an error
	searchErr    error               // the latest search's failure
	cursor       int                 // selected result
	offset       int                 // first result row shown

	// Detail view of results[cursor].
	detail viewport.Model

	quitting bool
}

// New returns the TUI's initial model. It panics when opts.Backend is nil,
// which is a programming error.
func New(opts Options) Model {
	if opts.Backend == nil {
		panic("tui: Options.Backend is nil")
	}
	if opts.StatusInterval <= 0 {
		opts.StatusInterval = DefaultStatusInterval
	}
	if opts.StatusTimeout <= 0 {
		opts.StatusTimeout = DefaultStatusTimeout
	}
	if opts.SearchTimeout <= 0 {
		opts.SearchTimeout = DefaultSearchTimeout
	}
	st := newStyles(opts.Renderer)

	in := textinput.New()
	in.Prompt = "Search › "
	in.Placeholder = "press / and type what to recall"
	in.CharLimit = api.MaxQueryRunes
	in.PromptStyle = st.prompt
	in.PlaceholderStyle = st.muted
	in.Cursor.Style = st.cursor

	h := help.New()
	h.Styles = help.Styles{
		ShortKey: st.help.key, ShortDesc: st.help.desc, ShortSeparator: st.help.sep, Ellipsis: st.help.sep,
		FullKey: st.help.key, FullDesc: st.help.desc, FullSeparator: st.help.sep,
	}

	m := Model{
		backend:        opts.Backend,
		keys:           defaultKeyMap(),
		styles:         st,
		help:           h,
		statusInterval: opts.StatusInterval,
		statusTimeout:  opts.StatusTimeout,
		searchTimeout:  opts.SearchTimeout,
		input:          in,
		filters:        filters{TopK: api.CLIDefaultTopK},
		detail:         viewport.New(defaultWidth, defaultHeight-2),
		statusInFlight: true, // Init starts the first poll
	}
	m.resize(defaultWidth, defaultHeight)
	return m
}

// Init starts the first status poll.
func (m Model) Init() tea.Cmd {
	return fetchStatus(m.backend, m.statusTimeout)
}

// Screen names what the TUI shows: "list", "filters" or "detail".
func (m Model) Screen() string { return m.screen.String() }

// SearchFocused reports whether the search box has the keyboard.
func (m Model) SearchFocused() bool { return m.input.Focused() }

// Cursor is the index of the selected result.
func (m Model) Cursor() int { return m.cursor }

// Quitting reports whether the TUI has asked the program to quit.
func (m Model) Quitting() bool { return m.quitting }

// results returns the latest results, or none.
func (m Model) results() []api.Result {
	if m.resp == nil {
		return nil
	}
	return m.resp.Results
}

// typing reports whether keys go to a text field rather than to commands.
func (m Model) typing() bool {
	return m.screen == screenFilters || (m.screen == screenList && m.input.Focused())
}

// resize records a new window size and fits the widgets to it.
func (m *Model) resize(w, h int) {
	m.winWidth, m.winHeight = w, h
	m.width, m.height = max(w, minWidth), max(h, minHeight)
	if h <= 0 {
		// Unknown (a pseudo-terminal nobody sized): the whole screen
		// at its least, as the compact one is for windows known small.
		m.height = fullHeight
	}
	m.help.Width = m.width
	// The prompt takes 9 cells; the input scrolls within the rest.
	m.input.Width = max(m.width-ansi.StringWidth(m.input.Prompt)-1, 10)
	refitInput(&m.input)
	m.form.setWidth(m.width)
	m.fitDetail()
	m.clampCursor()
}

// refitInput lays in's text out again for its width, around its cursor.
// The text input works out the span of its text it shows only as its
// value or cursor changes, so after a resize it showed the old width's
// span: cut at the window's edge, with the cursor out of sight, or not
// using the room a wider window gives. Setting the value anew from empty
// makes it lay the span out from the end, and the cursor put back moves it
// there if it is before the span.
func refitInput(in *textinput.Model) {
	v, pos := in.Value(), in.Position()
	in.SetValue("")
	in.SetValue(v)
	in.SetCursor(pos)
}

// fitDetail sizes the detail view to the window less its header and the
// help it shows, which is taller with the full help open: call it when
// either changes.
func (m *Model) fitDetail() {
	m.detail.Width = m.width
	m.detail.Height = max(m.height-1-m.helpHeight(), 1)
	// A taller view would otherwise show blank rows past the end.
	m.detail.SetYOffset(m.detail.YOffset)
}

// filters are the search filters the person set in the form.
type filters struct {
	Project    string
	Agent      string
	DateFrom   string // YYYY-MM-DD, inclusive
	DateTo     string // YYYY-MM-DD, inclusive
	SourceSets []string
	TopK       int // 1-20
}

// body builds the search request for query.
func (f filters) body(query string) api.SearchBody {
	b := api.SearchBody{
		Query:      query,
		TopK:       api.ClampTopK(f.TopK),
		Project:    f.Project,
		Agent:      f.Agent,
		SourceSets: f.SourceSets,
	}
	if f.DateFrom != "" || f.DateTo != "" {
		b.DateRange = &api.DateRange{From: f.DateFrom, To: f.DateTo}
	}
	return b
}

// form fields, in order.
const (
	fieldProject = iota
	fieldAgent
	fieldDateFrom
	fieldDateTo
	fieldSourceSets
	fieldTopK
	fieldCount
)

var fieldLabels = [fieldCount]string{"Project", "Agent", "From date", "To date", "Source sets", "Top K"}

var fieldHints = [fieldCount]string{"any", "any", "YYYY-MM-DD", "YYYY-MM-DD", "all (comma-separated)", "1-20"}

// filterForm is the small form that edits filters. It is a sub-model with a
// concrete update.
type filterForm struct {
	inputs [fieldCount]textinput.Model
	focus  int
	err    string // why the last Apply was refused
}

// newFilterForm returns a form filled from f with the first field focused.
func newFilterForm(f filters, st styles, width int) (filterForm, tea.Cmd) {
	var ff filterForm
	values := [fieldCount]string{f.Project, f.Agent, f.DateFrom, f.DateTo, strings.Join(f.SourceSets, ", "), strconv.Itoa(f.TopK)}
	for i := range ff.inputs {
		in := textinput.New()
		in.Prompt = ""
		in.Placeholder = fieldHints[i]
		in.PlaceholderStyle = st.muted
		in.Cursor.Style = st.cursor
		in.CharLimit = 200
		in.SetValue(values[i])
		ff.inputs[i] = in
	}
	ff.setWidth(width)
	return ff, ff.inputs[0].Focus()
}

// setWidth fits the inputs to a window width: a row is the focus mark (2
// cells), the label column, a space, the input and its cursor.
func (f *filterForm) setWidth(width int) {
	for i := range f.inputs {
		f.inputs[i].Width = max(width-formLabelCells(width)-4, 1)
		refitInput(&f.inputs[i])
	}
}

// formLabelWidth is the width of the form's label column, which narrows in
// a narrow window (formLabelCells) so that what is typed still shows.
const formLabelWidth = 14

// minFieldWidth is the least room a filter field keeps for its text.
const minFieldWidth = 8

// formLabelCells is the label column's width in a window width cells wide.
func formLabelCells(width int) int {
	return max(min(formLabelWidth, width-4-minFieldWidth), 1)
}

// move focuses the field delta steps away, wrapping around.
func (f filterForm) move(delta int) (filterForm, tea.Cmd) {
	f.inputs[f.focus].Blur()
	f.focus = (f.focus + delta + fieldCount) % fieldCount
	return f, f.inputs[f.focus].Focus()
}

// clear empties every field but Top K, which goes back to the default.
func (f filterForm) clear() filterForm {
	for i := range f.inputs {
		f.inputs[i].SetValue("")
	}
	f.inputs[fieldTopK].SetValue(strconv.Itoa(api.CLIDefaultTopK))
	f.err = ""
	return f
}

// update passes a message to the focused field.
func (f filterForm) update(msg tea.Msg) (filterForm, tea.Cmd) {
	var cmd tea.Cmd
	f.inputs[f.focus], cmd = f.inputs[f.focus].Update(msg)
	return f, cmd
}

// values validates the form and returns the filters it describes.
func (f filterForm) values() (filters, error) {
	v := func(i int) string { return strings.TrimSpace(f.inputs[i].Value()) }
	out := filters{Project: v(fieldProject), Agent: v(fieldAgent)}
	for _, d := range []struct {
		field int
		dst   *string
	}{{fieldDateFrom, &out.DateFrom}, {fieldDateTo, &out.DateTo}} {
		s := v(d.field)
		if s == "" {
			continue
		}
		if _, ok := api.NormalizeDate(s); !ok {
			return filters{}, fmt.Errorf("%s must be a date like 2026-11-02, not %s", strings.ToLower(fieldLabels[d.field]), quoted(s))
		}
		// A time goes as typed: novad reads the day it names in the
		// user's zone, not on the time's own clock.
		*d.dst = s
	}
	if out.DateFrom != "" && out.DateTo != "" && api.DateBoundAfter(out.DateFrom, out.DateTo) {
		return filters{}, errors.New("the from date is after the to date")
	}
	for _, s := range strings.Split(v(fieldSourceSets), ",") {
		if s = strings.TrimSpace(s); s != "" {
			out.SourceSets = append(out.SourceSets, s)
		}
	}
	out.TopK = api.CLIDefaultTopK
	if s := v(fieldTopK); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < api.MinTopK || n > api.MaxTopK {
			return filters{}, fmt.Errorf("top K must be a number from %d to %d, not %s", api.MinTopK, api.MaxTopK, quoted(s))
		}
		out.TopK = n
	}
	return out, nil
}
