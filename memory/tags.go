package memory

import (
	"slices"
	"strings"
	"sync"

	"github.com/nova-recall/nova/index/chunk"
	"github.com/nova-recall/nova/lexical"
)

// WorkTypes in priority order: the first one among a chunk's tags is its
// work type.
var WorkTypes = []string{"incident", "config", "migration", "lesson", "task", "coding", "daily"}

// tagRule infers tag from whole words (never substrings: "ip" must not
// fire on "pipeline") or from CJK phrases (CJK has no word boundaries).
// A negatable rule says that something went wrong, which a negated
// trigger ("no errors", "didn't crash", "bug-free", "没有报错") denies: it
// does not fire the rule.
type tagRule struct {
	tags      []string
	words     []string
	cjk       []string
	negatable bool
}

var tagRules = []tagRule{
	{[]string{"incident", "coding"}, []string{"traceback", "exception", "panic", "segfault", "stacktrace"}, nil, true},
	{[]string{"incident"}, []string{"error", "errors", "failed", "failure", "failing", "incident", "outage", "crash", "crashed", "broken", "regression", "bug"}, []string{"故障", "报错", "失败", "不可用", "宕机"}, true},
	// Not recovered (没有恢复) is still an incident.
	{[]string{"incident"}, nil, []string{"恢复"}, false},
	{[]string{"config"}, []string{"port", "ports", "config", "configuration", "configure", "dns", "ip", "env", "setting", "settings", "localhost", "yaml", "toml"}, []string{"端口", "配置", "环境变量", "不可用"}, false},
	{[]string{"migration"}, []string{"migration", "migrate", "migrated", "migrating"}, []string{"迁移"}, false},
	{[]string{"task"}, []string{"task", "tasks", "todo", "backlog", "checkbox"}, []string{"任务", "看板"}, false},
	{[]string{"coding"}, []string{"code", "pytest", "unittest", "git", "commit", "refactor", "compile", "func", "function", "test", "tests"}, []string{"代码", "测试"}, false},
	{[]string{"lesson", "decision"}, []string{"lesson", "lessons", "decision", "decided", "postmortem", "retrospective"}, []string{"经验", "教训", "决策", "复盘"}, false},
}

// vocabulary holds the tags the rules infer (upstream §1.4).
var vocabulary = func() map[string]bool {
	m := map[string]bool{"daily": true, "general": true}
	for _, r := range tagRules {
		for _, t := range r.tags {
			m[t] = true
		}
	}
	return m
}()

// negators are the words that deny a trigger one or two words after them
// in the same clause ("no errors", "without any failure"); the "t" of
// "didn't" is one too (negator).
var negators = map[string]bool{"no": true, "not": true, "never": true, "without": true, "zero": true, "0": true, "nothing": true, "none": true}

// clauseBreaks end the reach of a negator: in "No, it failed" the "no"
// does not deny "failed".
const clauseBreaks = ".,;:!?\n。，；！？、"

// errorWords are the trigger words that name errors as a kind of thing,
// not one that happened: in code they name a type or a function (Go's
// error and panic, Python's and Java's Exception), so in a code block or
// span they fire a rule only as a message's label ("panic: ..."); before
// one of designNouns they name a topic ("error handling").
var errorWords = map[string]bool{"error": true, "errors": true, "exception": true, "panic": true}

// designNouns, after error or exception ("error handling", "error
// messages", "exception handling"), make a text about how errors are
// dealt with, not about one that happened: the trigger does not fire.
var designNouns = map[string]bool{
	"handling": true, "handler": true, "handlers": true, "message": true, "messages": true,
	"code": true, "codes": true, "type": true, "types": true, "wrapping": true, "reporting": true,
	"class": true, "classes": true, "hierarchy": true,
}

// cjkNegators deny a CJK trigger right after them (没有报错, 无故障,
// 未失败, 不报错), possibly through cjkNegationFillers (没有任何报错,
// 未出现故障).
var (
	cjkNegators        = []string{"没有", "没", "无", "未", "不"}
	cjkNegationFillers = []string{"任何", "出现", "出现过", "发生", "发生过"}
)

// wordFact is what InferTags needs to know of a word: the rules it fires
// (tagRules' indexes), whether it is one of errorWords and whether one of
// negators.
type wordFact struct {
	rules     []int
	errorWord bool
	negator   bool
}

// tagWords maps each word of tagRules, errorWords and negators to its
// facts (this runs for every word a build reads: one lookup, when any,
// instead of one in each table).
var tagWords = sync.OnceValue(func() *wordTable {
	t := &wordTable{facts: map[string]wordFact{}}
	note := func(w string, f func(*wordFact)) {
		x := t.facts[w]
		f(&x)
		t.facts[w] = x
		if len(w) >= 16 {
			panic("memory: tag word " + w + " is too long for the shapes")
		}
		t.shapes[w[0]] |= 1 << len(w)
	}
	for i, r := range tagRules {
		for _, w := range r.words {
			note(w, func(x *wordFact) { x.rules = append(x.rules, i) })
		}
	}
	for w := range errorWords {
		note(w, func(x *wordFact) { x.errorWord = true })
	}
	for w := range negators {
		note(w, func(x *wordFact) { x.negator = true })
	}
	return t
})

// wordTable is the words InferTags looks up, and their shapes: bit n of
// shapes[b] is set when a word of n bytes starts with byte b. A word of
// a text whose shape is none of theirs (most: "the", numbers, longer
// words) is not looked up.
type wordTable struct {
	facts  map[string]wordFact
	shapes [256]uint16
}

// fact returns w's facts, none when w is none of the table's words.
func (t *wordTable) fact(w string) wordFact {
	if t.shapes[w[0]]&(1<<min(len(w), 16)) == 0 {
		return wordFact{}
	}
	return t.facts[w]
}

// InferTags returns the chunk's tags: the stored ones, plus the ones the
// rules find in its text, plus "daily" when dated; "general" when nothing
// applies. The result is sorted and unique.
func InferTags(text string, stored []string, dated bool, layer string) []string {
	// A slice sorted and made unique at the end, not a set: a map a chunk
	// was a good part of the cost, for a handful of tags.
	out := make([]string, 0, len(stored)+4)
	for _, t := range stored {
		if t = strings.TrimSpace(t); t != "" {
			// A vocabulary tag is one tag whatever its capitals: the
			// work type and the filters look for it in lower case.
			if l := strings.ToLower(t); vocabulary[l] {
				t = l
			}
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
	words := tagWords()
	// neg1 and neg2: whether the word before, and the one before it, in
	// the same clause deny what follows.
	neg1, neg2, last, pos := false, false, "", 0
	code := codeSpans(norm)
	for start, w := range lexical.WordsAt(norm) {
		if start > pos+1 || start == pos+1 && norm[pos] != ' ' {
			if strings.ContainsAny(norm[pos:start], clauseBreaks) {
				neg1, neg2 = false, false
			}
		}
		pos = start + len(w)
		for len(code) > 0 && code[0][1] <= start {
			code = code[1:]
		}
		f := words.fact(w)
		rules := f.rules
		if f.errorWord {
			inCode := len(code) > 0 && code[0][0] <= start
			if inCode && !strings.HasPrefix(norm[pos:], ":") || designNouns[nextWord(norm[pos:])] {
				rules = nil // a type, a function or a topic, not an error that happened
			}
		}
		if len(rules) > 0 {
			negated := neg1 || neg2 || strings.HasPrefix(norm[pos:], "-free")
			for _, r := range rules {
				if !negated || !tagRules[r].negatable {
					fired[r] = true
				}
			}
		}
		neg1, neg2, last = f.negator || w == "t" && strings.HasSuffix(last, "n"), neg1, w
	}
	cjk := lexical.HasCJK(norm) // CJK rules match phrases, only there
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
	if len(out) == 0 || (len(out) == 1 && out[0] == "daily") {
		out = append(out, "general")
		slices.Sort(out)
	}
	return slices.Clip(out)
}

// codeSpans returns the byte ranges of s's Markdown code: fenced blocks
// (chunk.Fences) and inline code spans (a run of backticks to the next run
// as long, on one line), in order.
func codeSpans(s string) [][2]int {
	if !strings.ContainsAny(s, "`~") {
		return nil
	}
	var spans [][2]int
	prev := 0 // where the text after the last block starts
	for _, f := range append(chunk.Fences(s), [2]int{len(s), len(s)}) {
		for off := prev; off < f[0]; {
			end := f[0]
			if i := strings.IndexByte(s[off:f[0]], '\n'); i >= 0 {
				end = off + i + 1
			}
			spans = appendInlineCode(spans, s[off:end], off)
			off = end
		}
		if f[0] < f[1] {
			spans = append(spans, f)
		}
		prev = f[1]
	}
	return spans
}

// appendInlineCode appends the inline code spans of line, which starts at
// byte off of its text.
func appendInlineCode(spans [][2]int, line string, off int) [][2]int {
	for i := 0; i < len(line); {
		open := strings.IndexByte(line[i:], '`')
		if open < 0 {
			break
		}
		open += i
		n := open
		for n < len(line) && line[n] == '`' {
			n++
		}
		run := line[open:n]
		// The closing run is as long as the opening one, and no longer.
		closed := false
		for j := n; j < len(line); {
			k := strings.Index(line[j:], run)
			if k < 0 {
				break
			}
			k += j
			e := k + len(run)
			if e < len(line) && line[e] == '`' {
				for e < len(line) && line[e] == '`' {
					e++
				}
				j = e
				continue
			}
			spans = append(spans, [2]int{off + open, off + e})
			i, closed = e, true
			break
		}
		if !closed {
			i = n
		}
	}
	return spans
}

// nextWord returns the ASCII word that s starts with after a space or a
// hyphen ("handling" of " handling" and "-handling"), else "".
func nextWord(s string) string {
	if s == "" || s[0] != ' ' && s[0] != '-' {
		return ""
	}
	s = s[1:]
	i := 0
	for i < len(s) && 'a' <= s[i] && s[i] <= 'z' {
		i++
	}
	return s[:i]
}

// hasCJKTrigger reports whether phrase p occurs in s other than in one
// of cjkFalseFriends and, when negatable, other than right after a
// negation.
func hasCJKTrigger(s, p string, negatable bool) bool {
	for off := 0; ; {
		i := strings.Index(s[off:], p)
		if i < 0 {
			return false
		}
		i += off
		if !inFalseFriend(s, i, p) && (!negatable || !cjkNegated(s[:i])) {
			return true
		}
		off = i + len(p)
	}
}

// cjkFalseFriends are longer words that hold a CJK trigger but mean
// something else: the taskbar, a decision tree, experience points.
var cjkFalseFriends = []string{"任务栏", "决策树", "经验值"}

// inFalseFriend reports whether the trigger p at s[i:] is part of one of
// cjkFalseFriends.
func inFalseFriend(s string, i int, p string) bool {
	for _, f := range cjkFalseFriends {
		if k := strings.Index(f, p); k >= 0 && k <= i && strings.HasPrefix(s[i-k:], f) {
			return true
		}
	}
	return false
}

// cjkNegated reports whether the text before a CJK trigger ends in a
// negation (see cjkNegators).
func cjkNegated(before string) bool {
	before = strings.TrimRight(before, " ")
	for range 2 { // 没有出现任何报错: two fillers at most
		cut := false
		for _, f := range cjkNegationFillers {
			if b, ok := strings.CutSuffix(before, f); ok {
				before, cut = b, true
				break
			}
		}
		if !cut {
			break
		}
	}
	return slices.ContainsFunc(cjkNegators, func(n string) bool { return strings.HasSuffix(before, n) })
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
