package search_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/search"
)

// pastedKinds are the kinds of pastedQuery.
var pastedKinds = []string{"stacktrace", "log", "identifiers", "words", "cjk", "cjkwords", "stopwords", "emoji", "punct", "dates", "url", "a", "mixed", "control", "longpath"}

// pastedQuery builds a query of about n characters of one kind of paste
// an agent sends: a kind names what is repeated until the length is met.
func pastedQuery(kind string, n int) string {
	var b strings.Builder
	for i := 0; utf8.RuneCountInString(b.String()) < n; i++ {
		switch kind {
		case "stacktrace":
			fmt.Fprintf(&b, "at com.example.svc.Handler%d.run(Handler%d.java:%d) ", i, i, 100+i)
		case "log":
			fmt.Fprintf(&b, "2026-11-%02dT12:%02d:01Z ERROR worker-%d request_id=ab%04x timeout after %dms ", 1+i%28, i%60, i, i, 1000+i)
		case "identifiers":
			fmt.Fprintf(&b, "ident_%04d ", i)
		case "words":
			fmt.Fprintf(&b, "word%c%c ", 'a'+rune(i%26), 'a'+rune(i/26%26))
		case "cjk":
			b.WriteRune(rune(0x4e00 + (i*7919)%20000))
		case "stopwords":
			b.WriteString("the of and to in ")
		case "emoji":
			b.WriteString("🔥🚀 ")
		case "punct":
			b.WriteString("!?.,;:-=+* ")
		case "dates":
			fmt.Fprintf(&b, "March %d 2026-03-%02d yesterday last week ", 1+i%28, 1+i%28)
		case "url":
			fmt.Fprintf(&b, "p%d=v%d&", i, i)
		case "a":
			b.WriteString("aaaaaaaaaa")
		case "cjkwords":
			b.WriteString("定时任务迁移失败端口配置回环地址不可用")
		case "longpath":
			fmt.Fprintf(&b, "dir%d/", i)
		case "control":
			fmt.Fprintf(&b, "\x00\x01\x1b[31merr%d\x7f ", i)
		case "mixed":
			fmt.Fprintf(&b, "Ошибка 失败 %d Fehler ", i)
		}
	}
	return string([]rune(b.String())[:n])
}

// BenchmarkSearchLongQuery times pasted queries of growing length, up to
// the request limit, against novactl bench's corpus of 10 000 records,
// beside one of the bench's own queries ("normal"): a time per op that
// grows faster than the length names a loop over the query's words that
// is not bounded.
//
//	go test -run '^$' -bench SearchLongQuery -benchtime 3x -benchmem ./search
func BenchmarkSearchLongQuery(b *testing.B) {
	corpus, g := benchCorpus(b, 10_000)
	e := search.New(search.ConfigFor(config.Defaults().Retrieval), lexical.NewAnalyzer())
	snap := &search.Snapshot{Gen: g, Query: g.Model}
	normal := corpus.Queries(1, 1)[0].Text
	b.Run("normal", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := e.Search(context.Background(), snap, api.SearchRequest{Query: normal, TopK: 10}); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, kind := range pastedKinds {
		for _, n := range []int{1000, 2000, 4000} {
			q := pastedQuery(kind, n)
			b.Run(fmt.Sprintf("%s/%d", kind, n), func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					if _, err := e.Search(context.Background(), snap, api.SearchRequest{Query: q, TopK: 10}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkPlanLongQuery times the query-only steps of a search (plan,
// dates, answer type, id candidates) at growing lengths, past the
// request limit, so that a step's growth shows apart from the index's.
func BenchmarkPlanLongQuery(b *testing.B) {
	now := time.Date(2026, 7, 15, 12, 0, 0, 0, time.UTC)
	for _, kind := range []string{"stacktrace", "log", "identifiers", "cjk", "cjkwords", "dates", "mixed", "url"} {
		for _, n := range []int{1000, 4000, 16000} {
			q := pastedQuery(kind, n)
			b.Run(fmt.Sprintf("plan/%s/%d", kind, n), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					search.MakePlan(q)
				}
			})
			b.Run(fmt.Sprintf("dates/%s/%d", kind, n), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					search.ParseDates(q, now)
				}
			})
			b.Run(fmt.Sprintf("answer/%s/%d", kind, n), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					search.QueryAnswerType(q)
				}
			})
			b.Run(fmt.Sprintf("ids/%s/%d", kind, n), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					search.IDCandidates(q)
				}
			})
		}
	}
}
