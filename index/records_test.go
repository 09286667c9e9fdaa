package index_test

import (
	"path/filepath"
	"testing"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
)

// TestSync_exportedRecordShapes: records as chat and mail tools export
// them, a text written as its parts (strings, or content blocks beside
// an image block) and a date as an email's Date header, in a file saved
// with a byte-order mark and CRLF, are indexed with their words and
// dates; a line of another shape is reported at its file and line, and
// the lines after it are read. Before, every such record was skipped.
func TestSync_exportedRecordShapes(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "exports", "chat.jsonl")
	writeFile(t, p, "\ufeff"+`{"id":"c1","text":["the invoice run moved","to the fifth working day"],"date":"Wed, 04 Mar 2026 09:15:00 +0000"}`+"\r\n"+
		`{"id":"c2","text":[{"type":"text","text":"ledger export uses parquet"},{"type":"image","source":{"data":"iVBOR"}}],"date":"Thu Mar 05 2026 10:00:00 GMT+0100 (Central European Standard Time)"}`+"\r\n"+
		`{"id":"c3","text":[7],"date":"2026-03-05"}`+"\r\n"+
		`{"id":"c4","text":{"type":"text","text":"the last record stands"}}`)
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "chat", Kind: config.KindJSONL, Path: filepath.Dir(p)})
	r := mustSync(t, index.New(cfg, index.Options{NoRemote: true})).Build
	if r.ProblemCount != 1 || len(r.Problems) != 1 || r.Problems[0].Path != p || r.Problems[0].Line != 3 {
		t.Errorf("problems %v, want one, at %s line 3", r.Problems, p)
	}
	_, g := active(t, cfg.Home)
	chunks := chunkByID(t, g)
	for id, want := range map[string]struct{ text, date string }{
		"chat:c1": {"the invoice run moved\nto the fifth working day", "2026-03-04"},
		"chat:c2": {"ledger export uses parquet", "2026-03-05"},
		"chat:c4": {"the last record stands", ""},
	} {
		c, ok := chunks[id]
		if !ok {
			t.Errorf("%s is not indexed", id)
			continue
		}
		if c.Text != want.text || c.Date != want.date {
			t.Errorf("%s: %q on %q, want %q on %q", id, c.Text, c.Date, want.text, want.date)
		}
	}
	if len(chunks) != 3 {
		t.Errorf("%d chunks, want 3", len(chunks))
	}
}
