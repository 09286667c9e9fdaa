package api

// SearchResponse is the schemaVersion 2 envelope every search answers with,
// whether or not it found anything. The evidence sections are always present;
// an unavailable response carries their stable defaults (see Unavailable).
type SearchResponse struct {
	SchemaVersion int     `json:"schemaVersion"`
	Available     bool    `json:"available"`
	Reason        *string `json:"reason,omitempty"`
	// Error is a short machine code on failures ("busy", "timeout", ...).
	// It never carries exception text.
	Error string `json:"error,omitempty"`

	Query        string `json:"query"`
	TopK         int    `json:"topK"`
	TotalIndexed int    `json:"totalIndexed"`
	Returned     int    `json:"returned"`
	Filtered     int    `json:"filtered"`

	Results             []Result         `json:"results"`
	QueryPlan           QueryPlan        `json:"queryPlan"`
	Dedupe              *DedupeReport    `json:"dedupe,omitempty"`
	Reranker            *Reranker        `json:"reranker,omitempty"`
	CitationPack        []Citation       `json:"citationPack"`
	EventAggregation    EventAggregation `json:"eventAggregation"`
	AnswerSynthesis     AnswerSynthesis  `json:"answerSynthesis"`
	Quality             Quality          `json:"quality"`
	RetrievalController Controller       `json:"retrievalController"`
	Agentic             Agentic          `json:"agentic"`

	WorkerTelemetry       *WorkerTelemetry `json:"workerTelemetry,omitempty"`
	FacadeBudget          *FacadeBudget    `json:"facadeBudget,omitempty"`
	ExternalAgentContract *Contract        `json:"externalAgentContract,omitempty"`
	// RagStatus is the facade's readiness summary, as its health gives
	// it; the direct server leaves it out.
	RagStatus      *RagStatus `json:"ragStatus,omitempty"`
	QueryDimension *int       `json:"queryDimension,omitempty"`
	IndexDimension *int       `json:"indexDimension,omitempty"`
	// Generation names the index generation that answered, so callers can
	// tell which build their evidence came from.
	Generation string `json:"generation,omitempty"`
}

// Result is one ranked memory.
type Result struct {
	ID              string             `json:"id"`
	Score           float64            `json:"score"`
	ScoreComponents map[string]float64 `json:"scoreComponents"`
	Text            *string            `json:"text,omitempty"`
	TextPreview     string             `json:"textPreview"`
	Title           string             `json:"title,omitempty"`
	Role            *string            `json:"role"`
	Timestamp       *string            `json:"timestamp"`
	Date            *string            `json:"date"`
	Source          *string            `json:"source"`
	SourceSet       *string            `json:"sourceSet"`
	SourceType      *string            `json:"sourceType"`
	SourceID        string             `json:"sourceId"`
	Agent           *string            `json:"agent"`
	Project         *string            `json:"project"`
	Tags            []string           `json:"tags"`
	WorkType        *string            `json:"workType"`
	Governance      *Governance        `json:"governance,omitempty"`
	Provenance      Provenance         `json:"provenance"`
	RetrievalPasses []string           `json:"retrievalPasses"`
	// Superseded marks an older version of a subject (a record with the
	// same subject, or the same card of a task-board snapshot, exists in a
	// newer state); SupersededBy is the id of the newest version.
	Superseded   bool   `json:"superseded,omitempty"`
	SupersededBy string `json:"supersededBy,omitempty"`
}

// Provenance says where a memory came from.
type Provenance struct {
	IndexID    string  `json:"indexId"`
	Layer      *string `json:"layer"`
	Source     *string `json:"source"`
	SourceSet  *string `json:"sourceSet"`
	SourceType *string `json:"sourceType"`
	SourceID   string  `json:"sourceId"`
	// SourcePath is the absolute path of the source file, except that a
	// secret in a file's or a folder's name is served as "[redacted]",
	// the path then ending in "~" and 8 hex digits (as sourceId does):
	// it is cited, not opened, and its folders still locate the file.
	SourcePath  *string  `json:"sourcePath"`
	DedupeKey   *string  `json:"dedupeKey"`
	LineNumber  int      `json:"lineNumber,omitempty"`
	TextHash    string   `json:"textHash,omitempty"`
	SessionID   string   `json:"sessionId,omitempty"`
	Time        string   `json:"time,omitempty"`
	HeadingPath []string `json:"headingPath,omitempty"`
	Part        int      `json:"part,omitempty"`
}

// Governance is the rule-based authority of a memory (upstream §1.3).
type Governance struct {
	Version            int      `json:"version"`
	SourceSet          string   `json:"sourceSet"`
	AuthorityRank      int      `json:"authorityRank"`
	Lifecycle          string   `json:"lifecycle"`
	Retention          string   `json:"retention"`
	CanonicalEligible  bool     `json:"canonicalEligible"`
	ProvenanceScore    float64  `json:"provenanceScore"`
	RetrievalWeight    float64  `json:"retrievalWeight"`
	DuplicateGroupKey  string   `json:"duplicateGroupKey"`
	CanonicalCandidate bool     `json:"canonicalCandidate"`
	SupersessionScope  *string  `json:"supersessionScope"`
	Warnings           []string `json:"warnings"`
}

// QueryPlan records how the server interpreted the query.
type QueryPlan struct {
	SchemaVersion   int        `json:"schemaVersion"`
	Version         int        `json:"version,omitempty"`
	Strategy        string     `json:"strategy,omitempty"`
	Status          string     `json:"status,omitempty"`
	Query           string     `json:"query"`
	TopK            int        `json:"topK"`
	Intents         []string   `json:"intents,omitempty"`
	PreferredTags   []string   `json:"preferredTags,omitempty"`
	KeyTerms        []string   `json:"keyTerms,omitempty"`
	Anchors         []string   `json:"anchors,omitempty"`
	SubQueries      []SubQuery `json:"subQueries"`
	ExplicitFilters any        `json:"explicitFilters"`
	RecencyBias     string     `json:"recencyBias,omitempty"`
	// DatePriors are the dates the query names, resolved against the
	// clock in the user's time zone: soft priors, never filters.
	DatePriors []DatePrior `json:"datePriors,omitempty"`
	// PersonPriors are the speakers or agents of the memory that the
	// query names: their memories rank higher.
	PersonPriors []string `json:"personPriors,omitempty"`
	// AnswerType is the kind of answer the query's question word asks
	// for (duration, age, count, time, reason, place or title): memories that
	// hold such an expression rank higher.
	AnswerType string `json:"answerType,omitempty"`
	// RelatedTerms are words of related meaning to the query's Chinese
	// words (a shared sense in CC-CEDICT's glosses), searched beside the
	// query's own at a low weight, and the short forms code writes for its
	// words (db for database, env for environment), searched as the word,
	// and the other everyday names of the family members it names (mum
	// for mother), searched as the word.
	RelatedTerms []string `json:"relatedTerms,omitempty"`
	Stages       []string `json:"stages"`
	FilterPolicy string   `json:"filterPolicy,omitempty"`
	// AnchorsOmitted is how many more anchors the query held than the
	// plan keeps (a pasted log or list of ids): they are still searched
	// as words, but not looked for in the evidence. Absent when none was.
	AnchorsOmitted int `json:"anchorsOmitted,omitempty"`
}

// DatePrior is a span of days a query names ("August 2023", "上周").
type DatePrior struct {
	// Text is the expression as the query wrote it (normalised).
	Text string `json:"text"`
	// From and To are the first and last day, YYYY-MM-DD, inclusive.
	From string `json:"from"`
	To   string `json:"to"`
	// Relative is true when the span depends on the clock.
	Relative bool `json:"relative"`
}

// SubQuery is one query the plan may run.
type SubQuery struct {
	ID      string `json:"id"`
	Query   string `json:"query"`
	Purpose string `json:"purpose"`
}

// ExplicitFilters are the caller's hard filters, normalised.
type ExplicitFilters struct {
	Date       *string  `json:"date"`
	DateFrom   *string  `json:"dateFrom"`
	DateTo     *string  `json:"dateTo"`
	Role       *string  `json:"role"`
	Agent      *string  `json:"agent"`
	Project    *string  `json:"project"`
	Tags       []string `json:"tags"`
	SourceSets []string `json:"sourceSets"`
	Lifecycles []string `json:"lifecycles"`
	WorkTypes  []string `json:"workTypes"`
}

// DedupeReport says how many near-identical results were folded.
type DedupeReport struct {
	Applied           bool            `json:"applied"`
	Strategy          string          `json:"strategy"`
	InputCount        int             `json:"inputCount"`
	OutputCount       int             `json:"outputCount"`
	DuplicatesRemoved int             `json:"duplicatesRemoved"`
	DuplicateRate     float64         `json:"duplicateRate"`
	Removed           []DedupeRemoval `json:"removed"`
}

// DedupeRemoval is one folded result.
type DedupeRemoval struct {
	ID        string  `json:"id"`
	DedupeKey string  `json:"dedupeKey"`
	SourceSet string  `json:"sourceSet"`
	Score     float64 `json:"score"`
}

// Reranker reports the reranker policy. Nova has no model reranker, so it
// is reported disabled, as upstream does by default.
type Reranker struct {
	Enabled     bool   `json:"enabled"`
	Provider    string `json:"provider"`
	Applied     bool   `json:"applied"`
	Status      string `json:"status"`
	Reason      string `json:"reason"`
	InputCount  int    `json:"inputCount"`
	OutputCount int    `json:"outputCount"`
}

// Citation is one entry of the citation pack: a stable id an agent cites.
type Citation struct {
	CitationID      string             `json:"citationId"`
	Rank            int                `json:"rank"`
	ResultID        string             `json:"resultId"`
	Confidence      string             `json:"confidence"`
	Score           float64            `json:"score"`
	Source          *string            `json:"source"`
	Date            *string            `json:"date"`
	Timestamp       *string            `json:"timestamp"`
	Agent           *string            `json:"agent"`
	Project         *string            `json:"project"`
	Tags            []string           `json:"tags"`
	WorkType        string             `json:"workType"`
	Excerpt         string             `json:"excerpt"`
	WhySelected     []string           `json:"whySelected"`
	Provenance      Provenance         `json:"provenance"`
	ScoreComponents map[string]float64 `json:"scoreComponents"`
	// Superseded and SupersededBy are the cited result's (see Result).
	Superseded   bool   `json:"superseded,omitempty"`
	SupersededBy string `json:"supersededBy,omitempty"`
}

// EventAggregation groups citations into distinct events.
type EventAggregation struct {
	SchemaVersion       int      `json:"schemaVersion"`
	Status              string   `json:"status"`
	Strategy            string   `json:"strategy,omitempty"`
	EventCount          int      `json:"eventCount"`
	Events              []Event  `json:"events"`
	Timeline            []Moment `json:"timeline"`
	MostSevereEvent     *Event   `json:"mostSevereEvent"`
	ResolutionCitations []string `json:"resolutionCitations"`
	Reason              *string  `json:"reason,omitempty"`
}

// Event is a group of citations about one happening.
type Event struct {
	EventID     string   `json:"eventId"`
	Date        *string  `json:"date"`
	ResultIDs   []string `json:"resultIds"`
	CitationIDs []string `json:"citationIds"`
	Summary     string   `json:"summary"`
	MaxScore    float64  `json:"maxScore"`
	Sources     []string `json:"sources"`
}

// Moment is one timeline entry.
type Moment struct {
	EventID     string   `json:"eventId"`
	Date        *string  `json:"date"`
	CitationIDs []string `json:"citationIds"`
	Summary     string   `json:"summary"`
}

// AnswerSynthesis is an extractive summary of the citations: never prose
// generated by a model.
type AnswerSynthesis struct {
	Status        string         `json:"status"`
	AnswerType    string         `json:"answerType,omitempty"`
	Summary       string         `json:"summary"`
	Bullets       []Bullet       `json:"bullets"`
	Citations     []string       `json:"citations"`
	CitationIDs   []string       `json:"citationIds"`
	Method        string         `json:"method"`
	QueryCoverage *QueryCoverage `json:"queryCoverage,omitempty"`
	Reason        *string        `json:"reason,omitempty"`
}

// Bullet is one extractive line of the synthesis.
type Bullet struct {
	Text       string `json:"text"`
	CitationID string `json:"citationId"`
	Confidence string `json:"confidence"`
}

// QueryCoverage counts what the synthesis drew on.
type QueryCoverage struct {
	SubqueryCount     int `json:"subqueryCount"`
	EvidenceCount     int `json:"evidenceCount"`
	MultiHopLinkCount int `json:"multiHopLinkCount"`
	EventCount        int `json:"eventCount"`
}

// Quality is the verdict agents read to decide whether to search again.
type Quality struct {
	SchemaVersion     int      `json:"schemaVersion"`
	Status            string   `json:"status"`
	NeedsMoreEvidence bool     `json:"needsMoreEvidence"`
	ResultCount       int      `json:"resultCount"`
	KeyTerms          []string `json:"keyTerms"`
	CoveredTerms      []string `json:"coveredTerms"`
	MissingTerms      []string `json:"missingTerms"`
	Coverage          float64  `json:"coverage"`
	CoverageBasis     string   `json:"coverageBasis,omitempty"`
	// The retrieval terms are listed, empty or not, on a live response
	// (upstream's object) and left out of the unavailable one (nil).
	RetrievalCoveredTerms []string        `json:"retrievalCoveredTerms,omitzero"`
	RetrievalMissingTerms []string        `json:"retrievalMissingTerms,omitzero"`
	RetrievalCoverage     *float64        `json:"retrievalCoverage,omitempty"`
	Flags                 map[string]bool `json:"flags"`
	Recommendations       []string        `json:"recommendations"`
}

// Controller reports the bounded multi-pass recall that ran.
type Controller struct {
	SchemaVersion             int                  `json:"schemaVersion"`
	Mode                      string               `json:"mode"`
	ServerSide                bool                 `json:"serverSide"`
	ExecutionPolicy           string               `json:"executionPolicy"`
	PassesRun                 []string             `json:"passesRun"`
	Passes                    []PassReport         `json:"passes"`
	QualityStatus             string               `json:"qualityStatus"`
	NeedsMoreEvidence         bool                 `json:"needsMoreEvidence"`
	LatencyBudgetMs           int                  `json:"latencyBudgetMs,omitempty"`
	ElapsedMs                 float64              `json:"elapsedMs,omitempty"`
	SlowQuery                 *bool                `json:"slowQuery,omitempty"`
	SlowQueryThresholdMs      int                  `json:"slowQueryThresholdMs,omitempty"`
	ChunkCount                int                  `json:"chunkCount,omitempty"`
	StopReason                string               `json:"stopReason,omitempty"`
	PassTelemetry             []PassTelemetry      `json:"passTelemetry,omitempty"`
	EmbeddingTelemetry        []EmbeddingTelemetry `json:"embeddingTelemetry,omitempty"`
	BatchedOptionalEmbeddings *bool                `json:"batchedOptionalEmbeddings,omitempty"`
	EmbeddingDimension        int                  `json:"embeddingDimension,omitempty"`
	Channels                  []ChannelReport      `json:"channels,omitempty"`
	Degraded                  bool                 `json:"degraded,omitempty"`
	TimeoutStage              string               `json:"timeoutStage,omitempty"`
	WorkerTelemetry           *WorkerTelemetry     `json:"workerTelemetry,omitempty"`
	FacadeBudget              *FacadeBudget        `json:"facadeBudget,omitempty"`
}

// PassReport describes one executed pass (or the fusion and gate steps).
type PassReport struct {
	ID             string `json:"id"`
	Query          string `json:"query,omitempty"`
	CandidateCount *int   `json:"candidateCount,omitempty"`
	Returned       *int   `json:"returned,omitempty"`
	// SourceSets is listed, empty or not, for a retrieval pass (the
	// contract's per-pass shape) and left out (nil) for the fusion and
	// quality-gate steps.
	SourceSets        []string `json:"sourceSets,omitzero"`
	Purpose           string   `json:"purpose,omitempty"`
	Reason            string   `json:"reason,omitempty"`
	Status            string   `json:"status,omitempty"`
	NeedsMoreEvidence *bool    `json:"needsMoreEvidence,omitempty"`
}

// PassTelemetry is the timing of one pass.
type PassTelemetry struct {
	ID             string  `json:"id"`
	ElapsedMs      float64 `json:"elapsedMs"`
	CandidateCount int     `json:"candidateCount"`
	QualityStatus  string  `json:"qualityStatus"`
}

// EmbeddingTelemetry is the timing of one query-embedding batch.
type EmbeddingTelemetry struct {
	Batch      string  `json:"batch"`
	QueryCount int     `json:"queryCount"`
	ElapsedMs  float64 `json:"elapsedMs"`
	Status     string  `json:"status,omitempty"`
}

// ChannelReport says whether a retrieval channel ran and with what weight.
type ChannelReport struct {
	ID      string  `json:"id"`
	Enabled bool    `json:"enabled"`
	Weight  float64 `json:"weight"`
	Method  string  `json:"method"`
	Reason  string  `json:"reason,omitempty"`
}

// Agentic carries the evidence-layer flags. The evidence sections themselves
// (citationPack, quality, ...) live once, at the top level of the envelope.
type Agentic struct {
	SchemaVersion              int            `json:"schemaVersion"`
	Version                    int            `json:"version,omitempty"`
	Mode                       string         `json:"mode,omitempty"`
	EvidenceFieldsStable       bool           `json:"evidenceFieldsStable"`
	ServerSidePlanning         bool           `json:"serverSidePlanning"`
	ServerSideMultiPass        bool           `json:"serverSideMultiPass"`
	ServerSideQualityGate      bool           `json:"serverSideQualityGate"`
	ServerSideEventAggregation bool           `json:"serverSideEventAggregation"`
	LLMGenerated               bool           `json:"llmGenerated"`
	ImplementedCapabilities    []string       `json:"implementedCapabilities,omitempty"`
	Limits                     []string       `json:"limits,omitempty"`
	Decomposition              *Decomposition `json:"decomposition,omitempty"`
}

// Decomposition reports the deterministic query decomposition and the links
// found between citations.
type Decomposition struct {
	Strategy        string         `json:"strategy"`
	Intents         []string       `json:"intents"`
	PreferredTags   []string       `json:"preferredTags"`
	RecencyBias     string         `json:"recencyBias"`
	Subqueries      []SubQuery     `json:"subqueries"`
	MultiHopLinks   []MultiHopLink `json:"multiHopLinks"`
	ExecutionPolicy string         `json:"executionPolicy"`
}

// MultiHopLink relates two citations.
type MultiHopLink struct {
	From    string   `json:"from"`
	To      string   `json:"to"`
	Reasons []string `json:"reasons"`
}

// WorkerTelemetry says what the search worker was doing when the response
// was written. capacityPermitHeld=true means capacity stays occupied until
// the real work ends.
type WorkerTelemetry struct {
	WorkerState        string  `json:"workerState"`
	HardCancelled      bool    `json:"hardCancelled"`
	CapacityPermitHeld bool    `json:"capacityPermitHeld"`
	LatencyBudgetMs    int     `json:"latencyBudgetMs"`
	ElapsedMs          float64 `json:"elapsedMs"`
}

// Worker states.
const (
	WorkerNotStarted          = "not-started"
	WorkerFinished            = "finished"
	WorkerRunningAfterTimeout = "running_after_timeout"
	WorkerRunningAfterCancel  = "running_after_cancel"
)

// FacadeBudget reports the monotonic budget the facade applied.
type FacadeBudget struct {
	Policy            string  `json:"policy"`
	TotalBudgetMs     int     `json:"totalBudgetMs"`
	ServerBudgetCapMs int     `json:"serverBudgetCapMs"`
	ElapsedMs         float64 `json:"elapsedMs"`
	RemainingBudgetMs int     `json:"remainingBudgetMs"`
}

// Unavailable returns the stable envelope for a search that produced no
// live results: every evidence section present with its default, the
// caller's normalised query and topK kept in queryPlan.
func Unavailable(query string, topK int, reason string) *SearchResponse {
	if topK > MaxTopK {
		topK = MaxTopK
	}
	if topK < MinTopK {
		topK = MinTopK
	}
	r := reason
	subQueries := []SubQuery{}
	if query != "" {
		subQueries = append(subQueries, SubQuery{ID: "Q0", Query: query, Purpose: "primary recall"})
	}
	f := false
	return &SearchResponse{
		SchemaVersion: 2,
		Available:     false,
		Reason:        &r,
		Query:         query,
		TopK:          topK,
		Results:       []Result{},
		QueryPlan: QueryPlan{
			SchemaVersion:   2,
			Status:          "unavailable",
			Query:           query,
			TopK:            topK,
			SubQueries:      subQueries,
			ExplicitFilters: struct{}{},
			Stages:          []string{},
		},
		CitationPack: []Citation{},
		EventAggregation: EventAggregation{
			SchemaVersion:       2,
			Status:              "unavailable",
			Events:              []Event{},
			Timeline:            []Moment{},
			ResolutionCitations: []string{},
			Reason:              &r,
		},
		AnswerSynthesis: AnswerSynthesis{
			Status:      "unavailable",
			Method:      "extractive",
			Bullets:     []Bullet{},
			Citations:   []string{},
			CitationIDs: []string{},
			Reason:      &r,
		},
		Quality: Quality{
			SchemaVersion:     1,
			Status:            "insufficient",
			NeedsMoreEvidence: true,
			KeyTerms:          []string{},
			CoveredTerms:      []string{},
			MissingTerms:      []string{},
			Flags:             map[string]bool{},
			Recommendations:   []string{"retry-when-rag-available"},
		},
		RetrievalController: Controller{
			SchemaVersion:     1,
			Mode:              "bounded-deterministic-multi-pass",
			ServerSide:        true,
			ExecutionPolicy:   "unavailable before retrieval",
			PassesRun:         []string{"quality-gate"},
			Passes:            []PassReport{{ID: "quality-gate", Status: "insufficient", NeedsMoreEvidence: boolPtr(true)}},
			QualityStatus:     "insufficient",
			NeedsMoreEvidence: true,
			SlowQuery:         &f,
		},
		Agentic: StableAgentic(),
	}
}

// StableAgentic returns the agentic flag set every response carries.
func StableAgentic() Agentic {
	return Agentic{
		SchemaVersion:              2,
		EvidenceFieldsStable:       true,
		ServerSidePlanning:         true,
		ServerSideMultiPass:        true,
		ServerSideQualityGate:      true,
		ServerSideEventAggregation: true,
		LLMGenerated:               false,
	}
}

func boolPtr(b bool) *bool { return &b }

// StringOr returns the value of an optional envelope string (a result's
// date, agent, source, a response's reason), or def when it is absent or
// empty.
func StringOr(s *string, def string) string {
	if s == nil || *s == "" {
		return def
	}
	return *s
}
