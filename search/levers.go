package search

import (
	"bytes"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/memory"
)

// Names of the engine's recall levers, for Config.Off and for
// "novactl eval locomo --ablate" (which also knows the index-side levers
// of the index and lexical packages).
const (
	// LeverPropagation adds a share of the better adjacent turn's score
	// to each turn after fusion.
	LeverPropagation = "propagation"
	// LeverDates is the soft prior for memories dated within the days,
	// months or years the query names; a query that names nothing else
	// ("what did I do yesterday") also finds the memories of those days
	// (dateLed).
	LeverDates = "dates"
	// LeverPerson is the soft prior for memories by a speaker or agent
	// the query names.
	LeverPerson = "person"
	// LeverSupersession ranks the newest version of a subject first.
	LeverSupersession = "supersession"
	// LeverQuestions weighs a dialogue turn that only asks a question
	// below the turns that state something, and lifts the turn after a
	// single question, its answer, above it.
	LeverQuestions = "questions"
	// LeverAnswerType is the soft prior for memories that hold the kind
	// of expression the question word asks for (a duration for "how
	// long", a time for "when").
	LeverAnswerType = "answertype"
	// LeverRelated searches the words related in meaning to the query's
	// Chinese words (lexical.RelatedWords) at a low weight, and the short
	// forms code writes for its words (abbreviations).
	LeverRelated = "related"
)

// Levers lists the engine's levers.
var Levers = []string{LeverPropagation, LeverDates, LeverPerson, LeverSupersession, LeverQuestions, LeverAnswerType, LeverRelated, LeverFollowUps, LeverKinship, LeverBridges, LeverCharacters}

// Lever weights, measured on LoCoMo dev and checked on held-out
// conversations (BENCHMARKS.md, "Recall levers").
const (
	// neighbourShare is the share of the gap between the better adjacent
	// turn's score and its own that a turn receives: a neighbour of a
	// strong hit can enter the list, but two adjacent hits of similar
	// score do not lift each other (that crowded out the other evidence
	// of multi-hop questions: -.044 recall@10 on LoCoMo dev's multi-hop
	// with a plain 0.3 of the neighbour's score).
	neighbourShare = 0.3
	// datePriorBoost multiplies the score of a memory dated within a span
	// the query names.
	datePriorBoost = 0.15
	// dayPriorBoost is datePriorBoost for a single day the query names
	// ("on 16 March"): a day is a precise statement, a month or a year a
	// loose one.
	dayPriorBoost = 0.3
	// personPriorBoost multiplies the score of a memory by a person or
	// agent the query names.
	personPriorBoost = 0.1
	// answerTypeBoost multiplies the score of a memory that holds an
	// expression of the kind the question asks for. Of 0.05, 0.1 and 0.2
	// on LoCoMo dev, 0.2 gained most (+.020 recall@1, nearly all of it on
	// "when" questions) and lowered no category at any k.
	answerTypeBoost = 0.2
	// questionTurnFactor scales a dialogue turn that ends with a question
	// mark: it shares the words of the question asked of the memory, but
	// the answer is in the turn after it, which propagation then lifts.
	questionTurnFactor = 0.85
	// answerMargin is how far above the question before it an answer
	// turn is lifted (answersAboveQuestions).
	answerMargin = 1.01
	// supersededFactor scales an older version of a subject, so that the
	// newest (lifted to at least the older one's score) ranks above it.
	supersededFactor = 0.9
	// relatedWeight scales the idf of a Chinese word of related meaning:
	// of 0.2, 0.3, 0.5, 0.7 and 1 on the first two Chinese sets, 0.3
	// gained most at rank 1 and 0.7 and 1 began to lose it.
	relatedWeight = 0.3
	// glossWeight scales the idf of an English word of a Chinese word's
	// glosses (端口: port), for English memories asked about in Chinese.
	// Of 0.3, 0.5 and 1 on the two cross-lingual sets, 1 gained most
	// (recall@10 +.05 and +.03 over 0.3) but cost the bench's synthetic
	// Chinese queries, which look for Chinese memories among English ones,
	// two points of hit@10; 0.5 takes most of the gain.
	glossWeight = 0.5
	// abbreviationWeight scales the idf of a short form code writes for a
	// query's word (db for database): the same word, another spelling.
	abbreviationWeight = 1.0
	// maxRelated and maxGlossTerms bound the related words of a query: a
	// long question would otherwise search a hundred common words.
	maxRelated    = 48
	maxGlossTerms = 16
)

// relatedWords are the words of related meaning to a query's Chinese
// words (lexical.RelatedWords): as the query plan shows them, and as the
// lexical channel searches them.
type relatedWords struct {
	words []string
	terms []lexical.Related
}

// relatedWords returns the words related in meaning to query's Chinese
// words when the lever is on: the Chinese ones (each is a term as it is)
// and the English ones (made terms by the analyzer), each group bounded;
// and the abbreviations of its words. The kinship lever adds the other
// names of the family members query and the English glosses name
// (kinWords).
func (e *Engine) relatedWords(query string, people []string) relatedWords {
	if !e.on(LeverRelated) {
		return e.kinWords(query, nil, relatedWords{})
	}
	chinese, english := lexical.RelatedWords(withoutNames(lexical.Normalize(query), people))
	chinese = chinese[:min(len(chinese), maxRelated)]
	shown := slices.Clip(chinese)
	var glosses []string
	for _, w := range english {
		t := e.analyzer.Terms(w) // "interface" is searched as "interfac"
		if len(t) == 0 || len(glosses)+len(t) > maxGlossTerms {
			continue
		}
		glosses = append(glosses, t...)
		shown = append(shown, w)
	}
	var short []string
	abbrs := abbreviations()
	for _, w := range lexical.Words(lexical.Normalize(query)) {
		for _, a := range abbrs[w] {
			t := e.analyzer.Terms(a) // "database" is searched as "databas"
			if len(t) == 1 && len(short) < maxGlossTerms && !slices.Contains(short, t[0]) {
				short = append(short, t[0])
				shown = append(shown, a)
			}
		}
	}
	return e.kinWords(query, english, relatedWords{words: shown, terms: []lexical.Related{
		{Terms: chinese, Weight: relatedWeight},
		{Terms: glosses, Weight: glossWeight},
		{Terms: short, Weight: abbreviationWeight},
	}})
}

// withoutNames returns the normalised query norm with the Chinese names
// of people (and their given names) taken out. A Chinese name is made of
// words (何建国: 何 and 建国, "found a nation"), whose related words are
// no evidence of anything the question asks (建国: 毛选, 中立国).
func withoutNames(norm string, people []string) string {
	for _, p := range people {
		n := lexical.Normalize(p)
		if !lexical.HasCJK(n) {
			continue
		}
		norm = strings.ReplaceAll(norm, n, " ")
		if g := givenName(n); g != "" {
			norm = strings.ReplaceAll(norm, g, " ")
		}
	}
	return norm
}

// abbreviations are the short forms code writes for a word (and the word
// for a short form): a coding agent's transcript names the database by
// LEDGER_DB_DSN or db.Query, the environment by APP_ENV or .env, while the
// user asks in plain words. Each short form is a term as the analyzer makes
// it (identifiers split at _ . - and case changes). Only forms that are
// rarely anything else: "doc", "var" and "app" are words of their own.
// Searched as the word itself (abbreviationWeight), each only once.
var abbreviations = sync.OnceValue(func() map[string][]string {
	pairs := [][2]string{
		{"database", "db"}, {"databases", "db"},
		{"environment", "env"}, {"environments", "env"},
		{"configuration", "config"}, {"configuration", "cfg"}, {"config", "cfg"},
		{"repository", "repo"}, {"repositories", "repo"},
		{"directory", "dir"}, {"directories", "dir"},
		{"authentication", "auth"}, {"authorization", "auth"}, {"authorisation", "auth"},
		{"message", "msg"}, {"messages", "msg"},
		{"request", "req"}, {"requests", "req"},
		{"response", "resp"}, {"responses", "resp"},
		{"dependency", "dep"}, {"dependencies", "dep"},
		{"temporary", "tmp"},
		{"production", "prod"},
		{"development", "dev"},
		{"kubernetes", "k8s"},
		{"parameter", "param"}, {"parameters", "param"},
		{"argument", "arg"}, {"arguments", "arg"},
		{"package", "pkg"}, {"packages", "pkg"},
		{"library", "lib"}, {"libraries", "lib"},
		{"statistics", "stat"},
		{"specification", "spec"},
		{"transaction", "tx"}, {"transactions", "tx"},
	}
	m := map[string][]string{}
	for _, p := range pairs {
		m[p[0]] = append(m[p[0]], p[1])
		if len(m[p[1]]) == 0 {
			m[p[1]] = []string{p[0]} // a short form asks for its first word
		}
	}
	return m
})

func (e *Engine) on(lever string) bool { return !e.cfg.Off[lever] }

// namedPeople returns the agents of the generation that query (as the
// user wrote it) names as whole words, case-insensitively (names shorter
// than three letters are too ambiguous), and Chinese names of two
// characters or more anywhere. A person is named by their given name as
// often as by their full name (雨桐 for 周雨桐, Melanie for Melanie
// Ruiz), so that counts too, and an agent's name of joined words
// (claude-code) written apart. A name that is also an everyday word
// (Will, May, Art) counts only where the word cannot be meant
// (namedAsWord).
func namedPeople(agents []string, query string) []string {
	normQuery := lexical.Normalize(query)
	var out []string
	for _, a := range agents {
		n := lexical.Normalize(a)
		if namesIn(query, normQuery, n) || namesIn(query, normQuery, givenName(n)) {
			out = append(out, a)
		}
	}
	return out
}

// namesIn reports whether the query holds the normalised name.
func namesIn(query, normQuery, n string) bool {
	if lexical.HasCJK(n) {
		// Chinese names have no word boundaries; two characters make a
		// name.
		return utf8.RuneCountInString(n) >= 2 && strings.Contains(normQuery, n)
	}
	if utf8.RuneCountInString(n) < 3 {
		return false
	}
	if spaced := nameSpacer.Replace(n); spaced != n && containsAtBoundary(normQuery, spaced) {
		return true // claude-code written "Claude Code"
	}
	if !containsAtBoundary(normQuery, n) {
		return false
	}
	return !wordNames[n] && !stopTerm(n) || namedAsWord(query, n)
}

// nameSpacer writes an agent's name (claude-code, claw_laptop) as people
// do, its words apart.
var nameSpacer = strings.NewReplacer("-", " ", "_", " ")

// wordNames are given names that are also everyday English words (the
// stop words are too: "will"), which a query holds far more often as the
// word.
var wordNames = map[string]bool{
	"may": true, "june": true, "april": true, "august": true, "art": true, "mark": true, "bill": true, "rose": true,
	"grace": true, "hope": true, "faith": true, "joy": true, "pat": true, "frank": true, "jack": true, "max": true,
	"ray": true, "dawn": true, "summer": true, "autumn": true, "ruby": true, "iris": true, "lily": true, "ivy": true,
	"holly": true, "pearl": true, "amber": true, "hunter": true, "chase": true, "drew": true, "guy": true, "sue": true,
	"rich": true, "rob": true, "miles": true, "sandy": true, "sunny": true, "penny": true, "grant": true, "carol": true,
}

// namedAsWord reports whether the one-word name n is written in query
// where the word cannot be meant: capitalised inside a sentence ("what
// did Will say", not "Will the deploy fail?") or as a possessive
// ("Will's notes", in any case). In a query that capitalises most of its
// words ("What Did I Work On Yesterday?") capitals name nothing.
func namedAsWord(query, n string) bool {
	capitals := !mostlyCapitalised(query) // a capital may mark a name
	sentenceStart := true
	for i := 0; i < len(query); {
		r, size := utf8.DecodeRuneInString(query[i:])
		if !isWordRune(r) {
			switch r {
			case '.', '!', '?', '。', '！', '？', '\n':
				sentenceStart = true
			}
			i += size
			continue
		}
		// The word ends where a CJK run meets a Latin one too:
		// "昨天Will说" holds the word Will.
		j, prev := i, r
		for j < len(query) {
			r2, sz := utf8.DecodeRuneInString(query[j:])
			if !joined(prev, r2) {
				break
			}
			j, prev = j+sz, r2
		}
		if lexical.Normalize(query[i:j]) == n {
			rest := query[j:]
			possessive := strings.HasPrefix(rest, "'s") || strings.HasPrefix(rest, "\u2019s")
			if possessive || capitals && unicode.IsUpper(r) && !sentenceStart {
				return true
			}
		}
		sentenceStart = false
		i = j
	}
	return false
}

// mostlyCapitalised reports whether four in five of the query's Latin
// words of two letters or more, and at least three, are capitalised and
// not shouted: a title. (A shouted name, "WHAT DID ART SAY", still names.)
func mostlyCapitalised(query string) bool {
	words, titled := 0, 0
	for w := range strings.FieldsFuncSeq(query, func(r rune) bool { return !unicode.IsLetter(r) || r > unicode.MaxLatin1 }) {
		if len(w) < 2 {
			continue
		}
		words++
		if r, _ := utf8.DecodeRuneInString(w); unicode.IsUpper(r) && strings.ContainsFunc(w, unicode.IsLower) {
			titled++
		}
	}
	return words >= 3 && 5*titled >= 4*words
}

// givenName returns the part of a normalised full name people call its
// bearer by, or "": the first word of a name of several, or the last two
// characters of a Chinese name of three or four (a surname of one or two
// characters before them: 周雨桐, 欧阳娜娜). A Chinese name of two
// characters has a given name of one, too ambiguous to look for.
func givenName(n string) string {
	if lexical.HasCJK(n) {
		if r := []rune(n); len(r) == 3 || len(r) == 4 {
			return string(r[len(r)-2:])
		}
		return ""
	}
	if first, _, ok := strings.Cut(n, " "); ok {
		return first
	}
	return ""
}

// priors applies the query's date and person priors to a candidate's
// components and returns the factor. c may be decoded for scoring alone,
// and asks says whether its text ends with a question mark: see
// metadataFactor.
func (e *Engine) priors(q *query, c *memory.Chunk, asks bool, comp *components) float64 {
	f := 1.0
	if len(q.dates) > 0 {
		comp.has |= hasDatePrior
		comp.datePrior = 1
		if s, ok := inSpans(q.dates, e.localDay(c)); ok {
			comp.datePrior = 1 + datePriorBoost
			if s.From == s.To {
				comp.datePrior = 1 + dayPriorBoost
			}
		}
		f *= comp.datePrior
	}
	if e.on(LeverQuestions) && c.SessionID != "" && asks {
		comp.has |= hasQuestionTurn
		comp.questionTurn = questionTurnFactor
		f *= questionTurnFactor
	}
	if len(q.people) > 0 {
		comp.has |= hasPersonPrior
		comp.personPrior = 1
		if c.Agent != "" && slices.Contains(q.people, c.Agent) {
			comp.personPrior = 1 + personPriorBoost
		}
		f *= comp.personPrior
	}
	return f
}

// answerPrior applies the query's answer-type prior to document doc, whose
// text view is v, and returns the factor. It reads the text, so like the
// other text adjustments it applies to the head of a pass; whether a
// document holds an answer form is found once per query (every pass scores
// the same candidates again).
func (q *query) answerPrior(doc int, c *memory.Chunk, v textView, comp *components) float64 {
	if q.answerType == "" {
		return 1
	}
	q.mu.Lock()
	has, ok := q.answerForms[doc]
	q.mu.Unlock()
	if !ok {
		raw := c.Text
		if c.Title != "" {
			raw = c.Title + "\n" + c.Text
		}
		has = hasAnswerForm(q.answerType, raw, v.norm)
		q.mu.Lock()
		q.answerForms[doc] = has
		q.mu.Unlock()
	}
	comp.has |= hasAnswerType
	comp.answerType = 1
	if has {
		comp.answerType = 1 + answerTypeBoost
	}
	return comp.answerType
}

// asksOnly reports whether a turn ends with a question mark.
func asksOnly(text string) bool {
	t := strings.TrimSpace(text)
	return strings.HasSuffix(t, "?") || strings.HasSuffix(t, "？")
}

// asksOnlyBytes is asksOnly of a text's bytes (the record's, left in
// place: query.meta).
func asksOnlyBytes(text []byte) bool {
	t := bytes.TrimSpace(text)
	return bytes.HasSuffix(t, []byte("?")) || bytes.HasSuffix(t, []byte("？"))
}

// inSpans returns the narrowest of the spans that hold date.
func inSpans(spans []DateSpan, date string) (DateSpan, bool) {
	var in DateSpan
	found := false
	if len(date) < 10 {
		return in, false
	}
	d := date[:10]
	for _, s := range spans {
		if d >= s.From && d <= s.To && (!found || s.From == s.To) {
			in, found = s, true
		}
	}
	return in, found
}

// propagate adds to every candidate neighbourShare of the gap to the
// better score of the turns before and after it in its conversation,
// after fusion: an
// elliptic turn ("Some fun ones like charades") whose topic sits in the
// turn before can then enter the list beside it. Only turns of a session
// (a dialogue or an agent transcript) lend each other score: consecutive
// lines of a file of independent records do not. A neighbour that no
// channel found joins the list with that share alone; the hard filter
// still applies to it. The answer to a question asked right after a turn
// receives a share of it too (bridgedAnswer).
//
// own says whether in may be changed in place; the list returned may be
// changed when own is returned true.
func (e *Engine) propagate(q *query, in []scored, own bool) ([]scored, bool) {
	g := q.snap.Gen
	turns := 0
	for i := range in {
		if in[i].dialogue {
			turns++
		}
	}
	if turns == 0 {
		return in, own // only turns lend score
	}
	pos := make(map[int]int, len(in))
	for i := range in {
		pos[in[i].doc] = i
	}
	// boost holds each neighbour's share and the turn it is from; a
	// turn has at most two neighbours.
	type share struct {
		b    float64
		from int
	}
	boost := make(map[int]share, 2*turns)
	answerOf := map[int]int{} // answer turn -> the question before it
	for i := range in {
		s := &in[i]
		if !s.dialogue {
			continue
		}
		prev, next := g.Adjacent(s.doc)
		asks := e.on(LeverQuestions) && q.asksOf(s.doc, next)
		for _, n := range [2]int{prev, next} {
			if n < 0 || !g.Live(n) || (q.accept != nil && !q.accept(n)) {
				continue
			}
			own := 0.0
			if i, ok := pos[n]; ok {
				own = in[i].score
			}
			if asks && n == next {
				answerOf[n] = s.doc
			}
			if b := neighbourShare * max(0, s.score-own); b > boost[n].b {
				boost[n] = share{b, s.doc}
			}
		}
		// The answer to a question about this turn, across the question.
		if a, ok := e.bridgedAnswer(q, s.doc, next); ok {
			own := 0.0
			if i, ok := pos[a]; ok {
				own = in[i].score
			}
			if b := bridgeShare * max(0, s.score-own); b > boost[a].b {
				boost[a] = share{b, s.doc}
			}
		}
	}
	if len(boost) == 0 {
		return in, own
	}
	joining := 0
	for doc := range boost {
		if _, ok := pos[doc]; !ok {
			joining++
		}
	}
	// A list of afterFusion's own grows once; another is copied once,
	// into a list the size it ends up.
	out := in
	if !own || cap(in)-len(in) < joining {
		out = append(q.list(len(in)+joining), in...)
	}
	for doc, sh := range boost {
		b := sh.b
		if i, ok := pos[doc]; ok {
			out[i].comp.neighbourBoost = b
			out[i].comp.has |= hasNeighbour
			continue
		}
		src := in[pos[sh.from]]
		// Decoding every joining neighbour for its metadata components
		// was a seventh of a search's CPU; most never reach the answer.
		s := scored{doc: doc, passes: slices.Clone(src.passes), bestPass: src.bestPass, dialogue: true, laterMeta: true}
		s.comp.passWeight = src.comp.passWeight
		s.comp.neighbourBoost = b
		s.comp.has |= hasNeighbour
		out = append(out, s)
	}
	for i := range out {
		out[i].score += out[i].comp.neighbourBoost
	}
	e.answersAboveQuestions(out, answerOf)
	sortScored(out, q.snap.Gen.IDLess)
	return out, true
}

// answersAboveQuestions lifts each answer turn just above the question
// turn before it (answerOf maps the answer to the question), whatever
// lifted the question: the question shares the words of the query, the
// answer holds what it asks for. Answers are taken in document order, so
// in a run of questions each answer of an answer moves after it. On
// LoCoMo dev: +.014 recall@1, +.014 @5, +.004 @10, gains in each of the
// three conversations; the Chinese set +.008 @5.
func (e *Engine) answersAboveQuestions(out []scored, answerOf map[int]int) {
	at := make(map[int]int, len(out))
	for i := range out {
		at[out[i].doc] = i
	}
	for _, a := range slices.Sorted(maps.Keys(answerOf)) {
		ai, okA := at[a]
		qi, okQ := at[answerOf[a]]
		if !okA || !okQ {
			continue
		}
		if lift := out[qi].score*answerMargin - out[ai].score; lift > 0 {
			out[ai].score += lift
			out[ai].comp.neighbourBoost += lift
			// Shown even when propagation gave the answer nothing: an
			// answer scoring just below its question gets only the lift.
			out[ai].comp.has |= hasNeighbour
		}
	}
}

// supersede makes the newest version of each subject in the list rank
// above its older versions (except one the query names by id): an older
// version is scaled by
// supersededFactor and the newest is lifted to at least the older one's
// score, joining the list if no channel found it. A newest version the
// hard filter excludes (a dateRange before it) is left out, and the older
// ones rank as they are.
//
// own says whether in may be changed in place.
func (e *Engine) supersede(q *query, in []scored, own bool) []scored {
	lift := map[int]float64{}
	var older []int
	for i := range in {
		s := &in[i]
		newest, ok := q.supersededBy(s.doc)
		if !ok || s.comp.has&hasIDMatch != 0 {
			// A version the query names by id is the one it asks for:
			// it keeps its place (and is still flagged superseded).
			continue
		}
		older = append(older, i)
		lift[newest] = max(lift[newest], s.score)
	}
	if len(older) == 0 {
		return in
	}
	out := in // a list of afterFusion's own: no copy
	if !own {
		out = append(q.list(len(in)+len(lift)), in...)
	}
	for _, i := range older {
		out[i].score *= supersededFactor
		out[i].comp.supersession = supersededFactor
		out[i].comp.has |= hasSupersession
	}
	pos := make(map[int]int, len(out))
	for i := range out {
		pos[out[i].doc] = i
	}
	for doc, l := range lift {
		i, ok := pos[doc]
		if !ok {
			s := scored{doc: doc, passes: []string{PassBaseline}, bestPass: PassBaseline}
			c, asks := q.meta(doc)
			e.metadataFactor(q, c, asks, &s.comp)
			out = append(out, s)
			i = len(out) - 1
		}
		if out[i].score < l {
			out[i].comp.supersession = l / max(out[i].score, 1e-9)
			if out[i].score == 0 {
				out[i].comp.supersession = 1
			}
			out[i].comp.has |= hasSupersession
			out[i].score = l
		}
	}
	sortScored(out, q.snap.Gen.IDLess)
	return out
}

// supersededBy returns the newest version of doc's subject when doc is an
// older version this query can see it replaced by: the newest is live and
// passes the hard filter. Behind a dateRange that excludes it, the older
// versions are what there is: none of them is ranked down or lifts the
// newest in (each result still says, in supersededBy, that a newer version
// exists). A date-led query's days are such a range: it asks what was so
// then, not what is so now.
func (q *query) supersededBy(doc int) (newest int, ok bool) {
	g := q.snap.Gen
	newest, ok = g.Superseded(doc)
	if !ok || !g.Live(newest) || (q.accept != nil && !q.accept(newest)) {
		return 0, false
	}
	if q.asked != nil && q.asked[newest/64]&(1<<(newest%64)) == 0 {
		return 0, false
	}
	return newest, true
}

// queryDates resolves the date expressions of the query against the
// engine's clock in its time zone.
func (e *Engine) queryDates(query string, now time.Time) []DateSpan {
	if !e.on(LeverDates) {
		return nil
	}
	return ParseDates(query, now.In(e.cfg.Location))
}

// asksOf reports whether turn doc asks what the turn after it, next,
// answers: a turn that is only a question (oneQuestion), or one that says
// something and then asks ("厉害。豆包还好吧？") when next holds the kind
// of answer the query asks for and doc does not. A turn that says
// something before asking holds content of its own (an agent's "worker.go
// tries once and marks the payment failed. What should happen?"):
// lifting every reply above such turns cost the code-session set R@5
// .656 -> .632, where this form lost no set at R@5 and raised R@1 on the
// blind English set .407 -> .430 (BENCHMARKS.md).
func (q *query) asksOf(doc, next int) bool {
	c := q.chunk(doc)
	if c == nil {
		return false
	}
	if oneQuestion(c.Text) {
		return true
	}
	if q.answerType == "" || next < 0 || !asksOnly(c.Text) || q.holdsAnswer(doc, c) {
		return false
	}
	n := q.chunk(next)
	return n != nil && q.holdsAnswer(next, n)
}

// oneQuestion reports whether a turn is a single question: it ends with a
// question mark and no sentence ends before it. A turn that states
// something and then asks ("I've got lots of kids' books. Which did you
// love?") may itself be the evidence; lifting the reply above it cost
// LoCoMo dev's open-domain questions more than it gained.
func oneQuestion(text string) bool {
	t := strings.TrimSpace(text)
	return asksOnly(t) && !strings.ContainsAny(strings.TrimRight(t, "?？ "), ".。")
}

// activityWords ask what went on without saying what: "what did I work on
// yesterday", "what happened on 3 March", "上周做了什么", "recap of the
// day". Beside the days a query names, they leave it nothing to match but
// the days.
var activityWords = map[string]bool{
	"work": true, "worked": true, "working": true, "happen": true, "happened": true, "happening": true,
	"go": true, "going": true, "went": true, "done": true, "doing": true, "up": true, "busy": true,
	"discuss": true, "discussed": true, "talk": true, "talked": true, "chat": true, "chatted": true,
	"做": true, "干": true, "忙": true, "发生": true, "聊": true, "讨论": true, "做了": true, "干了": true,
	// Asking for the gist of the days says no more.
	"summary": true, "summarize": true, "summarise": true, "recap": true, "overview": true, "day": true, "days": true,
	"总结": true, "回顾": true, "概括": true,
	// So does asking to be shown the days' notes or news.
	"show": true, "note": true, "notes": true, "update": true, "updates": true, "log": true, "logs": true,
	"record": true, "records": true, "memories": true, "earlier": true,
	// Chinese asks for a day's work, records or doings so.
	"工作": true, "记录": true, "事": true, "事情": true, "干嘛": true, "干啥": true, "做啥": true,
}

// dateLed reports whether the query asks what went on in the days it
// names and nothing more specific: once the date expressions, the people
// it names (names: the peopleWords of the agents namedPeople found) and
// activityWords are taken away, no key term is left. Its words then match
// only the memories that mention the days, while the memories made on
// them are the answer. A subject too short to be a key term still counts: a
// number left beside the dates ("what happened in 1.4 yesterday", a
// version or a port), or a Chinese word of one character (昨天吃了什么:
// 吃, "eat"); so does an activity word written as a name ("what did we
// discuss about Go").
func dateLed(query string, dates []DateSpan, names map[string]bool) bool {
	rest := lexical.Normalize(query)
	for _, d := range dates {
		rest = strings.Replace(rest, d.Text, " ", 1)
	}
	if strings.ContainsFunc(rest, unicode.IsDigit) {
		return false
	}
	for _, t := range keyTerms(rest, rest, nil) {
		if !names[t] && (!activityWords[t] || namedAsWord(query, t)) {
			return false
		}
	}
	for _, w := range lexical.Segment(rest) {
		if lexical.HasCJK(w) && !activityWords[w] && !names[w] && !stopTerm(w) && !slices.Contains(cjkQuestionWords, w) {
			return false
		}
	}
	return true
}

// peopleWords returns the words a query may name the people by: each
// name whole, written with its words apart (claude-code as "claude
// code"), its given name, and each of its words; nil for none.
func peopleWords(people []string) map[string]bool {
	if len(people) == 0 {
		return nil
	}
	names := map[string]bool{}
	for _, p := range people {
		n := lexical.Normalize(p)
		names[n], names[nameSpacer.Replace(n)] = true, true
		if g := givenName(n); g != "" {
			names[g] = true
		}
		for _, w := range lexical.Words(n) {
			names[w] = true
		}
	}
	return names
}

// dayTerm reports whether key term t of a date-led query only asks for
// its days: an activity word, a word of a date expression it names, or
// the name of a person it names (dayDocs keeps only their memories). A
// Chinese term may join a date to an activity word (昨天做 of
// 昨天做了哪些工作), as the query has no spaces. A memory of those days
// answers it whatever its own words.
func (q *query) dayTerm(t string) bool {
	if activityWords[t] || q.names[t] {
		return true
	}
	rest := t
	for _, d := range q.dates {
		switch {
		case lexical.HasCJK(t) && strings.Contains(d.Text, t) || containsAtBoundary(d.Text, t):
			// Part of the expression: a CJK term has no word boundary in
			// it (4月22日); others are whole words of it ("april") or the
			// whole of it ("2026-04-22").
			return true
		case lexical.HasCJK(t):
			rest = strings.Replace(rest, d.Text, "", 1)
		}
	}
	return rest == "" || rest != t && activityWords[rest]
}
