// Package search is Nova's recall engine: for a query and its hard filters
// it plans (intents, key terms, anchors), runs the bounded multi-pass
// controller over the active generation's lexical and dense channels,
// fuses, adjusts for governance, recency and meta-discussion, dedupes,
// gates quality, and builds the full evidence envelope. It is
// deterministic, bounded by a deadline, and calls no language model.
package search

import (
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/lexical"
)

// Plan is the server's interpretation of a query.
type Plan struct {
	Query         string // whitespace-normalised
	Intents       []string
	PreferredTags []string
	RecencyBias   string // strong or normal
	KeyTerms      []string
	Anchors       []string
	Phrases       []string
	SubQueries    []api.SubQuery
	Meta          bool // the query is itself about retrieval quality
	FinalState    bool // the query asks for a current or settled state
	Aggregation   bool
	// AnchorsOmitted is how many anchors the query held beyond
	// maxAnchors: a paste (a log, a list of ids) names hundreds.
	AnchorsOmitted int
}

// intentRule fires intent when the query contains one of words (as whole
// words) or cjk (as a substring: CJK has no word boundaries).
type intentRule struct {
	intent  string
	also    []string
	words   []string
	phrases []string
	cjk     []string
}

var intentRules = []intentRule{
	{intent: "incident", also: []string{"coding"}, words: []string{"traceback", "exception", "error", "errors", "failed", "failure", "failing", "incident", "incidents", "crash", "crashed", "outage", "broken", "bug", "bugs"}, cjk: []string{"失败", "报错", "故障"}},
	{intent: "aggregation", also: []string{"incident"}, phrases: []string{"how many times", "how often", "most severe", "worst"}, cjk: []string{"问题", "几次", "多少次", "最严重", "怎么解决", "解决", "恢复"}},
	{intent: "config", words: []string{"port", "ports", "config", "configuration", "configured", "dns", "ip", "localhost", "tailscale", "publicbaseurl", "allowedorigins", "env", "setting", "settings", "unavailable", "unreachable"}, cjk: []string{"端口", "配置", "不可用", "网络", "回环地址", "回环"}},
	{intent: "migration", words: []string{"migration", "migrate", "migrated", "migrating"}, cjk: []string{"迁移"}},
	{intent: "coding", words: []string{"code", "coding", "pytest", "unittest", "test", "tests", "implement", "implementation", "refactor", "function", "commit"}, cjk: []string{"代码", "测试", "实现"}},
	{intent: "task", words: []string{"task", "tasks", "todo", "todos", "progress", "backlog"}, cjk: []string{"任务", "看板", "进度"}},
	{intent: "lesson", also: []string{"decision"}, words: []string{"lesson", "lessons", "decision", "decisions", "decided", "learned", "postmortem", "retrospective"}, cjk: []string{"经验", "教训", "决策", "复盘"}},
	{intent: "daily", words: []string{"diary", "daily", "today", "yesterday"}, cjk: []string{"今天", "昨天", "日记", "日常"}},
}

var recencyWords = []string{"latest", "recent", "recently", "today", "yesterday", "newest", "lately", "currently", "nowadays"}
var recencyCJK = []string{"最近", "最新", "今天", "昨天", "现在", "目前", "如今"}

// metaQueryWords mark a query that is itself about retrieval quality; such
// queries are not penalised for matching meta-discussion.
var metaQueryWords = []string{"eval", "evaluation", "benchmark", "benchmarks", "q0", "q1", "q2", "recall", "retrieval"}
var metaQueryPhrases = []string{"rag quality", "retrieval quality", "search quality"}
var metaQueryCJK = []string{"召回质量", "检索质量"}

// subQueryTemplates are the deterministic intent expansions, in order.
var subQueryTemplates = []struct {
	id, intent, text, purpose string
}{
	{"Q1", "incident", "error failed traceback fix outage incident resolved 修复 故障 问题 恢复 解决", "incident evidence"},
	{"Q6", "aggregation", "how many times incidents timeline worst 几次 多少次 次数 最严重 时间线", "event aggregation evidence"},
	{"Q7", "config", "port config configuration dns ip unavailable cause 端口 配置 不可用 原因", "configuration evidence"},
	{"Q8", "migration", "migration migrate old new switch moved 迁移 旧 新 变更 切换", "migration evidence"},
	{"Q2", "coding", "code src test implementation fix commit 代码 测试", "coding evidence"},
	{"Q3", "task", "task todo progress status board 任务 进度", "task-state evidence"},
	{"Q4", "lesson", "lesson decision learned outcome 经验 教训 决策", "lesson evidence"},
	{"Q5", "daily", "diary daily today yesterday 日记 日常", "daily-memory evidence"},
}

// finalStateIntents ask for a settled or current state, which episodic
// dialogue alone cannot answer with confidence.
var finalStateIntents = []string{"config", "migration", "task", "lesson", "decision"}

// MakePlan analyses a query.
func MakePlan(query string) Plan {
	q := strings.Join(strings.Fields(query), " ")
	p := Plan{Query: q, RecencyBias: "normal"}
	norm := lexical.Normalize(q)
	words := lexical.Words(norm)
	wordSet := map[string]bool{}
	for _, w := range words {
		wordSet[w] = true
	}
	spaced := " " + strings.Join(words, " ") + " "
	intents := map[string]bool{}
	for _, r := range intentRules {
		hit := slices.ContainsFunc(r.words, func(w string) bool { return wordSet[w] }) ||
			slices.ContainsFunc(r.phrases, func(ph string) bool { return strings.Contains(spaced, " "+ph+" ") }) ||
			slices.ContainsFunc(r.cjk, func(c string) bool { return strings.Contains(norm, c) })
		if hit {
			intents[r.intent] = true
			for _, a := range r.also {
				intents[a] = true
			}
		}
	}
	if slices.ContainsFunc(words, isPathLike) {
		intents["coding"] = true
	}
	if slices.ContainsFunc(recencyWords, func(w string) bool { return wordSet[w] }) ||
		slices.ContainsFunc(recencyCJK, func(c string) bool { return strings.Contains(norm, c) }) {
		p.RecencyBias = "strong"
	}
	p.Meta = slices.ContainsFunc(metaQueryWords, func(w string) bool { return wordSet[w] }) ||
		slices.ContainsFunc(metaQueryPhrases, func(ph string) bool { return strings.Contains(spaced, " "+ph+" ") }) ||
		slices.ContainsFunc(metaQueryCJK, func(c string) bool { return strings.Contains(norm, c) })
	preferred := map[string]bool{}
	for in := range intents {
		switch in {
		case "aggregation":
			preferred["incident"] = true
		case "lesson":
			preferred["lesson"], preferred["decision"] = true, true
		default:
			preferred[in] = true
		}
	}
	if len(intents) == 0 {
		intents["general"] = true
		preferred["general"] = true
	}
	p.Intents = sortedSet(intents)
	p.PreferredTags = sortedSet(preferred)
	p.Aggregation = intents["aggregation"]
	for _, f := range finalStateIntents {
		if intents[f] || preferred[f] {
			p.FinalState = true
		}
	}
	p.Anchors, p.Phrases = extractAnchors(q)
	p.Anchors, p.AnchorsOmitted = boundAnchors(p.Anchors)
	p.KeyTerms = keyTerms(q, norm, p.Anchors)
	p.SubQueries = []api.SubQuery{{ID: "Q0", Query: q, Purpose: "primary recall"}}
	seen := map[string]bool{strings.ToLower(q): true}
	// A paste is searched whole once, by the baseline; its expansions
	// search its key terms with the intent's words, which the whole of it
	// would drown, and which each repeated (in every pass's embedding,
	// and in the response, 15 times over).
	base := q
	if utf8.RuneCountInString(q) > maxExpandedRunes {
		base = strings.Join(p.KeyTerms, " ")
	}
	for _, t := range subQueryTemplates {
		if !intents[t.intent] && !(t.intent == "lesson" && preferred["decision"]) {
			continue
		}
		sq := strings.TrimSpace(base + " " + t.text)
		if seen[strings.ToLower(sq)] {
			continue
		}
		seen[strings.ToLower(sq)] = true
		p.SubQueries = append(p.SubQueries, api.SubQuery{ID: t.id, Query: sq, Purpose: t.purpose})
	}
	return p
}

func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// quoted finds the quoted phrases of a query.
var quoted = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`"([^"]{2,120})"|“([^”]{2,120})”|「([^」]{2,120})」`)
})

// anchorPatterns are the shapes of a query token that make it an anchor,
// compiled together on first use (anchorRes) and fetched once per query.
type anchorPatterns struct {
	ipv4, isoDate, version, fileName, hexLike, numberLike *regexp.Regexp
}

var anchorRes = sync.OnceValue(func() *anchorPatterns {
	return &anchorPatterns{
		ipv4:       regexp.MustCompile(`^\d{1,3}(\.\d{1,3}){3}$`),
		isoDate:    regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`),
		version:    regexp.MustCompile(`^v\d+(\.\d+)*$`),
		fileName:   regexp.MustCompile(`^\.?[\w-]+(\.[\w-]+)*\.[a-z][a-z0-9]{0,7}$`),
		hexLike:    regexp.MustCompile(`^[0-9a-f]{7,40}$`),
		numberLike: regexp.MustCompile(`^\d{2,}$`),
	}
})

// maxExpandedRunes is the length of the longest query whose intent
// expansions (SubQueries after Q0) hold it whole; a longer one, a paste,
// is expanded from its key terms. A question is far shorter.
const maxExpandedRunes = 500

// maxAnchors bounds the anchors of a query: each is looked for in the
// text of every head candidate, and a paste (a log, a traceback, a list
// of ids) names hundreds.
const maxAnchors = 32

// boundAnchors keeps at most maxAnchors of anchors and returns how many
// it left out. A query with more anchors than key terms is a paste, whose
// lines repeat with other numbers (a traceback's frames, a log's
// timestamps): its anchors are reordered so that the first of each shape
// (digits masked) comes first, in the query's order, and the repeats
// after; the key terms, taken from the first anchors, then hold the line
// that differs, such as the error a traceback ends with, and not only the
// frames before it. A shorter query's anchors are kept as written.
func boundAnchors(anchors []string) ([]string, int) {
	if len(anchors) <= maxKeyTerms {
		return anchors, 0
	}
	shape := func(a string) string {
		return strings.Map(func(r rune) rune {
			if unicode.IsDigit(r) {
				return '0'
			}
			return r
		}, a)
	}
	seen := map[string]bool{}
	firsts := make([]string, 0, len(anchors))
	var repeats []string
	for _, a := range anchors {
		if s := shape(a); !seen[s] {
			seen[s] = true
			firsts = append(firsts, a)
		} else {
			repeats = append(repeats, a)
		}
	}
	out := append(firsts, repeats...)
	return out[:min(len(out), maxAnchors)], max(0, len(out)-maxAnchors)
}

// identifierQuery reports whether every key term of the plan is an
// identifier with a digit in it (e383733, SEC-6642, v1.4.0, 10.0.0.1): a
// query that names records and asks nothing of their meaning.
func identifierQuery(p Plan) bool {
	if len(p.KeyTerms) == 0 {
		return false
	}
	for _, t := range p.KeyTerms {
		if !slices.Contains(p.Anchors, t) || !hasDigit(t) {
			return false
		}
	}
	return true
}

// isPathLike reports whether a token looks like a path (contains '/' and a
// letter), e.g. src/app/update.py or ~/.codex.
func isPathLike(tok string) bool {
	return strings.Contains(tok, "/") && strings.IndexFunc(tok, unicode.IsLetter) >= 0 && !strings.Contains(tok, "://")
}

// extractAnchors finds the entities whose absence makes recall unsafe:
// quoted phrases, paths, file names, identifiers, versions, IP addresses,
// dates, numbers, commit hashes, mixed-case and all-caps names. Tokens are
// whole whitespace-separated words, never substrings of longer words.
// Anchors are normalised as the text they are matched in is (traditional
// Chinese, a decomposed accent, full-width letters), and the query is
// composed first (NFKC, which keeps case) so that an identifier or a
// quotation an IME typed full-width (ＲＣ－２０４, ＂…＂) is found as one.
func extractAnchors(q string) (anchors, phrases []string) {
	q = norm.NFKC.String(q)
	seen := map[string]bool{}
	add := func(a string) {
		a = lexical.Normalize(strings.Trim(a, " ,;!?()[]{}'\"`"))
		if a == "" || seen[a] || stopTerm(a) || tooLongTerm(a) {
			return
		}
		seen[a] = true
		anchors = append(anchors, a)
	}
	for _, m := range quoted().FindAllStringSubmatch(q, -1) {
		for _, g := range m[1:] {
			if g = strings.TrimSpace(g); g != "" {
				ph := lexical.Normalize(strings.Join(strings.Fields(g), " "))
				phrases = append(phrases, ph)
				add(ph)
			}
		}
	}
	rest := quoted().ReplaceAllString(q, " ")
	var toks []string
	for _, field := range scriptFields(rest) {
		// CJK punctuation joins no identifier: NOVA-123、NOVA-124 is two.
		for _, raw := range strings.FieldsFunc(field, func(r rune) bool { return strings.ContainsRune(cjkSeparators, r) }) {
			tok := strings.Trim(raw, tokenQuotes)
			// An ellipsis is three dots once composed.
			tok = strings.TrimRight(tok, ".")
			tok = strings.TrimRight(tok, ":")
			if tok != "" {
				toks = append(toks, tok)
			}
		}
	}
	shouted := isShouted(q, toks)
	re := anchorRes()
	for _, tok := range toks {
		low := strings.ToLower(tok)
		switch {
		case isPathLike(tok):
			add(low)
		case re.fileName.MatchString(low) && strings.IndexFunc(low, unicode.IsLetter) >= 0:
			add(low)
		case isIdentifier(tok):
			add(low)
		case re.version.MatchString(low):
			add(low)
		case re.ipv4.MatchString(low), re.isoDate.MatchString(low):
			add(low)
		case re.numberLike.MatchString(low):
			add(low)
		case re.hexLike.MatchString(low) && strings.IndexFunc(low, unicode.IsDigit) >= 0 && strings.IndexFunc(low, unicode.IsLetter) >= 0:
			add(low)
		case isMixedCase(tok), isAllCaps(tok) && !shouted:
			add(low)
		default:
			// ":3037" and "port=3037" carry a number anchor inside.
			for _, part := range strings.FieldsFunc(low, func(r rune) bool { return !unicode.IsDigit(r) }) {
				if len(part) >= 2 && len(part) < len(low) && strings.IndexFunc(low, unicode.IsLetter) < 0 {
					add(part)
				}
			}
		}
	}
	return anchors, phrases
}

// tokenQuotes are the quotes, brackets and punctuation trimmed from a
// token's ends: ASCII, the typographic quotes a Mac types (‘ ’ “ ”),
// guillemets, and the CJK ones.
const tokenQuotes = " ,;!?()[]{}'\"`‘’“”‹›«»…。，？！：；（）《》〈〉「」『』【】"

// cjkSeparators are CJK punctuation marks a token is split at.
const cjkSeparators = "、，；。：？！"

// scriptFields splits s at white space and where CJK text meets other
// text: Chinese is written without spaces, so "NOVA-123的进度" holds the
// identifier NOVA-123, not an identifier ending in Han characters.
func scriptFields(s string) []string {
	var out []string
	for _, f := range strings.Fields(s) {
		start, prevCJK := 0, false
		for i, r := range f {
			cjk := lexical.IsCJK(r)
			if i > 0 && cjk != prevCJK {
				out = append(out, f[start:i])
				start = i
			}
			prevCJK = cjk
		}
		out = append(out, f[start:])
	}
	return out
}

// isIdentifier: 3-41 characters of letters, digits and _ . : -, starting
// with a letter, with a letter, a digit and a separator between
// alphanumeric groups (RC-204, V1-A-029, build_42).
func isIdentifier(tok string) bool {
	if n := len(tok); n < 3 || n > 41 {
		return false
	}
	r0, _ := utf8.DecodeRuneInString(tok)
	if !unicode.IsLetter(r0) {
		return false
	}
	var letter, digit, sep bool
	for i, r := range tok {
		switch {
		case unicode.IsLetter(r):
			letter = true
		case unicode.IsDigit(r):
			digit = true
		case r == '-' || r == '_' || r == '.' || r == ':':
			if i == len(tok)-1 {
				return false
			}
			sep = true
		default:
			return false
		}
	}
	return letter && digit && sep
}

// isShouted reports whether the query is written in capitals throughout
// (caps lock): it has no lower-case letter, and a word in capitals that
// is a stop word ("WHY", "THE"), which no acronym is. Its words in
// capitals are then no acronyms.
func isShouted(q string, toks []string) bool {
	return !strings.ContainsFunc(q, unicode.IsLower) &&
		slices.ContainsFunc(toks, func(t string) bool { return isAllCaps(t) && stopTerm(strings.ToLower(t)) })
}

func isMixedCase(tok string) bool {
	if n := utf8.RuneCountInString(tok); n < 3 || n > 41 {
		return false
	}
	hasLower := false
	for i, r := range tok {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return false
		}
		if unicode.IsLower(r) {
			hasLower = true
		}
		if i > 0 && unicode.IsUpper(r) && hasLower {
			return true
		}
	}
	return false
}

func isAllCaps(tok string) bool {
	n := utf8.RuneCountInString(tok)
	if n < 2 || n > 8 {
		return false
	}
	for _, r := range tok {
		if !(unicode.IsUpper(r) || unicode.IsDigit(r)) || r > unicode.MaxASCII {
			return false
		}
	}
	return strings.IndexFunc(tok, unicode.IsUpper) >= 0
}

// cjkStopTerms split CJK runs into key terms (question words and particles
// carry no evidence). A run is split at each in turn, so a question word
// comes before the shorter one it holds (什么时候 before 什么, which left
// 时候 a key term no answer holds).
var cjkStopTerms = []string{
	// Thai question and function words that do not begin other words'
	// spellings: between them, a Thai run's pieces are its terms.
	"อะไร", "ที่ไหน", "เมื่อไหร่", "ทำไม", "อย่างไร", "ยังไง", "ไหม", "เพราะ", "ครับ", "ค่ะ",
	"什么时候", "什么时间", "什么地方", "什么原因", "啥时候", "啥原因", "多长时间", "哪儿", "哪里", "为什么", "什么", "多少", "几次", "怎么", "是否", "之前", "当前", "最近", "最新", "哪些", "哪个", "如何", "的", "了", "吗", "呢", "是", "在", "和", "与", "及", "我们", "你们", "我", "你", "他", "她", "它", "这", "那", "哪", "个", "有", "没", "也", "都", "就", "还", "吧", "啊", "被", "把", "给", "请"}

// enQuestionPhrase is an English question word with the words that make
// it one ("how long", "how many times", "what year", "what kind of"): they
// ask rather than name, and were reported missing from the memories that
// answer them ("took three hours" holds no "long").
var enQuestionPhrase = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\bhow (?:many(?: times)?|much|long(?: ago)?|old|often|far|tall|big|high|heavy|large|deep|wide)\b|\b(?:what|which) (?:time|year|month|day|date|kind|sort|type)(?: of)?\b`)
})

// cjkQuestionWords ask rather than name: kept as key terms, they were
// reported missing from the very memories that answer them (多久, 几岁),
// and the search called weak. They are not split at, as cjkStopTerms are:
// 几 and 多 begin ordinary words too.
var cjkQuestionWords = []string{"多久", "多长", "多大", "多远", "多高", "多重", "几点", "几月", "几号", "几岁", "几天", "几年", "几个",
	"为啥", "为何", "何时", "哪里", "哪儿", "哪天", "哪年", "怎么样", "怎样", "啥"}

// stopTerm reports words that are never key terms: the stop words the
// analyzer drops, English and Russian ones, and English question words
// (upstream let "from", "to" and "in" become required terms), and the words that ask for recent memory (currently, 目前): they set the
// recency bias, and the memory of the present state seldom says them.
func stopTerm(w string) bool {
	if lexical.StopWord(w) || slices.Contains(recencyWords, w) || slices.Contains(recencyCJK, w) {
		return true
	}
	switch w {
	case "please", "could", "would", "should", "can", "did", "does", "do", "is", "are", "was", "were", "what", "why", "how", "when", "where", "who", "which", "tell", "know", "anything", "something", "remember", "recall", "today", "recent", "latest", "ever", "also", "get", "got", "like", "us",
		// Written in capitals by habit, they are no acronyms.
		"ok", "okay", "fyi", "asap", "btw", "pls", "thx", "thanks":
		return true
	}
	return false
}

// maxTermRunes bounds the length of a key term or an anchor: a longer
// one (a paste of one word, a path of a thousand directories) is no
// word a memory holds, and was echoed whole in queryPlan, the missing
// terms and the recommendations. A quoted phrase is at most 120.
const maxTermRunes = 200

// tooLongTerm reports whether t is longer than maxTermRunes.
func tooLongTerm(t string) bool { return utf8.RuneCountInString(t) > maxTermRunes }

// maxKeyTerms bounds the key terms of a query.
const maxKeyTerms = 12

// keyTerms returns anchors first, then the remaining content words and CJK
// segments of the query, lower case, at most 12.
func keyTerms(q, norm string, anchors []string) []string {
	norm = enQuestionPhrase().ReplaceAllString(norm, " ")
	seen := map[string]bool{}
	var out []string
	add := func(t string) {
		if t == "" || seen[t] || len(out) >= maxKeyTerms || stopTerm(t) || tooLongTerm(t) {
			return
		}
		seen[t] = true
		out = append(out, t)
	}
	inAnchor := map[string]bool{}
	for _, a := range anchors {
		add(a)
		for _, w := range lexical.Words(a) {
			inAnchor[w] = true
		}
	}
	i := 0
	for i < len(norm) {
		r, size := utf8.DecodeRuneInString(norm[i:])
		switch {
		case lexical.IsCJK(r):
			j := i
			for j < len(norm) {
				r2, sz := utf8.DecodeRuneInString(norm[j:])
				if !lexical.IsCJK(r2) {
					break
				}
				j += sz
			}
			for _, seg := range splitCJK(norm[i:j]) {
				if n, ok := lexical.KoreanNoun(seg); ok {
					// A Hangul run is one Korean word, of any length
					// (the phrase rule below is Chinese's): its noun
					// is the term, which the memory writes with
					// another particle or none (프린터 of 프린터가); a
					// noun of one syllable is too short to stand alone.
					if utf8.RuneCountInString(n) >= 2 {
						add(n)
					} else {
						add(seg)
					}
					continue
				}
				if r, _ := utf8.DecodeRuneInString(seg); lexical.SoutheastAsian(r) {
					// No dictionary cuts it into words: the piece
					// between function words is one term (ฐานข้อมูลล่ม
					// of ฐานข้อมูลล่มเพราะอะไร).
					add(seg)
					continue
				}
				if utf8.RuneCountInString(seg) <= 4 && !containsAny(seg, cjkQuestionWords) {
					// Short enough to be one term (不可用, 端口).
					add(seg)
					continue
				}
				// A long run is a phrase, as is one that asks (表弟今年几岁):
				// its content words are the terms.
				for _, w := range lexical.Segment(seg) {
					if utf8.RuneCountInString(w) >= 2 && !slices.Contains(cjkQuestionWords, w) {
						add(w)
					}
				}
			}
			i = j
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			j := i
			for j < len(norm) {
				r2, sz := utf8.DecodeRuneInString(norm[j:])
				if !(unicode.IsLetter(r2) || unicode.IsDigit(r2)) || lexical.IsCJK(r2) {
					break
				}
				j += sz
			}
			w := norm[i:j]
			if !inAnchor[w] && utf8.RuneCountInString(w) >= 2 {
				add(w)
			}
			i = j
		default:
			i += size
		}
	}
	return out
}

// splitCJK cuts a CJK run at stop terms and returns the segments of at
// least two characters.
func splitCJK(run string) []string {
	parts := []string{run}
	for _, st := range cjkStopTerms {
		var next []string
		for _, p := range parts {
			next = append(next, strings.Split(p, st)...)
		}
		parts = next
	}
	var out []string
	for _, p := range parts {
		if utf8.RuneCountInString(p) >= 2 {
			out = append(out, p)
		}
	}
	return out
}
