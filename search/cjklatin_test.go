package search_test

import (
	"slices"
	"testing"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/search"
)

// cjkLatinSnapshot indexes Chinese memories that write an English word,
// a tool's name or a number inline with no space ("我用Docker部署",
// "端口改成5433了"), and their near misses: the word inside a longer one
// (dockerfile), the number inside a longer one (54330), the number
// written apart from the Chinese.
func cjkLatinSnapshot(t *testing.T) *search.Snapshot {
	return build(t, config.Source{Name: "notes", Kind: config.KindJSONL, Path: "cjklatin/records"})
}

// TestCJKLatin_inlineTermIsCovered: a Chinese memory that writes the
// question's English word or number inline covers it, as retrieval found
// it: the quality report called "docker", "5433" or "goose" missing from
// the memory that wrote 我用Docker部署, 端口改成5433了 or 用了goose做迁移
// (a Han character next to it was taken as part of the word).
func TestCJKLatin_inlineTermIsCovered(t *testing.T) {
	snap := cjkLatinSnapshot(t)
	e := engineWith()
	for _, c := range []struct{ q, want, term string }{
		{"Docker 部署", "zh-docker", "docker"},
		{"用docker部署监控服务", "zh-docker", "docker"},
		{"数据库端口改成5433了吗", "zh-port", "5433"},
		{"goose 迁移", "zh-goose", "goose"},
		{"用了goose做迁移", "zh-goose", "goose"},
	} {
		resp := ask(t, e, snap, api.SearchRequest{Query: c.q, TopK: 5})
		if rank(resp, c.want) != 0 {
			t.Errorf("%q: want %s first, got %v", c.q, c.want, ids(resp))
			continue
		}
		q := resp.Quality
		if !slices.Contains(q.CoveredTerms, c.term) || len(q.MissingTerms) > 0 || q.Status != "strong" {
			t.Errorf("%q: quality %s, covered %q, missing %q; want strong, %q covered, none missing", c.q, q.Status, q.CoveredTerms, q.MissingTerms, c.term)
		}
		if got := resp.Results[0].ScoreComponents["citableExactCoverage"]; got != 1 {
			t.Errorf("%q: %s covers %v of the key terms %q, want all", c.q, c.want, got, q.KeyTerms)
		}
	}
}

// TestCJKLatin_inlineNumberRanksFirst: the memory that writes the asked
// number inline in Chinese (端口改成5433了) has the number's exact-coverage
// boost, and ranks above the one that holds it only inside a longer
// number (54330), which has none; before, neither had it, and the longer
// number's memory ranked first.
func TestCJKLatin_inlineNumberRanksFirst(t *testing.T) {
	snap := cjkLatinSnapshot(t)
	resp := ask(t, engineWith(), snap, api.SearchRequest{Query: "数据库端口改成5433了吗", TopK: 5})
	inline, longer := rank(resp, "zh-port"), rank(resp, "zh-port-long")
	if inline != 0 || longer < 0 {
		t.Fatalf("want zh-port first and zh-port-long among the results, got %v", ids(resp))
	}
	if got := resp.Results[inline].ScoreComponents["exactCoverage"]; got != 1 {
		t.Errorf("zh-port (端口改成5433了): exactCoverage %v, want 1", got)
	}
	if got := resp.Results[longer].ScoreComponents["exactCoverage"]; got != 0 {
		t.Errorf("zh-port-long (端口改成54330了): exactCoverage %v, want 0: 5433 is not in 54330", got)
	}
}
