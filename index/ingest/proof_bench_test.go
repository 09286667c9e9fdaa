package ingest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/memory"
)

// BenchmarkResumeGrownTranscript reads one appended line of a 256 MiB
// Claude Code transcript from a stored cursor: proven by the whole prefix
// (a cursor with only its Prefix, as before) and by its window (now).
func BenchmarkResumeGrownTranscript(b *testing.B) {
	path := filepath.Join(b.TempDir(), "s1.jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	filler := strings.Repeat("x ", 2000)
	for i, n := 0, 0; n < 256<<20; i++ {
		line := fmt.Sprintf(`{"type":"user","sessionId":"s1","uuid":"t%d","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t%d","content":%q}]}}`+"\n", i, i, filler)
		if _, err := f.WriteString(line); err != nil {
			b.Fatal(err)
		}
		n += len(line)
	}
	f.Close()
	src := config.Source{Name: "claude", Kind: config.KindClaudeCode, Path: filepath.Dir(path)}
	sink := Sink{Record: func(memory.Record) error { return nil }, Problem: func(Problem) {}}
	file := File{Path: path, Rel: "p/s1.jsonl"}
	stored, err := ReadFile(context.Background(), src, file, Cursor{}, sink)
	if err != nil {
		b.Fatal(err)
	}
	raw, _ := json.Marshal(stored)
	for _, proof := range []string{"prefix", "window"} {
		b.Run(proof, func(b *testing.B) {
			for i := range b.N {
				b.StopTimer()
				var cur Cursor
				_ = json.Unmarshal(raw, &cur)
				if proof == "prefix" {
					cur.Window, cur.Size = "", 0
				}
				g, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
				fmt.Fprintf(g, `{"type":"user","sessionId":"s1","uuid":"a%d-%s","message":{"role":"user","content":"appended line"}}`+"\n", i, proof)
				g.Close()
				b.StartTimer()
				if _, err := ReadFile(context.Background(), src, file, cur, sink); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
