package memory

import (
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/nova-recall/nova/lexical"
)

// TestInferTagsNegatedIncident: a text that says nothing went wrong ("no
// errors", "didn't crash", "bug-free", "没有报错") is no incident, while
// the same words unnegated, or negated in another clause, still are.
func TestInferTagsNegatedIncident(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"Deployed v2 to staging. No errors.", []string{"general"}},
		{"The nightly import ran without any failure", []string{"general"}},
		{"The service didn't crash overnight", []string{"general"}},
		{"A bug-free release at last", []string{"general"}},
		{"0 errors, 0 warnings", []string{"general"}},
		{"No exception was thrown", []string{"general"}},
		{"部署完成，没有报错", []string{"general"}},
		{"升级后没有任何故障", []string{"general"}},
		{"无宕机，服务正常", []string{"general"}},
		// Unnegated, or the negation belongs to another clause.
		{"No, the deploy failed again", []string{"incident"}},
		{"No tests were run and the build failed", []string{"coding", "incident"}},
		{"No errors in staging but production crashed", []string{"incident"}},
		{"Not sure why the import failed", []string{"incident"}},
		{"没有报错，但是服务宕机了", []string{"incident"}},
		// Not recovered is still an incident.
		{"服务还没有恢复", []string{"incident"}},
	} {
		if got := InferTags(tc.text, nil, false, ""); !slices.Equal(got, tc.want) {
			t.Errorf("InferTags(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

// TestInferTagsCodeIdentifiers: error, exception and panic in code name
// types and functions (Go's error, Python's Exception), not something that
// went wrong: in a fenced block or an inline code span they infer no
// incident, unless they label a message ("panic: ...", "Error: ...").
func TestInferTagsCodeIdentifiers(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"Parse returns the value:\n```go\nfunc Parse(s string) (int, error) {\n\treturn 0, nil\n}\n```", []string{"coding"}},
		{"Use `errors.Is` to compare wrapped values", []string{"general"}},
		{"Wrap it in ``panic(err)`` only in main", []string{"general"}},
		{"~~~python\ntry:\n    run()\nexcept Exception as e:\n    log(e)\n~~~", []string{"general"}},
		// Messages in code blocks, and the words outside them, still count.
		{"The job died:\n```\npanic: runtime error: index out of range [3]\n```", []string{"coding", "incident"}},
		{"```\nError: connect ECONNREFUSED 127.0.0.1:5432\n```", []string{"incident"}},
		{"Use `errors.Is`; the import error is still open", []string{"incident"}},
		{"An unclosed fence\n```\nerror", []string{"general"}},
		{"`a` error `b`", []string{"incident"}},
	} {
		if got := InferTags(tc.text, nil, false, ""); !slices.Equal(got, tc.want) {
			t.Errorf("InferTags(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

// TestInferTagsStoredVocabulary: a stored tag that spells one of the
// inferred vocabulary in other capitals ("Incident", "TASK") is that
// tag, so the work type and a tags filter see it; other stored tags keep
// their spelling.
func TestInferTagsStoredVocabulary(t *testing.T) {
	got := InferTags("nothing to infer", []string{"Incident", " TASK ", "ProjectX", "incident"}, false, "")
	if want := []string{"ProjectX", "incident", "task"}; !slices.Equal(got, want) {
		t.Errorf("InferTags = %v, want %v", got, want)
	}
	if w := InferWorkType(got); w != "incident" {
		t.Errorf("work type %q, want incident", w)
	}
}

// TestInferTagsCJKFalseFriends: a longer word that holds a CJK trigger but
// means something else (任务栏 the taskbar, 决策树 a decision tree, 经验值
// experience points) infers nothing from it.
func TestInferTagsCJKFalseFriends(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"任务栏图标不见了", []string{"general"}},
		{"用决策树做分类", []string{"general"}},
		{"角色的经验值翻倍", []string{"general"}},
		{"任务栏图标不见了，任务还没完成", []string{"task"}},
		{"这次的决策是回滚", []string{"decision", "lesson"}},
	} {
		if got := InferTags(tc.text, nil, false, ""); !slices.Equal(got, tc.want) {
			t.Errorf("InferTags(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

// TestInferTagsErrorDesign: a text about how errors are handled, worded or
// coded ("error handling", "error messages", "exception handling") tells of
// no incident; an error that happened does.
func TestInferTagsErrorDesign(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"Improve the error messages of the importer", []string{"general"}},
		{"Refactor the error-handling of the parser", []string{"coding"}},
		{"Document the error codes the API returns", []string{"general"}},
		{"Exception handling in the worker follows the guide", []string{"general"}},
		{"The error rate spiked after the deploy", []string{"incident"}},
		{"error messages flooded the log after the deploy failed", []string{"incident"}},
		{"Hit an error: handling of the queue stopped", []string{"incident"}},
	} {
		if got := InferTags(tc.text, nil, false, ""); !slices.Equal(got, tc.want) {
			t.Errorf("InferTags(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

// inferTagsWordByWord is InferTags as it was before a word's facts were
// one lookup: each word searched for again in the text and looked up in
// each table. TestInferTags_sameAsWordByWord and FuzzInferTags hold the
// two to the same tags, so an index built with either is the same.
func inferTagsWordByWord(text string) []string {
	index := wordByWordIndex()
	out := []string{}
	norm := lexical.Normalize(text)
	fired := make([]bool, len(tagRules))
	neg1, neg2, last, pos := false, false, "", 0
	code := codeSpans(norm)
	for w := range lexical.WordsSeq(norm) {
		start := pos + strings.Index(norm[pos:], w)
		if strings.ContainsAny(norm[pos:start], clauseBreaks) {
			neg1, neg2 = false, false
		}
		pos = start + len(w)
		for len(code) > 0 && code[0][1] <= start {
			code = code[1:]
		}
		inCode := len(code) > 0 && code[0][0] <= start
		rules := index[w]
		if errorWords[w] && (inCode && !strings.HasPrefix(norm[pos:], ":") || designNouns[nextWord(norm[pos:])]) {
			rules = nil
		}
		if len(rules) > 0 {
			negated := neg1 || neg2 || strings.HasPrefix(norm[pos:], "-free")
			for _, r := range rules {
				if !negated || !tagRules[r].negatable {
					fired[r] = true
				}
			}
		}
		neg1, neg2, last = negators[w] || w == "t" && strings.HasSuffix(last, "n"), neg1, w
	}
	cjk := lexical.HasCJK(norm)
	for i, r := range tagRules {
		if !fired[i] && cjk {
			fired[i] = slices.ContainsFunc(r.cjk, func(p string) bool { return hasCJKTrigger(norm, p, r.negatable) })
		}
		if fired[i] {
			out = append(out, r.tags...)
		}
	}
	slices.Sort(out)
	out = slices.Compact(out)
	if len(out) == 0 {
		out = append(out, "general")
	}
	return out
}

// wordByWordIndex maps each word of tagRules to the rules it fires.
var wordByWordIndex = sync.OnceValue(func() map[string][]int {
	index := map[string][]int{}
	for i, r := range tagRules {
		for _, w := range r.words {
			index[w] = append(index[w], i)
		}
	}
	return index
})

// inferTagsTexts are texts whose tags hang on the words around a
// trigger: negators across a space, a line, a comma or several spaces,
// "n't", "-free", error words in code or before a design noun, words
// longer than any trigger, and CJK.
var inferTagsTexts = []string{
	"no errors", "no\nerrors", "no, errors", "no  errors", "no\terrors", "no — errors",
	"didn't crash", "didn t crash", "wasn't broken", "isn’t failing",
	"never   failed; it failed", "without any failure", "zero  crashes, crash",
	"bug-free build", "bug free", "the error handling", "error-handling code",
	"`err error` in the func", "`panic: boom`", "```\npanic(x)\n```\npanic: y",
	"the configurationmanagement port", "retrospectives", "Traceback (most recent call last)",
	"  leading spaces then a regression", "ports\n\n\nmigrations migrate", "todo:task",
	"没有报错，但是故障了", "任务栏 决策树", "no 报错 error", "nothing. error",
	"Ошибка error no", "not\u00a0failed", "not\u3000failed", "no\u2028errors",
}

func TestInferTags_sameAsWordByWord(t *testing.T) {
	for _, text := range inferTagsTexts {
		got := InferTags(text, nil, false, "")
		if want := inferTagsWordByWord(text); !slices.Equal(got, want) {
			t.Errorf("InferTags(%q) = %v, want %v", text, got, want)
		}
	}
}

func FuzzInferTags(f *testing.F) {
	for _, text := range inferTagsTexts {
		f.Add(text)
	}
	f.Fuzz(func(t *testing.T, text string) {
		got := InferTags(text, nil, false, "")
		if want := inferTagsWordByWord(text); !slices.Equal(got, want) {
			t.Errorf("InferTags(%q) = %v, want %v", text, got, want)
		}
	})
}

// inferTagsBenchText is a record of the build benchmark's corpus.
const inferTagsBenchText = "Ticket NOT-8147: the nightly export v1.23.13 when the queue backs up. the Postgres replica moved to port 5128 because the health check hit the wrong path. secret currency tenant flag checkpoint artifact pager deadline (commit ba2cea59). On 2026-05-07 the constraint moved to the notify worker. the search indexer failed on port 11162 for the quarterly audit."

// BenchmarkInferTags: a build infers the tags of every chunk it reads;
// WordByWord is the reading before one lookup a word.
//
//	go test -run '^$' -bench InferTags ./memory/
func BenchmarkInferTags(b *testing.B) {
	b.Run("now", func(b *testing.B) {
		for range b.N {
			InferTags(inferTagsBenchText, nil, true, "record")
		}
	})
	b.Run("WordByWord", func(b *testing.B) {
		for range b.N {
			inferTagsWordByWord(inferTagsBenchText)
		}
	})
}
