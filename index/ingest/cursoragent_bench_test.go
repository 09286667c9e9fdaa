package ingest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/memory"
)

// BenchmarkCursorFullRead reads a Cursor project of 1 000 sessions, ten
// of which ran a sub-agent written both under their subagents/ folder
// and as a transcript of its own, the way a full sync does: List, then
// ReadFile each file. Telling whether a session's transcript is a
// sub-agent's looks for a copy of it under the other sessions'
// subagents/ folders: per session, that look must not cost a look into
// every other session (n² stats for the project).
func BenchmarkCursorFullRead(b *testing.B) {
	const sessions, subAgents = 1000, 10
	projects := b.TempDir()
	transcripts := filepath.Join(projects, "Users-dev-src-bench", "agent-transcripts")
	write := func(p, text string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			b.Fatal(err)
		}
		line := fmt.Sprintf(`{"role":"user","message":{"content":"<user_query>%s</user_query>"}}`+"\n"+
			`{"role":"assistant","message":{"content":[{"type":"text","text":"Done: %s"}]}}`+"\n", text, text)
		if err := os.WriteFile(p, []byte(line), 0o600); err != nil {
			b.Fatal(err)
		}
	}
	for i := range sessions {
		s := fmt.Sprintf("s%04d", i)
		write(filepath.Join(transcripts, s, s+".jsonl"), "task "+s)
	}
	for i := range subAgents {
		parent, sub := fmt.Sprintf("s%04d", i*97), fmt.Sprintf("s%04d", i*97+1)
		write(filepath.Join(transcripts, parent, "subagents", sub+".jsonl"), "task "+sub)
	}
	src := config.Source{Name: "cursor", Kind: config.KindCursor, Path: projects}
	for b.Loop() {
		l, err := List(src)
		if err != nil {
			b.Fatal(err)
		}
		records, subs := 0, 0
		sink := Sink{Record: func(r memory.Record) error {
			records++
			if strings.Contains(r.Conversation, "/") { // parent/sub-agent
				subs++
			}
			return nil
		}, Problem: func(p Problem) { b.Fatalf("problem: %+v", p) }}
		for _, f := range l.Files {
			if _, err := ReadFile(context.Background(), src, f, Cursor{}, sink); err != nil {
				b.Fatal(err)
			}
		}
		if records != 2*sessions || subs != 2*subAgents {
			b.Fatalf("%d records, %d of sub-agents: want %d and %d", records, subs, 2*sessions, 2*subAgents)
		}
	}
}
