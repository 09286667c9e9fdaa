package search

import (
	"testing"

	"github.com/nova-recall/nova/lexical"
)

// TestMetaScore: English markers match at word boundaries, CJK markers as
// substrings, and three markers make a text wholly meta-discussion.
func TestMetaScore(t *testing.T) {
	an := lexical.NewAnalyzer()
	for _, c := range []struct {
		text string
		want float64
	}{
		{"The benchmark showed recall@10 in the RAG eval.", 1},
		{"召回率和检索质量都有质量问题", 1},
		{"内置 eval 的召回率", 2.0 / 3},
		{"Benchmarking the parser", 0},
		{"the dashboard port was down after the deploy", 0},
		{"部署后仪表盘端口不可用", 0},
	} {
		if got := metaScore(newTextView(an, c.text)); got != c.want {
			t.Errorf("metaScore(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}
