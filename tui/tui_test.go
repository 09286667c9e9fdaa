package tui

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/doctor"
)

func TestMain(m *testing.M) {
	// Goldens are compared without colour and in one time zone.
	lipgloss.SetColorProfile(termenv.Ascii)
	time.Local = time.UTC
	os.Exit(m.Run())
}

// newTestModel returns a model at 80x24 whose status poll never fires on
// its own during a test.
func newTestModel(t *testing.T, b *fakeBackend) Model {
	t.Helper()
	m := New(Options{Backend: b, StatusInterval: time.Hour})
	return update(t, m, tea.WindowSizeMsg{Width: 80, Height: 24})
}

// update feeds msg to m and then runs the commands it returns, feeding
// their messages back in, until nothing is left. Timers (the status tick,
// cursor blinks) are dropped: a test never waits for time to pass.
func update(t *testing.T, m Model, msgs ...tea.Msg) Model {
	t.Helper()
	for _, msg := range msgs {
		next, cmd := m.Update(msg)
		m = next.(Model)
		m = drain(t, m, cmd)
	}
	return m
}

// started is newTestModel after its first status poll answered.
func started(t *testing.T, b *fakeBackend) Model {
	t.Helper()
	m := newTestModel(t, b)
	return drain(t, m, m.Init())
}

func drain(t *testing.T, m Model, cmd tea.Cmd) Model {
	t.Helper()
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil || isTimer(c) {
			continue
		}
		msg := runCmd(t, c)
		switch msg := msg.(type) {
		case tea.BatchMsg:
			queue = append(queue, msg...)
			continue
		case tea.QuitMsg:
			continue
		}
		next, more := m.Update(msg)
		m = next.(Model)
		queue = append(queue, more)
	}
	return m
}

// isTimer reports whether c only waits for time to pass: tea.Tick (the
// status poll) and the text cursors' blink.
func isTimer(c tea.Cmd) bool {
	name := runtime.FuncForPC(reflect.ValueOf(c).Pointer()).Name()
	return strings.Contains(name, "bubbletea.Tick") || strings.Contains(name, "bubbles/cursor")
}

// runCmd runs c, failing the test if it blocks.
func runCmd(t *testing.T, c tea.Cmd) tea.Msg {
	t.Helper()
	ch := make(chan tea.Msg, 1)
	go func() { ch <- c() }()
	select {
	case msg := <-ch:
		return msg
	case <-time.After(5 * time.Second):
		t.Fatalf("command %s blocks", runtime.FuncForPC(reflect.ValueOf(c).Pointer()).Name())
		return nil
	}
}

// keys turns a compact spec into key messages: "/", "enter", "esc",
// "down", "up", "tab", "ctrl+c", "ctrl+r", "pgup", "pgdown", "home",
// "end"; anything else is typed as runes.
func keys(specs ...string) []tea.Msg {
	named := map[string]tea.KeyType{
		"enter": tea.KeyEnter, "esc": tea.KeyEsc, "down": tea.KeyDown, "up": tea.KeyUp, "tab": tea.KeyTab,
		"shift+tab": tea.KeyShiftTab, "ctrl+c": tea.KeyCtrlC, "ctrl+r": tea.KeyCtrlR, "pgdown": tea.KeyPgDown, "backspace": tea.KeyBackspace,
		"pgup": tea.KeyPgUp, "home": tea.KeyHome, "end": tea.KeyEnd,
	}
	var out []tea.Msg
	for _, s := range specs {
		if k, ok := named[s]; ok {
			out = append(out, tea.KeyMsg{Type: k})
			continue
		}
		for _, r := range s {
			out = append(out, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
		}
	}
	return out
}

func press(t *testing.T, m Model, specs ...string) Model {
	t.Helper()
	return update(t, m, keys(specs...)...)
}

func TestModel_StatusPolling(t *testing.T) {
	b := &fakeBackend{report: blockedReport()}
	m := newTestModel(t, b)
	if m.report != nil {
		t.Fatal("report before the first poll")
	}
	m = drain(t, m, m.Init())
	if n, _ := b.calls(); n != 1 {
		t.Fatalf("status calls after Init = %d, want 1", n)
	}
	if m.report == nil || m.report.Status != doctor.Blocked {
		t.Fatalf("report = %+v, want the Blocked one", m.report)
	}
	if !m.tickPending || m.statusInFlight {
		t.Fatalf("after a report: tickPending=%v statusInFlight=%v, want the next poll scheduled", m.tickPending, m.statusInFlight)
	}

	t.Run("tick polls again and re-arms", func(t *testing.T) {
		b.mu.Lock()
		b.report = readyReport()
		b.mu.Unlock()
		m := update(t, m, statusTickMsg{})
		if n, _ := b.calls(); n != 2 {
			t.Fatalf("status calls = %d, want 2", n)
		}
		if m.report.Status != doctor.Ready || !m.tickPending {
			t.Fatalf("status %s tickPending %v, want Ready and re-armed", m.report.Status, m.tickPending)
		}
	})

	t.Run("r refreshes once while a poll runs", func(t *testing.T) {
		before, _ := b.calls()
		next, cmd := m.Update(keys("r")[0])
		m2 := next.(Model)
		if cmd == nil || !m2.statusInFlight {
			t.Fatal("r did not start a poll")
		}
		next, cmd2 := m2.Update(keys("r")[0])
		if cmd2 != nil {
			t.Fatal("a second r started a second poll while one runs")
		}
		m2 = drain(t, next.(Model), cmd)
		if n, _ := b.calls(); n != before+1 {
			t.Fatalf("status calls = %d, want %d", n, before+1)
		}
		if m2.statusInFlight {
			t.Fatal("poll still marked in flight after its answer")
		}
	})

	t.Run("a failed poll keeps the last report", func(t *testing.T) {
		b.mu.Lock()
		b.statusErr = fmt.Errorf("doctor exploded")
		b.mu.Unlock()
		defer func() { b.mu.Lock(); b.statusErr = nil; b.mu.Unlock() }()
		m := update(t, m, statusTickMsg{})
		if m.report == nil || m.statusErr == nil {
			t.Fatalf("report %v err %v, want both", m.report, m.statusErr)
		}
		if !strings.Contains(m.View(), "status check failed: doctor exploded") {
			t.Fatalf("view does not show the failure:\n%s", m.View())
		}
	})
}

func TestModel_SearchFlow(t *testing.T) {
	b := &fakeBackend{report: readyReport()}
	m := newTestModel(t, b)
	m = drain(t, m, m.Init())

	if m.SearchFocused() || m.Screen() != "list" {
		t.Fatalf("initial focus %v screen %s", m.SearchFocused(), m.Screen())
	}
	m = press(t, m, "/")
	if !m.SearchFocused() {
		t.Fatal("/ did not focus the search box")
	}
	m = press(t, m, "quick query") // q is text here, not quit
	if m.Quitting() || m.input.Value() != "quick query" {
		t.Fatalf("typing: quitting=%v value=%q", m.Quitting(), m.input.Value())
	}
	m = press(t, m, "backspace", "backspace", "backspace", "backspace", "backspace", "backspace", "backspace", "backspace", "backspace", "backspace", "backspace")
	m = press(t, m, "dashboard port", "enter")
	_, searches := b.calls()
	want := api.SearchBody{Query: "dashboard port", TopK: api.CLIDefaultTopK}
	if len(searches) != 1 || !reflect.DeepEqual(searches[0], want) {
		t.Fatalf("searches = %+v, want [%+v]", searches, want)
	}
	if m.SearchFocused() || len(m.results()) != 3 || m.searching {
		t.Fatalf("after the answer: focused=%v results=%d searching=%v", m.SearchFocused(), len(m.results()), m.searching)
	}

	m = press(t, m, "down")
	if m.Cursor() != 1 {
		t.Fatalf("cursor after down = %d, want 1", m.Cursor())
	}
	m = press(t, m, "j", "j", "j") // stops at the last result
	if m.Cursor() != 2 {
		t.Fatalf("cursor after j j j = %d, want 2", m.Cursor())
	}
	m = press(t, m, "k", "up", "up")
	if m.Cursor() != 0 {
		t.Fatalf("cursor after k up up = %d, want 0", m.Cursor())
	}
	m = press(t, m, "down", "enter")
	if m.Screen() != "detail" || !strings.Contains(m.View(), "result 2 of 3 · C2") {
		t.Fatalf("enter: screen %s, view:\n%s", m.Screen(), m.View())
	}
	m = press(t, m, "down", "down") // scrolls the detail, not the list
	if m.Cursor() != 1 || m.detail.YOffset != 2 {
		t.Fatalf("detail scroll: cursor %d offset %d, want 1 and 2", m.Cursor(), m.detail.YOffset)
	}
	m = press(t, m, "esc")
	if m.Screen() != "list" || m.SearchFocused() {
		t.Fatalf("esc from detail: screen %s focused %v", m.Screen(), m.SearchFocused())
	}
	m = press(t, m, "/")
	if !m.SearchFocused() {
		t.Fatal("/ did not focus the box again")
	}
	m = press(t, m, "esc")
	if m.SearchFocused() || m.Screen() != "list" {
		t.Fatal("esc did not leave the box")
	}
	if _, s := b.calls(); len(s) != 1 {
		t.Fatalf("searches = %d, want still 1", len(s))
	}
	next, cmd := m.Update(keys("q")[0])
	m = next.(Model)
	if !m.Quitting() || cmd == nil {
		t.Fatal("q did not quit")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Fatal("q did not return tea.Quit")
	}
	if m.View() != "" {
		t.Fatal("the view is not empty after quitting")
	}
}

func TestModel_Keys(t *testing.T) {
	b := &fakeBackend{report: readyReport()}
	base := started(t, b)

	t.Run("enter with an empty box searches nothing", func(t *testing.T) {
		m := press(t, base, "/", "   ", "enter")
		if _, s := b.calls(); len(s) != 0 || !m.SearchFocused() {
			t.Fatalf("searches %d focused %v", len(s), m.SearchFocused())
		}
	})
	t.Run("ctrl+c quits while typing", func(t *testing.T) {
		m := press(t, base, "/", "abc", "ctrl+c")
		if !m.Quitting() {
			t.Fatal("ctrl+c did not quit")
		}
	})
	t.Run("ctrl+c quits from the detail view", func(t *testing.T) {
		m := press(t, base, "/", "x", "enter", "enter")
		if m.Screen() != "detail" {
			t.Fatalf("screen %s", m.Screen())
		}
		if m = press(t, m, "ctrl+c"); !m.Quitting() {
			t.Fatal("ctrl+c did not quit")
		}
	})
	t.Run("enter on an empty list opens nothing", func(t *testing.T) {
		m := press(t, base, "enter")
		if m.Screen() != "list" {
			t.Fatalf("screen %s", m.Screen())
		}
	})
	t.Run("arrows move the list while the box has focus", func(t *testing.T) {
		m := press(t, base, "/", "x", "enter", "/", "down")
		if !m.SearchFocused() || m.Cursor() != 1 {
			t.Fatalf("focused %v cursor %d", m.SearchFocused(), m.Cursor())
		}
	})
	t.Run("slash from the detail view focuses the box", func(t *testing.T) {
		m := press(t, base, "/", "x", "enter", "enter", "/")
		if m.Screen() != "list" || !m.SearchFocused() {
			t.Fatalf("screen %s focused %v", m.Screen(), m.SearchFocused())
		}
	})
	t.Run("question mark toggles the full help", func(t *testing.T) {
		m := press(t, base, "?")
		if !strings.Contains(m.View(), "clear all") {
			t.Fatalf("full help missing:\n%s", m.View())
		}
		if m = press(t, m, "?"); strings.Contains(m.View(), "clear all") {
			t.Fatal("full help still shown")
		}
	})
}

func TestModel_Filters(t *testing.T) {
	b := &fakeBackend{report: readyReport()}
	m := started(t, b)
	m = press(t, m, "/", "dashboard", "enter")

	m = press(t, m, "f")
	if m.Screen() != "filters" {
		t.Fatalf("f: screen %s", m.Screen())
	}
	m = press(t, m, "infra", "tab", "codex", "tab", "2026-11-01", "tab", "2026-11-30", "tab", "notes, records", "tab")
	m = press(t, m, "backspace", "12", "enter")
	if m.Screen() != "list" {
		t.Fatalf("apply: screen %s, form error %q", m.Screen(), m.form.err)
	}
	_, searches := b.calls()
	want := api.SearchBody{Query: "dashboard", TopK: 12, Project: "infra", Agent: "codex",
		DateRange: &api.DateRange{From: "2026-11-01", To: "2026-11-30"}, SourceSets: []string{"notes", "records"}}
	if len(searches) != 2 || !reflect.DeepEqual(searches[1], want) {
		t.Fatalf("searches = %+v, want the second to be %+v", searches, want)
	}
	if row := m.filterRow(); !strings.Contains(row, "project infra · agent codex · dates 2026-11-01..2026-11-30 · sources notes,records · top 12") {
		t.Fatalf("filter row = %q", row)
	}

	t.Run("invalid values are refused in the form", func(t *testing.T) {
		for name, c := range map[string]struct {
			keys []string
			want string
		}{
			"bad date":       {[]string{"ctrl+r", "tab", "tab", "nope", "enter"}, "from date must be a date"},
			"reversed range": {[]string{"ctrl+r", "tab", "tab", "2026-12-01", "tab", "2026-01-01", "enter"}, "the from date is after the to date"},
			"top k":          {[]string{"shift+tab", "backspace", "backspace", "99", "enter"}, "top K must be a number from 1 to 20"},
		} {
			t.Run(name, func(t *testing.T) {
				m := press(t, m, "f")
				m = press(t, m, c.keys...)
				if m.Screen() != "filters" || !strings.Contains(m.form.err, c.want) {
					t.Fatalf("screen %s err %q, want %q", m.Screen(), m.form.err, c.want)
				}
				if !strings.Contains(m.View(), "Not applied") {
					t.Fatalf("view does not show the refusal:\n%s", m.View())
				}
			})
		}
	})
	t.Run("times go as typed, in order as instants", func(t *testing.T) {
		// 16:00Z on the 8th, then 20:00Z on the 8th: in order, though
		// the days as written are not; novad reads the day each names in
		// the user's zone, so the form does not cut them to dates.
		m := press(t, m, "f", "ctrl+r", "tab", "tab", "2026-06-09T01:00:00+09:00", "tab", "2026-06-08T20:00:00Z", "enter")
		if m.Screen() != "list" {
			t.Fatalf("screen %s, form error %q", m.Screen(), m.form.err)
		}
		if _, searches := b.calls(); !reflect.DeepEqual(searches[len(searches)-1].DateRange, &api.DateRange{From: "2026-06-09T01:00:00+09:00", To: "2026-06-08T20:00:00Z"}) {
			t.Fatalf("date range sent %+v", searches[len(searches)-1].DateRange)
		}
	})
	t.Run("esc cancels the form", func(t *testing.T) {
		m := press(t, m, "f", "ctrl+r", "esc")
		if m.Screen() != "list" || m.filters.Project != "infra" {
			t.Fatalf("screen %s project %q", m.Screen(), m.filters.Project)
		}
	})
	t.Run("ctrl+r clears every filter", func(t *testing.T) {
		m := press(t, m, "f", "ctrl+r", "enter")
		if !reflect.DeepEqual(m.filters, filters{TopK: api.CLIDefaultTopK}) {
			t.Fatalf("filters = %+v", m.filters)
		}
	})
}

func TestModel_SearchFailures(t *testing.T) {
	cases := []struct {
		name   string
		answer func(api.SearchBody) (*api.SearchResponse, error)
		want   []string
	}{
		{"novad down", func(api.SearchBody) (*api.SearchResponse, error) {
			return nil, fmt.Errorf("%w: dial tcp 127.0.0.1:7412: connect: connection refused", api.ErrNotRunning)
		}, []string{"novad is not running", "novactl service install"}},
		{"transport", func(api.SearchBody) (*api.SearchResponse, error) { return nil, errBoom }, []string{"Search failed: read response: unexpected EOF"}},
		{"no envelope", func(api.SearchBody) (*api.SearchResponse, error) { return nil, nil }, []string{"Search failed: novad returned no response"}},
		{"unavailable", func(b api.SearchBody) (*api.SearchResponse, error) {
			return api.Unavailable(b.Query, 5, api.ReasonIndexNotLoaded), nil
		}, []string{"Search unavailable: no index is active yet.", "(active-v2-index-not-loaded)", "novactl index sync"}},
		{"busy", func(b api.SearchBody) (*api.SearchResponse, error) {
			return api.Unavailable(b.Query, 5, api.ReasonCapacityExhausted), nil
		}, []string{"novad is busy"}},
		{"empty", func(b api.SearchBody) (*api.SearchResponse, error) { return emptyFixture(b.Query), nil },
			[]string{`No memory matched "zebra giraffe"`, "missing terms: zebra, giraffe", "recommendations: retry-exact-missing-terms:zebra,giraffe"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := &fakeBackend{report: readyReport(), answer: c.answer}
			m := started(t, b)
			statusBefore, _ := b.calls()
			m = press(t, m, "/", "zebra giraffe", "enter")
			view := m.View()
			for _, w := range c.want {
				if !strings.Contains(view, w) {
					t.Errorf("view lacks %q:\n%s", w, view)
				}
			}
			if m = press(t, m, "enter"); m.Screen() != "list" {
				t.Fatalf("enter opened %s with no results", m.Screen())
			}
			statusAfter, _ := b.calls()
			if c.name == "novad down" && statusAfter != statusBefore+1 {
				t.Errorf("status polls %d → %d: a refused search should refresh the status", statusBefore, statusAfter)
			}
		})
	}
}

// httpBackend searches by posting to url, as the client does: its error
// is net/http's own.
type httpBackend struct {
	fakeBackend
	url string
}

func (h *httpBackend) Search(ctx context.Context, body api.SearchBody) (*api.SearchResponse, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.url, bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var out api.SearchResponse
	return &out, json.NewDecoder(resp.Body).Decode(&out)
}

// TestModel_SearchTimeoutSaysSo: a search that novad holds past the
// search's time limit (a novad stopped with ctrl+z, or stuck) says that
// novad did not answer in time and what to do. The view showed the HTTP
// client's words: Search failed: Post "http://127.0.0.1:…": context
// deadline exceeded.
func TestModel_SearchTimeoutSaysSo(t *testing.T) {
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-stop:
		}
	}))
	defer srv.Close()
	defer close(stop) // before Close, which waits for the handlers
	b := &httpBackend{fakeBackend: fakeBackend{report: readyReport()}, url: srv.URL + api.PathFacadeSearch}
	m := New(Options{Backend: b, StatusInterval: time.Hour, SearchTimeout: 300 * time.Millisecond})
	m = update(t, m, tea.WindowSizeMsg{Width: 80, Height: 24})
	m = drain(t, m, m.Init())
	m = press(t, m, "/", "dashboard port", "enter")
	view := m.View()
	if !strings.Contains(view, "novad did not answer within 300ms") || strings.Contains(view, "deadline exceeded") {
		t.Fatalf("a search novad did not answer in time:\n%s", view)
	}
	if flat := strings.Join(strings.Fields(view), " "); !strings.Contains(flat, "press / and Enter to try again") {
		t.Fatalf("the view does not say what to do:\n%s", view)
	}
}

// TestModel_SearchRefusedWhileNovadStarts: a search refused because the
// home's novad has not bound its ports yet (it waits for one another
// program holds) does not say novad is not running and to start it, below
// a status pane that says a novad holds the home.
func TestModel_SearchRefusedWhileNovadStarts(t *testing.T) {
	r := blockedReport()
	r.Checks[2] = doctor.Check{ID: "daemon", Title: "novad", State: doctor.Blocked, Code: doctor.CodeNotResponding,
		Message: "Blocked: " + doctor.CodeNotResponding, Advice: "novad pid 4242 holds this home but has not bound its ports"}
	b := &fakeBackend{report: r, answer: func(api.SearchBody) (*api.SearchResponse, error) {
		return nil, fmt.Errorf("%w: http://127.0.0.1:7412/api/rag/external/search", api.ErrNotRunning)
	}}
	m := press(t, started(t, b), "/", "zebra giraffe", "enter")
	view := m.View()
	if strings.Contains(view, "novad is not running") || strings.Contains(view, "service install") {
		t.Errorf("view says novad is not running:\n%s", view)
	}
	if !strings.Contains(view, "novad did not answer") {
		t.Errorf("view lacks why the search failed:\n%s", view)
	}
}

func TestModel_StaleSearchDropped(t *testing.T) {
	b := &fakeBackend{report: readyReport()}
	m := newTestModel(t, b)
	m = update(t, m, keys("/", "first")...)
	next, first := m.Update(keys("enter")[0]) // not run yet
	m = press(t, next.(Model), "/", "backspace", "backspace", "backspace", "backspace", "backspace", "second", "enter")
	if m.lastBody.Query != "second" || len(m.results()) != 3 {
		t.Fatalf("latest = %q with %d results", m.lastBody.Query, len(m.results()))
	}
	m = drain(t, m, first) // the first answer arrives late
	if m.resp.Query != "second" {
		t.Fatalf("a stale answer replaced the latest: query %q", m.resp.Query)
	}
}

func TestModel_ScrollsLongLists(t *testing.T) {
	b := &fakeBackend{report: readyReport(), answer: func(body api.SearchBody) (*api.SearchResponse, error) {
		return manyResults(body.Query, 20), nil
	}}
	m := started(t, b)
	m = press(t, m, "/", "x", "enter")
	rows := m.layout().resultRows
	if rows < 5 || rows >= 20 {
		t.Fatalf("result rows at 80x24 = %d", rows)
	}
	for range 15 {
		m = press(t, m, "down")
	}
	view := m.View()
	if !strings.Contains(view, "› 16 C16") || strings.Contains(view, " 1 C1 ") {
		t.Fatalf("the selection is not in view:\n%s", view)
	}
	m = press(t, m, "pgdown", "pgdown")
	if m.Cursor() != 19 {
		t.Fatalf("cursor after pgdown = %d, want 19", m.Cursor())
	}
}

func TestModel_Resize(t *testing.T) {
	b := &fakeBackend{report: blockedReport()}
	m := started(t, b)
	m = press(t, m, "/", "dashboard port", "enter")
	for _, size := range [][2]int{{80, 24}, {120, 40}, {60, 16}, {40, 10}, {200, 12}} {
		for _, screen := range []string{"list", "detail", "filters"} {
			t.Run(fmt.Sprintf("%dx%d %s", size[0], size[1], screen), func(t *testing.T) {
				m := update(t, m, tea.WindowSizeMsg{Width: size[0], Height: size[1]})
				switch screen {
				case "detail":
					m = press(t, m, "enter")
				case "filters":
					m = press(t, m, "f")
				}
				lines := strings.Split(m.View(), "\n")
				if len(lines) != size[1] {
					t.Fatalf("%d lines, want %d:\n%s", len(lines), size[1], m.View())
				}
				for i, l := range lines {
					if w := ansi.StringWidth(l); w > size[0] {
						t.Fatalf("line %d is %d cells wide, more than %d: %q", i, w, size[0], l)
					}
				}
				if screen == "list" && size[0] >= 60 && !strings.Contains(m.View(), "novad-not-running") {
					t.Fatalf("the Blocked check is hidden:\n%s", m.View())
				}
			})
		}
	}
}

// TestModel_CancelSearch: a search that novad is slow to answer (a busy
// or stopped novad holds it until the 65 s budget runs out) can be given
// up with esc, and giving up stops the request.
func TestModel_CancelSearch(t *testing.T) {
	b := &fakeBackend{report: readyReport(), hang: true}
	m := started(t, b)
	m = press(t, m, "/", "dashboard port")
	next, search := m.Update(keys("enter")[0])
	m = next.(Model)
	done := make(chan tea.Msg, 1)
	go func() { done <- search() }()
	if !m.searching || !strings.Contains(m.View(), "esc cancel") {
		t.Fatalf("while searching: searching=%v, the help does not say how to cancel:\n%s", m.searching, m.View())
	}
	m = press(t, m, "esc")
	if m.searching || m.Quitting() {
		t.Fatalf("esc: searching=%v quitting=%v, want the search given up", m.searching, m.Quitting())
	}
	if view := m.View(); !strings.Contains(view, `Search for "dashboard port" cancelled`) {
		t.Fatalf("the view does not say the search was cancelled:\n%s", view)
	}
	select {
	case msg := <-done:
		m = update(t, m, msg)
	case <-time.After(5 * time.Second):
		t.Fatal("the request still runs after esc")
	}
	if m.searching || m.searchErr != errSearchCancelled {
		t.Fatalf("the late answer changed the screen: searching=%v err=%v", m.searching, m.searchErr)
	}
	// A new search runs as usual.
	b.mu.Lock()
	b.hang = false
	b.mu.Unlock()
	if m = press(t, m, "/", "enter"); len(m.results()) != 3 {
		t.Fatalf("the next search got %d results:\n%s", len(m.results()), m.View())
	}
}

// TestModel_StatusFollowsSearch: when a search is answered while the
// status pane still says novad is not running (it was started, or it
// came back, since the last poll), the pane is checked again at once
// rather than contradicting the results until the next poll.
func TestModel_StatusFollowsSearch(t *testing.T) {
	b := &fakeBackend{report: blockedReport()}
	m := started(t, b)
	b.mu.Lock()
	b.report = readyReport() // novad has started since
	b.mu.Unlock()
	before, _ := b.calls()
	m = press(t, m, "/", "dashboard port", "enter")
	after, _ := b.calls()
	if after != before+1 {
		t.Fatalf("status polls %d → %d, want one more after novad answered", before, after)
	}
	if view := m.View(); strings.Contains(view, "novad-not-running") || !strings.Contains(view, "Nova · Ready") {
		t.Fatalf("the status pane contradicts the results:\n%s", view)
	}
	press(t, m, "/", "enter")
	if again, _ := b.calls(); again != after {
		t.Fatalf("status polls %d → %d: a search answered while novad was known to run polled again", after, again)
	}
}

// TestModel_FormFitsSmallWindows: in a small window (or one whose status
// pane is long) the filter form still shows the field being edited and
// why Enter did not apply it.
func TestModel_FormFitsSmallWindows(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {60, 16}, {40, 12}, {40, 10}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			m := started(t, &fakeBackend{report: blockedReport()})
			m = update(t, m, tea.WindowSizeMsg{Width: size[0], Height: size[1]})
			m = press(t, m, "f")
			for i := range fieldCount {
				if view := m.View(); !strings.Contains(view, "› "+fieldLabels[i][:min(len(fieldLabels[i]), size[0]-4)]) {
					t.Fatalf("field %q has the focus but is not shown:\n%s", fieldLabels[i], view)
				}
				m = press(t, m, "tab")
			}
			m = press(t, m, "tab", "tab", "2026-13-01", "enter")
			if view := m.View(); m.Screen() != "filters" || !strings.Contains(view, "Not applied") || !strings.Contains(view, "› From date") {
				t.Fatalf("a refused date: screen %s, the reason or the field is not shown:\n%s", m.Screen(), view)
			}
		})
	}
}

// TestModel_DetailWrapsEverything: the detail view shows a result in
// full at any width: the title, the line of metadata and the reasons it
// was selected wrap like the text does, instead of being cut at the
// window's edge.
func TestModel_DetailWrapsEverything(t *testing.T) {
	for _, w := range []int{40, 60, 80} {
		t.Run(fmt.Sprint(w), func(t *testing.T) {
			m := started(t, &fakeBackend{report: readyReport()})
			m = update(t, m, tea.WindowSizeMsg{Width: w, Height: 24})
			m = press(t, m, "/", "dashboard port", "enter", "enter")
			content := m.detailContent()
			for i, l := range strings.Split(content, "\n") {
				if lw := ansi.StringWidth(l); lw > w {
					t.Errorf("line %d is %d cells wide, more than %d: %q", i, lw, w, l)
				}
			}
			flat := strings.Join(strings.Fields(content), " ")
			for _, want := range []string{"Dashboard unreachable on port 2096 > Cause", "tags incident", "why: dense-similarity, keyword-overlap"} {
				if !strings.Contains(flat, want) {
					t.Errorf("the detail does not show %q:\n%s", want, content)
				}
			}
		})
	}
}

// TestModel_KeysReadTogether: Bubble Tea v1 hands over the letters read
// from the terminal at once as one key message, which happens when keys
// come faster than the screen is drawn (a held j, a slow link). Each
// letter still acts as the key it is.
func TestModel_KeysReadTogether(t *testing.T) {
	runes := func(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }
	m := started(t, &fakeBackend{report: readyReport()})
	m = update(t, m, runes("/dashboard"))
	if !m.SearchFocused() || m.input.Value() != "dashboard" {
		t.Fatalf(`"/dashboard" at once: focused=%v value=%q, want the box focused with "dashboard"`, m.SearchFocused(), m.input.Value())
	}
	m = press(t, m, "enter")
	m = update(t, m, runes("jj"))
	if m.Cursor() != 2 {
		t.Fatalf(`"jj" at once: cursor %d, want 2`, m.Cursor())
	}
	m = update(t, m, runes("kq"))
	if m.Cursor() != 1 || !m.Quitting() {
		t.Fatalf(`"kq" at once: cursor %d quitting %v, want 1 and quitting`, m.Cursor(), m.Quitting())
	}
}

// TestModel_PasteSearches: text pasted while the list has the keyboard
// (a question copied from elsewhere) goes into the search box rather
// than being dropped.
func TestModel_PasteSearches(t *testing.T) {
	paste := tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("why was the dashboard port unavailable"), Paste: true}
	m := started(t, &fakeBackend{report: readyReport()})
	m = update(t, m, paste)
	if !m.SearchFocused() || m.input.Value() != "why was the dashboard port unavailable" {
		t.Fatalf("after a paste: focused=%v value=%q", m.SearchFocused(), m.input.Value())
	}
	m = press(t, m, "enter", "enter")
	if m.Screen() != "detail" {
		t.Fatalf("screen %s after a search and enter", m.Screen())
	}
	m = update(t, m, paste)
	if want := strings.Repeat(string(paste.Runes), 2); !m.SearchFocused() || m.Screen() != "list" || m.input.Value() != want {
		t.Fatalf("a paste in the detail view: screen %s focused=%v value=%q", m.Screen(), m.SearchFocused(), m.input.Value())
	}
}

// TestModel_FullHelpFitsNarrowWindows: "?" lists every key in a narrow
// window too, in fewer columns, instead of cutting the columns that do
// not fit (and with them how to quit).
func TestModel_FullHelpFitsNarrowWindows(t *testing.T) {
	for _, w := range []int{40, 50, 60, 80} {
		t.Run(fmt.Sprint(w), func(t *testing.T) {
			m := started(t, &fakeBackend{report: readyReport()})
			m = update(t, m, tea.WindowSizeMsg{Width: w, Height: 30})
			m = press(t, m, "?")
			view := m.View()
			for _, b := range m.keys.fullHelp() {
				for _, k := range b {
					h := k.Help()
					if !regexp.MustCompile(regexp.QuoteMeta(h.Key) + ` +` + regexp.QuoteMeta(h.Desc)).MatchString(view) {
						t.Errorf("the full help lacks %q %q", h.Key, h.Desc)
					}
				}
			}
			for i, l := range strings.Split(view, "\n") {
				if lw := ansi.StringWidth(l); lw > w {
					t.Errorf("line %d is %d cells wide, more than %d: %q", i, lw, w, l)
				}
			}
			if t.Failed() {
				t.Logf("view:\n%s", view)
			}
		})
	}
}

// TestModel_ShortHelpKeepsQuit: in a narrow window the one-line help drops
// the less needed keys, not how to quit and how to see every key.
func TestModel_ShortHelpKeepsQuit(t *testing.T) {
	m := started(t, &fakeBackend{report: readyReport()})
	m = press(t, m, "/", "dashboard port", "enter")
	for _, w := range []int{40, 50, 60} {
		m := update(t, m, tea.WindowSizeMsg{Width: w, Height: 24})
		for _, screen := range []string{"list", "detail"} {
			if screen == "detail" {
				m = press(t, m, "enter")
			}
			lines := strings.Split(m.View(), "\n")
			help := lines[len(lines)-1]
			for _, want := range []string{"q quit", "? keys"} {
				if !strings.Contains(help, want) {
					t.Errorf("%d columns, %s: the help line %q lacks %q", w, screen, help, want)
				}
			}
			if screen == "detail" && !strings.Contains(help, "esc back") {
				t.Errorf("%d columns, detail: the help line %q lacks esc back", w, help)
			}
		}
	}
}

// TestModel_ShortHelpKeepsTheWayOut: down to the least width, the help
// line of every screen still says how to leave it, whole. With three keys
// or fewer to show, the search box's help lost "ctrl+c quit" and the
// filter form's "esc back" to the help's ellipsis at 40 columns and less.
func TestModel_ShortHelpKeepsTheWayOut(t *testing.T) {
	m := started(t, &fakeBackend{report: readyReport()})
	m = press(t, m, "/", "dashboard port", "enter")
	for w := minWidth; w <= 60; w++ {
		for _, c := range []struct{ screen, keys, want string }{
			{"list", "", "q quit"},
			{"search box", "/", "ctrl+c quit"},
			{"filters", "f", "esc back"},
			{"detail", "enter", "q quit"},
		} {
			m := update(t, m, tea.WindowSizeMsg{Width: w, Height: 24})
			if c.keys != "" {
				m = press(t, m, c.keys)
			}
			lines := strings.Split(m.View(), "\n")
			help := lines[len(lines)-1]
			if !strings.Contains(help, c.want) || strings.Contains(help, "…") {
				t.Errorf("%d columns, %s: the help line %q does not show %q whole", w, c.screen, help, c.want)
			}
		}
	}
}

// TestModel_EmptyQuerySaysSo: Enter with nothing but spaces in the search
// box sends nothing and says why nothing happened (it did nothing, and
// said nothing).
func TestModel_EmptyQuerySaysSo(t *testing.T) {
	b := &fakeBackend{report: readyReport()}
	m := started(t, b)
	_, searches := b.calls()
	m = press(t, m, "/", "   ", "enter")
	if _, after := b.calls(); len(after) != len(searches) {
		t.Fatalf("an empty query was sent: %v", after[len(searches):])
	}
	if view := m.View(); !strings.Contains(view, "Nothing to search for") {
		t.Fatalf("the view does not say why nothing happened:\n%s", view)
	}
	if m = press(t, m, "backspace", "backspace", "backspace", "dashboard port", "enter"); len(m.results()) != 3 {
		t.Fatalf("a query after the empty one got %d results:\n%s", len(m.results()), m.View())
	}
}

// TestModel_LongPasteSaysItWasCut: a paste longer than the query limit is
// cut by the search box; the view says so (it was cut without a word).
func TestModel_LongPasteSaysItWasCut(t *testing.T) {
	m := started(t, &fakeBackend{report: readyReport()})
	m = press(t, m, "/")
	m = update(t, m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(strings.Repeat("word ", api.MaxQueryRunes/4)), Paste: true})
	if n := len([]rune(m.input.Value())); n != api.MaxQueryRunes {
		t.Fatalf("the box holds %d characters, want the limit %d", n, api.MaxQueryRunes)
	}
	if view := m.View(); !strings.Contains(view, "at its limit of 4000 characters") {
		t.Fatalf("the view does not say the paste was cut:\n%s", view)
	}
}

// TestModel_TooSmallWindowSaysSo: below the smallest layout (20x8) the
// screen was drawn at 20x8 anyway; the terminal cut it to its last rows,
// which left out the status and the search box, and wrapped wider lines.
// Now the window shows that it is too small, within its size, and the
// keys still work; grown again, it shows the screen.
func TestModel_TooSmallWindowSaysSo(t *testing.T) {
	b := &fakeBackend{report: blockedReport()}
	m := started(t, b)
	m = press(t, m, "/", "dashboard port", "enter")
	for _, size := range [][2]int{{20, 2}, {19, 8}, {12, 3}, {40, 1}, {1, 1}} {
		for _, screen := range []string{"list", "detail", "filters"} {
			t.Run(fmt.Sprintf("%dx%d %s", size[0], size[1], screen), func(t *testing.T) {
				m := m
				switch screen {
				case "detail":
					m = press(t, m, "enter")
				case "filters":
					m = press(t, m, "f")
				}
				m = update(t, m, tea.WindowSizeMsg{Width: size[0], Height: size[1]})
				view := m.View()
				lines := strings.Split(view, "\n")
				if len(lines) > size[1] {
					t.Errorf("%d lines in a window of %d:\n%s", len(lines), size[1], view)
				}
				for i, l := range lines {
					if w := ansi.StringWidth(l); w > size[0] {
						t.Errorf("line %d is %d cells wide, more than %d: %q", i, w, size[0], l)
					}
				}
				if size[0] >= 12 && !strings.Contains(view, "Too small") {
					t.Errorf("the view does not say the window is too small:\n%s", view)
				}
				grown := update(t, m, tea.WindowSizeMsg{Width: 80, Height: 24})
				if strings.Contains(grown.View(), "Too small") || grown.Screen() != screen {
					t.Errorf("grown to 80x24: screen %s, view:\n%s", grown.Screen(), grown.View())
				}
			})
		}
	}
	// A terminal that reports no size (0x0: a pseudo-terminal nobody
	// sized) is not too small: its size is unknown.
	if v := update(t, m, tea.WindowSizeMsg{}).View(); strings.Contains(v, "Too small") || !strings.Contains(v, "Search") {
		t.Errorf("a window of unknown size (0x0):\n%s", v)
	}
	small := update(t, m, tea.WindowSizeMsg{Width: 20, Height: 2})
	if q := press(t, small, "q"); !q.quitting {
		t.Errorf("q does not quit a window too small")
	}
	if q := press(t, small, "/", "ctrl+c"); !q.quitting {
		t.Errorf("ctrl+c does not quit a window too small while the search box has the keys")
	}
}

// TestModel_DetailFitsItsHelp: the detail view leaves room for the help it
// shows. With the full help open (?) before a result was opened, the view
// was laid out for the one-line help, and the full help lost all but its
// last row. Toggling the help there also took the window for the least
// size, so a window too small drew the screen it cannot hold.
func TestModel_DetailFitsItsHelp(t *testing.T) {
	b := &fakeBackend{report: readyReport()}
	m := started(t, b)
	m = press(t, m, "?", "/", "dashboard port", "enter", "enter")
	if m.Screen() != "detail" || !m.help.ShowAll {
		t.Fatalf("screen %s, full help %v", m.Screen(), m.help.ShowAll)
	}
	view := m.View()
	if n := strings.Count(view, "\n") + 1; n != 24 {
		t.Fatalf("%d lines, want 24:\n%s", n, view)
	}
	for _, want := range []string{"run search", "page up", "next field", "refresh", "ctrl+c"} {
		if !strings.Contains(view, want) {
			t.Errorf("the full help lacks %q:\n%s", want, view)
		}
	}
	// Scrolled to the end, the text's last line is on the screen.
	for range 10 {
		m = press(t, m, "pgdown")
	}
	if view := m.View(); !strings.Contains(view, "advice") {
		t.Errorf("the end of the result is not shown at 100%%:\n%s", view)
	}

	// Closing the help gives the rows back to the text.
	m = press(t, m, "?")
	if view := m.View(); strings.Contains(view, "page up") || strings.Count(view, "\n")+1 != 24 {
		t.Errorf("the help closed:\n%s", view)
	}

	// In a window too small, ? changes nothing about what is drawn.
	small := update(t, m, tea.WindowSizeMsg{Width: 12, Height: 5})
	if v := press(t, small, "?").View(); !strings.Contains(v, "Too small") {
		t.Errorf("? in a 12x5 window draws the screen:\n%s", v)
	}
}

// TestModel_SelectionStaysInViewUnderLimitNotice: the notice that the query
// is at its limit takes a row of the results pane; the list scrolls with it
// counted. It was not, and moving down to the pane's last row put the
// selection on a row cut from the screen.
func TestModel_SelectionStaysInViewUnderLimitNotice(t *testing.T) {
	b := &fakeBackend{report: readyReport(), answer: func(b api.SearchBody) (*api.SearchResponse, error) { return manyResults(b.Query, 20), nil }}
	m := started(t, b)
	m = press(t, m, "/")
	m = update(t, m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(strings.Repeat("a", api.MaxQueryRunes+5)), Paste: true})
	m = press(t, m, "enter")
	for i := range 19 {
		m = press(t, m, "down")
		view := m.View()
		if !strings.Contains(view, fmt.Sprintf("› %2d C%d ", i+2, i+2)) {
			t.Fatalf("result %d is selected but not shown:\n%s", i+2, view)
		}
		if !strings.Contains(view, "at its limit") {
			t.Fatalf("the notice is gone:\n%s", view)
		}
	}
}

// TestModel_FormFieldsShowWhatIsTyped: in a narrow window a filter field
// shows the end of what is typed in it, and the cursor after it. Below 28
// columns the field kept 10 cells after a 14-cell label column anyway, and
// the window's edge cut it: at 20 columns two letters of the field showed.
func TestModel_FormFieldsShowWhatIsTyped(t *testing.T) {
	for _, w := range []int{20, 23, 27, 28, 40} {
		t.Run(fmt.Sprint(w), func(t *testing.T) {
			m := started(t, &fakeBackend{report: readyReport()})
			m = update(t, m, tea.WindowSizeMsg{Width: w, Height: 16})
			m = press(t, m, "f", "infrastructure")
			var line string
			for _, l := range strings.Split(m.View(), "\n") {
				if strings.HasPrefix(l, "› ") {
					line = l
				}
			}
			if ansi.StringWidth(line) > w || strings.Contains(line, "…") || !strings.Contains(line, "ture") || !strings.HasPrefix(line, "› Pro") {
				t.Fatalf("the focused field at %d columns is %q, want its label's start and the end of %q, uncut:\n%s", w, line, "infrastructure", m.View())
			}
		})
	}
}

// TestModel_FullHelpFitsShortWindows: the full help (?) lists every key in
// a window too short for its columns, flowed onto fewer rows. The screen
// kept the help's last row and dropped the rows above it: at 40x12 seven
// of the nineteen keys showed, and how to quit with q among those lost.
func TestModel_FullHelpFitsShortWindows(t *testing.T) {
	for _, size := range [][2]int{{40, 12}, {30, 20}, {60, 12}, {80, 11}} {
		for _, screen := range []string{"list", "detail"} {
			t.Run(fmt.Sprintf("%dx%d %s", size[0], size[1], screen), func(t *testing.T) {
				m := started(t, &fakeBackend{report: readyReport()})
				m = press(t, m, "/", "dashboard port", "enter")
				if screen == "detail" {
					m = press(t, m, "enter")
				}
				m = update(t, m, tea.WindowSizeMsg{Width: size[0], Height: size[1]})
				m = press(t, m, "?")
				view := m.View()
				for _, g := range m.keys.fullHelp() {
					for _, k := range g {
						h := k.Help()
						if !regexp.MustCompile(regexp.QuoteMeta(h.Key) + ` +` + regexp.QuoteMeta(h.Desc)).MatchString(view) {
							t.Errorf("the full help lacks %q %q", h.Key, h.Desc)
						}
					}
				}
				lines := strings.Split(view, "\n")
				if len(lines) != size[1] {
					t.Errorf("%d lines, want %d", len(lines), size[1])
				}
				for i, l := range lines {
					if lw := ansi.StringWidth(l); lw > size[0] {
						t.Errorf("line %d is %d cells wide, more than %d: %q", i, lw, size[0], l)
					}
				}
				if t.Failed() {
					t.Logf("view:\n%s", view)
				}
			})
		}
	}
	// In the least window the full help cannot fit: the one-line help
	// stays, with how to quit.
	m := started(t, &fakeBackend{report: readyReport()})
	m = update(t, m, tea.WindowSizeMsg{Width: minWidth, Height: minHeight})
	if view := press(t, m, "?").View(); !strings.Contains(view, "quit") || strings.Count(view, "\n")+1 != minHeight {
		t.Errorf("? in a %dx%d window:\n%s", minWidth, minHeight, view)
	}
}

// TestModel_QueryShownAsTyped: the query is quoted as typed where the view
// repeats it. It was quoted with %q, which writes a zero-width joiner as an
// escape: a Persian word (می‌خواهم holds U+200C) or an emoji sequence
// (👩‍💻 holds U+200D) read "\u200c" in the middle.
func TestModel_QueryShownAsTyped(t *testing.T) {
	query := "می\u200cخواهم 👩\u200d💻"
	empty := func(b api.SearchBody) (*api.SearchResponse, error) { return emptyFixture(b.Query), nil }
	for _, c := range []struct {
		name string
		b    *fakeBackend
		keys []string
		want string
	}{
		{"searching", &fakeBackend{report: readyReport(), hang: true}, []string{"enter"}, "Searching for"},
		{"cancelled", &fakeBackend{report: readyReport(), hang: true}, []string{"enter", "esc"}, "cancelled"},
		{"no matches", &fakeBackend{report: readyReport(), answer: empty}, []string{"enter"}, "No memory matched"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := started(t, c.b)
			m = press(t, m, "/")
			m = update(t, m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(query), Paste: true})
			if c.b.hang {
				// The search never answers: run the key, not its command.
				next, _ := m.Update(tea.KeyMsg{Type: tea.KeyEnter})
				m = next.(Model)
				m = press(t, m, c.keys[1:]...)
			} else {
				m = press(t, m, c.keys...)
			}
			view := m.View()
			if !strings.Contains(view, c.want) || !strings.Contains(view, `"`+query+`"`) || strings.Contains(view, `\u`) {
				t.Fatalf("the view does not quote %q as typed:\n%s", query, view)
			}
		})
	}
}

// TestModel_RefusalSaysWhatWasWrong: a search novad refuses as invalid
// shows novad's own words, which the advice points to ("correct the field
// the error names"), as novactl search does. The TUI left them out and
// named no field (a novad of another build may check what this TUI does
// not).
func TestModel_RefusalSaysWhatWasWrong(t *testing.T) {
	refused := func(b api.SearchBody) (*api.SearchResponse, error) {
		resp := api.Unavailable(b.Query, 5, api.ReasonInvalidFieldPrefix+"sourceSets")
		resp.Error = "sourceSets: sourceSets must be a string or a list of strings"
		return resp, nil
	}
	busy := func(b api.SearchBody) (*api.SearchResponse, error) {
		resp := api.Unavailable(b.Query, 5, api.ReasonCapacityExhausted)
		resp.Error = "busy"
		return resp, nil
	}
	m := started(t, &fakeBackend{report: readyReport(), answer: refused})
	view := press(t, m, "/", "dashboard port", "enter").View()
	if !strings.Contains(view, "novad refused a field") || !strings.Contains(view, "Error: sourceSets: sourceSets must be a string or a list of strings") {
		t.Errorf("a refused field:\n%s", view)
	}
	// A search novad could not run has nothing to add to the advice.
	m = started(t, &fakeBackend{report: readyReport(), answer: busy})
	if view := press(t, m, "/", "dashboard port", "enter").View(); !strings.Contains(view, "novad is busy") || strings.Contains(view, "Error:") {
		t.Errorf("a busy novad:\n%s", view)
	}
}

// TestModel_EscClosesFullHelp: esc closes the full help on the list, as
// it leaves every other overlay. It did nothing there, and the help
// stayed open over the results until ? was pressed again.
func TestModel_EscClosesFullHelp(t *testing.T) {
	m := started(t, &fakeBackend{report: readyReport()})
	m = press(t, m, "/", "dashboard port", "enter", "esc", "?")
	if !m.help.ShowAll {
		t.Fatal("? did not open the full help")
	}
	m = press(t, m, "esc")
	if m.help.ShowAll || m.Quitting() || m.Screen() != "list" {
		t.Fatalf("after esc: full help %v, quitting %v, screen %s:\n%s", m.help.ShowAll, m.Quitting(), m.Screen(), m.View())
	}
	if view := m.View(); !strings.Contains(view, "? keys") || !strings.Contains(view, "After") {
		t.Errorf("the short help and the results are not back:\n%s", view)
	}
}

// TestModel_HomeEnd: home and end (or g and G) jump to the first and the
// last result of a long list, and to the top and the bottom of a long
// detail view, and the full help lists them. Before, both keys did
// nothing: a person at the 20th of 20 results pressed up 19 times.
func TestModel_HomeEnd(t *testing.T) {
	b := &fakeBackend{report: readyReport(), answer: func(body api.SearchBody) (*api.SearchResponse, error) {
		r := manyResults(body.Query, 20)
		long := strings.Repeat("a line of the memory that goes on. ", 200)
		r.Results[19].Text, r.Results[19].TextPreview = &long, long
		return r, nil
	}}
	m := started(t, b)
	m = press(t, m, "/", "x", "enter")
	for _, k := range [][2]string{{"end", "home"}, {"G", "g"}} {
		end := press(t, m, k[0])
		if end.Cursor() != 19 || !strings.Contains(end.View(), "› 20 C20") {
			t.Fatalf("%s on the list: cursor %d, want the last result (19) in view:\n%s", k[0], end.Cursor(), end.View())
		}
		if top := press(t, end, k[1]); top.Cursor() != 0 || !strings.Contains(top.View(), "›  1 C1") {
			t.Fatalf("%s on the list: cursor %d, want the first result (0) in view:\n%s", k[1], top.Cursor(), top.View())
		}
		d := press(t, end, "enter")
		if !d.detail.AtTop() {
			t.Fatal("the detail view does not open at its top")
		}
		if d = press(t, d, k[0]); !d.detail.AtBottom() {
			t.Fatalf("%s in the detail view: not at the bottom (offset %d)", k[0], d.detail.YOffset)
		}
		if d = press(t, d, k[1]); !d.detail.AtTop() {
			t.Fatalf("%s in the detail view: not at the top (offset %d)", k[1], d.detail.YOffset)
		}
	}
	full := press(t, m, "?").View()
	for _, want := range []string{"home/end"} {
		if !strings.Contains(full, want) {
			t.Errorf("the full help lacks %q:\n%s", want, full)
		}
	}
	if typed := press(t, m, "/", "G"); !strings.HasSuffix(typed.input.Value(), "G") || typed.Cursor() != 0 {
		t.Errorf("G in the search box: value %q cursor %d, want it typed", typed.input.Value(), typed.Cursor())
	}
}

// TestModel_DetailResizeKeepsPlace: resizing the window while reading a
// long result keeps the detail view at the same place in the text: at its
// end when it was there, and about as far through it otherwise. The view
// kept its line number, which after the text re-wrapped to the new width
// was another place in it (narrowing at the end went back to a third of
// the way).
func TestModel_DetailResizeKeepsPlace(t *testing.T) {
	b := &fakeBackend{report: readyReport(), answer: func(body api.SearchBody) (*api.SearchResponse, error) {
		r := resultsFixture(body.Query)
		long := strings.Repeat("a sentence of the memory that goes on and on. ", 120)
		r.Results[0].Text = &long
		return r, nil
	}}
	m := started(t, b)
	m = update(t, m, tea.WindowSizeMsg{Width: 100, Height: 30})
	m = press(t, m, "/", "x", "enter", "enter")
	for _, size := range [][2]int{{40, 12}, {30, 8}, {120, 40}} {
		end := update(t, press(t, m, "end"), tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		if !end.detail.AtBottom() {
			t.Errorf("at the end, resized to %dx%d: at %.0f%%, want the end", size[0], size[1], end.detail.ScrollPercent()*100)
		}
		mid := m
		for mid.detail.ScrollPercent() < 0.5 {
			mid = press(t, mid, "down")
		}
		before := mid.detail.YOffset * 100 / mid.detail.TotalLineCount()
		mid = update(t, mid, tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		if after := mid.detail.YOffset * 100 / mid.detail.TotalLineCount(); after < before-5 || after > before+5 {
			t.Errorf("half way, resized to %dx%d: the first line shown went from %d%% to %d%% of the text", size[0], size[1], before, after)
		}
	}
}

// TestModel_EscClosesFullHelpInDetail: in the detail view, esc with the
// full help open closes the help and stays on the result, as it does on
// the list; the next esc goes back. It left the detail view instead, with
// the full help still open over the list.
func TestModel_EscClosesFullHelpInDetail(t *testing.T) {
	m := started(t, &fakeBackend{report: readyReport()})
	m = press(t, m, "/", "dashboard port", "enter", "enter", "?")
	if !m.help.ShowAll || m.Screen() != "detail" {
		t.Fatalf("? in the detail view: full help %v, screen %s", m.help.ShowAll, m.Screen())
	}
	m = press(t, m, "esc")
	if m.help.ShowAll || m.Screen() != "detail" {
		t.Fatalf("after esc: full help %v, screen %s; want the help closed on the detail view:\n%s", m.help.ShowAll, m.Screen(), m.View())
	}
	if view := m.View(); !strings.Contains(view, "? keys") || !strings.Contains(view, "esc back") {
		t.Errorf("the short help is not back:\n%s", view)
	}
	if m = press(t, m, "esc"); m.Screen() != "list" || m.help.ShowAll {
		t.Errorf("the second esc: screen %s, full help %v; want the list", m.Screen(), m.help.ShowAll)
	}
}

// TestModel_ResizeKeepsTypingInView: a query being typed stays in view
// across a resize: narrowed, the search box shows the end where the cursor
// is; widened, it shows as much of the query as fits. The box kept the
// span of the query it showed before, so narrowed it showed that span's
// start cut at the window's edge (typing went on out of sight), and
// widened it still started mid-query.
func TestModel_ResizeKeepsTypingInView(t *testing.T) {
	const query = "the quick brown fox jumps over the lazy dog and then it runs far away into the forest END"
	m := started(t, &fakeBackend{report: readyReport()})
	m = press(t, m, "/", query)
	searchLine := func(m Model) string {
		for _, l := range strings.Split(m.View(), "\n") {
			if strings.HasPrefix(l, "Search › ") {
				return l
			}
		}
		t.Fatalf("no search box in:\n%s", m.View())
		return ""
	}
	narrow := update(t, m, tea.WindowSizeMsg{Width: 30, Height: 24})
	if l := searchLine(narrow); !strings.Contains(l, "forest END") || strings.Contains(l, "…") {
		t.Errorf("narrowed to 30 columns, the search box does not show the end being typed: %q", l)
	}
	wide := update(t, narrow, tea.WindowSizeMsg{Width: 120, Height: 24})
	if l := searchLine(wide); !strings.Contains(l, query) {
		t.Errorf("widened to 120 columns, the search box does not show the whole query: %q", l)
	}
	// The filter form's fields too.
	form := press(t, m, "esc", "f", "a-project-name-long-enough-to-scroll-the-field-END")
	form = update(t, form, tea.WindowSizeMsg{Width: 30, Height: 24})
	if v := form.View(); !regexp.MustCompile(`› Project +\S*-END`).MatchString(v) {
		t.Errorf("narrowed to 30 columns, the project field does not show the end being typed:\n%s", v)
	}
}

// TestModel_CtrlZSuspends: ctrl+z suspends the TUI back to the shell, as
// in any other terminal program (fg resumes it), on every screen and
// while typing. The terminal in raw mode hands ctrl+z over as a key, and
// the TUI ignored it.
func TestModel_CtrlZSuspends(t *testing.T) {
	base := started(t, &fakeBackend{report: readyReport()})
	base = press(t, base, "/", "dashboard port", "enter")
	for name, m := range map[string]Model{
		"list":       base,
		"search box": press(t, base, "/"),
		"detail":     press(t, base, "enter"),
		"filters":    press(t, base, "f"),
	} {
		next, cmd := m.Update(tea.KeyMsg{Type: tea.KeyCtrlZ})
		if cmd == nil {
			t.Errorf("%s: ctrl+z does nothing", name)
			continue
		}
		if _, ok := runCmd(t, cmd).(tea.SuspendMsg); !ok {
			t.Errorf("%s: ctrl+z does not suspend", name)
		}
		if next.(Model).Quitting() {
			t.Errorf("%s: ctrl+z quits", name)
		}
	}
}
