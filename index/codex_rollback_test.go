package index_test

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
)

// TestSync_codexRollback: a Codex rollout through real syncs. The user
// rolls back a turn an earlier sync indexed: the file is read whole, the
// words taken back are no longer found, the turns kept still are. A turn
// written and rolled back between two syncs is read on from the cursor
// and never indexed.
func TestSync_codexRollback(t *testing.T) {
	dir := t.TempDir()
	const session = "019da000-0190-7000-8000-000000000190"
	rollout := filepath.Join(dir, "sessions", "2026", "10", "02", "rollout-2026-10-02T08-00-00-"+session+".jsonl")
	line := func(ts, typ, payload string) string {
		return `{"timestamp":"2026-10-02T08:` + ts + `.000Z","type":"` + typ + `","payload":` + payload + "}\n"
	}
	prompt := func(ts, text string) string {
		return line(ts, "response_item", `{"type":"message","role":"user","content":[{"type":"input_text","text":"`+text+`"}]}`) +
			line(ts, "event_msg", `{"type":"user_message","message":"`+text+`","images":[]}`)
	}
	answer := func(ts, text string) string {
		return line(ts, "response_item", `{"type":"message","role":"assistant","content":[{"type":"output_text","text":"`+text+`"}],"phase":"final_answer"}`) +
			line(ts, "event_msg", `{"type":"agent_message","message":"`+text+`","phase":"final_answer"}`)
	}
	rollback := func(ts string, n int) string {
		return line(ts, "event_msg", `{"type":"thread_rolled_back","num_turns":`+strconv.Itoa(n)+`}`)
	}
	writeFile(t, rollout, line("00:00", "session_meta", `{"id":"`+session+`","cwd":"/home/mia/garden","originator":"codex_cli_rs","cli_version":"0.180.0","source":"cli"}`)+
		prompt("00:02", "Which tomato varieties resist late blight?")+
		answer("00:09", "Mountain Magic and Defiant PhR both resist late blight.")+
		prompt("01:01", "Order forty seed packets of Brandywine.")+
		answer("01:09", "Ordered forty Brandywine heirloom packets for Friday."))
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "codex", Kind: config.KindCodex, Path: filepath.Join(dir, "sessions")})
	clk := newClock(epoch)
	ix := index.New(cfg, index.Options{NoRemote: true, Now: clk.Now})
	mustSync(t, ix)

	texts := func() []string {
		t.Helper()
		_, g := active(t, cfg.Home)
		var out []string
		for _, c := range chunkByID(t, g) {
			out = append(out, c.Text)
		}
		slices.Sort(out)
		return out
	}
	says := func(s string) bool {
		return slices.ContainsFunc(texts(), func(text string) bool { return strings.Contains(text, s) })
	}
	found := func(query string) bool {
		t.Helper()
		return len(searchIDs(t, cfg.Home, query)) > 0
	}
	if !says("Brandywine") || !found("Brandywine heirloom") {
		t.Fatalf("first sync: %q", texts())
	}

	// The user backtracks to before the order and asks for another.
	appendFile(t, rollout, rollback("02:00", 1)+
		prompt("02:21", "Order four packets of Mountain Magic instead.")+
		answer("02:29", "Ordered four Mountain Magic packets."))
	b := mustSync(t, ix).Build
	if b.FilesResumed != 0 {
		t.Errorf("after a rollback of a turn read before: %d files resumed, want the file read whole", b.FilesResumed)
	}
	if says("Brandywine") || found("Brandywine heirloom") {
		t.Errorf("the rolled back turn is still indexed: %q", texts())
	}
	if !says("Order four packets of Mountain Magic") || !says("Which tomato varieties") || !found("late blight varieties") {
		t.Errorf("the turns kept are not all indexed: %q", texts())
	}

	// A turn asked and rolled back between two syncs: read on from the
	// cursor, never indexed.
	appendFile(t, rollout, prompt("03:01", "Email the compost invoice to Sam.")+
		rollback("03:05", 1)+
		prompt("03:30", "Which bed gets the most sun?"))
	b = mustSync(t, ix).Build
	if b.FilesResumed != 1 {
		t.Errorf("after a rollback of turns after the cursor: %d files resumed, want 1", b.FilesResumed)
	}
	if says("compost invoice") || found("compost invoice") || !says("Which bed gets the most sun?") || !says("Mountain Magic packets") {
		t.Errorf("after the second rollback: %q", texts())
	}
}
