// Package bench measures Nova's indexing and search speed against what
// users would pick instead, in one reproducible run: a seeded generator of
// agent-transcript-like records and queries, and a runner that times
// `index sync`, generation load, Nova's full search pipeline, BM25 alone,
// the dense channel alone and SQLite FTS5 (the engine basic-memory, qmd
// and claude-mem use) over the same records, and, optionally, the real
// novad's memory and throughput on loopback. `novactl bench` is its
// command line.
package bench

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/nova-recall/nova/truncate"
)

// GeneratorVersion names the generator's output: two corpora with the same
// version, options and seed are byte-identical.
const GeneratorVersion = "nova-bench-corpus-v1"

// DefaultChineseShare is the share of sessions written in Chinese unless
// told otherwise.
const DefaultChineseShare = 0.10

// Record length bounds, in characters.
const (
	MinRecordChars = 30
	MaxRecordChars = 1200
)

// CorpusOptions describe a corpus. The same options give the same corpus.
type CorpusOptions struct {
	// Records is the number of records.
	Records int `json:"records"`
	// Seed makes the corpus; the same seed gives the same records.
	Seed int64 `json:"seed"`
	// ChineseShare is the share (0-1) of sessions written in Chinese
	// (with English identifiers and code words mixed in, as such
	// transcripts are). DefaultChineseShare is the usual value.
	ChineseShare float64 `json:"chineseShare"`
	// Start is the date of the first session; zero means 2024-01-01 UTC.
	Start time.Time `json:"start"`
	// Days is the span the sessions are spread over; 0 means 540.
	Days int `json:"days"`
}

// Record is one generated memory, in the shape of a jsonl source line.
type Record struct {
	// ID is "<session>-t<turn>", unique and stable for a seed.
	ID      string   `json:"id"`
	Text    string   `json:"text"`
	Date    string   `json:"date"`
	Agent   string   `json:"agent"`
	Role    string   `json:"role"`
	Project string   `json:"project"`
	Session string   `json:"session"`
	Tags    []string `json:"tags"`
}

// Corpus generates records on demand: Record(i) is a pure function of the
// options and i, so a corpus of a million records never has to be held in
// memory, and the query generator can look at any record again.
type Corpus struct {
	*vocabulary // the word lists (vocab)

	opts      CorpusOptions
	starts    []int // first record of each session, plus len sentinel
	symbols   []string
	funcZ     *zipf
	genZ      *zipf
	symZ      *zipf
	chZ       *zipf
	projZ     *zipf
	agentZ    *zipf
	topicZ    []*zipf
	wordProb  map[string]float64
	vocab     map[string]bool
	spanStart time.Time
}

// Word class probabilities of an English sentence position.
const (
	pFunction = 0.40
	pTopic    = 0.30
	pGeneral  = 0.23
	pSymbol   = 0.07
)

// numSymbols is the size of the synthesized code-symbol vocabulary (the
// long tail: parseConfigFile, retry_backoff_ms, ...).
const numSymbols = 40_000

// NewCorpus prepares a corpus.
func NewCorpus(opts CorpusOptions) *Corpus {
	if opts.Records < 0 {
		opts.Records = 0
	}
	if opts.Start.IsZero() {
		opts.Start = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	if opts.Days <= 0 {
		opts.Days = 540
	}
	opts.ChineseShare = math.Max(0, math.Min(1, opts.ChineseShare))
	v := vocab()
	c := &Corpus{
		vocabulary: v,
		opts:       opts,
		funcZ:      newZipf(len(v.functionWords), 1.0),
		genZ:       newZipf(len(v.generalWords), 1.05),
		symZ:       newZipf(numSymbols, 1.0),
		chZ:        newZipf(len(v.chineseWords), 1.0),
		projZ:      newZipf(len(v.projects), 1.1),
		agentZ:     newZipf(len(v.agents), 1.2),
		spanStart:  opts.Start.UTC(),
	}
	// Sessions: consecutive turns, 2 to 40 of them, about 12 on average.
	r := c.rng(0xa11ce, 0)
	for n := 0; n < opts.Records; {
		c.starts = append(c.starts, n)
		l := int(math.Round(math.Exp(2.3 + 0.6*r.NormFloat64())))
		n += min(40, max(2, l))
	}
	c.starts = append(c.starts, opts.Records)
	for _, t := range c.topics {
		c.topicZ = append(c.topicZ, newZipf(len(t), 0.8))
	}
	c.symbols = makeSymbols(c.rng(0x5e3b01, 0), v)
	c.wordProb = map[string]float64{}
	c.vocab = map[string]bool{}
	add := func(w string, p float64) {
		c.wordProb[strings.ToLower(w)] += p
		c.vocab[strings.ToLower(w)] = true
	}
	for i, w := range c.functionWords {
		add(w, pFunction*c.funcZ.p(i))
	}
	for ti, t := range c.topics {
		for i, w := range t {
			add(w, pTopic/float64(len(c.topics))*c.topicZ[ti].p(i))
		}
	}
	for i, w := range c.generalWords {
		add(w, pGeneral*c.genZ.p(i))
	}
	for i, w := range c.symbols {
		add(w, pSymbol*c.symZ.p(i))
	}
	for i, w := range c.chineseWords {
		add(w, c.chZ.p(i))
	}
	return c
}

// Options returns the corpus' options (with defaults filled in).
func (c *Corpus) Options() CorpusOptions { return c.opts }

// Len is the number of records.
func (c *Corpus) Len() int { return c.opts.Records }

// Sessions is the number of sessions.
func (c *Corpus) Sessions() int { return len(c.starts) - 1 }

// rng returns the generator's random source for one purpose and index.
func (c *Corpus) rng(purpose uint64, i uint64) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(c.opts.Seed)^purpose*0x9e3779b97f4a7c15, i))
}

// session holds what the turns of one session share.
type session struct {
	id       string
	project  string
	agent    string
	topic    int
	topic2   int // -1: none
	chinese  bool
	start    time.Time
	entities []string // identifiers the session keeps talking about
}

func (c *Corpus) session(s int) session {
	r := c.rng(0x5e55, uint64(s))
	ss := session{
		id:      fmt.Sprintf("sess-%06d", s),
		project: c.projects[c.projZ.draw(r)],
		agent:   c.agents[c.agentZ.draw(r)],
		topic:   r.IntN(len(c.topics)),
		topic2:  -1,
	}
	if r.Float64() < 0.3 {
		ss.topic2 = r.IntN(len(c.topics))
	}
	ss.chinese = r.Float64() < c.opts.ChineseShare
	n := c.Sessions()
	day := 0
	if n > 0 {
		day = s * c.opts.Days / n
	}
	ss.start = c.spanStart.AddDate(0, 0, day).Add(time.Duration(7+r.IntN(16))*time.Hour + time.Duration(r.IntN(60))*time.Minute)
	ss.entities = []string{
		fmt.Sprintf("%s-%d", c.ticketPrefixes[r.IntN(len(c.ticketPrefixes))], 1+r.IntN(9999)),
		c.fileName(r, ss.topic),
		"port " + strconv.Itoa(c.port(r)),
	}
	return ss
}

func (c *Corpus) fileName(r *rand.Rand, topic int) string {
	t := c.topics[topic]
	name := strings.ReplaceAll(t[r.IntN(len(t))], "-", "_")
	if r.Float64() < 0.4 {
		name += "_" + strings.ReplaceAll(c.generalWords[c.genZ.draw(r)], "-", "_")
	}
	return c.fileDirs[r.IntN(len(c.fileDirs))] + "/" + name + c.fileExts[r.IntN(len(c.fileExts))]
}

func (c *Corpus) port(r *rand.Rand) int {
	if r.Float64() < 0.8 {
		return commonPorts[r.IntN(len(commonPorts))]
	}
	return 1024 + r.IntN(64511)
}

// sessionOf returns the session index of record i.
func (c *Corpus) sessionOf(i int) int {
	return sort.Search(len(c.starts)-1, func(s int) bool { return c.starts[s+1] > i })
}

// genRecord is a record with what the query generator needs to know.
type genRecord struct {
	Record
	index   int
	chinese bool
	topic   int
	words   []string // distinct content words, in order of appearance
	rareIDs []string // identifiers that (almost) only this record holds
}

// Record returns record i (0 <= i < Len()).
func (c *Corpus) Record(i int) Record { return c.record(i).Record }

func (c *Corpus) record(i int) genRecord {
	s := c.sessionOf(i)
	ss := c.session(s)
	turn := i - c.starts[s]
	r := c.rng(0x7ec0, uint64(i))
	g := genRecord{index: i, chinese: ss.chinese, topic: ss.topic}
	g.ID = fmt.Sprintf("%s-t%03d", ss.id, turn)
	g.Session, g.Project, g.Agent = ss.id, ss.project, ss.agent
	g.Role = "user"
	if turn%2 == 1 {
		g.Role = "assistant"
	}
	g.Date = ss.start.Add(time.Duration(turn*4+r.IntN(4))*time.Minute + time.Duration(r.IntN(60))*time.Second).Format(time.RFC3339)
	for _, t := range c.tagWords {
		if r.Float64() < 0.06 {
			g.Tags = append(g.Tags, t)
		}
	}

	// Length: log-normal, assistants longer than users.
	mu := math.Log(150)
	if g.Role == "assistant" {
		mu = math.Log(300)
	}
	target := min(MaxRecordChars, max(MinRecordChars, int(math.Exp(mu+0.8*r.NormFloat64()))))

	// Identifiers this record mentions.
	var inserts []string
	if r.Float64() < 0.30 {
		h := hexString(r, []int{7, 7, 7, 12, 40}[r.IntN(5)])
		g.rareIDs = append(g.rareIDs, h)
		inserts = append(inserts, []string{"commit " + h, h, "at " + h}[r.IntN(3)])
	}
	if r.Float64() < 0.15 {
		t := fmt.Sprintf("%s-%d", c.ticketPrefixes[r.IntN(len(c.ticketPrefixes))], 10000+r.IntN(90000))
		g.rareIDs = append(g.rareIDs, t)
		inserts = append(inserts, t)
	}
	if r.Float64() < 0.40 {
		inserts = append(inserts, ss.entities[r.IntN(len(ss.entities))])
	}
	if r.Float64() < 0.10 {
		inserts = append(inserts, c.fileName(r, ss.topic))
	}
	if r.Float64() < 0.08 {
		d := c.spanStart.AddDate(0, 0, r.IntN(c.opts.Days))
		inserts = append(inserts, "on "+d.Format("2006-01-02"))
	}

	seen := map[string]bool{}
	content := func(w string) string {
		if !seen[w] {
			seen[w] = true
			g.words = append(g.words, w)
		}
		return w
	}
	topicWord := func() string {
		t := ss.topic
		if ss.topic2 >= 0 && r.Float64() < 0.3 {
			t = ss.topic2
		}
		return c.topics[t][c.topicZ[t].draw(r)]
	}
	var b strings.Builder
	runes := 0
	write := func(s string) { b.WriteString(s); runes += utf8.RuneCountInString(s) }
	for runes < target || len(inserts) > 0 {
		if runes > 0 {
			write(" ")
		}
		if ss.chinese {
			c.chineseSentence(r, &inserts, write, content, topicWord)
		} else {
			c.englishSentence(r, g.Role, &inserts, write, content, topicWord)
		}
	}
	full := b.String()
	g.Text = truncate.Words(full, MaxRecordChars)
	if len(g.Text) < len(full) {
		// The cut may have lost words and identifiers near the end.
		g.rareIDs = keepPresent(g.Text, g.rareIDs)
		g.words = keepPresent(g.Text, g.words)
	}
	return g
}

func (c *Corpus) englishSentence(r *rand.Rand, role string, inserts *[]string, write func(string), content func(string) string, topicWord func() string) {
	n := 5 + r.IntN(13)
	words := make([]string, 0, n+1)
	for k := 0; k < n; k++ {
		switch x := r.Float64(); {
		case x < pFunction:
			words = append(words, c.functionWords[c.funcZ.draw(r)])
		case x < pFunction+pTopic:
			words = append(words, content(topicWord()))
		case x < pFunction+pTopic+pGeneral:
			words = append(words, content(c.generalWords[c.genZ.draw(r)]))
		default:
			words = append(words, content(c.symbols[c.symZ.draw(r)]))
		}
	}
	if len(*inserts) > 0 {
		at := r.IntN(len(words) + 1)
		words = append(words[:at], append([]string{(*inserts)[0]}, words[at:]...)...)
		*inserts = (*inserts)[1:]
	}
	if r.Float64() < 0.2 && len(words) > 6 {
		words[3] += ","
	}
	s := strings.Join(words, " ")
	s = upperFirst(s)
	switch {
	case role == "user" && r.Float64() < 0.3:
		s += "?"
	case r.Float64() < 0.05:
		s += ":"
	default:
		s += "."
	}
	write(s)
}

func (c *Corpus) chineseSentence(r *rand.Rand, inserts *[]string, write func(string), content func(string) string, topicWord func() string) {
	n := 3 + r.IntN(8)
	var b strings.Builder
	for k := 0; k < n; k++ {
		x := r.Float64()
		switch {
		case x < 0.82:
			b.WriteString(content(c.chineseWords[c.chZ.draw(r)]))
		case x < 0.94:
			b.WriteString(" " + content(topicWord()) + " ")
		default:
			b.WriteString(" " + content(c.symbols[c.symZ.draw(r)]) + " ")
		}
		if k == n/2 && n > 5 {
			b.WriteString("，")
		}
	}
	if len(*inserts) > 0 {
		b.WriteString(" " + (*inserts)[0] + " ")
		*inserts = (*inserts)[1:]
	}
	s := strings.TrimSpace(strings.ReplaceAll(b.String(), "  ", " "))
	if r.Float64() < 0.2 {
		s += "？"
	} else {
		s += "。"
	}
	write(s)
}

// CorpusStats describes a written corpus.
type CorpusStats struct {
	// Records, Sessions and ChineseRecords count what was written; Bytes
	// is the JSONL size; the *Chars fields describe text lengths in
	// characters.
	Records        int   `json:"records"`
	Sessions       int   `json:"sessions"`
	ChineseRecords int   `json:"chineseRecords"`
	Bytes          int64 `json:"bytes"`
	TextChars      int64 `json:"textChars"`
	MinChars       int   `json:"minChars"`
	MaxChars       int   `json:"maxChars"`
	MedianChars    int   `json:"medianChars"`
}

// WriteJSONL writes every record as one JSON line.
func (c *Corpus) WriteJSONL(w io.Writer) (CorpusStats, error) {
	bw := bufio.NewWriterSize(w, 1<<20)
	cw := &countWriter{w: bw}
	enc := json.NewEncoder(cw)
	enc.SetEscapeHTML(false)
	st := CorpusStats{Records: c.Len(), Sessions: c.Sessions(), MinChars: math.MaxInt}
	hist := make([]int, MaxRecordChars+1)
	for i := 0; i < c.Len(); i++ {
		g := c.record(i)
		if g.chinese {
			st.ChineseRecords++
		}
		n := utf8.RuneCountInString(g.Text)
		st.TextChars += int64(n)
		st.MinChars, st.MaxChars = min(st.MinChars, n), max(st.MaxChars, n)
		hist[min(n, MaxRecordChars)]++
		if err := enc.Encode(&g.Record); err != nil {
			return st, err
		}
	}
	if err := bw.Flush(); err != nil {
		return st, err
	}
	if c.Len() == 0 {
		st.MinChars = 0
	}
	for n, acc := 0, 0; n < len(hist); n++ {
		acc += hist[n]
		if acc*2 >= c.Len() && c.Len() > 0 {
			st.MedianChars = n
			break
		}
	}
	st.Bytes = cw.n
	return st, nil
}

type countWriter struct {
	w io.Writer
	n int64
}

// Write implements io.Writer.
func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// makeSymbols synthesizes code symbols from the vocabulary: camelCase,
// snake_case, PascalCase and kebab-case joins of two or three words.
func makeSymbols(r *rand.Rand, v *vocabulary) []string {
	var pool []string
	for _, t := range v.topics {
		pool = append(pool, t...)
	}
	pool = append(pool, v.generalWords...)
	clean := pool[:0]
	for _, w := range pool {
		if !strings.Contains(w, "-") {
			clean = append(clean, w)
		}
	}
	pool = clean
	seen := map[string]bool{}
	out := make([]string, 0, numSymbols)
	for len(out) < numSymbols {
		n := 2 + r.IntN(2)
		parts := make([]string, n)
		for k := range parts {
			parts[k] = pool[r.IntN(len(pool))]
		}
		var s string
		switch r.IntN(4) {
		case 0:
			s = parts[0]
			for _, p := range parts[1:] {
				s += upperFirst(p)
			}
		case 1:
			s = strings.Join(parts, "_")
		case 2:
			for _, p := range parts {
				s += upperFirst(p)
			}
		default:
			s = strings.Join(parts, "-")
		}
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// keepPresent returns the items of list that occur in text as whole words.
func keepPresent(text string, list []string) []string {
	var out []string
	for _, w := range list {
		if r, _ := utf8.DecodeRuneInString(w); unicode.Is(unicode.Han, r) {
			if strings.Contains(text, w) {
				out = append(out, w)
			}
			continue
		}
		for from := 0; ; {
			k := strings.Index(text[from:], w)
			if k < 0 {
				break
			}
			a, b := from+k, from+k+len(w)
			before, _ := utf8.DecodeLastRuneInString(text[:a])
			after, _ := utf8.DecodeRuneInString(text[b:])
			if !isWordChar(before) && !isWordChar(after) {
				out = append(out, w)
				break
			}
			from = b
		}
	}
	return out
}

func isWordChar(r rune) bool {
	return r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-')
}

func hexString(r *rand.Rand, n int) string {
	const digits = "0123456789abcdef"
	b := make([]byte, n)
	for i := range b {
		b[i] = digits[r.IntN(16)]
	}
	// A hash of digits only reads as a number; real short hashes almost
	// always hold a letter.
	if strings.Trim(string(b), "0123456789") == "" {
		b[0] = 'a'
	}
	return string(b)
}

func upperFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// zipf draws ranks 0..n-1 with probability proportional to 1/(rank+1)^s.
type zipf struct{ cdf []float64 }

func newZipf(n int, s float64) *zipf {
	cdf := make([]float64, n)
	var sum float64
	for i := 0; i < n; i++ {
		sum += 1 / math.Pow(float64(i+1), s)
		cdf[i] = sum
	}
	for i := range cdf {
		cdf[i] /= sum
	}
	return &zipf{cdf: cdf}
}

func (z *zipf) draw(r *rand.Rand) int {
	u := r.Float64()
	i := sort.SearchFloat64s(z.cdf, u)
	return min(i, len(z.cdf)-1)
}

func (z *zipf) p(i int) float64 {
	if i == 0 {
		return z.cdf[0]
	}
	return z.cdf[i] - z.cdf[i-1]
}
