package index

import (
	"slices"
	"testing"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/memory"
)

// TestChunkRecordTags: a chunk's tags are those InferTags finds in its
// title and text joined by a line break, with a title or without one
// (then of the text alone), whatever the text starts with.
func TestChunkRecordTags(t *testing.T) {
	x := &Indexer{cfg: config.Defaults()}
	src := config.Source{Name: "s", Kind: config.KindJSONL}
	for _, r := range []memory.Record{
		{ID: "1", Text: "The deploy failed; rollback per the postmortem."},
		{ID: "2", Text: "Fixed the bug", Title: "Incident review"},
		{ID: "3", Text: "\u0301bug in the release", Date: "2026-01-02"},
		{ID: "4", Text: "数据库迁移的经验教训"},
		{ID: "5", Text: "plain words only", Title: "plain"},
	} {
		for _, pc := range x.chunkRecord(src, r) {
			c := pc.c
			want := memory.InferTags(c.Title+"\n"+c.Text, r.Tags, c.Date != "", "record")
			if !slices.Equal(c.Tags, want) {
				t.Errorf("record %s: tags %q, want %q", r.ID, c.Tags, want)
			}
		}
	}
}
