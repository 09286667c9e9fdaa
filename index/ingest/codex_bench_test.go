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

// BenchmarkReadCodexRollout reads a 32 MiB Codex rollout whole: turns of
// a prompt, a tool call with its output and an answer, and no rollback,
// the common case, where the look-ahead for rolled-back turns is one
// byte scan of what the read then parses.
func BenchmarkReadCodexRollout(b *testing.B) {
	dir := b.TempDir()
	path := filepath.Join(dir, "rollout-2026-12-05T10-00-00-019da000-0190-7000-8000-000000000190.jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	fmt.Fprintln(f, `{"timestamp":"2026-12-05T10:00:00.000Z","type":"session_meta","payload":{"id":"019da000-0190-7000-8000-000000000190","timestamp":"2026-12-05T10:00:00.000Z","cwd":"/home/lee/infra","originator":"codex_cli_rs","cli_version":"0.160.0","source":"cli"}}`)
	output := strings.Repeat("build step ok; ", 200)
	for i, n := 0, 0; n < 32<<20; i++ {
		lines := fmt.Sprintf(`{"timestamp":"2026-12-05T10:%02d:00.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"why does deploy %d fail on the staging cluster"}]}}
{"timestamp":"2026-12-05T10:%02d:01.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"make\",\"deploy\"]}","call_id":"c%d"}}
{"timestamp":"2026-12-05T10:%02d:02.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c%d","output":%q}}
{"timestamp":"2026-12-05T10:%02d:03.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"The deploy %d failed because the image tag was missing; I pinned it."}]}}
`, i%60, i, i%60, i, i%60, i, output, i%60, i)
		if _, err := f.WriteString(lines); err != nil {
			b.Fatal(err)
		}
		n += len(lines)
	}
	f.Close()
	src := config.Source{Name: "codex", Kind: config.KindCodex, Path: dir}
	file := File{Path: path, Rel: filepath.Base(path)}
	b.SetBytes(32 << 20)
	for b.Loop() {
		records := 0
		sink := Sink{Record: func(memory.Record) error { records++; return nil }, Problem: func(Problem) {}}
		if _, err := ReadFile(context.Background(), src, file, Cursor{}, sink); err != nil || records == 0 {
			b.Fatalf("%d records, %v", records, err)
		}
	}
}
