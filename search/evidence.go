package search

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/index/generation"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/memory"
	"github.com/nova-recall/nova/redact"
	"github.com/nova-recall/nova/truncate"
)

// Stages lists the capabilities of the pipeline, in order (a static list:
// retrievalController says what actually ran).
var Stages = []string{
	"query-decomposition", "dense-vector-search", "exact-entity-recall", "server-side-requery",
	"authoritative-source-pass", "meta-discussion-suppression", "multi-hop-lexical-expansion",
	"subquery-match-boost", "keyword-overlap", "intent-aware-recency", "intent-tag-boost",
	"quality-gate", "multi-pass-fusion", "reranker-policy", "citation-pack", "extractive-answer-synthesis",
}

// envelope builds the live response from the final results.
func (e *Engine) envelope(q *query, results []scored, qual api.Quality, report *api.DedupeReport, filtered int) *api.SearchResponse {
	g := q.snap.Gen
	out := make([]api.Result, 0, len(results))
	for _, s := range results {
		out = append(out, e.result(q, g, s))
	}
	citations := e.citationPack(q, out, results)
	events := e.events(q, out, results, citations)
	synthesis := synthesize(q.plan, citations, events)
	agentic := api.StableAgentic()
	agentic.Version = 2
	agentic.Mode = "deterministic-extractive-bounded-multi-pass"
	agentic.ImplementedCapabilities = []string{"intent-planning", "hybrid-retrieval", "exact-entity-recall", "recency-aware-ranking",
		"metadata-aware-ranking", "bounded-multi-pass-retrieval", "quality-gate", "optional-reranker-policy", "citation-pack",
		"query-decomposition", "multi-hop-evidence-linking", "event-aggregation", "extractive-answer-synthesis"}
	agentic.Limits = []string{"no-llm-query-rewrite", "no-llm-answer-generation", "no-writeback-memory"}
	agentic.Decomposition = &api.Decomposition{
		Strategy: "deterministic-intent-decomposition", Intents: q.plan.Intents, PreferredTags: q.plan.PreferredTags,
		RecencyBias: q.plan.RecencyBias, Subqueries: q.plan.SubQueries, MultiHopLinks: multiHop(citations),
		ExecutionPolicy: "bounded deterministic retrieval with exposed subqueries, exact-entity fusion, evidence linking and quality gate",
	}
	return &api.SearchResponse{
		SchemaVersion: 2, Available: true, Query: q.plan.Query, TopK: q.req.TopK,
		Returned: len(out), Filtered: filtered, Results: out,
		QueryPlan: api.QueryPlan{
			SchemaVersion: 2, Version: 2, Strategy: "bounded-multi-pass-dense-keyword-exact-intent-reranker-agentic",
			Query: q.plan.Query, TopK: q.req.TopK, Intents: q.plan.Intents, PreferredTags: q.plan.PreferredTags,
			KeyTerms: nonNil(q.plan.KeyTerms), Anchors: nonNil(q.plan.Anchors), AnchorsOmitted: q.plan.AnchorsOmitted, SubQueries: q.plan.SubQueries,
			ExplicitFilters: q.req.Filters.Explicit(), RecencyBias: q.plan.RecencyBias, Stages: Stages,
			DatePriors: q.dates, PersonPriors: q.people, AnswerType: q.answerType, RelatedTerms: q.related.words,
			FilterPolicy: "only explicit filters are hard filters; inferred intent, recency, named dates, named people and the asked-for answer type are soft boosts",
		},
		Dedupe: report,
		Reranker: &api.Reranker{Enabled: false, Provider: "none", Applied: false, Status: "disabled", Reason: "reranker-disabled",
			InputCount: len(out), OutputCount: len(out)},
		CitationPack: citations, EventAggregation: events, AnswerSynthesis: synthesis, Quality: qual, Agentic: agentic,
	}
}

func opt(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// PreviewRunes bounds textPreview.
const PreviewRunes = 500

func (e *Engine) result(q *query, g *generation.Generation, s scored) api.Result {
	c := q.hashed(s.doc)
	if s.comp.has&hasText == 0 {
		// A result that joined the list after the passes' text
		// adjustments (a neighbour propagation brought in, a newest
		// version supersession lifted), or one below the head a pass
		// weighs that dedupe reached past duplicates (runPass), still
		// reports its coverage and meta-discussion, as every result's
		// scoreComponents must; they describe it, its score stays what
		// it was.
		e.describeText(q, s.doc, &s.comp)
	}
	s.comp.retrievalExactCoverage = e.retrievalCoverage(q, s.doc)
	comp := s.comp.asMap()
	r := api.Result{
		ID: c.ID, Score: scalar.Round(s.score, 6), ScoreComponents: comp, TextPreview: truncate.Runes(c.Text, PreviewRunes),
		Title: c.Title, Role: opt(c.Role), Date: opt(e.localDay(c)), Timestamp: opt(e.localStamp(c)),
		Source: opt(sourceName(c)), SourceSet: opt(c.SourceSet), SourceType: opt(c.SourceType), SourceID: c.SourceID,
		Agent: opt(c.Agent), Project: opt(c.Project), Tags: nonNil(c.Tags), WorkType: opt(c.WorkType),
		Provenance: provenance(c), RetrievalPasses: s.passes,
	}
	if newest, ok := g.Superseded(s.doc); ok {
		r.Superseded, r.SupersededBy = true, g.Chunk(newest).ID
	}
	if q.req.IncludeFullText {
		r.Text = &c.Text
	}
	if q.req.IncludeGovernance {
		gov := c.Governance
		r.Governance = &gov
	}
	return r
}

// sourceName is the short human name of where a memory came from: the
// agent, else the source's name.
func sourceName(c *memory.Chunk) string {
	if c.Agent != "" {
		return c.Agent
	}
	if c.SourceName != "" {
		return c.SourceName
	}
	return filepath.Base(redact.Path(c.SourcePath))
}

// provenance is where c came from as a search serves it. Its sourcePath
// has the secrets in a file's or folder's name redacted (redact.Path),
// as its id and sourceId have: a search's answer goes to an agent and on
// to its model provider, and the chunk's path is kept whole only because
// it is the file's identity in the index.
func provenance(c *memory.Chunk) api.Provenance {
	return api.Provenance{
		IndexID: c.ID, Layer: opt(c.Layer), Source: opt(sourceName(c)), SourceSet: opt(c.SourceSet),
		SourceType: opt(c.SourceType), SourceID: c.SourceID, SourcePath: opt(redact.Path(c.SourcePath)), DedupeKey: opt(c.DedupeKey),
		LineNumber: c.LineNumber, TextHash: c.TextHash, SessionID: c.SessionID, Time: c.Time,
		HeadingPath: c.HeadingPath, Part: partOf(c),
	}
}

func partOf(c *memory.Chunk) int {
	if c.Parts > 1 {
		return c.Part
	}
	return 0
}

// excerpt collapses whitespace and cuts at 280 characters: 277 and
// "...", between words (truncate.Words): an agent quotes an excerpt.
func excerpt(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= 280 {
		return s
	}
	return truncate.Words(s, 277) + "..."
}

func confidence(score float64) string {
	switch {
	case score >= 0.75:
		return "high"
	case score >= 0.35:
		return "medium"
	}
	return "low"
}

// MaxCitations is the size of the citation pack.
const MaxCitations = 5

func (e *Engine) citationPack(q *query, results []api.Result, docs []scored) []api.Citation {
	out := []api.Citation{}
	for i, r := range results {
		if i == MaxCitations {
			break
		}
		// The excerpt is of the whole text, as the result's preview cuts
		// it at 500 characters before white space is collapsed: text
		// indented with runs of spaces lost words, and the "...".
		text := q.chunk(docs[i].doc).Text
		why := []string{}
		c := r.ScoreComponents
		if c["dense"] > 0 {
			why = append(why, "dense-similarity")
		}
		// whySelected holds the contract's values only, which agents may
		// check against its list: the recall levers are each one of them
		// here (a named id is an exact entity; a named day or person, or
		// the kind of answer asked for, is the query's intent; the newest
		// version is the recent memory), and by name in scoreComponents.
		if c["exactCoverage"] > 0 && len(q.plan.Anchors) > 0 || c["idMatch"] > 1 {
			why = append(why, "exact-entity-coverage")
		}
		if c["bm25"] > 0 {
			why = append(why, "keyword-overlap")
		}
		if c["recency"] >= 0.5 || c["supersession"] > 1 {
			why = append(why, "recent-memory")
		}
		if c["intentBoost"] > 1 || c["datePrior"] > 1 || c["personPrior"] > 1 || c["answerType"] > 1 {
			why = append(why, "intent-match")
		}
		var matched []string
		v := q.view(e, docs[i].doc)
		for k, t := range q.plan.KeyTerms {
			if len(matched) < 5 && q.coversKey(v, k) {
				matched = append(matched, t)
			}
		}
		if len(matched) > 0 {
			sort.Strings(matched)
			why = append(why, "matched:"+strings.Join(matched, ","))
		}
		if len(why) == 0 {
			why = append(why, "ranked-evidence")
		}
		wt := "general"
		if r.WorkType != nil {
			wt = *r.WorkType
		}
		out = append(out, api.Citation{
			CitationID: fmt.Sprintf("C%d", i+1), Rank: i + 1, ResultID: r.ID, Confidence: confidence(r.Score),
			Score: r.Score, Source: r.Source, Date: r.Date, Timestamp: r.Timestamp, Agent: r.Agent, Project: r.Project,
			Tags: r.Tags, WorkType: wt, Excerpt: excerpt(text), WhySelected: why, Provenance: r.Provenance,
			ScoreComponents: r.ScoreComponents, Superseded: r.Superseded, SupersededBy: r.SupersededBy,
		})
	}
	return out
}

var aggregationWords = []string{"几次", "多少次", "最严重", "故障", "不可用", "迁移", "修复"}

// events groups citations into distinct happenings: citations from the
// same session (or note section) on the same date describe one event, so an
// agent asking "how many times" counts events, not citations. A record
// outside a session is one event. Citations that say the same words on
// the same date are one event too, whatever their sources: one memory
// kept as a JSONL record and in a note is one happening, not two.
func (e *Engine) events(q *query, results []api.Result, docs []scored, citations []api.Citation) api.EventAggregation {
	active := slices.ContainsFunc(q.plan.Intents, func(s string) bool {
		return s == "incident" || s == "aggregation" || s == "config" || s == "migration"
	}) || slices.ContainsFunc(aggregationWords, func(w string) bool { return strings.Contains(q.plan.Query, w) })
	agg := api.EventAggregation{SchemaVersion: 2, Events: []api.Event{}, Timeline: []api.Moment{}, ResolutionCitations: []string{}}
	if !active {
		agg.Status = "not-applicable"
		return agg
	}
	// The contract's name for this stage; the citations are grouped into
	// events by session (or source file) and date, not by dedupe key as
	// upstream did, which made one event of each citation.
	agg.Strategy = "citation-dedupe-timeline"
	type group struct {
		ev    api.Event
		order int
	}
	groups := map[string]*group{}
	// said finds a group by date and words (see saidKey), beside groups'
	// date and source.
	said := map[string]*group{}
	var keys []string
	for i, c := range citations {
		r := results[i]
		src := r.Provenance.SessionID
		if src == "" && r.Provenance.SourcePath != nil && api.StringOr(r.Provenance.Layer, "") != "record" {
			// A note's event is its section below the title: a log of
			// incidents, one "## " each, undated so that all take the
			// file's date, holds as many events as sections, and a
			// section's subsections ("### Fix") and pieces are one.
			h := r.Provenance.HeadingPath
			src = *r.Provenance.SourcePath + "#" + strings.Join(h[:min(2, len(h))], "\x00")
		}
		if src == "" {
			// A record outside a session is a memory of its own (three
			// failed deploys in one JSONL file are three events); its
			// parts stay one.
			src = r.SourceID
		}
		date := ""
		if r.Date != nil {
			date = *r.Date
		}
		key, words := date+"|"+src, date+"|"+saidKey(q.chunk(docs[i].doc).Text)
		gr, ok := groups[key]
		if !ok {
			gr, ok = said[words]
		}
		if !ok {
			gr = &group{ev: api.Event{EventID: "E" + fmt.Sprint(len(keys)+1), Date: r.Date, ResultIDs: []string{}, CitationIDs: []string{}, Sources: []string{}}, order: i}
			keys = append(keys, key)
		}
		groups[key] = gr
		if _, seen := said[words]; !seen {
			said[words] = gr
		}
		gr.ev.ResultIDs = append(gr.ev.ResultIDs, r.ID)
		gr.ev.CitationIDs = append(gr.ev.CitationIDs, c.CitationID)
		if len(c.Excerpt) > len(gr.ev.Summary) {
			gr.ev.Summary = c.Excerpt
		}
		gr.ev.MaxScore = max(gr.ev.MaxScore, c.Score)
		if c.Source != nil && !slices.Contains(gr.ev.Sources, *c.Source) {
			gr.ev.Sources = append(gr.ev.Sources, *c.Source)
		}
		low := strings.ToLower(c.Excerpt)
		for _, w := range []string{"解决", "恢复", "修复", "resolved", "fixed", "fix", "migrated", "迁移", "restored", "workaround"} {
			if holdsWord(low, w) {
				agg.ResolutionCitations = append(agg.ResolutionCitations, c.CitationID)
				break
			}
		}
	}
	var severest *api.Event
	bestSev := -1.0
	for _, k := range keys {
		ev := groups[k].ev
		agg.Events = append(agg.Events, ev)
		sev := ev.MaxScore
		low := strings.ToLower(ev.Summary)
		for _, w := range []string{"最严重", "严重", "critical", "major", "outage", "outages", "宕机", "sev1", "p0"} {
			if holdsWord(low, w) {
				sev += 0.4
				break
			}
		}
		for _, w := range []string{"故障", "失败", "不可用", "incident", "incidents", "error", "errors", "failed", "down"} {
			if holdsWord(low, w) {
				sev += 0.2
				break
			}
		}
		if sev > bestSev {
			bestSev = sev
			evc := ev
			severest = &evc
		}
	}
	agg.EventCount = len(agg.Events)
	if agg.EventCount == 0 {
		agg.Status = "no-events"
		return agg
	}
	agg.Status = "ready"
	agg.MostSevereEvent = severest
	tl := slices.Clone(agg.Events)
	sort.SliceStable(tl, func(i, j int) bool {
		di, dj := "", ""
		if tl[i].Date != nil {
			di = *tl[i].Date
		}
		if tl[j].Date != nil {
			dj = *tl[j].Date
		}
		return di < dj
	})
	for _, ev := range tl {
		agg.Timeline = append(agg.Timeline, api.Moment{EventID: ev.EventID, Date: ev.Date, CitationIDs: ev.CitationIDs, Summary: ev.Summary})
	}
	return agg
}

// saidKey is what a memory says, as events compare it: its words without
// the tool calls attached to them (memory.Said), white space collapsed,
// as a note wraps lines a record keeps on one, hashed.
func saidKey(text string) string {
	return memory.HashText(strings.Join(strings.Fields(memory.Said(text)), " "))
}

// holdsWord reports whether the lower-case text holds w: an English word
// as a whole word ("down" is not in "markdown", "major" not in
// "majority"), a CJK one anywhere (CJK has no word boundaries).
func holdsWord(low, w string) bool {
	if lexical.HasCJK(w) {
		return strings.Contains(low, w)
	}
	return containsAtBoundary(low, w)
}

// synthesize writes the extractive summary: templates that cite ids and
// dates, and the first three citations as bullets.
func synthesize(plan Plan, citations []api.Citation, events api.EventAggregation) api.AnswerSynthesis {
	s := api.AnswerSynthesis{Method: "extractive", Bullets: []api.Bullet{}, Citations: []string{}, CitationIDs: []string{}}
	has := func(in string) bool { return slices.Contains(plan.Intents, in) }
	switch {
	case plan.Aggregation:
		s.AnswerType = "event-aggregation"
	case has("migration"):
		s.AnswerType = "migration"
	case has("config"):
		s.AnswerType = "configuration"
	case has("incident"):
		s.AnswerType = "incident"
	case has("task"):
		s.AnswerType = "task-state"
	default:
		s.AnswerType = "evidence-summary"
	}
	zh := isChinese(plan.Query)
	if len(citations) == 0 {
		s.Status = "no-evidence"
		s.Summary = "No indexed evidence matched the query."
		if zh {
			s.Summary = "没有匹配该查询的已索引证据。"
		}
		return s
	}
	s.Status = "ready"
	// The newest state wins: an older version of a subject is left out of
	// the summary when its newest version was cited. Behind a filter that
	// excludes the newest, the older ones are the evidence there is.
	cited := make(map[string]bool, len(citations))
	for _, c := range citations {
		cited[c.ResultID] = true
	}
	current := slices.DeleteFunc(slices.Clone(citations), func(c api.Citation) bool { return c.Superseded && cited[c.SupersededBy] })
	if len(current) == 0 {
		current = citations
	}
	// A turn that only asks (the question again, found by its own
	// words) or only thanks answers nothing: the summary and bullets
	// quote what does, unless nothing else was cited.
	if answers := slices.DeleteFunc(slices.Clone(current), func(c api.Citation) bool { return asks(c.Excerpt) || thanks(c.Excerpt) }); len(answers) > 0 {
		current = answers
	}
	// One memory cited twice (a record and a note of the same words) is
	// quoted once, so that the bullets' room goes to other evidence.
	quoted := map[string]bool{}
	for _, c := range current {
		if len(s.Bullets) == 3 {
			break
		}
		if quoted[c.Excerpt] {
			continue
		}
		quoted[c.Excerpt] = true
		s.Bullets = append(s.Bullets, api.Bullet{Text: c.Excerpt, CitationID: c.CitationID, Confidence: c.Confidence})
		s.CitationIDs = append(s.CitationIDs, c.CitationID)
	}
	s.Citations = slices.Clone(s.CitationIDs)
	first := current[0]
	date := "an unknown date"
	if first.Date != nil {
		date = *first.Date
	}
	if zh {
		s.Summary = synthesizeZH(s.AnswerType, first, len(citations), events)
		s.QueryCoverage = &api.QueryCoverage{SubqueryCount: len(plan.SubQueries), EvidenceCount: len(citations), MultiHopLinkCount: len(multiHop(citations)), EventCount: events.EventCount}
		return s
	}
	switch s.AnswerType {
	case "event-aggregation":
		if events.EventCount > 0 && events.MostSevereEvent != nil {
			s.Summary = fmt.Sprintf("Found %d distinct event(s) across %d citation(s). Most severe evidence is %s.", events.EventCount, len(citations), strings.Join(events.MostSevereEvent.CitationIDs, ", "))
		} else {
			s.Summary = fmt.Sprintf("Found %d citation(s); no distinct events could be grouped.", len(citations))
		}
	case "incident":
		if len(events.ResolutionCitations) > 0 {
			s.Summary = "Incident evidence is linked to resolution citation(s): " + strings.Join(events.ResolutionCitations, ", ") + "."
		} else {
			s.Summary = fmt.Sprintf("Incident evidence is supported by %d distinct event(s).", max(1, events.EventCount))
		}
	case "configuration":
		s.Summary = fmt.Sprintf("Configuration evidence is %s from %s.", first.CitationID, date)
	case "migration":
		s.Summary = fmt.Sprintf("Migration evidence is %s from %s.", first.CitationID, date)
	case "task-state":
		s.Summary = fmt.Sprintf("Task-state evidence is %s from %s.", first.CitationID, date)
	default:
		s.Summary = fmt.Sprintf("Top evidence is %s from %s with %s confidence.", first.CitationID, date, first.Confidence)
	}
	s.QueryCoverage = &api.QueryCoverage{SubqueryCount: len(plan.SubQueries), EvidenceCount: len(citations), MultiHopLinkCount: len(multiHop(citations)), EventCount: events.EventCount}
	return s
}

// asks reports whether text is one question and nothing else: it ends
// in a question mark and no sentence ends before it. A full stop inside a
// sentence ("e.g.", "v1.4.0", "3.5") ends none; one followed by a space
// and a capital letter does, as do "!", "?" and the CJK stops. A turn
// that states something and then asks ("Done. Want me to add tests?")
// is no bare question.
func asks(text string) bool {
	text = strings.TrimRightFunc(text, func(r rune) bool { return unicode.IsSpace(r) || strings.ContainsRune("\"')]）」』”’", r) })
	last, size := utf8.DecodeLastRuneInString(text)
	if last != '?' && last != '？' {
		return false
	}
	body := []rune(text[:len(text)-size])
	for i, r := range body {
		switch r {
		case '?', '？', '!', '！', '。':
			return false
		case '.':
			// "e.g. Relay" and "i.e. Postgres" end no sentence: the
			// letters before the stop are dotted ones.
			abbreviation := i >= 2 && body[i-2] == '.'
			if !abbreviation && i+2 < len(body) && body[i+1] == ' ' && unicode.IsUpper(body[i+2]) {
				return false
			}
		}
	}
	return true
}

// thankWords are the words of an English turn that only acknowledges.
var thankWords = map[string]bool{
	"thanks": true, "thank": true, "you": true, "thx": true, "ty": true, "ok": true, "okay": true,
	"sounds": true, "good": true, "great": true, "got": true, "it": true, "perfect": true, "sure": true,
	"yes": true, "yep": true, "yeah": true, "lgtm": true, "cool": true, "nice": true, "awesome": true,
	"alright": true, "fine": true, "noted": true, "will": true, "do": true, "understood": true,
	"makes": true, "sense": true, "much": true, "so": true, "very": true, "that": true, "works": true,
}

// thankPhrases are what a Chinese turn that only acknowledges is made
// of, longest first so that 好的 is read before 好.
var thankPhrases = []string{"没问题", "好的", "谢谢", "多谢", "感谢", "谢了", "收到", "明白", "知道", "可以", "好", "行", "嗯", "了", "你", "啦", "哈", "对"}

// thanks reports whether text only acknowledges ("Sounds good, thanks!",
// "好的，谢谢！"): a few words, each one of thanks or assent, punctuation
// and emoji aside.
func thanks(text string) bool {
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
	if len(words) == 0 || len(words) > 8 {
		return false
	}
	for _, w := range words {
		if thankWords[w] {
			continue
		}
		for w != "" {
			i := slices.IndexFunc(thankPhrases, func(p string) bool { return strings.HasPrefix(w, p) })
			if i < 0 {
				return false
			}
			w = w[len(thankPhrases[i]):]
		}
	}
	return true
}

// isChinese reports whether the query is written in Chinese: it has Han
// characters and neither kana nor Hangul, which Japanese and Korean have
// beside them (those readers get the English summary, not a Chinese one).
func isChinese(query string) bool {
	han := false
	for _, r := range query {
		switch {
		case r < 0x1100:
		case unicode.Is(unicode.Hiragana, r), unicode.Is(unicode.Katakana, r), unicode.Is(unicode.Hangul, r):
			return false
		case unicode.Is(unicode.Han, r):
			han = true
		}
	}
	return han
}

// synthesizeZH is the Chinese summary, used when the query is Chinese.
func synthesizeZH(answerType string, first api.Citation, n int, events api.EventAggregation) string {
	date := "未知日期"
	if first.Date != nil {
		date = *first.Date
	}
	switch answerType {
	case "event-aggregation":
		if events.EventCount > 0 && events.MostSevereEvent != nil {
			return fmt.Sprintf("找到 %d 个独立事件（%d 条引用），最严重的证据为 %s。", events.EventCount, n, strings.Join(events.MostSevereEvent.CitationIDs, "、"))
		}
		return fmt.Sprintf("找到 %d 条引用，未能归并出独立事件。", n)
	case "incident":
		if len(events.ResolutionCitations) > 0 {
			return "故障证据关联到解决记录：" + strings.Join(events.ResolutionCitations, "、") + "。"
		}
		return fmt.Sprintf("故障证据涉及 %d 个独立事件。", max(1, events.EventCount))
	case "configuration":
		return fmt.Sprintf("配置证据为 %s（%s）。", first.CitationID, date)
	case "migration":
		return fmt.Sprintf("迁移证据为 %s（%s）。", first.CitationID, date)
	case "task-state":
		return fmt.Sprintf("任务状态证据为 %s（%s）。", first.CitationID, date)
	}
	return fmt.Sprintf("首要证据为 %s（%s），置信度 %s。", first.CitationID, date, first.Confidence)
}

// multiHop links citations that share a date, tags or a source.
func multiHop(citations []api.Citation) []api.MultiHopLink {
	links := []api.MultiHopLink{}
	for i := 0; i < len(citations) && len(links) < 8; i++ {
		for j := i + 1; j < len(citations) && len(links) < 8; j++ {
			a, b := citations[i], citations[j]
			var reasons []string
			if a.Date != nil && b.Date != nil && *a.Date == *b.Date {
				reasons = append(reasons, "same-date")
			}
			var shared []string
			for _, t := range a.Tags {
				if t != "general" && t != "daily" && slices.Contains(b.Tags, t) {
					shared = append(shared, t)
				}
			}
			if len(shared) > 0 {
				sort.Strings(shared)
				reasons = append(reasons, "shared-tags:"+strings.Join(shared[:min(3, len(shared))], ","))
			}
			if a.Provenance.SessionID != "" && a.Provenance.SessionID == b.Provenance.SessionID {
				reasons = append(reasons, "same-session")
			} else if a.Provenance.SourcePath != nil && b.Provenance.SourcePath != nil && *a.Provenance.SourcePath == *b.Provenance.SourcePath {
				reasons = append(reasons, "same-source")
			}
			if len(reasons) > 0 {
				links = append(links, api.MultiHopLink{From: a.CitationID, To: b.CitationID, Reasons: reasons})
			}
		}
	}
	return links
}
