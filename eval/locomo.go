package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/paths"
	"github.com/nova-recall/nova/search"
)

// DRAGON is the published LoCoMo dialogue-unit retrieval reference
// (Maharana et al., ACL 2024, Table 3, all ten conversations).
var DRAGON = Metrics{RecallAt1: -1, RecallAt5: 0.567, RecallAt10: 0.662, RecallAt20: -1, MRR: -1, NDCG10: -1}

// Metrics are averages over questions.
type Metrics struct {
	Questions  int     `json:"questions"`
	RecallAt1  float64 `json:"recallAt1"`
	RecallAt5  float64 `json:"recallAt5"`
	RecallAt10 float64 `json:"recallAt10"`
	RecallAt20 float64 `json:"recallAt20"`
	MRR        float64 `json:"mrr"`
	NDCG10     float64 `json:"ndcgAt10"`
}

// SystemReport is one system's results.
type SystemReport struct {
	Name         string             `json:"name"`
	Description  string             `json:"description"`
	Overall      Metrics            `json:"overall"`
	ByCategory   map[string]Metrics `json:"byCategory"`
	LatencyP50Ms float64            `json:"latencyP50Ms"`
	LatencyP95Ms float64            `json:"latencyP95Ms"`
	// Misses are the questions whose evidence is not all within the first
	// LoCoMoOptions.MissesAt results (Nova's default system only).
	Misses []Miss `json:"misses,omitempty"`
}

// Miss is one question the system did not fully answer within the cut-off:
// where each evidence turn ranked (0: not returned) and what ranked first.
type Miss struct {
	Question string       `json:"question"`
	Category string       `json:"category"`
	Evidence []RankedTurn `json:"evidence"`
	Top      []RankedTurn `json:"top"`
}

// RankedTurn is a turn at its 1-based rank in one answer.
type RankedTurn struct {
	Rank int    `json:"rank"`
	ID   string `json:"id"`
	Text string `json:"text"`
}

// LoCoMoReport is the result of a LoCoMo run.
type LoCoMoReport struct {
	Dataset       string `json:"dataset"`
	Conversations int    `json:"conversations"`
	Turns         int    `json:"turns"`
	// Questions are the questions asked and scored: those with evidence.
	Questions int `json:"questions"`
	// QuestionsWithoutEvidence are the file's questions left out of
	// every figure: with no evidence turn, they have no recall.
	QuestionsWithoutEvidence int            `json:"questionsWithoutEvidence"`
	Systems                  []SystemReport `json:"systems"`
	// Reference is the published DRAGON figures (dragon-published); a
	// figure the paper does not publish is -1, not a measurement.
	Reference SystemReport `json:"reference"`
	BuildMs   int64        `json:"buildMs"`
	// UnknownEvidence are evidence ids that name no turn of their
	// conversation (typos in the file): no system can find them, and
	// they count as not found, capping every system's recall alike.
	UnknownEvidence []string `json:"unknownEvidence,omitempty"`
	// Ablations are Nova with one lever switched off, asked the same
	// questions in the same run; Gain is Nova minus that system.
	Ablations []Ablation `json:"ablations,omitempty"`
}

// Ablation is the measured gain of one recall lever.
type Ablation struct {
	Lever      string             `json:"lever"`
	Without    SystemReport       `json:"without"`
	Gain       Metrics            `json:"gain"`
	GainByCat  map[string]Metrics `json:"gainByCategory"`
	IndexSide  bool               `json:"indexSide"`
	Definition string             `json:"definition"`
}

// LoCoMoOptions tune a run.
type LoCoMoOptions struct {
	// Home is a scratch runtime home; "" uses a temporary directory.
	Home string
	// Logger receives progress; nil discards.
	Logger *slog.Logger
	// Progress is told how many questions were asked.
	Progress func(done, total int)
	// Config adjusts the default configuration; nil keeps it.
	Config func(*config.Config)
	// Ablate names levers (AblationLevers) to measure: each is switched
	// off in a system of its own, in the same run.
	Ablate []string
	// MissesAt, when above 0, lists the questions Nova misses at this
	// rank in its SystemReport.Misses.
	MissesAt int
	// Now is the clock questions are asked at (relative dates such as
	// "last month" resolve against it); nil uses the day after the
	// conversations' last session, when their questions were written.
	Now func() time.Time
}

// AblationLevers are the levers "--ablate" knows, with what switching
// each off means. Index-side levers need an index of their own.
var AblationLevers = map[string]string{
	LeverContext:              "neighbour context of ±1 turn instead of index.contextTurns",
	lexical.LeverLemmas:       "no lemma table for irregular word forms",
	lexical.LeverSegmentation: "CJK character bigrams only, no dictionary words",
	search.LeverPropagation:   "no neighbour score propagation after fusion",
	search.LeverDates:         "no date prior from the dates the question names, and no memories of those days for a question that names only them",
	search.LeverPerson:        "no prior for memories by the people the question names",
	search.LeverSupersession:  "no newest-state-wins ordering of version chains",
	search.LeverQuestions:     "no down-weighting of dialogue turns that only ask a question",
	search.LeverAnswerType:    "no prior for memories holding the kind of answer the question word asks for",
	search.LeverRelated:       "no words of related meaning searched beside a Chinese question's own",
	search.LeverFollowUps:     "no answer to a follow-up question ranked in place of the statement it followed",
	search.LeverKinship:       "no other everyday names (mum, dad, gran) searched for the family members a question names",
	search.LeverBridges:       "no share of a turn's score lent to the answer of the question asked right after it",
	search.LeverCharacters:    "no Chinese word searched through its characters where the word alone finds nothing",
}

// LeverContext is the index-side neighbour-context window lever.
const LeverContext = "context"

func indexSide(lever string) bool {
	return lever == LeverContext || lever == lexical.LeverLemmas || lever == lexical.LeverSegmentation
}

// Category names of LoCoMo questions.
var categoryNames = map[int]string{1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}

// categoryName is LoCoMo's name of category c, or its number when LoCoMo
// names none.
func categoryName(c int) string {
	if name, ok := categoryNames[c]; ok {
		return name
	}
	return fmt.Sprint(c)
}

type locomoSample struct {
	SampleID     string                     `json:"sample_id"`
	Conversation map[string]json.RawMessage `json:"conversation"`
	QA           []struct {
		Question string          `json:"question"`
		Evidence []string        `json:"evidence"`
		Category int             `json:"category"`
		Answer   json.RawMessage `json:"answer"`
	} `json:"qa"`
}

type locomoTurn struct {
	Speaker string `json:"speaker"`
	DiaID   string `json:"dia_id"`
	Text    string `json:"text"`
	Blip    string `json:"blip_caption"`
}

// Question is one LoCoMo question with its evidence record ids.
type Question struct {
	Project  string
	Text     string
	Category int
	Evidence []string
}

// TurnRecord is one dialogue turn as a jsonl record.
type TurnRecord struct {
	ID      string `json:"id"`
	Text    string `json:"text"`
	Project string `json:"project"`
	Agent   string `json:"agent"`
	Date    string `json:"date,omitempty"`
	Session string `json:"session"`
}

var sessionKey = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^session_(\d+)$`) })

// locomoDate is the layout of LoCoMo's session_N_date_time.
const locomoDate = "3:04 pm on 2 January, 2006"

// DatasetError is a dataset file that cannot be read (Err is then the
// *os.PathError) or measured: not LoCoMo's shape, or nothing in it to
// measure, and the message names the file and the place in it, in the
// file's terms. It tells the file's fault from the run's: a scratch home
// that cannot be made is an *os.PathError too.
type DatasetError struct {
	Err error
}

func (e *DatasetError) Error() string { return e.Err.Error() }

func (e *DatasetError) Unwrap() error { return e.Err }

// LoCoMoCounts is what LoadLoCoMo counts beside the turns and questions
// it returns.
type LoCoMoCounts struct {
	// Conversations is the number of conversations (samples) in the file.
	Conversations int
	// WithoutEvidence is the number of questions left out because they
	// name no evidence turn: no recall of theirs can be measured.
	WithoutEvidence int
}

// LoadLoCoMo converts a LoCoMo file into one record per turn and the
// questions that have evidence. An error about the file's content is a
// *DatasetError.
func LoadLoCoMo(path string) ([]TurnRecord, []Question, LoCoMoCounts, error) {
	recs, qs, n, err := loadLoCoMo(path)
	if err != nil {
		err = &DatasetError{Err: err}
	}
	return recs, qs, n, err
}

// locomoShape is what a LoCoMo file holds, said in the error that finds
// something else.
const locomoShape = "a LoCoMo file is a JSON list of conversations {sample_id, conversation, qa}"

func loadLoCoMo(path string) ([]TurnRecord, []Question, LoCoMoCounts, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, LoCoMoCounts{}, err
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil, LoCoMoCounts{}, fmt.Errorf("%s is empty: %s", path, locomoShape)
	}
	var samples []locomoSample
	if err := json.Unmarshal(raw, &samples); err != nil {
		return nil, nil, LoCoMoCounts{}, locomoError(path, raw, err)
	}
	var recs []TurnRecord
	var qs []Question
	withoutEvidence := 0
	ids := map[string]bool{}
	session := sessionKey()
	for i, s := range samples {
		if s.SampleID == "" {
			return nil, nil, LoCoMoCounts{}, fmt.Errorf("%s: sample %d has no sample_id", path, i+1)
		}
		var sessions []int
		keys := map[int]string{}
		for k := range s.Conversation {
			if m := session.FindStringSubmatch(k); m != nil {
				n, _ := strconv.Atoi(m[1]) // the pattern matched digits
				sessions = append(sessions, n)
				keys[n] = k
			}
		}
		sort.Ints(sessions)
		for _, n := range sessions {
			// Each turn is decoded alone, so that an error names its turn.
			var rawTurns []json.RawMessage
			if err := json.Unmarshal(s.Conversation[keys[n]], &rawTurns); err != nil {
				return nil, nil, LoCoMoCounts{}, fmt.Errorf("%s: %s %s must be a list of turns {speaker, dia_id, text} (got %s)", path, s.SampleID, keys[n], jsonKind(typeErrorValue(err)))
			}
			turns := make([]locomoTurn, len(rawTurns))
			for j, rt := range rawTurns {
				if err := json.Unmarshal(rt, &turns[j]); err != nil {
					return nil, nil, LoCoMoCounts{}, fmt.Errorf("%s: %s %s turn %d: %s", path, s.SampleID, keys[n], j+1, fieldError(err, "a turn is a JSON object {speaker, dia_id, text}"))
				}
			}
			date := ""
			var when string
			dateKey := fmt.Sprintf("session_%d_date_time", n)
			if raw, ok := s.Conversation[dateKey]; ok && json.Unmarshal(raw, &when) == nil {
				t, err := time.Parse(locomoDate, strings.TrimSpace(when))
				if err != nil {
					// Dropped, the session's turns would be scored without
					// a date: the temporal questions measured something else.
					return nil, nil, LoCoMoCounts{}, fmt.Errorf("%s: %s %s %q is not a LoCoMo date (such as %q)", path, s.SampleID, dateKey, when, "1:56 pm on 8 May, 2023")
				}
				date = t.UTC().Format(time.RFC3339)
			}
			for j, t := range turns {
				if t.DiaID == "" {
					return nil, nil, LoCoMoCounts{}, fmt.Errorf("%s: %s %s turn %d has no dia_id", path, s.SampleID, keys[n], j+1)
				}
				// Recall is a share of distinct evidence turns: a repeated
				// id would be found twice.
				id := s.SampleID + ":" + t.DiaID
				if ids[id] {
					return nil, nil, LoCoMoCounts{}, fmt.Errorf("%s: turn %q of conversation %q appears twice (dia_id and sample_id must be unique)", path, t.DiaID, s.SampleID)
				}
				ids[id] = true
				text := t.Speaker + ": " + t.Text
				if t.Blip != "" {
					text += " [image: " + t.Blip + "]"
				}
				recs = append(recs, TurnRecord{ID: id, Text: text, Project: s.SampleID, Agent: t.Speaker, Date: date, Session: fmt.Sprintf("%s:session_%d", s.SampleID, n)})
			}
		}
		for j, q := range s.QA {
			var ev []string
			for _, e := range q.Evidence {
				for _, part := range strings.Split(e, ";") {
					if part = strings.TrimSpace(part); part != "" {
						ev = append(ev, s.SampleID+":"+part)
					}
				}
			}
			if len(ev) == 0 {
				// Said in the report: the questions measured are fewer
				// than the file's.
				withoutEvidence++
				continue
			}
			if strings.TrimSpace(q.Question) == "" {
				return nil, nil, LoCoMoCounts{}, fmt.Errorf("%s: %s qa %d has no question", path, s.SampleID, j+1)
			}
			qs = append(qs, Question{Project: s.SampleID, Text: q.Question, Category: q.Category, Evidence: ev})
		}
	}
	switch {
	case len(recs) == 0:
		return nil, nil, LoCoMoCounts{}, fmt.Errorf("%s holds no dialogue turns (conversation.session_N lists)", path)
	case len(qs) == 0:
		return nil, nil, LoCoMoCounts{}, fmt.Errorf("%s holds no question with evidence (qa[].evidence): nothing to measure", path)
	}
	// Evidence ids that name no turn count as not found (RunLoCoMo names
	// them); when none names one, they are written in another form than
	// the turns' ids, and every system would score 0 for the file's sake.
	if !slices.ContainsFunc(qs, func(q Question) bool { return slices.ContainsFunc(q.Evidence, func(e string) bool { return ids[e] }) }) {
		dia := strings.TrimPrefix(recs[0].ID, recs[0].Project+":")
		return nil, nil, LoCoMoCounts{}, fmt.Errorf("%s: no evidence id of its questions names a turn of their conversation (such as %q, a turn's dia_id): nothing to measure", path, dia)
	}
	return recs, qs, LoCoMoCounts{Conversations: len(samples), WithoutEvidence: withoutEvidence}, nil
}

// locomoError says what is wrong with a file that does not decode as
// LoCoMo's list of conversations, in the file's terms, at the line and
// column where the decoder stopped.
func locomoError(path string, raw []byte, err error) error {
	hint := ""
	if bytes.HasPrefix(bytes.TrimSpace(raw), []byte("{")) {
		// The other kind of eval file, most likely: one case, or
		// several (then not JSON past the first line).
		hint = " (recall cases, one JSON object per line, are novactl eval --queries FILE's)"
	}
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax) && syntax.Offset >= int64(len(raw)):
		return fmt.Errorf("%s:%s: not JSON: the file ends before its JSON closes", path, lineCol(raw, syntax.Offset))
	case errors.As(err, &syntax):
		return fmt.Errorf("%s:%s: not JSON: %s%s", path, lineCol(raw, syntax.Offset), syntax.Error(), hint)
	case errors.As(err, &typ) && typ.Field == "" && typ.Type.Kind() == reflect.Slice:
		return fmt.Errorf("%s: %s (got %s)%s", path, locomoShape, jsonKind(typ.Value), hint)
	case errors.As(err, &typ):
		return fmt.Errorf("%s:%s: %s", path, lineCol(raw, typ.Offset), fieldError(err, "a conversation is a JSON object {sample_id, conversation, qa}"))
	}
	return fmt.Errorf("%s: %w", path, err)
}

// fieldError says which field of a JSON object has the wrong kind of
// value, or, for the object itself, what it should be (whole).
func fieldError(err error, whole string) string {
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &typ) && typ.Field == "":
		return whole + " (got " + jsonKind(typ.Value) + ")"
	case errors.As(err, &typ):
		return typ.Field + " must be " + goKind(typ.Type) + " (got " + jsonKind(typ.Value) + ")"
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// typeErrorValue is the JSON kind an *json.UnmarshalTypeError found, ""
// for any other error.
func typeErrorValue(err error) string {
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		return typ.Value
	}
	return ""
}

// lineCol is the 1-based line and column (in bytes) of the last byte the
// decoder read before it stopped, given its offset (bytes read): the
// offending character, the opening bracket of a list or object of the
// wrong kind, or the end of a scalar of the wrong kind; an editor's
// go-to-line takes it.
func lineCol(raw []byte, offset int64) string {
	before := raw[:min(max(offset-1, 0), int64(len(raw)))]
	line := bytes.Count(before, []byte("\n")) + 1
	col := len(before) - bytes.LastIndexByte(before, '\n')
	return fmt.Sprintf("%d:%d", line, col)
}

// RunLoCoMo indexes the file's turns with Nova's default configuration and
// asks every question (project set to its conversation), reporting Nova,
// Nova with the dense channel off, and a plain BM25 baseline, all in the
// same run.
func RunLoCoMo(ctx context.Context, path string, opts LoCoMoOptions) (*LoCoMoReport, error) {
	recs, qs, counts, err := LoadLoCoMo(path)
	if err != nil {
		return nil, err
	}
	home := opts.Home
	if home == "" {
		dir, err := os.MkdirTemp("", "nova-locomo-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		home = dir
	}
	dataDir := filepath.Join(home, "data")
	if err := paths.MkdirPrivate(dataDir); err != nil {
		return nil, err
	}
	f, err := paths.CreatePrivate(filepath.Join(dataDir, "locomo.jsonl"))
	if err != nil {
		return nil, err
	}
	enc := json.NewEncoder(f)
	enc.SetEscapeHTML(false)
	for _, r := range recs {
		if err := enc.Encode(r); err != nil {
			f.Close()
			return nil, err
		}
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	for _, l := range opts.Ablate {
		if _, ok := AblationLevers[l]; !ok {
			return nil, fmt.Errorf("unknown lever %q (known: %s)", l, strings.Join(SortedLevers(), ", "))
		}
	}
	cfg := config.Defaults()
	cfg.Sources = []config.Source{{Name: "locomo", Kind: config.KindJSONL, Path: dataDir, SourceSet: "filtered-dialogue-daily"}}
	if opts.Config != nil {
		opts.Config(&cfg)
	}
	now := opts.Now
	if now == nil {
		var last time.Time
		for _, r := range recs {
			if t, err := time.Parse(time.RFC3339, r.Date); err == nil && t.After(last) {
				last = t
			}
		}
		if last.IsZero() {
			last = time.Now()
		}
		asked := last.AddDate(0, 0, 1)
		now = func() time.Time { return asked }
	}
	// build indexes the turns into its own home under the scratch home
	// and opens the generation.
	build := func(name string, adjust func(*config.Config), lopts lexical.Options) (*search.Snapshot, *lexical.Analyzer, config.Config, int64, error) {
		c := cfg
		c.Home = paths.Home{Root: filepath.Join(home, name)}
		if adjust != nil {
			adjust(&c)
		}
		if err := c.Validate(); err != nil {
			return nil, nil, c, 0, err
		}
		analyzer := lexical.NewAnalyzerWith(lopts)
		t0 := time.Now()
		ix := index.New(c, index.Options{Logger: opts.Logger, NoRemote: true, Analyzer: analyzer})
		if _, err := ix.Sync(ctx); err != nil {
			return nil, nil, c, 0, fmt.Errorf("index the LoCoMo turns: %w", err)
		}
		ms := time.Since(t0).Milliseconds()
		_, g, err := index.OpenActive(ctx, c.Home, analyzer)
		if err != nil {
			return nil, nil, c, 0, err
		}
		return &search.Snapshot{Gen: g, Query: g.Model}, analyzer, c, ms, nil
	}
	snap, analyzer, cfg, buildMs, err := build("nova", nil, lexical.Options{})
	if err != nil {
		return nil, err
	}
	rep := &LoCoMoReport{Dataset: filepath.Base(path), Conversations: counts.Conversations, Turns: len(recs), Questions: len(qs),
		QuestionsWithoutEvidence: counts.WithoutEvidence, BuildMs: buildMs}
	turnIDs := make(map[string]bool, len(recs))
	for _, r := range recs {
		turnIDs[r.ID] = true
	}
	for _, q := range qs {
		for _, e := range q.Evidence {
			if !turnIDs[e] && !slices.Contains(rep.UnknownEvidence, e) {
				rep.UnknownEvidence = append(rep.UnknownEvidence, e)
			}
		}
	}

	novaRun := func(name, desc string, snap *search.Snapshot, analyzer *lexical.Analyzer, dense bool, off map[string]bool) (SystemReport, [][]string, error) {
		ec := search.ConfigFor(cfg.Retrieval)
		ec.Dense = dense
		ec.Now = now
		// The session times are read as UTC and the clock is fixed: the
		// zone is fixed too, so the figures do not depend on the machine.
		ec.Location = time.UTC
		ec.Off = off
		engine := search.New(ec, analyzer)
		return runSystem(name, desc, qs, opts.Progress, func(q Question) ([]string, error) {
			ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
			defer cancel()
			resp, err := engine.Search(ctx, snap, api.SearchRequest{Query: q.Text, TopK: api.MaxTopK, Filters: api.Filters{Project: q.Project}, IncludeFullText: false})
			if err != nil {
				return nil, err
			}
			ids := make([]string, len(resp.Results))
			for i, r := range resp.Results {
				ids[i] = r.Provenance.SourceID
			}
			return ids, nil
		})
	}
	dense := cfg.Retrieval.DenseChannel == "on"
	nova, answers, err := novaRun("nova", "Nova default configuration: multi-pass hybrid (BM25 + builtin corpus-trained dense), neighbour context, evidence adjustments, recall levers", snap, analyzer, dense, nil)
	if err != nil {
		return nil, err
	}
	if opts.MissesAt > 0 {
		nova.Misses = misses(qs, answers, recs, opts.MissesAt)
	}
	lexOnly, _, err := novaRun("nova-dense-off", "Nova with the dense channel switched off (retrieval.denseChannel: off)", snap, analyzer, false, nil)
	if err != nil {
		return nil, err
	}
	base := plainBM25(recs)
	bm25, _, err := runSystem("bm25-plain", "Plain BM25 (k1 1.2, b 0.75) over each turn's text alone: lower-case words, no stemming, no stop words, no context", qs, opts.Progress, func(q Question) ([]string, error) {
		return base.search(q.Project, q.Text, api.MaxTopK), nil
	})
	if err != nil {
		return nil, err
	}
	rep.Systems = []SystemReport{nova, lexOnly, bm25}
	rep.Reference = SystemReport{Name: "dragon-published", Description: "DRAGON dense retriever, dialog units, all ten LoCoMo conversations (Maharana et al., ACL 2024, Table 3)", Overall: DRAGON}
	for _, lever := range opts.Ablate {
		s, a := snap, analyzer
		var off map[string]bool
		if indexSide(lever) {
			var adjust func(*config.Config)
			var lopts lexical.Options
			switch lever {
			case LeverContext:
				adjust = func(c *config.Config) { c.Index.ContextTurns = min(c.Index.ContextTurns, 1) }
			case lexical.LeverLemmas:
				lopts.NoLemmas = true
			case lexical.LeverSegmentation:
				lopts.NoSegmentation = true
			}
			if s, a, _, _, err = build("without-"+lever, adjust, lopts); err != nil {
				return nil, err
			}
		} else {
			off = map[string]bool{lever: true}
		}
		without, _, err := novaRun("nova-without-"+lever, AblationLevers[lever], s, a, dense, off)
		if err != nil {
			return nil, err
		}
		ab := Ablation{Lever: lever, Without: without, Gain: diff(nova.Overall, without.Overall), GainByCat: map[string]Metrics{}, IndexSide: indexSide(lever), Definition: AblationLevers[lever]}
		for c, m := range nova.ByCategory {
			ab.GainByCat[c] = diff(m, without.ByCategory[c])
		}
		rep.Ablations = append(rep.Ablations, ab)
	}
	return rep, nil
}

// diff is a minus b, metric by metric.
func diff(a, b Metrics) Metrics {
	return Metrics{Questions: a.Questions, RecallAt1: scalar.Round(a.RecallAt1-b.RecallAt1, 4), RecallAt5: scalar.Round(a.RecallAt5-b.RecallAt5, 4),
		RecallAt10: scalar.Round(a.RecallAt10-b.RecallAt10, 4), RecallAt20: scalar.Round(a.RecallAt20-b.RecallAt20, 4), MRR: scalar.Round(a.MRR-b.MRR, 4), NDCG10: scalar.Round(a.NDCG10-b.NDCG10, 4)}
}

// SortedLevers returns the names of AblationLevers, sorted.
func SortedLevers() []string {
	out := make([]string, 0, len(AblationLevers))
	for l := range AblationLevers {
		out = append(out, l)
	}
	sort.Strings(out)
	return out
}

// runSystem asks every question and scores the answers; it also returns
// each question's ranked turn IDs.
func runSystem(name, desc string, qs []Question, progress func(int, int), ask func(Question) ([]string, error)) (SystemReport, [][]string, error) {
	type acc struct {
		n                           int
		r1, r5, r10, r20, mrr, ndcg float64
	}
	overall := &acc{}
	byCat := map[string]*acc{}
	var lat []float64
	answers := make([][]string, len(qs))
	for i, q := range qs {
		t0 := time.Now()
		ranked, err := ask(q)
		if err != nil {
			return SystemReport{}, nil, fmt.Errorf("%s: question %d: %w", name, i+1, err)
		}
		answers[i] = ranked
		lat = append(lat, float64(time.Since(t0).Microseconds())/1000)
		rel := map[string]bool{}
		for _, e := range q.Evidence {
			rel[e] = true
		}
		cat := categoryName(q.Category)
		if byCat[cat] == nil {
			byCat[cat] = &acc{}
		}
		for _, a := range []*acc{overall, byCat[cat]} {
			a.n++
			a.r1 += RecallAt(ranked, rel, 1)
			a.r5 += RecallAt(ranked, rel, 5)
			a.r10 += RecallAt(ranked, rel, 10)
			a.r20 += RecallAt(ranked, rel, 20)
			a.mrr += MRR(ranked, rel)
			a.ndcg += NDCG(ranked, rel, 10)
		}
		if progress != nil {
			progress(i+1, len(qs))
		}
	}
	mk := func(a *acc) Metrics {
		n := float64(max(1, a.n))
		return Metrics{Questions: a.n, RecallAt1: scalar.Round(a.r1/n, 4), RecallAt5: scalar.Round(a.r5/n, 4), RecallAt10: scalar.Round(a.r10/n, 4),
			RecallAt20: scalar.Round(a.r20/n, 4), MRR: scalar.Round(a.mrr/n, 4), NDCG10: scalar.Round(a.ndcg/n, 4)}
	}
	rep := SystemReport{Name: name, Description: desc, Overall: mk(overall), ByCategory: map[string]Metrics{},
		LatencyP50Ms: scalar.Round(Percentile(lat, 0.5), 4), LatencyP95Ms: scalar.Round(Percentile(lat, 0.95), 4)}
	for c, a := range byCat {
		rep.ByCategory[c] = mk(a)
	}
	return rep, answers, nil
}

// misses lists the questions whose evidence is not all within the first k
// of their answers.
func misses(qs []Question, answers [][]string, recs []TurnRecord, k int) []Miss {
	text := make(map[string]string, len(recs))
	for _, r := range recs {
		text[r.ID] = r.Text
	}
	var out []Miss
	for i, q := range qs {
		rank := map[string]int{}
		for j, id := range answers[i] {
			if _, seen := rank[id]; !seen {
				rank[id] = j + 1
			}
		}
		m := Miss{Question: q.Text, Category: categoryName(q.Category)}
		missed := false
		for _, e := range q.Evidence {
			r := rank[e]
			missed = missed || r == 0 || r > k
			m.Evidence = append(m.Evidence, RankedTurn{Rank: r, ID: e, Text: text[e]})
		}
		if !missed {
			continue
		}
		for j, id := range answers[i][:min(3, len(answers[i]))] {
			m.Top = append(m.Top, RankedTurn{Rank: j + 1, ID: id, Text: text[id]})
		}
		out = append(out, m)
	}
	return out
}

// bm25Baseline is the plain BM25 the issue asks to compare with: the
// turn's own text, lower-case word tokens, nothing else.
type bm25Baseline struct {
	ix       *lexical.Index
	ids      []string
	projects []string
}

func plainTokens(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

func plainBM25(recs []TurnRecord) *bm25Baseline {
	base := &bm25Baseline{}
	docs := make([][]string, 0, len(recs))
	for _, r := range recs {
		docs = append(docs, plainTokens(r.Text))
		base.ids = append(base.ids, r.ID)
		base.projects = append(base.projects, r.Project)
	}
	base.ix = lexical.Build(docs, 0.75) // the textbook's b, as the report says
	return base
}

func (b *bm25Baseline) search(project, q string, k int) []string {
	hits := b.ix.Search(plainTokens(q), k, func(d int) bool { return b.projects[d] == project })
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = b.ids[h.Doc]
	}
	return out
}
