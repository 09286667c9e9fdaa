package tui

import (
	"bytes"
	"reflect"
	"testing"
	"time"

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
