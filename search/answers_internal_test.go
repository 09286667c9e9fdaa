package search

import "testing"

// TestAsksAndThanks: what the synthesis leaves out as answering nothing,
// and what it keeps: a full stop inside a sentence ("e.g.", "v1.4.0",
// "3.5") does not make a question two sentences, and a statement that
// ends by asking is kept.
func TestAsksAndThanks(t *testing.T) {
	for _, tt := range []struct {
		text          string
		asks, thanked bool
	}{
		{"Why cursor and not page numbers?", true, false},
		{"Should we pin v1.4.0, e.g. for the 3.5 times faster build?", true, false},
		{"为什么用游标分页而不是页码？", true, false},
		{"(Why cursor?)", true, false},
		{"Should we use a cursor, e.g. Relay-style, i.e. Opaque tokens?", true, false},
		{"Switched to cursors. Want me to update the docs?", false, false},
		{"迁移完成。还要更新文档吗？", false, false},
		{"Done! Anything else?", false, false},
		{"Cursors, e.g. an opaque token; v1.4.0 ships it.", false, false},
		{"Sounds good, thanks! 👍", false, true},
		{"Thank you very much.", false, true},
		{"好的，谢谢！", false, true},
		{"收到，明白了", false, true},
		{"OK, port 8444 it is.", false, false},
		{"好的，端口改成 8444。", false, false},
		{"", false, false},
	} {
		if got := asks(tt.text); got != tt.asks {
			t.Errorf("asks(%q) = %v, want %v", tt.text, got, tt.asks)
		}
		if got := thanks(tt.text); got != tt.thanked {
			t.Errorf("thanks(%q) = %v, want %v", tt.text, got, tt.thanked)
		}
	}
}
