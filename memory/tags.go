package memory

import (
	"slices"
	"strings"
	"sync"

	"github.com/nova-recall/nova/lexical"
)

// WorkTypes in priority order: the first one among a chunk's tags is its
// work type.
var WorkTypes = []string{"incident", "config", "migration", "lesson", "task", "coding", "daily"}

// tagRule infers tag from whole words (never substrings: "ip" must not
// fire on "pipeline") or from CJK phrases (CJK has no word boundaries).
type tagRule struct {
	tags  []string
	words []string
	cjk   []string
}

var tagRules = []tagRule{
	{[]string{"incident", "coding"}, []string{"traceback", "exception", "panic", "segfault", "stacktrace"}, nil},
	{[]string{"incident"}, []string{"error", "errors", "failed", "failure", "failing", "incident", "outage", "crash", "crashed", "broken", "regression", "bug"}, []string{"故障", "报错", "失败", "不可用", "宕机", "恢复"}},
	{[]string{"config"}, []string{"port", "ports", "config", "configuration", "configure", "dns", "ip", "env", "setting", "settings", "localhost", "yaml", "toml"}, []string{"端口", "配置", "环境变量", "不可用"}},
	{[]string{"migration"}, []string{"migration", "migrate", "migrated", "migrating"}, []string{"迁移"}},
	{[]string{"task"}, []string{"task", "tasks", "todo", "backlog", "checkbox"}, []string{"任务", "看板"}},
	{[]string{"coding"}, []string{"code", "pytest", "unittest", "git", "commit", "refactor", "compile", "func", "function", "test", "tests"}, []string{"代码", "测试"}},
	{[]string{"lesson", "decision"}, []string{"lesson", "lessons", "decision", "decided", "postmortem", "retrospective"}, []string{"经验", "教训", "决策", "复盘"}},
}

// tagWordIndex maps each word of tagRules to the rules it fires.
var tagWordIndex = sync.OnceValue(func() map[string][]int {
	m := map[string][]int{}
	for i, r := range tagRules {
		for _, w := range r.words {
			m[w] = append(m[w], i)
		}
	}
	return m
})

// InferTags returns the chunk's tags: the stored ones, plus the ones the
// rules find in its text, plus "daily" when dated; "general" when nothing
// applies. The result is sorted and unique.
func InferTags(text string, stored []string, dated bool, layer string) []string {
	// A slice sorted and made unique at the end, not a set: a map a chunk
	// was a good part of the cost, for a handful of tags.
	out := make([]string, 0, len(stored)+4)
	for _, t := range stored {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	if dated {
		out = append(out, "daily")
	}
	if layer == "lesson" {
		out = append(out, "lesson", "decision")
	}
	norm := lexical.Normalize(text)
	// Which rules fire: each word of the text is looked up once in the
	// rules' word index, instead of building a set of the text's words
	// (this runs for every record a build reads).
	fired := make([]bool, len(tagRules))
	index := tagWordIndex()
	for w := range lexical.WordsSeq(norm) {
		for _, r := range index[w] {
			fired[r] = true
		}
	}
	cjk := lexical.HasCJK(norm) // CJK rules match phrases, only there
	for i, r := range tagRules {
		if !fired[i] && cjk {
			fired[i] = slices.ContainsFunc(r.cjk, func(p string) bool { return strings.Contains(norm, p) })
		}
		if fired[i] {
			out = append(out, r.tags...)
		}
	}
	slices.Sort(out)
	out = slices.Compact(out)
	if len(out) == 0 || (len(out) == 1 && out[0] == "daily") {
		out = append(out, "general")
		slices.Sort(out)
	}
	return slices.Clip(out)
}

// InferWorkType returns the first work type present in tags, else
// "general".
func InferWorkType(tags []string) string {
	for _, w := range WorkTypes {
		if slices.Contains(tags, w) {
			return w
		}
	}
	return "general"
}
