package cli

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/nova-recall/nova/eval"
	"github.com/nova-recall/nova/index"
)

// TestProgressNoteKeepsWholeCharacters: the file name on the read line is
// shortened from the left by terminal cells, never inside a character.
func TestProgressNoteKeepsWholeCharacters(t *testing.T) {
	var out bytes.Buffer
	p := newProgress(&out)
	note := "/home/dev/ノート/二〇二六年/三月/会議の記録とその後の検討事項.md"
	p.update(index.Progress{Stage: "read", Done: 1, Total: 1, Note: note})
	line := out.String()
	if !utf8.ValidString(line) {
		t.Fatalf("progress line is not valid UTF-8: %q", line)
	}
	if !strings.Contains(line, "…") || !strings.HasSuffix(line, "検討事項.md") {
		t.Errorf("progress line %q: want the end of the path after an ellipsis", line)
	}
}

// TestPrintCasesShortensLongIDs: a long case id with multi-byte characters
// is cut to the column, ending in an ellipsis, as valid UTF-8.
func TestPrintCasesShortensLongIDs(t *testing.T) {
	var out bytes.Buffer
	printCases(&out, eval.Summary{Cases: []eval.CaseResult{{ID: "décision-de-migration-des-données-2026", Passed: true}}})
	if !utf8.ValidString(out.String()) {
		t.Fatalf("table is not valid UTF-8: %q", out.String())
	}
	if !strings.Contains(out.String(), "décision-de-migration-d… pass") {
		t.Errorf("table:\n%s", out.String())
	}
}

// TestProgressFinishesStages: a stage's line ends as done when the next
// one starts, even when its reports stopped at 0% (train reports only its
// total).
func TestProgressFinishesStages(t *testing.T) {
	var out bytes.Buffer
	p := newProgress(&out)
	p.update(index.Progress{Stage: "read", Done: 0, Total: 3})
	p.update(index.Progress{Stage: "train", Total: 12000, Note: "training"})
	p.update(index.Progress{Stage: "embed", Done: 10, Total: 40})
	p.done(true)
	var finished []string
	for _, l := range strings.Split(out.String(), "\n") {
		if i := strings.LastIndex(l, "\r\033[K"); i >= 0 {
			l = l[i+len("\r\033[K"):]
		}
		if l != "" {
			finished = append(finished, l)
		}
	}
	want := []string{"read     3/3 (100%) · done in", "train    12000/12000 (100%) · done in", "embed    40/40 (100%) · done in"}
	if len(finished) != len(want) {
		t.Fatalf("lines %q, want %d", finished, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(finished[i], w) {
			t.Errorf("line %d: %q, want it to start %q", i, finished[i], w)
		}
	}
}
