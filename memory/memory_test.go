package memory

import (
	"slices"
	"strings"
	"testing"
)

func TestInferTagsMatchesWholeWordsOnly(t *testing.T) {
	for _, tc := range []struct {
		name   string
		text   string
		stored []string
		dated  bool
		layer  string
		want   []string
	}{
		{"substring of a keyword never fires", "The pipeline retrieval evaluation ran", nil, false, "", []string{"general"}},
		{"whole word fires", "Changed the IP of the server", nil, false, "", []string{"config"}},
		{"stemless plural listed", "two errors in the build", nil, false, "", []string{"incident"}},
		{"traceback is incident and coding", "Traceback (most recent call last)", nil, false, "", []string{"coding", "incident"}},
		{"Chinese phrase", "端口 2096 不可用", nil, false, "", []string{"config", "incident"}},
		{"stored tags kept and trimmed", "nothing to infer", []string{" alpha ", "", "beta"}, false, "", []string{"alpha", "beta"}},
		{"dated alone is daily plus general", "nothing to infer", nil, true, "", []string{"daily", "general"}},
		{"dated with a hit drops general", "migrated the database", nil, true, "", []string{"daily", "migration"}},
		{"lesson layer", "nothing to infer", nil, false, "lesson", []string{"decision", "lesson"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := InferTags(tc.text, tc.stored, tc.dated, tc.layer)
			if !slices.Equal(got, tc.want) {
				t.Errorf("InferTags(%q) = %v, want %v", tc.text, got, tc.want)
			}
		})
	}
}

func TestInferWorkTypeFollowsPriority(t *testing.T) {
	for tags, want := range map[string]string{
		"coding incident": "incident",
		"task config":     "config",
		"daily coding":    "coding",
		"alpha":           "general",
		"":                "general",
	} {
		if got := InferWorkType(strings.Fields(tags)); got != want {
			t.Errorf("InferWorkType(%q) = %q, want %q", tags, got, want)
		}
	}
}

func TestGovern(t *testing.T) {
	full := Chunk{SourceSet: "lessons", SourceID: "r1", SourcePath: "/x", SourceType: "jsonl", TextHash: "0123456789abcdef0123", DedupeKey: "k", Date: "2026-01-02", Project: "nova", Agent: "codex"}
	g := Govern(&full, Override{})
	if g.AuthorityRank != 95 || g.Lifecycle != "canonical" || g.RetrievalWeight != 1.1 || g.ProvenanceScore != 1 || !g.CanonicalCandidate {
		t.Errorf("full lessons chunk: %+v", g)
	}
	if g.DuplicateGroupKey != "lessons:nova:codex:0123456789abcdef" {
		t.Errorf("DuplicateGroupKey = %q", g.DuplicateGroupKey)
	}
	if len(g.Warnings) != 0 || g.Warnings == nil {
		t.Errorf("warnings must be an empty list, got %#v", g.Warnings)
	}

	// Thin provenance (2 of 6 fields) lowers the weight by 5% and blocks
	// canonical candidacy; an undated episodic chunk warns.
	thin := Chunk{SourceSet: "agent-transcripts", SourceID: "r2"}
	g = Govern(&thin, Override{})
	if g.ProvenanceScore != 0.3333 || g.RetrievalWeight != 0.9405 || g.CanonicalCandidate {
		t.Errorf("thin chunk: %+v", g)
	}
	if !slices.Equal(g.Warnings, []string{"missing-date"}) {
		t.Errorf("warnings = %v", g.Warnings)
	}

	unknown := Chunk{SourceSet: "my-own-set", Date: "2026-01-02"}
	if g := Govern(&unknown, Override{}); g.AuthorityRank != 50 || !slices.Contains(g.Warnings, "unknown-source-set") {
		t.Errorf("unknown source set: %+v", g)
	}

	over := Govern(&full, Override{AuthorityRank: 60, RetrievalWeight: 0.8, Lifecycle: "current-state"})
	if over.AuthorityRank != 60 || over.RetrievalWeight != 0.8 || over.Lifecycle != "current-state" {
		t.Errorf("overrides ignored: %+v", over)
	}
	if over.SupersessionScope == nil || *over.SupersessionScope != "current-state:nova:state" {
		t.Errorf("current-state scope = %v", over.SupersessionScope)
	}
}

func TestEvidenceAuthorityIsBounded(t *testing.T) {
	full := Chunk{SourceSet: "lessons"}
	top := EvidenceAuthority(Govern(&full, Override{AuthorityRank: 1000}))
	if top != 1 {
		t.Errorf("authority capped at 1, got %v", top)
	}
	low := Chunk{SourceSet: "agent-transcripts"}
	if a := EvidenceAuthority(Govern(&low, Override{})); a <= 0 || a >= 0.5 {
		t.Errorf("transcript authority = %v, want a small positive value", a)
	}
}

func TestChunkIDIsStable(t *testing.T) {
	if got := ChunkID("notes", "a.md", 0, 1); got != "notes:a.md" {
		t.Errorf("single part = %q", got)
	}
	if got := ChunkID("notes", "a.md", 12, 13); got != "notes:a.md#12" {
		t.Errorf("part 12 = %q", got)
	}
	if a, b := ChunkID("s", "r", 3, 4), ChunkID("s", "r", 3, 4); a != b {
		t.Error("ChunkID is not deterministic")
	}
}

func TestOwnAndIndexText(t *testing.T) {
	c := Chunk{Title: "Ports", Text: "2096 was taken", Before: "what happened to the dashboard"}
	if c.OwnText() != "Ports\n2096 was taken" {
		t.Errorf("OwnText = %q", c.OwnText())
	}
	if c.IndexText() != "Ports\n2096 was taken\nwhat happened to the dashboard" {
		t.Errorf("IndexText = %q", c.IndexText())
	}
	c.Text = "Ports: 2096 was taken"
	if c.OwnText() != c.Text {
		t.Errorf("a title already in the text is not repeated: %q", c.OwnText())
	}
}

// TestDedupeKeyHeadIsRunes: the key covers the first 160 characters,
// whatever their byte lengths, and invalid bytes count as one each.
func TestDedupeKeyHeadIsRunes(t *testing.T) {
	for _, text := range []string{
		strings.Repeat("é", 200), strings.Repeat("記", 159), strings.Repeat("a", 160), strings.Repeat("a", 161),
		strings.Repeat("x\xff", 100), "short", strings.Repeat("a", 100) + strings.Repeat("é", 100),
		strings.Repeat("a", 159) + "\xff" + strings.Repeat("b", 10),
	} {
		for part, digits := range map[int]string{0: "0", 12: "12", -1: ""} {
			c := &Chunk{SourceSet: "s", SourceID: "r", Part: part, Text: text}
			head := text
			if rs := []rune(text); len(rs) > 160 {
				head = string(rs[:160])
			}
			if got, want := DedupeKey(c), HashText("s|r|"+digits+"|"+head); got != want {
				t.Errorf("%q part %d: key %s, want %s", text[:min(len(text), 12)], part, got, want)
			}
		}
	}
}

// TestHashText pins the hex SHA-256 (known answers, FIPS 180-2).
func TestHashText(t *testing.T) {
	for in, want := range map[string]string{
		"":    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
		"abc": "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
	} {
		if got := HashText(in); got != want {
			t.Errorf("HashText(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestChunkID pins the id format every citation and tie-break reads: a
// whole record is source:id, a piece of one adds #part, and a negative
// part (never written by the build) has no digits.
func TestChunkID(t *testing.T) {
	for _, c := range []struct {
		part, parts int
		want        string
	}{
		{0, 1, "notes:r1"}, {0, 0, "notes:r1"}, {0, 2, "notes:r1#0"}, {12, 40, "notes:r1#12"}, {-1, 2, "notes:r1#"},
	} {
		if got := ChunkID("notes", "r1", c.part, c.parts); got != c.want {
			t.Errorf("ChunkID(part %d of %d) = %q, want %q", c.part, c.parts, got, c.want)
		}
	}
}
