package cli

import (
	"strings"
	"testing"

	"github.com/nova-recall/nova/index"
)

// TestPrintBuild_gone: the build summary names the files whose memory is
// kept although they are gone, and counts vectors kept from earlier
// segments as such (not as memory of vanished files).
func TestPrintBuild_gone(t *testing.T) {
	for _, tt := range []struct {
		gone []string
		want string
	}{
		{nil, ""},
		{[]string{"/n/a.md"}, "kept the memory of a file that is gone: /n/a.md (--prune-missing drops it)"},
		{[]string{"/n/a.md", "/n/b.md", "/n/c.md"}, "kept the memory of 3 files that are gone: /n/a.md and 2 more (--prune-missing drops it)"},
	} {
		var b strings.Builder
		printBuild(&b, &index.BuildResult{Carried: 7, Sources: []index.SourceSummary{{Name: "notes", Kind: "markdown", Gone: tt.gone}}}, false)
		out := b.String()
		if !strings.Contains(out, "7 kept from earlier segments") {
			t.Errorf("gone %v: %q does not count the kept vectors", tt.gone, out)
		}
		if tt.want == "" && strings.Contains(out, "gone") || tt.want != "" && !strings.Contains(out, tt.want) {
			t.Errorf("gone %v: %q, want %q", tt.gone, out, tt.want)
		}
	}
}

// TestPrintBuild_recovery: a build past a damaged active generation says
// what it was built on, and names the memory it could not save, with
// what can be done about it; nothing lost is said too.
func TestPrintBuild_recovery(t *testing.T) {
	for _, tt := range []struct {
		name string
		rec  *index.Recovery
		want []string
	}{
		{"none", nil, nil},
		{"saved", &index.Recovery{Damaged: "20260301T080000Z-aaaaaaaa", Problem: "records.bin: file is missing", BuiltOn: "20260201T080000Z-bbbbbbbb"},
			[]string{"20260301T080000Z-aaaaaaaa is damaged", "records.bin: file is missing", "rebuilt on 20260201T080000Z-bbbbbbbb", "no memory was lost"}},
		{"lost", &index.Recovery{Damaged: "20260301T080000Z-aaaaaaaa", Problem: "p", Lost: []index.LostMemory{{Source: "claude", Path: "/p/late.jsonl", Records: 3}, {Source: "claude", Path: "/p/grown.jsonl", Records: 3, Kept: 2}}},
			[]string{"no kept generation is intact", "LOST: 4 records of 2 files that are gone", "/p/late.jsonl (claude): 3 records\n", "/p/grown.jsonl (claude): 3 records (an earlier read of it, 2 records, is kept)", "put the files back"}},
		{"unknown", &index.Recovery{Problem: "p", BuiltOn: "20260201T080000Z-bbbbbbbb", Unknown: true},
			[]string{"may be lost"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			printBuild(&b, &index.BuildResult{Recovery: tt.rec}, false)
			out := b.String()
			if tt.rec == nil && strings.Contains(out, "damaged") {
				t.Errorf("a build over an intact generation: %q", out)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("%q does not say %q", out, w)
				}
			}
		})
	}
}

// TestPrintBuild_notDownloaded: a sync says how many of a source's files
// iCloud Drive evicted from the Mac (not read), and where to learn how to
// download them; a source with none says nothing of it.
func TestPrintBuild_notDownloaded(t *testing.T) {
	var b strings.Builder
	printBuild(&b, &index.BuildResult{Sources: []index.SourceSummary{
		{Name: "vault", Kind: "markdown", Files: 4, NotDownloaded: 3},
		{Name: "codex", Kind: "codex", Files: 2},
	}}, false)
	out := b.String()
	if want := "source vault (markdown): 4 files, 0 records, 0 chunks, 0 problems; 3 files not downloaded from iCloud Drive, not read (novactl doctor says how to download them)\n"; !strings.Contains(out, want) {
		t.Errorf("%q does not say %q", out, want)
	}
	if strings.Count(out, "not downloaded") != 1 {
		t.Errorf("%q speaks of files not downloaded for a source that has none", out)
	}
}
