package tui

import (
	"bytes"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/nova-recall/nova/api"
)

// TestProgram runs the whole Bubble Tea program on a fake terminal of
// 80x24 and drives it with keys, as a person would: search, move down, open
// the second result, go back, quit.
func TestProgram(t *testing.T) {
	b := &fakeBackend{report: blockedReport()}
	tm := teatest.NewTestModel(t, New(Options{Backend: b, StatusInterval: time.Hour}), teatest.WithInitialTermSize(80, 24))
	waitFor := func(what string) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), func(out []byte) bool { return bytes.Contains(out, []byte(what)) },
			teatest.WithDuration(5*time.Second), teatest.WithCheckInterval(10*time.Millisecond))
	}

	waitFor("novad-not-running")
	tm.Type("/")
	tm.Type("dashboard port")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	waitFor("Quality strong")
	tm.Send(tea.KeyMsg{Type: tea.KeyDown})
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	waitFor("result 2 of 3 · C2")
	tm.Send(tea.KeyMsg{Type: tea.KeyEsc})
	waitFor("Quality strong")
	tm.Type("q")

	final, ok := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(Model)
	if !ok {
		t.Fatalf("final model is %T", final)
	}
	if !final.Quitting() || final.Screen() != "list" || final.Cursor() != 1 || final.SearchFocused() {
		t.Fatalf("final state: quitting=%v screen=%s cursor=%d focused=%v", final.Quitting(), final.Screen(), final.Cursor(), final.SearchFocused())
	}
	_, searches := b.calls()
	if want := []api.SearchBody{{Query: "dashboard port", TopK: api.CLIDefaultTopK}}; !reflect.DeepEqual(searches, want) {
		t.Fatalf("searches = %+v, want %+v", searches, want)
	}
}

// TestProgram_PasteIsInert: a bracketed paste is text, whatever it holds.
// Bubble Tea passes a paste's bytes on as they are, and the search box
// kept its control characters: a paste copied from a log or a transcript
// (a colour, a title change, a bell) was drawn into the terminal, where it
// acted, and sent to novad inside the query.
func TestProgram_PasteIsInert(t *testing.T) {
	paste := "\x1b[200~why was the\r\ndashboard\x1b]0;pwned\x07 port\x1b[31m red\x1b[0m\x00 unavailable\x1b[201~"
	query, drawn := pasteAndSearch(t, paste)
	const want = "why was the dashboard port red unavailable"
	if strings.Join(strings.Fields(query), " ") != want || strings.ContainsFunc(query, unicode.IsControl) {
		t.Errorf("searched for %q, want %q", query, want)
	}
	for _, seq := range []string{"]0;", "\x07", "[31m", "\x00"} {
		if strings.Contains(drawn, seq) {
			t.Errorf("the pasted %q reached the terminal:\n%q", seq, drawn)
		}
	}
	if !strings.Contains(drawn, "port red unavailable") {
		t.Errorf("the pasted text around the escapes is not drawn:\n%q", drawn)
	}
}

// TestProgram_PastedLinesStayWords: the lines of a pasted multi-line
// question are words apart in the search box, whatever ends them. Many
// terminals (and tmux) send a pasted line end as a carriage return, which
// the box dropped as a control character: "why was the" over "dashboard
// port" was searched as "why was thedashboard port", words no memory
// holds.
func TestProgram_PastedLinesStayWords(t *testing.T) {
	for name, end := range map[string]string{"CR": "\r", "LF": "\n", "CRLF": "\r\n", "LF CR": "\n\r"} {
		t.Run(name, func(t *testing.T) {
			query, _ := pasteAndSearch(t, "\x1b[200~why was the"+end+"dashboard port"+end+"unavailable"+end+"\x1b[201~")
			const want = "why was the dashboard port unavailable"
			if strings.Join(strings.Fields(query), " ") != want {
				t.Errorf("searched for %q, want %q", query, want)
			}
		})
	}
}

// pasteAndSearch runs the real program on a pipe, presses /, pastes paste
// (bracketed paste bytes as a terminal sends them) and Enter, then quits
// with ctrl+c. It returns the query the backend got and all that was
// drawn.
func pasteAndSearch(t *testing.T, paste string) (query, drawn string) {
	t.Helper()
	b := &fakeBackend{report: readyReport()}
	in, keys := io.Pipe()
	var out bytes.Buffer
	p := tea.NewProgram(New(Options{Backend: b, StatusInterval: time.Hour}), tea.WithInput(in), tea.WithOutput(&out))
	done := make(chan tea.Model, 1)
	go func() {
		final, err := p.Run()
		if err != nil {
			t.Errorf("run: %v", err)
		}
		done <- final
	}()
	p.Send(tea.WindowSizeMsg{Width: 80, Height: 24})
	for _, k := range []string{"/", paste, "\r"} {
		if _, err := io.WriteString(keys, k); err != nil {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond) // one read each, as a person types
	}
	deadline := time.Now().Add(5 * time.Second)
	for _, s := b.calls(); len(s) == 0 && time.Now().Before(deadline); _, s = b.calls() {
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := io.WriteString(keys, "\x03"); err != nil {
		t.Fatal(err)
	}
	var final tea.Model
	select {
	case final = <-done:
	case <-time.After(5 * time.Second):
		p.Kill()
		t.Fatal("the program did not quit on ctrl+c")
	}
	_ = keys.Close()
	if _, ok := final.(Model); !ok {
		t.Fatalf("final model is %T", final)
	}
	_, searches := b.calls()
	if len(searches) != 1 {
		t.Fatalf("searches = %+v, want one", searches)
	}
	return searches[0].Query, out.String()
}

// TestProgram_ResizeSmall drives the real program through a sequence of
// window sizes, as a person dragging a terminal's corner does: every size
// from minWidth x minHeight up shows the search box and the results, one
// below it says it is too small, and growing back shows the screen again.
func TestProgram_ResizeSmall(t *testing.T) {
	b := &fakeBackend{report: readyReport()}
	tm := teatest.NewTestModel(t, New(Options{Backend: b, StatusInterval: time.Hour}), teatest.WithInitialTermSize(80, 24))
	waitFor := func(want ...string) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), func(out []byte) bool {
			for _, w := range want {
				if !bytes.Contains(out, []byte(w)) {
					return false
				}
			}
			return true
		}, teatest.WithDuration(5*time.Second), teatest.WithCheckInterval(10*time.Millisecond))
	}
	waitFor("Ready")
	tm.Type("/")
	tm.Type("dashboard port")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	waitFor("Quality strong")
	tm.Send(tea.KeyMsg{Type: tea.KeyEsc})
	for _, s := range []struct {
		w, h int
		want []string
	}{
		{40, 10, []string{"Search ›", "After"}},
		{20, 5, []string{"Search ›", "1.154"}},
		{20, 3, []string{"Search ›", "1.154", "q quit"}},
		{19, 3, []string{"Too small"}},
		{20, 2, []string{"Too small"}},
		{20, 5, []string{"Search ›", "1.154"}},
		{80, 24, []string{"Search ›", "Quality strong", "After"}},
	} {
		t.Logf("%dx%d: waiting for %q", s.w, s.h, s.want)
		tm.Send(tea.WindowSizeMsg{Width: s.w, Height: s.h})
		waitFor(s.want...)
	}
	tm.Type("q")
	final, ok := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(Model)
	if !ok || !final.Quitting() {
		t.Fatalf("final model %T, not quitting", final)
	}
	if v := final.View(); v != "" {
		t.Fatalf("the final view is not empty: %q", v)
	}
}
