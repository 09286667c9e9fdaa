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
