package chunk_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/memory"
	"github.com/nova-recall/nova/paths"
)

// buildChunks indexes records (JSONL objects) as one jsonl source in a
// temporary home, through a real build with chunks of at most maxChars,
// and returns the chunks of the active generation by id.
func buildChunks(t *testing.T, maxChars, overlap int, records ...map[string]any) map[string]memory.Chunk {
	t.Helper()
	dir := t.TempDir()
	var b strings.Builder
	for _, r := range records {
		line, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(filepath.Join(dir, "records.jsonl"), []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := config.Defaults()
	cfg.Home = paths.Home{Root: t.TempDir()}
	cfg.Index.ChunkMaxChars, cfg.Index.ChunkOverlapChars = maxChars, overlap
	cfg.Sources = []config.Source{{Name: "mem", Kind: config.KindJSONL, Path: dir}}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("test config: %v", err)
	}
	now := time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)
	ix := index.New(cfg, index.Options{NoRemote: true, Now: func() time.Time { return now }})
	if _, err := ix.Sync(context.Background()); err != nil {
		t.Fatalf("Sync: %v", err)
	}
	_, g, err := index.OpenActive(context.Background(), cfg.Home, lexical.NewAnalyzer())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]memory.Chunk{}
	for _, c := range g.All() {
		out[c.ID] = *c
	}
	return out
}

// TestBuild_chunksKeepCharactersWhole: a long Thai record (no spaces,
// vowel and tone marks) is indexed in chunks none of which begins with a
// mark torn from its letter.
func TestBuild_chunksKeepCharactersWhole(t *testing.T) {
	thai := strings.Repeat("ภาษาไทยไม่มีช่องว่างระหว่างคำที่นี่", 30)
	chunks := buildChunks(t, 200, 20, map[string]any{"id": "th", "text": thai, "date": "2026-02-10"})
	if len(chunks) < 4 {
		t.Fatalf("%d chunks for %d characters", len(chunks), utf8.RuneCountInString(thai))
	}
	for id, c := range chunks {
		if r, _ := utf8.DecodeRuneInString(c.Text); unicode.In(r, unicode.Mn, unicode.Mc) {
			t.Errorf("chunk %s begins with a torn mark: %q", id, c.Text[:min(len(c.Text), 24)])
		}
	}
}

// TestBuild_invisibleCharactersAreNoText: a record whose text starts
// with a byte-order mark is indexed as the same text without it (one
// text hash), and a record of nothing but zero-width spaces is no chunk.
func TestBuild_invisibleCharactersAreNoText(t *testing.T) {
	chunks := buildChunks(t, 1600, 200,
		map[string]any{"id": "bom", "text": "\ufeffPort 2096 is blocked by the firewall.", "date": "2026-02-10"},
		map[string]any{"id": "plain", "text": "Port 2096 is blocked by the firewall.", "date": "2026-02-10"},
		map[string]any{"id": "blank", "text": "\u200b\u200b\ufeff", "date": "2026-02-10"},
	)
	bom, plain := chunks["mem:bom"], chunks["mem:plain"]
	if bom.Text != plain.Text || bom.TextHash != plain.TextHash {
		t.Errorf("text %q (hash %s) with a byte-order mark, %q (hash %s) without", bom.Text, bom.TextHash, plain.Text, plain.TextHash)
	}
	if c, ok := chunks["mem:blank"]; ok {
		t.Errorf("a record of zero-width spaces was indexed: %q", c.Text)
	}
}

// TestBuild_crlfParagraphs: a record written with Windows line ends is
// indexed in chunks of whole paragraphs, as with bare line feeds.
func TestBuild_crlfParagraphs(t *testing.T) {
	var paras []string
	for i := range 30 {
		paras = append(paras, fmt.Sprintf("Paragraph %d is about the staging proxy.\r\nIts second line names port %d.", i, 8000+i))
	}
	chunks := buildChunks(t, 200, 0, map[string]any{"id": "win", "text": strings.Join(paras, "\r\n\r\n"), "date": "2026-02-10"})
	if len(chunks) < 5 {
		t.Fatalf("only %d chunks", len(chunks))
	}
	for id, c := range chunks {
		for p := range strings.SplitSeq(c.Text, "\r\n\r\n") {
			if !slices.Contains(paras, p) {
				t.Errorf("chunk %s holds part of a paragraph: %q", id, p)
			}
		}
	}
}

// TestBuild_codeBlocksWhole: a long note with a code block is indexed in
// chunks that hold the block whole, its fences balanced.
func TestBuild_codeBlocksWhole(t *testing.T) {
	var b strings.Builder
	for i := range 5 {
		fmt.Fprintf(&b, "Step %d of the parser notes says why the port is read twice. ", i)
	}
	b.WriteString("\n\n```go\n")
	for i := range 5 {
		fmt.Fprintf(&b, "if err := readPort%d(); err != nil {\n\treturn err\n}\n", i)
	}
	b.WriteString("```\n\n")
	for i := range 8 {
		fmt.Fprintf(&b, "Note %d on the parser: the port comes from the environment. ", i)
	}
	chunks := buildChunks(t, 400, 60, map[string]any{"id": "parser", "text": b.String(), "date": "2026-02-10"})
	if len(chunks) < 3 {
		t.Fatalf("only %d chunks", len(chunks))
	}
	for id, c := range chunks {
		if n := strings.Count(c.Text, "```"); n%2 != 0 {
			t.Errorf("chunk %s cuts the code block:\n%s", id, c.Text)
		}
	}
}

// TestBuild_urlsWhole: a URL where a chunk would end is indexed whole in
// the next chunk, not in two halves.
func TestBuild_urlsWhole(t *testing.T) {
	url := "https://grafana.internal.example.com/d/billing-latency/billing-queue-latency?orgId=1&from=now-24h&to=now&var-env=staging&var-region=eu-west-1&refresh=30s"
	text := "The billing queue latency board shows the staging spike. Open " + url + " to compare regions. " + strings.Repeat("After the fix the spike is gone from the board. ", 3)
	chunks := buildChunks(t, 200, 20, map[string]any{"id": "board", "text": text, "date": "2026-02-10"})
	whole := false
	for _, c := range chunks {
		whole = whole || strings.Contains(c.Text, url)
	}
	if !whole {
		t.Errorf("no chunk holds the URL whole: %v", chunks)
	}
}

// TestBuild_tablesWhole: a note with a table is indexed in chunks whose
// table rows come with the header naming their columns.
func TestBuild_tablesWhole(t *testing.T) {
	var b strings.Builder
	b.WriteString("The staging hosts after the move to the new proxy, as the runbook lists them for the on-call engineer.\n\n")
	b.WriteString("| host | port | state |\n|------|------|-------|\n")
	for i := range 6 {
		fmt.Fprintf(&b, "| web-%d | %d | up |\n", i, 8000+i)
	}
	b.WriteString("\nThe proxy reads this table when it starts, and again on SIGHUP.")
	chunks := buildChunks(t, 200, 30, map[string]any{"id": "hosts", "text": b.String(), "date": "2026-02-10"})
	if len(chunks) < 2 {
		t.Fatalf("only %d chunks", len(chunks))
	}
	for id, c := range chunks {
		if strings.Contains(c.Text, "web-") && !strings.Contains(c.Text, "| host | port | state |") {
			t.Errorf("chunk %s holds rows without their header:\n%s", id, c.Text)
		}
	}
}

// TestBuild_markupOnlyIsNoChunk: a record of a horizontal rule alone is
// not indexed (a search result of "---" cites nothing).
func TestBuild_markupOnlyIsNoChunk(t *testing.T) {
	chunks := buildChunks(t, 1600, 200,
		map[string]any{"id": "rule", "text": "---", "date": "2026-02-10"},
		map[string]any{"id": "fence", "text": "```\n```", "date": "2026-02-10"},
		map[string]any{"id": "note", "text": "Port 8080 is open on staging.", "date": "2026-02-10"},
	)
	if _, ok := chunks["mem:note"]; !ok || len(chunks) != 1 {
		t.Errorf("chunks %v, want the note alone", chunks)
	}
}
