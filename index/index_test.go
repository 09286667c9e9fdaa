package index_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/klauspost/compress/zstd"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/index/generation"
	"github.com/nova-recall/nova/index/ingest"
	"github.com/nova-recall/nova/index/segment"
	"github.com/nova-recall/nova/manifest"
	"github.com/nova-recall/nova/memory"
)

// TestSync_incremental is the first "done when": a home with one
// jsonl source syncs to an active manifest that validates and loads, and a
// second sync with one record added embeds only that record.
func TestSync_incremental(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "data", "memories.jsonl")
	writeFile(t, src, jsonlLines(t, baseRecords()...))
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "notes", Kind: config.KindJSONL, Path: src, SourceSet: "external-content"})
	ix := index.New(cfg, index.Options{NoRemote: true, Now: newClock(epoch).Now})

	first := mustSync(t, ix)
	b := first.Build
	if b.Records != 6 || b.Chunks != 6 || b.Embedded != 6 || b.Cached != 0 || !b.ModelTrained || b.ProblemCount != 0 {
		t.Fatalf("first build: records %d chunks %d embedded %d cached %d trained %v problems %v",
			b.Records, b.Chunks, b.Embedded, b.Cached, b.ModelTrained, b.Problems)
	}
	if b.EmbeddingSource != "in-process" {
		t.Errorf("embedding source %q, want in-process", b.EmbeddingSource)
	}
	m, g := active(t, cfg.Home)
	if m.Status != manifest.StatusActive || m.RunID != b.RunID || m.GenerationPath != "generations/"+b.RunID ||
		m.ChunkCount != 6 || m.RecordCount != 6 || m.PromotedBy != "sync" || m.PreviousRunID != "" {
		t.Errorf("manifest: %+v", m)
	}
	if p := m.EmbeddingProfile; p.Provider != config.ProviderBuiltin || p.Dimension != 384 || !strings.HasPrefix(p.Model, "lsa-") ||
		m.EmbeddingProfileHash != manifest.ProfileHash(p) {
		t.Errorf("embedding profile %+v hash %s", p, m.EmbeddingProfileHash)
	}
	if len(m.SourceProfile.Sources) != 1 || m.SourceProfile.Sources[0] != (manifest.SourceRef{Name: "notes", Kind: "jsonl", Path: src, SourceSet: "external-content"}) ||
		m.SourceProfileHash != m.SourceProfile.Hash() {
		t.Errorf("source profile %+v", m.SourceProfile)
	}
	for _, f := range []string{generation.FileSources, generation.FileReport} {
		if _, ok := m.Files[f]; !ok {
			t.Errorf("manifest does not list %s", f)
		}
	}
	if _, ok := m.Space.Files[generation.FileModel]; !ok || len(m.Segments) != 1 {
		t.Errorf("manifest lists space %v and %d segments", m.Space.Files, len(m.Segments))
	}
	for _, f := range []string{segment.FileRecords, segment.FileFacets, segment.FileDict, segment.FileText, segment.FileContext, segment.FileCodes, segment.FileSigns, segment.FileMeta} {
		if _, ok := m.Segments[0].Files[f]; !ok {
			t.Errorf("the segment does not list %s", f)
		}
	}
	if g.Count() != 6 || g.Len() != 6 || g.Model == nil || g.Model.ID() != m.EmbeddingProfile.Model {
		t.Fatalf("generation: %d chunks, %d slots", g.Count(), g.Len())
	}
	c := chunkByID(t, g)["notes:mem-001"]
	if c.SourceID != "mem-001" || c.Project != "billing" || c.Agent != "codex" || c.Date != "2026-02-10" ||
		!slices.Contains(c.Tags, "decision") || c.SourcePath != src || c.LineNumber != 1 || c.SourceType != "jsonl" ||
		c.SourceSet != "external-content" || c.Parts != 1 || c.TextHash != memory.HashText(c.Text) {
		t.Errorf("chunk mem-001: %+v", c)
	}
	if c := chunkByID(t, g)["notes:mem-003"]; c.Time != "2026-02-12T09:30:00Z" || c.Date != "2026-02-12" {
		t.Errorf("chunk mem-003 time %q date %q", c.Time, c.Date)
	}
	if got := dirNames(t, cfg.Home.Candidates()); len(got) != 0 {
		t.Errorf("candidates left after sync: %v", got)
	}

	t.Run("one record added embeds one", func(t *testing.T) {
		// A record of another session is its own conversation: nothing
		// else's neighbour context changes.
		appendFile(t, src, jsonlLines(t, rec{ID: "mem-007", Text: "The webhook secret rotates every 90 days; the rotation runbook lives in ops/webhooks.md.", Date: "2026-02-16", Project: "billing", Session: "s-77"}))
		second := mustSync(t, ix)
		b := second.Build
		if b.Mode != index.ModeIncremental || b.Embedded != 1 || b.Added != 1 || b.Retired != 0 || b.FilesRead != 1 || b.Records != 7 || b.Chunks != 7 || b.ModelTrained {
			t.Fatalf("second build: %s, embedded %d added %d retired %d read %d records %d chunks %d trained %v",
				b.Mode, b.Embedded, b.Added, b.Retired, b.FilesRead, b.Records, b.Chunks, b.ModelTrained)
		}
		m2, g2 := active(t, cfg.Home)
		if m2.RunID != b.RunID || m2.PreviousRunID != m.RunID || m2.EmbeddingProfile != m.EmbeddingProfile {
			t.Errorf("second manifest run %s previous %s profile %+v", m2.RunID, m2.PreviousRunID, m2.EmbeddingProfile)
		}
		// Unchanged records keep their chunk ids, text hashes and vectors.
		before, after := chunkByID(t, g), chunkByID(t, g2)
		for id, c := range before {
			c2, ok := after[id]
			if !ok || c2.TextHash != c.TextHash || c2.DedupeKey != c.DedupeKey {
				t.Errorf("chunk %s changed or vanished", id)
			}
		}
		if _, ok := after["notes:mem-007"]; !ok {
			t.Errorf("new chunk missing")
		}
		docs := map[string]int{}
		for j, c := range g2.All() {
			docs[c.ID] = j
		}
		for i, c := range g.All() {
			if !slices.Equal(g.Vector(i), g2.Vector(docs[c.ID])) {
				t.Errorf("vector of %s changed", c.ID)
			}
		}
	})

	t.Run("record appended to a conversation embeds only itself", func(t *testing.T) {
		// Records of one file and project are one conversation. The
		// previous last record's lexical context now holds the new
		// record's first words, but its vector embeds only the words
		// before it, so appending (how transcripts grow) embeds one.
		appendFile(t, src, jsonlLines(t, rec{ID: "mem-008", Text: "Lesson: pin the terraform provider versions; an unpinned upgrade recreated the staging database.", Date: "2026-02-17", Project: "billing"}))
		b := mustSync(t, ix).Build
		// The two records before it (contextTurns 2) get its words as
		// context: written again with their vectors carried.
		if b.Embedded != 1 || b.Carried != 2 || b.Added != 3 || b.Retired != 2 || b.Chunks != 8 {
			t.Fatalf("third build: embedded %d carried %d added %d retired %d chunks %d, want 1 2 3 2 8", b.Embedded, b.Carried, b.Added, b.Retired, b.Chunks)
		}
		// Three segments, two retired documents: a filter accepts exactly
		// the live documents that match and counts the live ones it
		// refuses.
		_, g3 := active(t, cfg.Home)
		if g3.Len() == g3.Count() {
			t.Fatal("no retired document to test the filter with")
		}
		for _, f := range []api.Filters{{Project: "billing"}, {Project: "nowhere"}, {DateFrom: "2026-02-12"}} {
			accept, refused := g3.FilterCount(f, nil)
			want := 0
			for doc := range g3.Len() {
				c := g3.Chunk(doc)
				match := g3.Live(doc) && (f.Project == "" || c.Project == f.Project) && c.Date >= f.DateFrom
				if accept(doc) != match {
					t.Errorf("filter %+v, doc %d (%s, live %v): accepted %v", f, doc, c.ID, g3.Live(doc), accept(doc))
				}
				if g3.Live(doc) && !match {
					want++
				}
			}
			if refused != want {
				t.Errorf("filter %+v refused %d, want %d", f, refused, want)
			}
		}
	})
}

// TestSync_sourceKinds builds every source kind at once and checks what
// each contributed.
func TestSync_sourceKinds(t *testing.T) {
	dir := t.TempDir()
	jsonlPath := filepath.Join(dir, "records", "export.jsonl")
	good := jsonlLines(t, baseRecords()[:3]...)
	lines := strings.SplitAfter(good, "\n")
	malformed := lines[0] +
		`{"id": "truncated", "text": "the writer crashed here` + "\n" + // line 2
		`{"text": "a record without an id"}` + "\n" + // line 3
		lines[1] + // line 4
		"not json at all\n" + // line 5
		`{"id": "bad-date", "text": "dated wrongly", "date": "last tuesday"}` + "\n" + // line 6
		"\n" + // line 7: blank lines are fine
		lines[2] + // line 8
		`{"id": "secret", "text": "Deploy key for staging: sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd; screenshot data:image/png;base64,` + strings.Repeat("iVBORw0KGgoAAAANSUhEUgAA", 40) + ` end of note."}` + "\n" // line 9
	writeFile(t, jsonlPath, malformed)

	notes := filepath.Join(dir, "notes")
	writeFile(t, filepath.Join(notes, "runbook.md"), `---
title: Billing runbook
date: 2026-02-20
tags: [runbook, billing]
project: billing
---
How the billing service is deployed and rolled back.

# Deploys
## Rollback
To roll back, redeploy the previous image and run make migrate-down.
## Canary
The canary gets 5% of traffic for 30 minutes before the full rollout.
# On-call
Page the billing on-call through PagerDuty; escalate after 15 minutes.
`)

	hugePath := filepath.Join(dir, "huge", "tool-output.jsonl")
	huge := hugeText(12000)
	writeFile(t, hugePath, jsonlLines(t, rec{ID: "log-1", Text: huge, Date: "2026-02-21", Project: "ci", Title: "CI log"}))

	codex, err := filepath.Abs(filepath.Join("ingest", "testdata", "codex"))
	if err != nil {
		t.Fatal(err)
	}
	claude, err := filepath.Abs(filepath.Join("ingest", "testdata", "claude-code", "projects"))
	if err != nil {
		t.Fatal(err)
	}
	// The same rollout compressed, as Codex leaves old sessions.
	plain, err := os.ReadFile(filepath.Join(codex, "sessions", "2026", "03", "02", codexRollout))
	if err != nil {
		t.Fatal(err)
	}
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "codex-zst", "sessions", codexRollout+".zst"), string(enc.EncodeAll(plain, nil)))
	enc.Close()
	cfg := testConfig(t, filepath.Join(dir, "home"),
		config.Source{Name: "export", Kind: config.KindJSONL, Path: jsonlPath},
		config.Source{Name: "codex-zst", Kind: config.KindCodex, Path: filepath.Join(dir, "codex-zst")},
		config.Source{Name: "notes", Kind: config.KindMarkdown, Path: notes},
		config.Source{Name: "huge", Kind: config.KindJSONL, Path: hugePath},
		config.Source{Name: "codex", Kind: config.KindCodex, Path: codex},
		config.Source{Name: "claude", Kind: config.KindClaudeCode, Path: claude},
	)
	ix := index.New(cfg, index.Options{NoRemote: true, Now: newClock(epoch).Now})
	r := mustSync(t, ix)
	_, g := active(t, cfg.Home)
	byID := chunkByID(t, g)
	bySource := map[string][]memory.Chunk{}
	for _, c := range g.All() {
		bySource[c.SourceName] = append(bySource[c.SourceName], *c)
	}
	summary := map[string]index.SourceSummary{}
	for _, s := range r.Build.Sources {
		summary[s.Name] = s
	}

	t.Run("jsonl malformed lines", func(t *testing.T) {
		var got []int
		for _, p := range r.Build.Problems {
			if p.Source != "export" {
				continue
			}
			if p.Path != jsonlPath || !strings.HasPrefix(p.String(), "export: "+jsonlPath+":") {
				t.Errorf("problem %q does not name the source and the file", p.String())
			}
			got = append(got, p.Line)
		}
		if !slices.Equal(got, []int{2, 3, 5, 6}) {
			t.Errorf("problem lines %v, want [2 3 5 6]: %v", got, r.Build.Problems)
		}
		if s := summary["export"]; s.Records != 4 || s.Problems != 4 || s.Files != 1 {
			t.Errorf("summary %+v", s)
		}
		for id, line := range map[string]int{"export:mem-001": 1, "export:mem-002": 4, "export:mem-003": 8, "export:secret": 9} {
			if c, ok := byID[id]; !ok || c.LineNumber != line {
				t.Errorf("chunk %s: present %v line %d, want line %d", id, ok, c.LineNumber, line)
			}
		}
		s := byID["export:secret"].Text
		if strings.Contains(s, "sk-proj-") || strings.Contains(s, "iVBOR") || !strings.Contains(s, "end of note") {
			t.Errorf("secret or base64 kept: %q", s)
		}
	})

	t.Run("markdown headings", func(t *testing.T) {
		want := map[string][]string{
			"notes:runbook.md#top":              nil,
			"notes:runbook.md#deploys-rollback": {"Deploys", "Rollback"},
			"notes:runbook.md#deploys-canary":   {"Deploys", "Canary"},
			"notes:runbook.md#on-call":          {"On-call"},
		}
		if len(bySource["notes"]) != len(want) {
			for _, c := range bySource["notes"] {
				t.Logf("got %s %q", c.ID, c.HeadingPath)
			}
			t.Fatalf("%d markdown chunks, want %d", len(bySource["notes"]), len(want))
		}
		for id, path := range want {
			c, ok := byID[id]
			if !ok || !slices.Equal(c.HeadingPath, path) {
				t.Errorf("chunk %s: present %v heading path %q, want %q", id, ok, c.HeadingPath, path)
				continue
			}
			if c.Date != "2026-02-20" || c.Project != "billing" || !slices.Contains(c.Tags, "runbook") ||
				c.SourceType != "markdown" || c.SourceSet != "notes" || c.Layer != "note" {
				t.Errorf("chunk %s metadata: %+v", id, c)
			}
		}
		// The note's title leads its sections' (its H1s are two: neither
		// is its name).
		if c := byID["notes:runbook.md#deploys-rollback"]; c.Title != "Billing runbook > Deploys > Rollback" || c.LineNumber != 10 ||
			!strings.Contains(c.Text, "migrate-down") {
			t.Errorf("rollback section: title %q line %d text %q", c.Title, c.LineNumber, c.Text)
		}
		if c := byID["notes:runbook.md#top"]; c.Title != "Billing runbook" {
			t.Errorf("top section title %q", c.Title)
		}
	})

	t.Run("codex", func(t *testing.T) {
		// Every user and assistant message (commentary included) and the
		// compaction summary.
		cs := bySource["codex"]
		if len(cs) != 9 {
			t.Fatalf("%d codex chunks, want 9", len(cs))
		}
		for _, c := range cs {
			if c.Agent != "codex" || c.SourceType != "codex" || c.SessionID != "0196c0de-7a11-7c2e-9f00-5e1b2c3d4e5f" ||
				(c.Project != "billing" && c.Project != "billing-api") || c.SourceSet != "agent-transcripts" || c.Time == "" {
				t.Errorf("codex chunk %+v", c)
			}
		}
		if c := byID["codex:0196c0de-7a11-7c2e-9f00-5e1b2c3d4e5f:6"]; c.Text != "Why do invoice totals drift by a cent?" || c.Role != "user" {
			t.Errorf("codex first turn: %+v", c)
		}
		if !hasProblem(r.Build.Problems, "codex", 21) {
			t.Errorf("the malformed codex line 21 is not reported: %v", r.Build.Problems)
		}
		// The compressed rollout gives the same records.
		zs := bySource["codex-zst"]
		if len(zs) != len(cs) {
			t.Fatalf("%d chunks from the .jsonl.zst rollout, want %d", len(zs), len(cs))
		}
		for i := range zs {
			if zs[i].SourceID != cs[i].SourceID || zs[i].Text != cs[i].Text || !strings.HasSuffix(zs[i].SourcePath, ".jsonl.zst") {
				t.Errorf("zst chunk %d: %s %q from %s, plain %s %q", i, zs[i].SourceID, zs[i].Text, zs[i].SourcePath, cs[i].SourceID, cs[i].Text)
			}
		}
	})

	t.Run("claude-code", func(t *testing.T) {
		// One record per prompt and per assistant text line.
		cs := bySource["claude"]
		if len(cs) != 8 {
			t.Fatalf("%d claude chunks, want 8", len(cs))
		}
		for _, c := range cs {
			if c.Agent != "claude-code" || c.SourceType != "claude-code" || c.SessionID != "5b1c2d3e-0000-4a4a-9b9b-123456789abc" {
				t.Errorf("claude chunk %+v", c)
			}
			if strings.Contains(c.Text, "Bearer ey") || strings.Contains(c.Text, "iVBOR") {
				t.Errorf("noise leaked into %s: %q", c.ID, c.Text)
			}
		}
		if c := byID["claude:5b1c2d3e-0000-4a4a-9b9b-123456789abc:17"]; c.Project != "web" || !strings.Contains(c.Text, "[redacted]") {
			t.Errorf("claude turn 17: %+v", c)
		}
		if !hasProblem(r.Build.Problems, "claude", 13) {
			t.Errorf("the malformed claude line 13 is not reported: %v", r.Build.Problems)
		}
	})

	t.Run("huge text", func(t *testing.T) {
		parts := hugeParts(t, bySource["huge"])
		checkPieces(t, cfg, huge, parts)
		// A full rebuild of the same text gives the same ids and pieces.
		r2 := mustSync(t, index.New(cfg, index.Options{NoRemote: true, Full: true}))
		if r2.Build.Mode != index.ModeFull || r2.Build.Chunks != r.Build.Chunks {
			t.Errorf("rebuild: %s with %d chunks, want full with %d", r2.Build.Mode, r2.Build.Chunks, r.Build.Chunks)
		}
		_, g2 := active(t, cfg.Home)
		var again []memory.Chunk
		for _, c := range g2.All() {
			if c.SourceName == "huge" {
				again = append(again, *c)
			}
		}
		again = hugeParts(t, again)
		for i := range parts {
			if again[i].ID != parts[i].ID || again[i].TextHash != parts[i].TextHash {
				t.Errorf("piece %d: %s/%s became %s/%s", i, parts[i].ID, parts[i].TextHash[:8], again[i].ID, again[i].TextHash[:8])
			}
		}
	})
}

func hasProblem(ps []ingest.Problem, source string, line int) bool {
	for _, p := range ps {
		if p.Source == source && p.Line == line {
			return true
		}
	}
	return false
}

const codexRollout = "rollout-2026-03-02T09-15-03-0196c0de-7a11-7c2e-9f00-5e1b2c3d4e5f.jsonl"

// hugeText returns about n characters of realistic tool output: numbered
// log lines grouped in paragraphs.
func hugeText(n int) string {
	var b strings.Builder
	for i := 1; b.Len() < n; i++ {
		b.WriteString("step ")
		b.WriteString(strings.Repeat("x", i%3))
		b.WriteString(itoa(i))
		b.WriteString(": compiled package billing/internal/ledger")
		b.WriteString(itoa(i % 17))
		b.WriteString(" in 0.")
		b.WriteString(itoa(100 + i%900))
		b.WriteString("s, cache miss for go.sum entry golang.org/x/text v0.")
		b.WriteString(itoa(i % 30))
		b.WriteString(".0.")
		if i%7 == 0 {
			b.WriteString("\n\n")
		} else {
			b.WriteString(" ")
		}
	}
	return b.String()
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var d []byte
	for ; i > 0; i /= 10 {
		d = append([]byte{byte('0' + i%10)}, d...)
	}
	return string(d)
}

// hugeParts returns the chunks of record log-1 in part order, checking ids.
func hugeParts(t *testing.T, cs []memory.Chunk) []memory.Chunk {
	t.Helper()
	if len(cs) < 3 {
		t.Fatalf("the huge record became %d chunks, want several", len(cs))
	}
	slices.SortFunc(cs, func(a, b memory.Chunk) int { return a.Part - b.Part })
	for i, c := range cs {
		want := memory.ChunkID("huge", "log-1", i+1, len(cs))
		if c.ID != want || c.Part != i+1 || c.Parts != len(cs) || c.SourceID != "log-1" || c.Title != "CI log" {
			t.Errorf("piece %d: id %s part %d/%d source id %s title %q, want id %s", i, c.ID, c.Part, c.Parts, c.SourceID, c.Title, want)
		}
	}
	return cs
}

// checkPieces checks that pieces cover text within the size cap and that
// consecutive pieces overlap.
func checkPieces(t *testing.T, cfg config.Config, text string, parts []memory.Chunk) {
	t.Helper()
	for i, c := range parts {
		if n := utf8.RuneCountInString(c.Text); n > cfg.Index.ChunkMaxChars {
			t.Errorf("piece %d has %d characters, cap %d", i, n, cfg.Index.ChunkMaxChars)
		}
		if !strings.Contains(text, c.Text) {
			t.Errorf("piece %d is not a slice of the text", i)
		}
		if i == 0 {
			continue
		}
		prev := parts[i-1].Text
		head := c.Text[:min(40, len(c.Text))]
		if !strings.Contains(prev, head) {
			t.Errorf("piece %d does not start inside piece %d (no overlap): %q", i, i-1, head)
		}
		end := strings.Index(text, prev) + len(prev)
		start := strings.Index(text, c.Text)
		if overlap := end - start; overlap <= 0 || overlap > cfg.Index.ChunkOverlapChars+40 {
			t.Errorf("pieces %d and %d overlap by %d characters, want 1-%d", i-1, i, overlap, cfg.Index.ChunkOverlapChars)
		}
	}
	if !strings.HasPrefix(text, parts[0].Text) || !strings.HasSuffix(strings.TrimSpace(text), parts[len(parts)-1].Text) {
		t.Errorf("the pieces do not start and end with the text")
	}
}

// TestSync_embedsWhatChanged: a sync embeds only what changed; an
// unchanged sync builds nothing; a full rebuild keeps the vector space
// (the same model); a retrained model is a new space and embeds all.
func TestSync_embedsWhatChanged(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "memories.jsonl")
	recs := baseRecords()
	for i := range recs {
		recs[i].Session = "s-" + recs[i].ID // one conversation each: no neighbour context
	}
	writeFile(t, src, jsonlLines(t, recs...))
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "notes", Kind: config.KindJSONL, Path: src})
	clk := newClock(epoch)
	ix := index.New(cfg, index.Options{NoRemote: true, Now: clk.Now})

	steps := []struct {
		name              string
		change            func()
		opts              *index.Options
		mode              string
		embedded, retired int
		sameModel         bool
	}{
		{"first build embeds all", func() {}, nil, index.ModeFull, 6, 0, false},
		{"an unchanged sync builds nothing", func() {}, nil, index.ModeUnchanged, 0, 0, true},
		{"an edited record is embedded again", func() {
			recs[2].Text += " Follow-up: the fix shipped in 2.4.2."
			writeFile(t, src, jsonlLines(t, recs...))
		}, nil, index.ModeIncremental, 1, 1, true},
		{"a full rebuild keeps the model", func() {}, &index.Options{NoRemote: true, Now: clk.Now, Full: true}, index.ModeFull, 6, 0, true},
		{"a retrained model is a new space", func() {}, &index.Options{NoRemote: true, Now: clk.Now, Retrain: true}, index.ModeFull, 6, 0, false},
	}
	var prevModel string
	for _, s := range steps {
		s.change()
		x := ix
		if s.opts != nil {
			x = index.New(cfg, *s.opts)
		}
		r, err := x.Sync(context.Background())
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		b := r.Build
		if b.Mode != s.mode || b.Embedded != s.embedded || b.Retired != s.retired || (r.Promote == nil) != (s.mode == index.ModeUnchanged) {
			t.Errorf("%s: %s embedded %d retired %d promoted %v, want %s %d %d", s.name, b.Mode, b.Embedded, b.Retired, r.Promote != nil, s.mode, s.embedded, s.retired)
		}
		m, _ := active(t, cfg.Home)
		if prevModel != "" && s.sameModel != (m.EmbeddingProfile.Model == prevModel) {
			t.Errorf("%s: model %s, previous %s", s.name, m.EmbeddingProfile.Model, prevModel)
		}
		prevModel = m.EmbeddingProfile.Model
	}
}

// TestSync_carryForward: memory whose source file disappeared is kept
// unless the operator asks to prune it.
func TestSync_carryForward(t *testing.T) {
	dir := t.TempDir()
	srcDir := filepath.Join(dir, "exports")
	recs := baseRecords()
	writeFile(t, filepath.Join(srcDir, "a.jsonl"), jsonlLines(t, recs[:4]...))
	writeFile(t, filepath.Join(srcDir, "b.jsonl"), jsonlLines(t, recs[4:]...))
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "notes", Kind: config.KindJSONL, Path: srcDir})
	clk := newClock(epoch)
	ix := index.New(cfg, index.Options{NoRemote: true, Now: clk.Now})
	mustSync(t, ix)

	if err := os.Remove(filepath.Join(srcDir, "b.jsonl")); err != nil {
		t.Fatal(err)
	}
	b := mustSync(t, ix).Build
	gone := filepath.Join(srcDir, "b.jsonl")
	if s := b.Sources[0]; s.Records != 6 || s.Chunks != 6 {
		t.Errorf("after deleting b.jsonl, the source says %d records and %d chunks, want its 6 and 6 (what a full build says)", s.Records, s.Chunks)
	}
	if b.Records != 6 || b.Chunks != 6 || b.Embedded != 0 || b.Retired != 0 || b.FilesRead != 0 || !slices.Equal(b.Sources[0].Gone, []string{gone}) {
		t.Errorf("after deleting b.jsonl: records %d chunks %d embedded %d retired %d read %d gone %v, want 6 6 0 0 0 [%s]",
			b.Records, b.Chunks, b.Embedded, b.Retired, b.FilesRead, b.Sources[0].Gone, gone)
	}
	// A sync with nothing new still lists the gone file: a watcher takes
	// the list as the whole truth, and an empty one would forget it.
	again := syncOK(t, ix).Build
	if again.Mode != index.ModeUnchanged || len(again.Sources) != 1 || !slices.Equal(again.Sources[0].Gone, []string{gone}) || again.Sources[0].Records != 6 {
		t.Errorf("unchanged sync after the deletion: mode %s, sources %+v, want unchanged and [%s] gone", again.Mode, again.Sources, gone)
	}
	_, g := active(t, cfg.Home)
	byID := chunkByID(t, g)
	for _, id := range []string{"notes:mem-005", "notes:mem-006"} {
		if c, ok := byID[id]; !ok || !strings.HasSuffix(c.SourcePath, "b.jsonl") {
			t.Errorf("carried chunk %s missing", id)
		}
	}

	// Carried memory survives further syncs, even of a missing source.
	if err := os.RemoveAll(srcDir); err != nil {
		t.Fatal(err)
	}
	b = mustSync(t, ix).Build
	if b.Records != 6 || b.Chunks != 6 || len(b.Sources[0].Gone) != 2 {
		t.Errorf("after deleting the source: records %d chunks %d gone %v, want 6 6 and both files", b.Records, b.Chunks, b.Sources[0].Gone)
	}
	if len(b.Sources) != 1 || !b.Sources[0].Missing {
		t.Errorf("source summary %+v does not say missing", b.Sources)
	}

	writeFile(t, filepath.Join(srcDir, "a.jsonl"), jsonlLines(t, recs[:4]...))
	prune := index.New(cfg, index.Options{NoRemote: true, Now: clk.Now, PruneMissing: true})
	b = mustSync(t, prune).Build
	if b.Records != 4 || b.Retired != 2 || b.Chunks != 4 || len(b.Sources[0].Gone) != 0 {
		t.Errorf("with PruneMissing: records %d retired %d chunks %d gone %v, want 4 2 4 none", b.Records, b.Retired, b.Chunks, b.Sources[0].Gone)
	}
	_, g = active(t, cfg.Home)
	if _, ok := chunkByID(t, g)["notes:mem-005"]; ok {
		t.Errorf("pruned chunk still indexed")
	}

	// With nothing left to read and nothing to carry, the build refuses.
	if err := os.RemoveAll(srcDir); err != nil {
		t.Fatal(err)
	}
	if _, err := prune.Sync(context.Background()); err == nil || errors.Is(err, index.ErrLocked) {
		t.Errorf("sync of an empty corpus: %v, want an error", err)
	}
}

// TestFullRebuild_keepsMemoryItCannotRead: a full rebuild that cannot
// read a file (here one caught shrinking, a rewrite in progress) or no
// longer finds it keeps the file's earlier memory, decoded from the
// previous generation only then, with its vectors.
func TestFullRebuild_keepsMemoryItCannotRead(t *testing.T) {
	t.Parallel() // its own home; it mostly waits for files to settle
	dir := t.TempDir()
	srcDir := filepath.Join(dir, "exports")
	recs := baseRecords()
	writeFile(t, filepath.Join(srcDir, "a.jsonl"), jsonlLines(t, recs[:2]...))
	writeFile(t, filepath.Join(srcDir, "b.jsonl"), jsonlLines(t, recs[2:4]...))
	writeFile(t, filepath.Join(srcDir, "c.jsonl"), jsonlLines(t, recs[4:]...))
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "notes", Kind: config.KindJSONL, Path: srcDir})
	clk := newClock(epoch)
	mustSync(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now}))
	_, before := active(t, cfg.Home)
	want := chunkByID(t, before)

	// b.jsonl is rewritten shorter, again and again, all through the
	// rebuild: it never settles.
	writeFile(t, filepath.Join(srcDir, "b.jsonl"), jsonlLines(t, recs[2]))
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			if err := os.WriteFile(filepath.Join(srcDir, "b.jsonl"), []byte(jsonlLines(t, recs[2])), 0o644); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	if err := os.Remove(filepath.Join(srcDir, "c.jsonl")); err != nil {
		t.Fatal(err)
	}
	r := mustSync(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now, Full: true})).Build
	close(stop)
	<-stopped
	if r.Mode != index.ModeFull || r.Chunks != len(recs) || r.Embedded != 2 || r.ProblemCount != 1 {
		t.Errorf("full rebuild: mode %s, %d chunks, %d embedded, problems %v; want full, %d, 2 (only a.jsonl's), b.jsonl's", r.Mode, r.Chunks, r.Embedded, r.Problems, len(recs))
	}
	_, after := active(t, cfg.Home)
	got := chunkByID(t, after)
	for id, c := range want {
		g, ok := got[id]
		if !ok || g.Text != c.Text || g.SourcePath != c.SourcePath || g.LineNumber != c.LineNumber {
			t.Errorf("%s: kept %v as %+v, want %+v", id, ok, g, c)
		}
	}
}

// TestSync_danglingLinkKeepsMemory: a source file replaced by a link
// whose target cannot be reached (a volume that is not mounted) keeps its
// memory through incremental and full syncs, and the listing says why the
// file was not read.
func TestSync_danglingLinkKeepsMemory(t *testing.T) {
	dir := t.TempDir()
	srcDir := filepath.Join(dir, "exports")
	recs := baseRecords()
	writeFile(t, filepath.Join(srcDir, "a.jsonl"), jsonlLines(t, recs[:4]...))
	b := filepath.Join(srcDir, "b.jsonl")
	writeFile(t, b, jsonlLines(t, recs[4:]...))
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "notes", Kind: config.KindJSONL, Path: srcDir})
	clk := newClock(epoch)
	mustSync(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now}))

	if err := os.Remove(b); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "unmounted", "b.jsonl"), b); err != nil {
		t.Fatal(err)
	}
	for _, full := range []bool{false, true} {
		r := mustSync(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now, Full: full})).Build
		if r.Records != len(recs) || r.Chunks != len(recs) {
			t.Errorf("full %v: %d records, %d chunks, want %d", full, r.Records, r.Chunks, len(recs))
		}
		said := false
		for _, p := range r.Problems {
			said = said || (p.Path == b && strings.Contains(p.Reason, "symbolic link"))
		}
		if !said {
			t.Errorf("full %v: problems %+v do not name the link", full, r.Problems)
		}
		_, g := active(t, cfg.Home)
		if _, ok := chunkByID(t, g)["notes:mem-005"]; !ok {
			t.Errorf("full %v: the linked file's memory was dropped", full)
		}
	}
}

// TestSync_goneFileWithoutMemory: a file that gave no memory (a binary
// note) and then disappears is not listed as gone with its memory kept,
// by an incremental sync as by a full one.
func TestSync_goneFileWithoutMemory(t *testing.T) {
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes")
	writeFile(t, filepath.Join(notes, "plan.md"), "# Plan\n\nShip the port fix on Friday.\n")
	bin := filepath.Join(notes, "diagram.md")
	writeFile(t, bin, "\x00\x01\x02 not text")
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "notes", Kind: config.KindMarkdown, Path: notes})
	clk := newClock(epoch)
	if r := mustSync(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now})).Build; r.ProblemCount != 1 {
		t.Fatalf("problems %v, want the binary note", r.Problems)
	}
	if err := os.Remove(bin); err != nil {
		t.Fatal(err)
	}
	for _, full := range []bool{false, true} {
		r := mustSync(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now, Full: full})).Build
		if len(r.Sources[0].Gone) != 0 {
			t.Errorf("full %v: gone %v, want none (the binary note gave no memory)", full, r.Sources[0].Gone)
		}
	}
}

// TestSync_inodeReusedIsNotARename: a file deleted while another is
// created in its place among the source's files can get the deleted one's
// inode (ext4 hands a freed inode to the next file created: Claude Code
// deletes expired transcripts as it starts a new session). The new file
// is not the old one renamed: the old file's memory is kept as gone, as
// for any file that disappears. A file renamed, then appended to, still
// counts as renamed: its memory is not indexed twice.
//
// Where the file system gives birth times, the new file is a real one
// that took the freed inode (born later); where it gives none, the test
// makes it by a rename and a rewrite in place, which the size and time
// tell apart from a move.
func TestSync_inodeReusedIsNotARename(t *testing.T) {
	t.Run("birth time", func(t *testing.T) {
		dir := t.TempDir()
		needBirthTime(t, dir)
		testInodeReusedIsNotARename(t, dir, func(t *testing.T, src string, content string) {
			a, c := filepath.Join(src, "a.jsonl"), filepath.Join(src, "c.jsonl")
			ino := index.InodeForTest(a)
			if err := os.Remove(a); err != nil {
				t.Fatal(err)
			}
			// The next file made in the folder takes the freed inode on
			// ext4; a few tries find it where another was handed out.
			for i := range 16 {
				tmp := filepath.Join(src, fmt.Sprintf("new-%d.tmp", i))
				writeFile(t, tmp, content)
				defer os.Remove(tmp)
				if index.InodeForTest(tmp) == ino {
					if err := os.Rename(tmp, c); err != nil {
						t.Fatal(err)
					}
					return
				}
			}
			t.Skipf("the file system handed no new file the freed inode %d", ino)
		})
	})
	t.Run("no birth time", func(t *testing.T) {
		defer index.WithoutBirthTimes()()
		testInodeReusedIsNotARename(t, t.TempDir(), func(t *testing.T, src string, content string) {
			if err := os.Rename(filepath.Join(src, "a.jsonl"), filepath.Join(src, "c.jsonl")); err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(src, "c.jsonl"), content)
		})
	})
}

// testInodeReusedIsNotARename is TestSync_inodeReusedIsNotARename in dir,
// with reuse making c.jsonl, holding content, with a.jsonl's inode.
func testInodeReusedIsNotARename(t *testing.T, dir string, reuse func(t *testing.T, src, content string)) {
	src := filepath.Join(dir, "exports")
	recs := baseRecords()
	writeFile(t, filepath.Join(src, "a.jsonl"), jsonlLines(t, recs[:2]...))
	writeFile(t, filepath.Join(src, "b.jsonl"), jsonlLines(t, recs[2:4]...))
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "notes", Kind: config.KindJSONL, Path: src})
	clk := newClock(epoch)
	ix := index.New(cfg, index.Options{NoRemote: true, Now: clk.Now})
	mustSync(t, ix)

	// a.jsonl goes; c.jsonl, other content, has its inode.
	reuse(t, src, jsonlLines(t, recs[4]))
	b := mustSync(t, ix).Build
	_, g := active(t, cfg.Home)
	byID := chunkByID(t, g)
	for _, id := range []string{"notes:mem-001", "notes:mem-002", "notes:mem-005"} {
		if _, ok := byID[id]; !ok {
			t.Errorf("%s missing after a.jsonl went and c.jsonl came with its inode: %d chunks", id, len(byID))
		}
	}
	if gone := filepath.Join(src, "a.jsonl"); !slices.Equal(b.Sources[0].Gone, []string{gone}) {
		t.Errorf("gone %v, want [%s]", b.Sources[0].Gone, gone)
	}

	// b.jsonl renamed to d.jsonl and appended to: renamed, read once.
	if err := os.Rename(filepath.Join(src, "b.jsonl"), filepath.Join(src, "d.jsonl")); err != nil {
		t.Fatal(err)
	}
	appendFile(t, filepath.Join(src, "d.jsonl"), jsonlLines(t, recs[5]))
	b = mustSync(t, ix).Build
	_, g = active(t, cfg.Home)
	byID = chunkByID(t, g)
	if b.DuplicateIDs != 0 || len(byID) != 6 {
		t.Errorf("after renaming b.jsonl and appending: %d chunks, %d duplicate ids, want 6 and 0", len(byID), b.DuplicateIDs)
	}
	if c, ok := byID["notes:mem-003"]; !ok || !strings.HasSuffix(c.SourcePath, "d.jsonl") {
		t.Errorf("notes:mem-003 is not d.jsonl's: %+v", c.SourcePath)
	}
	if gone := filepath.Join(src, "a.jsonl"); !slices.Equal(b.Sources[0].Gone, []string{gone}) {
		t.Errorf("gone %v, want only [%s]", b.Sources[0].Gone, gone)
	}
}

// TestSync_goneFileDropsItsCursorState: a transcript that disappears
// keeps its memory, but not what only reading it on would need: the
// reader's state in its cursor (a long Claude Code session's holds the
// digests of 1 024 line uuids, 8 KiB) and the prefix digest. Claude Code
// deletes a transcript 30 days after it ends, so every long session would
// otherwise weigh on every later sources.json, which every sync writes
// whole, incremental or full.
func TestSync_goneFileDropsItsCursorState(t *testing.T) {
	dir := t.TempDir()
	projects := filepath.Join(dir, "projects")
	var b strings.Builder
	for i := range 40 {
		fmt.Fprintf(&b, `{"type":"user","sessionId":"s1","uuid":"u%d","cwd":"/src/app","timestamp":"2026-03-01T08:00:%02dZ","message":{"role":"user","content":"question %d about the quarterly ledger export"}}`+"\n", i, i, i)
	}
	session := filepath.Join(projects, "-src-app", "s1.jsonl")
	writeFile(t, session, b.String())
	writeFile(t, filepath.Join(projects, "-src-app", "s2.jsonl"), `{"type":"user","sessionId":"s2","uuid":"v1","cwd":"/src/app","message":{"role":"user","content":"another session"}}`+"\n")
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "claude", Kind: config.KindClaudeCode, Path: projects})
	clk := newClock(epoch)
	mustSync(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now}))
	if err := os.Remove(session); err != nil {
		t.Fatal(err)
	}
	for _, full := range []bool{false, true} {
		mustSync(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now, Full: full}))
		m, g := active(t, cfg.Home)
		states, err := index.FileStates(cfg.Home, m)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, st := range states {
			if st.Path != session {
				continue
			}
			found = true
			if st.Gone.IsZero() || st.Records != 40 {
				t.Errorf("full %v: gone %v, records %d, want gone with its 40 records", full, st.Gone, st.Records)
			}
			if len(st.Cursor.State) > 0 || st.Cursor.Prefix != "" {
				t.Errorf("full %v: the gone transcript's state keeps its cursor's reader state (%d bytes) and prefix %q", full, len(st.Cursor.State), st.Cursor.Prefix)
			}
		}
		if !found {
			t.Errorf("full %v: no state for the gone transcript", full)
		}
		if _, ok := chunkByID(t, g)["claude:s1:40"]; !ok {
			t.Errorf("full %v: the gone transcript's memory is not kept", full)
		}
	}
}

// TestSync_codexCompressesARollout: Codex (0.137 and later) compresses a
// rollout left alone for a week into rollout-*.jsonl.zst beside it and
// deletes the plain file. The compressed rollout is the same rollout:
// its memory is read from it, once, and the plain file is not gone with
// its memory kept (doctor would list every rollout a week old, and
// --prune-missing would drop nothing). Incremental and full syncs agree:
// a full one (a new reading rules version, --full) does not keep the
// plain file's memory as read before in place of the rollout's.
func TestSync_codexCompressesARollout(t *testing.T) {
	plain, compressed := codexRolloutBytes(t)
	for _, full := range []bool{false, true} {
		dir := t.TempDir()
		day := filepath.Join(dir, "sessions", "2026", "03", "02")
		rollout := filepath.Join(day, codexRollout)
		writeFile(t, rollout, string(plain))
		cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "codex", Kind: config.KindCodex, Path: filepath.Join(dir, "sessions")})
		clk := newClock(epoch)
		first := mustSync(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now})).Build
		writeFile(t, rollout+".zst", string(compressed))
		if err := os.Remove(rollout); err != nil {
			t.Fatal(err)
		}
		b := syncOK(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now, Full: full})).Build
		if len(b.Sources[0].Gone) != 0 || b.Records != first.Records || b.DuplicateIDs != 0 {
			t.Errorf("full %v: gone %v, records %d (%d before), %d duplicate ids; want none gone, the same records, no duplicates",
				full, b.Sources[0].Gone, b.Records, first.Records, b.DuplicateIDs)
		}
		_, g := active(t, cfg.Home)
		for _, c := range g.All() {
			if c.SourcePath != rollout+".zst" {
				t.Errorf("full %v: %s is the memory of %s, want the compressed rollout's", full, c.ID, c.SourcePath)
			}
		}
	}
}

// TestSync_goneFileWhoseMemoryMoved: a file that disappears while another
// now holds every record it gave (Codex materializes a compressed rollout
// as rollout-*.jsonl to append to it, and deletes the .jsonl.zst) has no
// memory left to keep: it is not listed as gone, and a full sync reads the
// same. A gone file that still holds some of its memory is listed.
func TestSync_goneFileWhoseMemoryMoved(t *testing.T) {
	plain, compressed := codexRolloutBytes(t)
	for _, full := range []bool{false, true} {
		dir := t.TempDir()
		rollout := filepath.Join(dir, "sessions", "2026", "03", "02", codexRollout)
		writeFile(t, rollout+".zst", string(compressed))
		cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "codex", Kind: config.KindCodex, Path: filepath.Join(dir, "sessions")})
		clk := newClock(epoch)
		first := mustSync(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now})).Build
		writeFile(t, rollout, string(plain))
		if err := os.Remove(rollout + ".zst"); err != nil {
			t.Fatal(err)
		}
		for range 2 { // and the sync after, with nothing new
			b := syncOK(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now, Full: full})).Build
			if len(b.Sources[0].Gone) != 0 || b.Records != first.Records {
				t.Errorf("full %v: gone %v, records %d (%d before); want none gone, the same records", full, b.Sources[0].Gone, b.Records, first.Records)
			}
		}
		m, g := active(t, cfg.Home)
		for _, c := range g.All() {
			if c.SourcePath != rollout {
				t.Errorf("full %v: %s is the memory of %s, want the plain rollout's", full, c.ID, c.SourcePath)
			}
		}
		states, err := index.FileStates(cfg.Home, m)
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range states {
			if !st.Gone.IsZero() {
				t.Errorf("full %v: %s is kept as gone, with %d records", full, st.Path, st.Records)
			}
		}
	}
}

// codexRolloutBytes returns the test Codex rollout as written and as Codex
// compresses it (zstd, rollout-*.jsonl.zst).
func codexRolloutBytes(t *testing.T) (plain, compressed []byte) {
	t.Helper()
	plain, err := os.ReadFile(filepath.Join("ingest", "testdata", "codex", "sessions", "2026", "03", "02", codexRollout))
	if err != nil {
		t.Fatal(err)
	}
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	return plain, enc.EncodeAll(plain, nil)
}

// TestFullRebuild_retrainedModelEmbedsCarriedMemory: a full build whose
// model is retrained (the corpus outgrew it through incremental syncs)
// embeds the memory it carries from the previous generation again: the
// old vectors' codes belong to the old model's space.
func TestFullRebuild_retrainedModelEmbedsCarriedMemory(t *testing.T) {
	dir := t.TempDir()
	srcDir := filepath.Join(dir, "exports")
	recs := baseRecords()
	writeFile(t, filepath.Join(srcDir, "a.jsonl"), jsonlLines(t, recs...))
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "notes", Kind: config.KindJSONL, Path: srcDir})
	clk := newClock(epoch)
	mustSync(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now}))
	// The model was trained on 6 documents; 70 more come by deltas.
	var more []rec
	for i := range 70 {
		more = append(more, rec{ID: fmt.Sprintf("grow-%03d", i), Text: fmt.Sprintf("Deploy note %d: the worker pool of shard %d was resized to %d threads after the queue backed up.", i, i%7, 4+i%5)})
	}
	writeFile(t, filepath.Join(srcDir, "b.jsonl"), jsonlLines(t, more...))
	mustSync(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now}))

	if err := os.Remove(filepath.Join(srcDir, "a.jsonl")); err != nil {
		t.Fatal(err)
	}
	r := mustSync(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now, Full: true})).Build
	total := len(recs) + len(more)
	if !r.ModelTrained || r.Chunks != total || r.Embedded+r.Cached != total {
		t.Errorf("full rebuild: model trained %v, %d chunks, %d embedded + %d cached; want trained, %d, all %d",
			r.ModelTrained, r.Chunks, r.Embedded, r.Cached, total, total)
	}
}
