package tui

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/doctor"
	"github.com/nova-recall/nova/internal/golden"
)

// TestView compares whole screens at 80x24 without colour against
// testdata/TestView/<case>.golden. Run with -update to rewrite them.
func TestView(t *testing.T) {
	notRunning := func(api.SearchBody) (*api.SearchResponse, error) {
		return nil, fmt.Errorf("%w: dial tcp 127.0.0.1:7412: connect: connection refused", api.ErrNotRunning)
	}
	unavailable := func(b api.SearchBody) (*api.SearchResponse, error) {
		return api.Unavailable(b.Query, 5, api.ReasonIndexNotLoaded), nil
	}
	empty := func(b api.SearchBody) (*api.SearchResponse, error) { return emptyFixture(b.Query), nil }
	cases := []struct {
		name   string
		report doctor.Report
		answer func(api.SearchBody) (*api.SearchResponse, error)
		keys   []string
	}{
		{name: "status_blocked", report: blockedReport()},
		{name: "search_focused", report: readyReport(), keys: []string{"/", "dashboard port"}},
		{name: "results", report: readyReport(), keys: []string{"/", "dashboard port", "enter", "down"}},
		{name: "detail", report: readyReport(), keys: []string{"/", "dashboard port", "enter", "enter"}},
		{name: "detail_scrolled", report: readyReport(), keys: []string{"/", "dashboard port", "enter", "enter", "pgdown"}},
		{name: "unavailable", report: readyReport(), answer: unavailable, keys: []string{"/", "dashboard port", "enter"}},
		{name: "not_running", report: blockedReport(), answer: notRunning, keys: []string{"/", "dashboard port", "enter"}},
		{name: "no_matches", report: readyReport(), answer: empty, keys: []string{"/", "zebra giraffe", "enter"}},
		{name: "filters_form", report: readyReport(), keys: []string{"f", "infra", "tab", "tab", "2026-13-01", "enter"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := started(t, &fakeBackend{report: c.report, answer: c.answer})
			m = press(t, m, c.keys...)
			golden.Check(t, filepath.Join("testdata", t.Name()+".golden"), []byte(normalize(m.View())))
		})
	}
}

// normalize drops trailing spaces, which lipgloss pads lines with, and
// ends the screen with a newline.
func normalize(view string) string {
	lines := strings.Split(view, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n") + "\n"
}

func TestReflow(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"hard-wrapped paragraph", "one two\nthree four", "one two three four"},
		{"paragraphs", "one\ntwo\n\nthree", "one two\n\nthree"},
		{"list", "Steps:\n- one\n- two\n  more", "Steps:\n- one\n- two\n  more"},
		{"numbered", "Do:\n1. this\n2) that", "Do:\n1. this\n2) that"},
		{"heading", "# Title\ntext\nmore", "# Title\ntext more"},
		{"fence", "run:\n```\na\nb\n```\ndone", "run:\n```\na\nb\n```\ndone"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := reflow(c.in); got != c.want {
				t.Fatalf("reflow(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

// TestView_ContentIsInert checks that what memory holds is shown as text,
// never acted on by the terminal: transcripts carry tool output with
// colours, clipboard writes (OSC 52), title changes and screen clears,
// and a tab or carriage return would move the cursor over the layout.
// With the ASCII profile of the tests, the screen holds no control
// character at all but the newlines between rows.
func TestView_ContentIsInert(t *testing.T) {
	const hostile = "\x1b]52;c;ZXZpbA==\x07\x1b]0;pwned\x07\x1b[2J\x1b[31mred\x1b[0m\ttab\rcr\x9b1m c1 \x00nul"
	answer := func(b api.SearchBody) (*api.SearchResponse, error) {
		resp := resultsFixture(b.Query)
		r := &resp.Results[0]
		r.Title = "title " + hostile
		r.TextPreview = "preview " + hostile
		r.Text = ptr("text " + hostile + "\nsecond line")
		r.Source = ptr("src\x1b[7m")
		r.Provenance.SourcePath = ptr("/notes/" + hostile + ".md")
		r.Tags = []string{"tag\x1b[5m"}
		r.ScoreComponents["comp\x1b[8m"] = 1
		resp.CitationPack[0].Excerpt = "excerpt " + hostile
		resp.CitationPack[0].WhySelected = []string{"why\x1b[1m"}
		resp.Quality.Recommendations = []string{"rec\x1b]0;x\x07"}
		return resp, nil
	}
	rep := readyReport()
	rep.Checks[5].Message = "/home/ada/" + hostile + " (markdown) is readable"
	rep.Checks[6] = doctor.Check{ID: "freshness", Title: "Index " + hostile, State: doctor.Degraded, Code: doctor.CodeIndexStale,
		Message: "Degraded: index-stale: " + hostile, Advice: "run " + hostile}
	m := started(t, &fakeBackend{report: rep, answer: answer})
	m = press(t, m, "/", "dashboard", "enter")
	screens := map[string]string{"list": m.View()}
	m = press(t, m, "enter")
	for i := 0; i < 10; i++ {
		screens[fmt.Sprintf("detail page %d", i)] = m.View()
		m = press(t, m, "pgdown")
	}
	for name, view := range screens {
		for _, r := range view {
			if r != '\n' && unicode.IsControl(r) {
				t.Fatalf("%s: the screen holds control character %U:\n%q", name, r, view)
			}
		}
	}
	if !strings.Contains(screens["list"], "red") || !strings.Contains(screens["detail page 0"], "text red") {
		t.Fatalf("the text around the escapes is gone:\n%s\n%s", screens["list"], screens["detail page 0"])
	}
}

// TestView_CutLinesSaySo: a line too long for the window ends in "…", so
// "(16 chunks)" cut at the edge does not read as "(1".
func TestView_CutLinesSaySo(t *testing.T) {
	rep := readyReport()
	rep.Checks[2].Message = "novad serves generation 20261203T134525Z-29fb6fdf (16 chunks)"
	m := started(t, &fakeBackend{report: rep})
	var line string
	for _, l := range strings.Split(m.View(), "\n") {
		if strings.Contains(l, "novad serves") {
			line = strings.TrimRight(l, " ")
		}
	}
	if !strings.HasSuffix(line, "…") || strings.HasSuffix(line, "(1") {
		t.Fatalf("the cut line does not end in …: %q", line)
	}
}

// TestView_BlockedAdviceWins: when the status pane cannot show every check
// in full (a real report has a dozen checks; a terminal has 24 rows),
// what to do about a Blocked check is shown in full, and Ready checks
// are counted instead.
func TestView_BlockedAdviceWins(t *testing.T) {
	const advice = "no novad serves this NOVA_HOME: what answers at http://127.0.0.1:47311/api/rag/external/search is another home's novad or another program, and nothing was sent to it; give this home other ports (server.port and facade.port in config.yaml) and start its novad"
	rep := readyReport()
	rep.Status, rep.Blocked = doctor.Blocked, 1
	rep.Checks[2] = doctor.Check{ID: "daemon", Title: "novad", State: doctor.Blocked, Code: doctor.CodeNotRunning,
		Message: "Blocked: " + doctor.CodeNotRunning, Advice: advice}
	for i := range 5 {
		rep.Checks = append(rep.Checks, doctor.Check{ID: fmt.Sprintf("extra%d", i), Title: fmt.Sprintf("Extra %d", i), State: doctor.Ready, Message: "fine"})
	}
	for _, size := range [][2]int{{80, 24}, {100, 20}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			m := started(t, &fakeBackend{report: rep})
			m = update(t, m, tea.WindowSizeMsg{Width: size[0], Height: size[1]})
			view := m.View()
			flat := strings.Join(strings.Fields(strings.ReplaceAll(view, "…", " ")), " ")
			if !strings.Contains(flat, "→ "+advice) {
				t.Fatalf("the Blocked check's advice is not shown in full:\n%s", view)
			}
			if !strings.Contains(view, "more check(s) Ready") {
				t.Fatalf("the hidden Ready checks are not counted:\n%s", view)
			}
			if lines := strings.Split(view, "\n"); len(lines) != size[1] {
				t.Fatalf("%d lines, want %d", len(lines), size[1])
			}
		})
	}
}

// TestView_FindingWraps: the finding of a check that needs care wraps
// under it when there is room, like its advice, rather than being cut.
func TestView_FindingWraps(t *testing.T) {
	m := started(t, &fakeBackend{report: blockedReport()})
	flat := strings.Join(strings.Fields(m.View()), " ")
	if !strings.Contains(flat, "sources changed 3h0m0s after the active index was built → run novactl index sync") {
		t.Fatalf("the Degraded finding is cut:\n%s", m.View())
	}
}

// TestView_ResultColumnsAlign: the result rows' columns line up by display
// width. A source named in a wide script ("日記", four cells in two
// characters) was padded by characters and pushed its row's date and score
// two cells to the right of the others'.
func TestView_ResultColumnsAlign(t *testing.T) {
	answer := func(b api.SearchBody) (*api.SearchResponse, error) {
		r := resultsFixture(b.Query)
		r.Results[1].Source = ptr("日記")
		r.Results[2].Source = ptr("notes-and-journal-archive")
		return r, nil
	}
	m := started(t, &fakeBackend{report: readyReport(), answer: answer})
	m = press(t, m, "/", "dashboard port", "enter")
	var cols []int
	for _, l := range strings.Split(m.View(), "\n") {
		if i := strings.Index(l, "2026-11-"); i >= 0 && strings.Contains(l, " C") {
			cols = append(cols, ansi.StringWidth(l[:i]))
		}
	}
	if len(cols) != 3 || cols[0] != cols[1] || cols[0] != cols[2] {
		t.Fatalf("the dates start at cells %v, want one column for the 3 rows:\n%s", cols, m.View())
	}
}

// TestView_CodesWrapWhole: a Blocked or Degraded code, and the reason code
// of an unavailable search, wrap to the next line whole. A hyphen is a
// break point to the wrapping, and at 43 to 53 columns the status pane
// read "Blocked: novad-" over "not-running", a code that could no longer
// be read, copied or searched for as one.
func TestView_CodesWrapWhole(t *testing.T) {
	unavailable := func(b api.SearchBody) (*api.SearchResponse, error) {
		return api.Unavailable(b.Query, 5, api.ReasonIndexNotLoaded), nil
	}
	for w := 30; w <= 100; w++ {
		m := started(t, &fakeBackend{report: blockedReport(), answer: unavailable})
		m = update(t, m, tea.WindowSizeMsg{Width: w, Height: 40})
		m = press(t, m, "/", "dashboard port", "enter")
		view := m.View()
		for _, code := range []string{doctor.CodeNotRunning, doctor.CodeIndexStale, api.ReasonIndexNotLoaded} {
			if !strings.Contains(view, code) {
				t.Errorf("%d columns: %s is not shown whole:\n%s", w, code, view)
			}
		}
		for i, l := range strings.Split(view, "\n") {
			if lw := ansi.StringWidth(l); lw > w {
				t.Errorf("%d columns: line %d is %d cells wide: %q", w, i, lw, l)
			}
		}
	}
}

// TestView_NarrowStatusKeepsCodes: in a window under 64 columns the status
// pane still names what is Blocked or Degraded. The check titles kept
// their 23-cell column at any width, and at 40 columns (10 rows, where the
// pane has one row) the Blocked line read "✗ novad  Blocked: no…"; with
// more rows, the code went to the next line.
func TestView_NarrowStatusKeepsCodes(t *testing.T) {
	for w := 40; w < 64; w++ {
		for _, h := range []int{10, 24} {
			m := started(t, &fakeBackend{report: blockedReport()})
			m = update(t, m, tea.WindowSizeMsg{Width: w, Height: h})
			view := m.View()
			if !regexp.MustCompile(`✗ novad +Blocked: ` + doctor.CodeNotRunning).MatchString(view) {
				t.Errorf("%dx%d: the novad check's line does not end in its code:\n%s", w, h, view)
			}
		}
	}
}

// TestView_NarrowRowsKeepText: in a narrow window a result row still shows
// the start of its text. The rank, citation, source, date and score
// columns took the whole of 40 columns, and every row read
// "1 C1   notes      2026-11-10  1.154 …", with nothing to tell the
// results apart by.
func TestView_NarrowRowsKeepText(t *testing.T) {
	for w := minWidth; w <= 60; w++ {
		m := started(t, &fakeBackend{report: readyReport()})
		m = update(t, m, tea.WindowSizeMsg{Width: w, Height: 24})
		m = press(t, m, "/", "dashboard port", "enter", "esc")
		view := m.View()
		for _, start := range []string{"After", "Added", "Moved"} {
			if !regexp.MustCompile(`\d\.\d{3}  ` + start).MatchString(view) {
				t.Errorf("%d columns: no row shows %q after its score:\n%s", w, start, view)
			}
		}
	}
}

// joinedText holds what a terminal draws as one character made of many
// code points (a family, a flag, a skin tone, a heart with its emoji
// presentation selector), wide CJK, and combining marks.
const joinedText = "家族 👨‍👩‍👧‍👦 met in 🇯🇵 and 🇫🇷 👍🏽 ❤️ café naïve (e\u0301) 日本語のテキスト 🏳️‍🌈 done"

// TestView_JoinedEmojiFit: result titles, snippets and sources holding
// joined emoji, flags, CJK and combining marks never make a line of the
// screen wider than the window, on the list, in the search box and in the
// detail view, and the result rows' scores stay in one column.
func TestView_JoinedEmojiFit(t *testing.T) {
	answer := func(b api.SearchBody) (*api.SearchResponse, error) {
		r := resultsFixture(b.Query)
		for i := range r.Results {
			r.Results[i].Title = joinedText
			r.Results[i].TextPreview = strings.Repeat(joinedText[:i*7]+" ", 1) + joinedText
			r.Results[i].Text = ptr(joinedText + "\n\n" + joinedText)
		}
		r.Results[1].Source = ptr("👨‍👩‍👧‍👦🇯🇵")
		r.Results[2].Source = ptr("e\u0301e\u0301e\u0301")
		r.CitationPack[1].CitationID = "🇯🇵"
		return r, nil
	}
	for _, w := range []int{minWidth, 21, 23, 31, 40, 47, 59, 80, 101, 120} {
		m := started(t, &fakeBackend{report: readyReport(), answer: answer})
		m = update(t, m, tea.WindowSizeMsg{Width: w, Height: 24})
		m = press(t, m, "/", joinedText, "enter")
		for _, screen := range []struct {
			name string
			keys []string
		}{{"list", []string{"esc"}}, {"search box", []string{"/"}}, {"detail", []string{"esc", "enter"}}} {
			v := press(t, m, screen.keys...)
			view := v.View()
			for i, l := range strings.Split(view, "\n") {
				if lw := ansi.StringWidth(l); lw > w {
					t.Errorf("%d columns, %s: line %d is %d cells wide: %q", w, screen.name, i, lw, l)
				}
			}
			if screen.name != "list" {
				continue
			}
			var cols []int
			for _, l := range strings.Split(view, "\n") {
				if loc := regexp.MustCompile(`\d\.\d{3}  `).FindStringIndex(l); loc != nil {
					cols = append(cols, ansi.StringWidth(l[:loc[0]]))
				}
			}
			if len(cols) != 3 || cols[0] != cols[1] || cols[0] != cols[2] {
				t.Errorf("%d columns: the scores end at cells %v, want one column for the 3 rows:\n%s", w, cols, view)
			}
		}
	}
}

// TestView_ScoreComponentsAlign: the detail view's score components line
// up by display width whatever their names hold. The names were padded by
// bytes and then by characters, so a name with a combining mark or a wide
// character pushed its value, and the second column, out of line.
func TestView_ScoreComponentsAlign(t *testing.T) {
	answer := func(b api.SearchBody) (*api.SearchResponse, error) {
		r := resultsFixture(b.Query)
		r.Results[0].ScoreComponents = map[string]float64{"a": 0.5, "e\u0301tude": 0.25, "日記": 0.125, "zzz": 0.0625}
		return r, nil
	}
	m := started(t, &fakeBackend{report: readyReport(), answer: answer})
	m = update(t, m, tea.WindowSizeMsg{Width: 80, Height: 40})
	m = press(t, m, "/", "dashboard port", "enter", "esc", "enter")
	var starts []int
	for _, l := range strings.Split(m.View(), "\n") {
		for _, loc := range regexp.MustCompile(`0\.\d+`).FindAllStringIndex(l, -1) {
			if strings.Contains(l, "zzz") || strings.Contains(l, "日記") || strings.Contains(l, "tude") || strings.HasPrefix(strings.TrimSpace(l), "a ") {
				starts = append(starts, ansi.StringWidth(l[:loc[0]]))
			}
		}
	}
	if len(starts) != 4 || starts[0] != starts[2] || starts[1] != starts[3] {
		t.Fatalf("the values start at cells %v, want two columns of two:\n%s", starts, m.View())
	}
}

// TestView_SmallWindowsStayUseful: down to minWidth x minHeight the main
// screen shows the search box, at least a line of results and the way
// out, in as many rows as the window has; the detail view and the filter
// form fit too. A window under 8 rows showed only "Too small", so a
// terminal split in four could not search at all.
func TestView_SmallWindowsStayUseful(t *testing.T) {
	m := started(t, &fakeBackend{report: blockedReport()})
	m = press(t, m, "/", "dashboard port", "enter", "esc")
	for _, size := range [][2]int{{minWidth, minHeight}, {20, 4}, {20, 5}, {20, 6}, {20, 7}, {30, 5}, {40, 10}, {80, 24}} {
		w, h := size[0], size[1]
		for _, c := range []struct {
			screen, keys string
			want         []string
		}{
			{"list", "", []string{"Search ›", "After", "q quit"}},
			{"search box", "/", []string{"Search ›", "After", "ctrl+c quit"}},
			{"detail", "enter", []string{"quit"}},
			{"filters", "f", []string{"esc back"}},
		} {
			v := update(t, m, tea.WindowSizeMsg{Width: w, Height: h})
			if c.keys != "" {
				v = press(t, v, c.keys)
			}
			view := v.View()
			lines := strings.Split(view, "\n")
			if len(lines) != h {
				t.Errorf("%dx%d %s: %d lines:\n%s", w, h, c.screen, len(lines), view)
			}
			for i, l := range lines {
				if lw := ansi.StringWidth(l); lw > w {
					t.Errorf("%dx%d %s: line %d is %d cells wide: %q", w, h, c.screen, i, lw, l)
				}
			}
			for _, want := range c.want {
				if !strings.Contains(view, want) {
					t.Errorf("%dx%d %s: no %q in:\n%s", w, h, c.screen, want, view)
				}
			}
			if h >= 4 && c.screen == "list" && !strings.Contains(lines[0], "Blocked") {
				t.Errorf("%dx%d: the first line does not say novad is Blocked:\n%s", w, h, view)
			}
			if c.screen == "detail" && (len(lines) < 2 || !regexp.MustCompile(`(result 1 of 3|1/3) · C1`).MatchString(lines[0])) {
				t.Errorf("%dx%d detail: no header:\n%s", w, h, view)
			}
		}
	}
	// Moving down the list keeps the selection on screen in a window
	// with one row of results.
	v := update(t, m, tea.WindowSizeMsg{Width: 40, Height: minHeight})
	v = press(t, v, "down", "down")
	if view := v.View(); !strings.Contains(view, "› ") || !strings.Contains(view, "Moved") {
		t.Errorf("the third result, selected, is not shown at 40x%d:\n%s", minHeight, view)
	}
}

// TestView_AdviceWrapsAtSpaces: advice wraps between words, never at a
// hyphen inside one. Advice holds commands, paths and codes: the status
// pane broke "NOVA_HOME=/home/jean-luc/.nova" after "jean-", and the
// results pane the recommendation "retry-with-authoritative-source-pass"
// after "retry-with-", so what a person copied, or an agent read, was no
// longer the path or the code.
func TestView_AdviceWrapsAtSpaces(t *testing.T) {
	const command = "NOVA_HOME=/home/jean-luc/.nova-recall-home novad"
	rep := blockedReport()
	rep.Checks[2].Advice = "start it: run novad with this home in a terminal: " + command
	whole := []string{"NOVA_HOME=/home/jean-luc/.nova-recall-home", "retry-exact-missing-terms:zebra,giraffe", "retry-with-authoritative-source-pass"}
	// From 50 columns, where the longest of them fits beside the
	// status pane's indent: a word wider than the line is cut.
	for w := 50; w <= 120; w++ {
		m := started(t, &fakeBackend{report: rep, answer: func(b api.SearchBody) (*api.SearchResponse, error) { return emptyFixture(b.Query), nil }})
		m = update(t, m, tea.WindowSizeMsg{Width: w, Height: 60})
		m = press(t, m, "/", "zebra giraffe", "enter")
		view := m.View()
		for _, s := range whole {
			if !strings.Contains(view, s) {
				t.Errorf("%d columns: %q is not on one line:\n%s", w, s, view)
			}
		}
		for i, l := range strings.Split(view, "\n") {
			if lw := ansi.StringWidth(l); lw > w {
				t.Errorf("%d columns: line %d is %d cells wide: %q", w, i, lw, l)
			}
		}
	}
}

// TestView_SupersededSaysBy: the detail view of an older version of a
// subject says it is superseded and by which id, under its date, so that
// an old state is not read as the current one; the current version says
// nothing of the kind. Before, the detail view left it out.
func TestView_SupersededSaysBy(t *testing.T) {
	const newest = "notes:notes/TASK_BOARD.md#d"
	answer := func(b api.SearchBody) (*api.SearchResponse, error) {
		r := resultsFixture(b.Query)
		r.Results[0].Superseded, r.Results[0].SupersededBy = true, newest
		return r, nil
	}
	m := started(t, &fakeBackend{report: readyReport(), answer: answer})
	m = update(t, m, tea.WindowSizeMsg{Width: 100, Height: 30})
	m = press(t, m, "/", "dashboard port", "enter")
	if v := press(t, m, "enter").View(); !strings.Contains(v, "superseded by "+newest) {
		t.Errorf("the older version's detail does not name its newest version:\n%s", v)
	}
	if v := press(t, m, "down", "enter").View(); strings.Contains(v, "superseded") {
		t.Errorf("a current version's detail says superseded:\n%s", v)
	}
}

// TestView_SupersededRowSaysSo: in the result list, the row of an older
// version of a subject says it is superseded, at every width, so that it
// is not picked as the current state; the rows of current versions do
// not. Before, only the detail view said so, and the list showed an old
// state exactly like the newest.
func TestView_SupersededRowSaysSo(t *testing.T) {
	answer := func(b api.SearchBody) (*api.SearchResponse, error) {
		r := resultsFixture(b.Query)
		r.Results[1].Superseded, r.Results[1].SupersededBy = true, r.Results[0].ID
		return r, nil
	}
	for _, w := range []int{minWidth, 30, 80, 120} {
		m := started(t, &fakeBackend{report: readyReport(), answer: answer})
		m = update(t, m, tea.WindowSizeMsg{Width: w, Height: 24})
		m = press(t, m, "/", "dashboard port", "enter")
		for _, selected := range []int{0, 1} {
			v := m
			if selected == 1 {
				v = press(t, m, "down")
			}
			var rows []string
			for _, l := range strings.Split(v.View(), "\n") {
				if regexp.MustCompile(`\d\.\d{3}`).MatchString(l) {
					rows = append(rows, l)
				}
			}
			if len(rows) != 3 {
				t.Fatalf("%d columns: %d result rows, want 3:\n%s", w, len(rows), v.View())
			}
			for i, row := range rows {
				// The least window has room for the start of the word.
				if got := strings.Contains(row, "supers"); got != (i == 1) {
					t.Errorf("%d columns, row %d selected: row %d says superseded %v, want %v: %q", w, selected+1, i+1, got, i == 1, row)
				}
			}
		}
	}
}

// TestView_DetailFitsNarrowWindows: from the least width up, every line of
// the detail view (Chinese text, a long Chinese path, the score
// components) wraps within the window, so nothing is cut at its edge.
// Below 28 columns the score components were padded past the edge (the
// cut left "…" where a value's padding was), and below 22 the
// provenance and governance fields were wrapped to 10 cells beside a
// 12-cell label column, cutting a path's characters.
func TestView_DetailFitsNarrowWindows(t *testing.T) {
	const zh = "数据库迁移之后仪表盘无法访问因为新的防火墙策略丢弃了入站流量"
	answer := func(b api.SearchBody) (*api.SearchResponse, error) {
		r := resultsFixture(b.Query)
		r.Results[0].Title = "仪表盘 > 原因 " + zh
		r.Results[0].Text = ptr(zh + zh)
		r.Results[0].Provenance.SourcePath = ptr("/Users/张伟/文档/记忆/非常长的目录名称/另一个非常长的目录名称/文件名称.md")
		return r, nil
	}
	for w := minWidth; w < 40; w++ {
		m := started(t, &fakeBackend{report: readyReport(), answer: answer})
		m = update(t, m, tea.WindowSizeMsg{Width: w, Height: 24})
		m = press(t, m, "/", "仪表盘", "enter", "enter")
		content := m.detailContent()
		for i, l := range strings.Split(content, "\n") {
			if lw := ansi.StringWidth(l); lw > w {
				t.Errorf("%d columns: line %d is %d cells wide: %q", w, i, lw, l)
			}
		}
		if flat := strings.Join(strings.Fields(content), " "); !strings.Contains(flat, "governanceWeight 1.04") {
			t.Errorf("%d columns: the score components lack governanceWeight 1.04:\n%s", w, content)
		}
	}
}

// TestView_DetailHeaderKeepsPosition: in a narrow window the detail view's
// header keeps which result it shows and how far it is scrolled, dropping
// the words around them first, and is never cut. It was cut at the
// window's edge, and at 30 columns read "Nova · result 1 of 3 · C1 · r…":
// scrolling a long text gave no sign of where in it one was.
func TestView_DetailHeaderKeepsPosition(t *testing.T) {
	for _, w := range []int{minWidth, 25, 30, 40, 50, 60, 80} {
		m := started(t, &fakeBackend{report: readyReport()})
		m = update(t, m, tea.WindowSizeMsg{Width: w, Height: 10})
		m = press(t, m, "/", "dashboard port", "enter", "down", "enter", "pgdown")
		header := strings.Split(m.View(), "\n")[0]
		pct := fmt.Sprintf("%d%%", int(m.detail.ScrollPercent()*100))
		if ansi.StringWidth(header) > w || strings.Contains(header, "…") {
			t.Errorf("%d columns: the header is cut: %q", w, header)
		}
		for _, want := range []string{"2", "3", "C2", pct} {
			if !strings.Contains(header, want) {
				t.Errorf("%d columns: the header %q lacks %q", w, header, want)
			}
		}
	}
}

// TestView_DetailShowsLocalTime: a memory with an exact time shows it in
// the detail view as novad gives it, in the user's zone
// (result.timestamp), beside its day; the provenance keeps the time as
// recorded. Before, the detail showed the day alone and the recorded UTC
// time, so a memory of the evening of 9 November in California read
// "2026-11-09" above "time 2026-11-10T03:00:00Z", and nowhere its hour.
func TestView_DetailShowsLocalTime(t *testing.T) {
	answer := func(b api.SearchBody) (*api.SearchResponse, error) {
		r := resultsFixture(b.Query)
		r.Results[0].Date, r.Results[0].Timestamp = ptr("2026-11-09"), ptr("2026-11-09 19:00")
		r.Results[0].Provenance.Time = "2026-11-10T03:00:00Z"
		r.Results[1].Date, r.Results[1].Timestamp = ptr("2026-11-10"), ptr("2026-11-10") // a day, no time
		return r, nil
	}
	m := started(t, &fakeBackend{report: readyReport(), answer: answer})
	m = update(t, m, tea.WindowSizeMsg{Width: 80, Height: 40})
	m = press(t, m, "/", "dashboard port", "enter")
	v := press(t, m, "enter").View()
	if !strings.Contains(v, "notes · 2026-11-09 19:00 · project") || !strings.Contains(v, "2026-11-10T03:00:00Z") {
		t.Errorf("the detail lacks the local time beside the source, or the recorded time:\n%s", v)
	}
	if v := press(t, m, "down", "enter").View(); !strings.Contains(v, "notes · 2026-11-10 · project") {
		t.Errorf("a memory with a day only does not show its day:\n%s", v)
	}
}

// TestView_NarrowShortStatusKeepsCodes: in windows under 40 columns where
// the status pane has one row per check, a Blocked check's line still
// ends in its whole code, dropping the state word and then the title (the
// mark and the header say Blocked). At 30x8 it read "✗ novad Blocked:
// novad-not-…".
func TestView_NarrowShortStatusKeepsCodes(t *testing.T) {
	for w := 21; w < 40; w++ {
		for _, h := range []int{8, 9, 12} {
			m := started(t, &fakeBackend{report: blockedReport()})
			m = update(t, m, tea.WindowSizeMsg{Width: w, Height: h})
			view := m.View()
			if !regexp.MustCompile(`(?m)✗ (novad +)?(Blocked: )?` + doctor.CodeNotRunning + `( |$)`).MatchString(view) {
				t.Errorf("%dx%d: the novad check's line does not show its whole code:\n%s", w, h, view)
			}
		}
	}
}
