package search

import (
	"slices"
	"strings"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/memory"
)

// gate judges whether results are enough evidence for the query:
// strong, weak or insufficient, with the flags and recommendations the
// contract names. Coverage counts only citable text (title and text), so
// a term that appears only in an id or a path does not make evidence.
func (e *Engine) gate(q *query, results []scored) api.Quality {
	plan := q.plan
	g := q.snap.Gen
	covered, missing := []string{}, []string{}
	rcovered, rmissing := []string{}, []string{}
	// What retrieval saw of each result, made when a term first needs it
	// and kept for the terms after it.
	retrieval := make([]*textView, len(results))
	// A date-led query's days are matched by the memories' dates, which
	// the results of those days show.
	dayMatched := q.dateLed && slices.ContainsFunc(results, func(r scored) bool { return r.comp.has&hasDateMatch != 0 })
	for k, t := range plan.KeyTerms {
		inCitable, inRetrieval := dayMatched && q.dayTerm(t), false
		for i := 0; !inCitable && i < len(results); i++ {
			inCitable = q.coversKey(q.view(e, results[i].doc), k)
		}
		if inCitable {
			inRetrieval = true
		} else {
			for i, r := range results {
				if retrieval[i] == nil {
					c := q.chunk(r.doc)
					ctx, _ := g.Context(r.doc)
					v := newTextView(e.analyzer, ctx+" "+c.ID+" "+c.SourceID+" "+c.SourcePath+" "+c.Project+" "+c.Agent+" "+e.localDay(c)+" "+strings.Join(c.Tags, " "))
					retrieval[i] = &v
				}
				if retrieval[i].covers(q.keys[k]) {
					inRetrieval = true
					break
				}
			}
		}
		if inCitable {
			covered = append(covered, t)
		} else {
			missing = append(missing, t)
		}
		if inRetrieval {
			rcovered = append(rcovered, t)
		} else {
			rmissing = append(rmissing, t)
		}
	}
	coverage := scalar.Round(ratio(len(covered), len(plan.KeyTerms)), 4)
	rcoverage := scalar.Round(ratio(len(rcovered), len(plan.KeyTerms)), 4)

	flags := map[string]bool{
		"denseOnlyTop": false, "episodicOnlyFinalState": false, "metaDiscussionTop": false,
		"hasNonMetaExactEvidence": false, "hasAuthoritativeEvidence": false, "metadataOnlyTermCoverage": rcoverage > coverage,
	}
	if len(results) > 0 {
		top := results[0]
		tv := q.view(e, top.doc)
		// A newest version lifted above its older ones ranks on their
		// match, not its own: whether only the dense channel found the
		// top evidence is asked of the first result not lifted so.
		matched := top
		for _, r := range results {
			if !r.comp.liftedAsNewest() {
				matched = r
				break
			}
		}
		mv := q.view(e, matched.doc)
		matchedHasTerm := false
		for k := range plan.KeyTerms {
			if q.coversKey(mv, k) {
				matchedHasTerm = true
				break
			}
		}
		// A record the query names by id, or a memory of the day a
		// date-led query names, was found by that, not by the dense
		// channel.
		flags["denseOnlyTop"] = matched.comp.dense > 0 && matched.comp.bm25 <= 0 && !matchedHasTerm && matched.comp.has&(hasIDMatch|hasDateMatch) == 0
		flags["metaDiscussionTop"] = !plan.Meta && tv.meta >= 0.5
		episodicOnly := true
		for _, r := range results {
			if q.chunk(r.doc).Governance.Lifecycle != "episodic" {
				episodicOnly = false
			}
			v := q.view(e, r.doc)
			meta := !plan.Meta && v.meta >= 0.5
			hits := 0
			for k := range plan.KeyTerms {
				if q.coversKey(v, k) {
					hits++
				}
			}
			if !meta && len(plan.KeyTerms) > 0 && float64(hits) >= 0.5*float64(len(plan.KeyTerms)) {
				flags["hasNonMetaExactEvidence"] = true
			}
			if !meta && memory.EvidenceAuthority(q.chunk(r.doc).Governance) >= 0.65 {
				flags["hasAuthoritativeEvidence"] = true
			}
		}
		flags["episodicOnlyFinalState"] = episodicOnly && plan.FinalState
	}

	anchorMissing := []string{}
	for _, a := range plan.Anchors {
		for _, m := range missing {
			if m == a {
				anchorMissing = append(anchorMissing, a)
			}
		}
	}
	status := "strong"
	switch {
	case len(results) == 0:
		status = "insufficient"
	case flags["denseOnlyTop"], flags["episodicOnlyFinalState"], flags["metaDiscussionTop"]:
		status = "weak"
	case plan.FinalState && len(plan.KeyTerms) > 0 && !flags["hasNonMetaExactEvidence"]:
		status = "weak"
	case len(anchorMissing) > 0:
		status = "weak"
	case len(plan.KeyTerms) > 0 && coverage < 0.5:
		status = "weak"
	}
	recs := []string{}
	if status != "strong" {
		switch {
		case len(missing) > 0:
			recs = append(recs, "retry-exact-missing-terms:"+strings.Join(missing[:min(6, len(missing))], ","))
		case len(plan.KeyTerms) > 0:
			recs = append(recs, "inspect-lower-ranked-exact-entity-evidence")
		}
		if flags["denseOnlyTop"] {
			recs = append(recs, "retry-with-rare-entities-or-quoted-phrase")
		}
		if flags["episodicOnlyFinalState"] {
			recs = append(recs, "retry-with-canonical-current-state-or-summary-filters")
		}
		if flags["metaDiscussionTop"] {
			recs = append(recs, "retry-with-meta-discussion-suppressed")
		}
		if len(plan.KeyTerms) > 0 && !flags["hasNonMetaExactEvidence"] {
			recs = append(recs, "retry-with-authoritative-source-pass")
		}
		if len(recs) == 0 {
			recs = append(recs, "expand-query-or-increase-top-k")
		}
	}
	return api.Quality{
		SchemaVersion: 1, Status: status, NeedsMoreEvidence: status != "strong", ResultCount: len(results),
		KeyTerms: nonNil(plan.KeyTerms), CoveredTerms: covered, MissingTerms: missing, Coverage: coverage,
		CoverageBasis: "citable-text-only", RetrievalCoveredTerms: rcovered, RetrievalMissingTerms: rmissing,
		RetrievalCoverage: &rcoverage, Flags: flags, Recommendations: recs,
	}
}

// dedupe folds results that are the same memory: the first key present
// among governance duplicate group, dedupe key, source id, then
// normalised text; or, for transcripts, the same words said by the same
// speaker in the same project (see saying). The higher-ranked one is
// kept, in its place; but a sync service's copy of a note gives its
// place to the note when it says the same (copyKept): the note is the
// file its owner keeps, and a copy is removed once resolved.
//
// It looks at the first head candidates, the depth each pass returns,
// and beyond them only until keep distinct ones are found; the report
// counts what it looked at, OutputCount the distinct ones it found. It
// returns the first keep distinct candidates. Reading the whole list decoded every
// neighbour propagation had added, and copying it (each candidate carries
// its score components) was a tenth of what a search allocated.
func dedupe(q *query, in []scored, keep, head int) ([]scored, *api.DedupeReport) {
	seen := make(map[string]bool, min(len(in), max(head, keep)))
	var said map[saying]bool // made at the first transcript's chunk
	out := make([]scored, 0, max(0, min(keep, len(in))))
	unique := 0
	report := &api.DedupeReport{Applied: true, Strategy: "governance-provenance-text", Removed: []api.DedupeRemoval{}}
	for i := range in {
		s := &in[i]
		if i >= head && unique >= keep {
			break
		}
		report.InputCount++
		c := q.hashed(s.doc)
		key := dedupeKey(c)
		say, says := saidOf(c)
		dup := ""
		switch {
		case key != "" && seen[key]:
			dup = key
		case says && said[say]:
			dup = say.String()
		}
		if dup != "" {
			removed, score := c, s.score
			if j := copyKept(q, out, dup, c); j >= 0 {
				// The note takes its copy's place and score (the same
				// text): the order stays as ranked.
				removed, score = q.hashed(out[j].doc), out[j].score
				out[j] = *s
				out[j].score = score
			}
			if len(report.Removed) < 20 {
				report.Removed = append(report.Removed, api.DedupeRemoval{ID: removed.ID, DedupeKey: dup, SourceSet: removed.SourceSet, Score: scalar.Round(score, 6)})
			}
			report.DuplicatesRemoved++
			continue
		}
		seen[key] = true
		if says {
			if said == nil {
				said = make(map[saying]bool, min(len(in), max(head, keep)))
			}
			said[say] = true
		}
		if unique < keep {
			out = append(out, *s)
		}
		unique++
	}
	report.OutputCount = unique
	if report.InputCount > 0 {
		report.DuplicateRate = scalar.Round(float64(report.DuplicatesRemoved)/float64(report.InputCount), 4)
	}
	return out, report
}

// copyKept returns where in out the result kept for the dedupe key dup
// is, when it is a sync service's copy of the note c, which says the
// same and would take its place (see dedupe): a copy of c's file
// (memory.CopyOf), or a conflict copy while c's file is none. -1 when
// there is none. A duplicate is rare, and out is short (topK): the keys
// of out are worked out again here, not kept for every search.
func copyKept(q *query, out []scored, dup string, c *memory.Chunk) int {
	for j := range out {
		k := q.hashed(out[j].doc)
		if say, ok := saidOf(k); dedupeKey(k) != dup && (!ok || say.String() != dup) {
			continue
		}
		if memory.CopyOf(k.SourcePath, c.SourcePath) || memory.IsConflictCopy(k.SourcePath) && !memory.IsConflictCopy(c.SourcePath) {
			return j
		}
		return -1
	}
	return -1
}

// saying is what a chunk says (memory.Said: its text without the tool
// calls attached to it, by its hash), by whom, in which project and
// source set. A Codex sub-agent's answer is indexed from its own rollout,
// with the calls it made, and from its parent's, which received it
// without them: both stay in the index, since either rollout may be
// missing, removed or read in another sync, and search shows the answer
// once. A struct, not a string: dedupe looks at every candidate, and the
// key of one that folds nothing is never written out.
type saying struct{ sourceSet, project, speaker, hash string }

// saidOf returns what chunk c says; false when c is not a transcript's
// (the dialogue layer, the only one tool calls are attached to) or its
// text is not hashed.
func saidOf(c *memory.Chunk) (saying, bool) {
	hash := c.TextHash
	if c.Layer != "dialogue" || hash == "" {
		return saying{}, false
	}
	if said := memory.Said(c.Text); len(said) != len(c.Text) {
		hash = memory.HashText(said)
	}
	speaker := c.Agent
	if speaker == "" {
		speaker = c.Role
	}
	return saying{c.SourceSet, c.Project, speaker, hash}, true
}

// String is the saying's dedupe key, as the dedupe report names it.
func (s saying) String() string {
	return "said:" + s.sourceSet + ":" + s.project + ":" + s.speaker + ":" + s.hash
}

func dedupeKey(c *memory.Chunk) string {
	if k := c.Governance.DuplicateGroupKey; k != "" && !strings.HasSuffix(k, ":") {
		return "governance:" + k
	}
	if c.DedupeKey != "" {
		return "provenance-dedupe:" + c.DedupeKey
	}
	if c.SourceID != "" {
		return "provenance-source-id:" + c.SourceID
	}
	t := strings.ToLower(strings.Join(strings.Fields(c.Text), " "))
	if len([]rune(t)) >= 48 {
		r := []rune(t)
		return "text:" + c.SourceSet + ":" + c.Date + ":" + string(r[:min(180, len(r))])
	}
	return ""
}
