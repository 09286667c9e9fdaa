package search

import "gonum.org/v1/gonum/floats/scalar"

// components are the parts of one candidate's score. They are plain fields
// (a candidate is scored in the hot loop of every pass; a map per candidate
// cost an allocation each) and become the response's scoreComponents map,
// under the names the contract uses, only for the results returned.
type components struct {
	// Channels.
	bm25, bm25Context, bm25Fields, lexical, dense, fused float64
	// Metadata adjustments (metadataFactor).
	recency, recencyFactor, intentBoost, evidenceAuthority, governanceWeight float64
	provenanceScore, authorityRank, layerBoost                               float64
	// Query priors: 1 is neutral. answerType is text-based and computed
	// with the text adjustments.
	datePrior, personPrior, questionTurn, answerType float64
	// Text adjustments (textFactor), computed for the head of a pass only.
	keyword, citableExactCoverage, retrievalExactCoverage, exactCoverage float64
	metaDiscussion, subQueryMatch, subQueryBoost                         float64
	// Passes and fusion.
	passWeight, passScore, passSupport float64
	// After fusion: the share of the better adjacent turn's score added to
	// this one (negative for a statement that gave its place to the answer
	// of a follow-up question, followUpAnswers), and the factor applied to
	// an older version of a subject.
	neighbourBoost, supersession float64
	// idMatch is the factor of a record the query names by its id.
	idMatch float64
	// dateMatch is 1 for a memory of the days a date-led query asks about
	// (dateLed), found by its day rather than its words.
	dateMatch float64

	has present
}

// present records which optional components a candidate has, so that the
// response shows what was computed and nothing that was not.
type present uint16

const (
	hasBM25 present = 1 << iota
	hasContext
	hasDense
	hasText
	hasSupport
	hasDatePrior
	hasPersonPrior
	hasNeighbour
	hasSupersession
	hasQuestionTurn
	hasAnswerType
	hasIDMatch
	hasDateMatch
)

// liftedAsNewest reports whether supersede raised this candidate, the
// newest version of a subject, to an older version's score (an older one
// is scaled down: a factor below 1).
func (c *components) liftedAsNewest() bool {
	return c.has&hasSupersession != 0 && c.supersession >= 1
}

// asMap returns the components under their wire names, rounded; passScore
// is internal and left out.
func (c *components) asMap() map[string]float64 {
	m := make(map[string]float64, 32)
	put := func(k string, v float64) { m[k] = scalar.Round(v, 6) }
	put("bm25", c.bm25)
	put("bm25Context", c.bm25Context)
	put("bm25Fields", c.bm25Fields)
	put("lexical", c.lexical)
	put("dense", c.dense)
	put("fused", c.fused)
	put("recency", c.recency)
	put("recencyFactor", c.recencyFactor)
	put("intentBoost", c.intentBoost)
	put("evidenceAuthority", c.evidenceAuthority)
	put("governanceWeight", c.governanceWeight)
	put("provenanceScore", c.provenanceScore)
	put("authorityRank", c.authorityRank)
	put("layerBoost", c.layerBoost)
	if c.has&hasDatePrior != 0 {
		put("datePrior", c.datePrior)
	}
	if c.has&hasPersonPrior != 0 {
		put("personPrior", c.personPrior)
	}
	if c.has&hasAnswerType != 0 {
		put("answerType", c.answerType)
	}
	if c.has&hasQuestionTurn != 0 {
		put("questionTurn", c.questionTurn)
	}
	if c.has&hasText != 0 {
		put("keyword", c.keyword)
		put("citableExactCoverage", c.citableExactCoverage)
		put("retrievalExactCoverage", c.retrievalExactCoverage)
		put("exactCoverage", c.exactCoverage)
		put("metaDiscussion", c.metaDiscussion)
		put("subQueryMatch", c.subQueryMatch)
		put("subQueryBoost", c.subQueryBoost)
	}
	put("passWeight", c.passWeight)
	if c.has&hasSupport != 0 {
		put("passSupport", c.passSupport)
	}
	if c.has&hasNeighbour != 0 {
		put("neighbourBoost", c.neighbourBoost)
	}
	if c.has&hasSupersession != 0 {
		put("supersession", c.supersession)
	}
	if c.has&hasIDMatch != 0 {
		put("idMatch", c.idMatch)
	}
	if c.has&hasDateMatch != 0 {
		put("dateMatch", c.dateMatch)
	}
	return m
}
