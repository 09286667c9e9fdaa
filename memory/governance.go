package memory

import (
	"math"
	"slices"
	"strings"
	"unicode"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/suggest"
)

// Policy is the governance of one source set (upstream §1.3).
type Policy struct {
	AuthorityRank     int
	Lifecycle         string
	Retention         string
	RetrievalWeight   float64
	CanonicalEligible bool
}

// TaskBoardSnapshot is the source set of task-board snapshots: each
// section of a board is the state of a card, which the same section of
// a newer snapshot supersedes (Chunk.Subject).
const TaskBoardSnapshot = "task-board-snapshot"

// UntitledCard begins the subject of a task-board section whose heading
// path names no board (no title above its lanes and cards): the same
// heading on another board ("## Todo" of frontend.md and of backend.md)
// is another card, so its version chain holds only the snapshots of its
// own board.
const UntitledCard = "untitled:"

// Source sets with a fixed policy. Unknown source sets get UnknownPolicy.
var policies = map[string]Policy{
	"filtered-dialogue-daily":         {78, "episodic", "rolling-observation", 0.99, false},
	"lessons":                         {95, "canonical", "long-term", 1.10, true},
	"foundation-usage-rollups":        {82, "metric", "materialized-fact", 1.03, true},
	"foundation-dashboard-snapshots":  {82, "snapshot", "materialized-fact", 1.03, true},
	"diary-markdown-sections":         {90, "narrative", "generated-report", 1.06, true},
	"diary-markdown-embedded-json":    {86, "structured-report", "generated-report", 1.03, true},
	"technical-report-task-events":    {88, "task-history", "historical-observation", 1.06, false},
	"nova-task-work-graph-events":     {91, "work-graph", "current-state", 1.08, true},
	"nova-task-reconciliation-events": {86, "legacy-task-reconciliation", "historical-observation", 1.02, false},
	"task-board-snapshot":             {92, "current-state", "current-state", 1.08, true},
	"foundation-period-projections":   {82, "period-summary", "materialized-fact", 1.03, true},
	"external-content":                {55, "operator-source", "operator-controlled", 1.00, false},
	"agent-transcripts":               {78, "episodic", "rolling-observation", 0.99, false},
	"notes":                           {85, "canonical", "long-term", 1.04, true},
}

// UnknownPolicy applies to source sets the table does not know.
var UnknownPolicy = Policy{50, "unknown", "operator-controlled", 1.00, false}

// PolicyFor returns the governance policy of a source set (as
// SourceSetName reads it).
func PolicyFor(sourceSet string) Policy {
	if p, ok := policies[SourceSetName(sourceSet)]; ok {
		return p
	}
	return UnknownPolicy
}

// KnownSourceSet reports whether the policy table knows sourceSet (as
// SourceSetName reads it).
func KnownSourceSet(sourceSet string) bool {
	_, ok := policies[SourceSetName(sourceSet)]
	return ok
}

// KnownSourceSets returns the names of the source sets the policy table
// knows, sorted.
func KnownSourceSets() []string {
	names := make([]string, 0, len(policies))
	for n := range policies {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// MisspelledSourceSet returns the known source set that sourceSet most
// likely misspells ("lesons": lessons), or "" when sourceSet is known or
// is a set of the user's own: far from every known name, or a known name
// extended past a separator or by a digit ("notes2", "lessons-old"),
// named after one of Nova's on purpose.
func MisspelledSourceSet(sourceSet string) string {
	if sourceSet == "" || KnownSourceSet(sourceSet) {
		return ""
	}
	name := foldName(strings.TrimSpace(sourceSet))
	near := suggest.Nearest(name, KnownSourceSets())
	if ext, extended := strings.CutPrefix(name, near); near == "" || extended && strings.ContainsAny(ext[:min(1, len(ext))], "-0123456789") {
		return ""
	}
	return near
}

// SourceSetName returns the wire name of the source set s names: s
// written with other capitals, surrounding space or '_' for '-'
// ("Lessons", "task_board_snapshot") is the known source set it spells,
// as a hand-written config or record names it, and a collector alias
// upstream accepts is the source set it collects; any other s is returned
// trimmed (an unknown source set keeps its own name).
func SourceSetName(s string) string {
	n := wireName(s, func(n string) bool { _, ok := policies[n]; return ok || sourceSetAliases[n] != "" })
	if a := sourceSetAliases[n]; a != "" {
		return a
	}
	return n
}

// sourceSetAliases are the collector names upstream accepts for a source
// set in its configured list (upstream §1.4).
var sourceSetAliases = map[string]string{
	"diary-markdown":    "diary-markdown-sections",
	"technical-reports": "technical-report-task-events",
}

// lifecycleName returns the wire name of the lifecycle l names, as
// SourceSetName does for source sets: a lifecycle of the enum (upstream
// §1.4) written otherwise is that one; another is kept, trimmed.
func lifecycleName(l string) string {
	return wireName(l, func(n string) bool { return lifecycles[n] })
}

// lifecycles are the lifecycles of the enum: those of the policy table
// and UnknownPolicy's.
var lifecycles = func() map[string]bool {
	m := map[string]bool{UnknownPolicy.Lifecycle: true}
	for _, p := range policies {
		m[p.Lifecycle] = true
	}
	return m
}()

// wireName returns s when known has it, else the known name s spells
// in other capitals, with surrounding space or with '_' or ' ' for '-',
// else s trimmed.
func wireName(s string, known func(string) bool) string {
	if known(s) {
		return s // the usual case, without allocating
	}
	s = strings.TrimSpace(s)
	if folded := foldName(s); known(folded) {
		return folded
	}
	return s
}

// foldName writes s as wire names are written: in lower case, with '-'
// for '_' and for a space.
func foldName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r == ' ' {
			return '-'
		}
		return unicode.ToLower(r)
	}, s)
}

// AuthoritativeLifecycles are the lifecycles that describe durable or
// current facts rather than what was said at a moment.
var AuthoritativeLifecycles = map[string]bool{
	"canonical": true, "current-state": true, "period-summary": true, "task-history": true,
	"structured-report": true, "narrative": true, "work-graph": true,
}

// AuthoritativeSourceSets are the source sets that hold durable facts.
var AuthoritativeSourceSets = map[string]bool{
	"lessons": true, "task-board-snapshot": true, "foundation-period-projections": true,
	"technical-report-task-events": true, "diary-markdown-sections": true,
	"diary-markdown-embedded-json": true, "nova-task-work-graph-events": true, "notes": true,
}

// Override holds per-source governance overrides (zero values keep the
// policy's value).
type Override struct {
	AuthorityRank   int
	RetrievalWeight float64
	Lifecycle       string
}

// Govern computes the governance of c from its source set's policy and
// the source's overrides.
func Govern(c *Chunk, o Override) api.Governance {
	sourceSet := SourceSetName(c.SourceSet)
	p := PolicyFor(sourceSet)
	if o.AuthorityRank > 0 {
		p.AuthorityRank = o.AuthorityRank
	}
	if o.RetrievalWeight > 0 {
		p.RetrievalWeight = o.RetrievalWeight
	}
	if l := lifecycleName(o.Lifecycle); l != "" {
		p.Lifecycle = l
	}
	present := 0
	for _, v := range []string{c.SourceSet, c.SourceID, c.SourcePath, c.SourceType, c.TextHash, c.DedupeKey} {
		if v != "" {
			present++
		}
	}
	provenance := scalar.Round(float64(present)/6, 4)
	weight := p.RetrievalWeight
	if provenance < 0.75 {
		weight *= 0.95
	}
	var warnings []string
	if c.Date == "" && p.Lifecycle != "current-state" && p.Lifecycle != "unknown" {
		warnings = append(warnings, "missing-date")
	}
	if !KnownSourceSet(sourceSet) {
		warnings = append(warnings, "unknown-source-set")
	}
	if warnings == nil {
		warnings = []string{}
	}
	var scope *string
	switch p.Lifecycle {
	case "current-state":
		s := "current-state:" + orDefault(c.Project, "global") + ":" + orDefault(c.WorkType, "state")
		scope = &s
	case "task-history", "period-summary", "metric", "snapshot":
		d := c.Date
		if len(d) > 10 {
			d = d[:10]
		}
		s := sourceSet + ":" + orDefault(c.Project, "global") + ":" + d
		scope = &s
	}
	return api.Governance{
		Version:            1,
		SourceSet:          sourceSet,
		AuthorityRank:      p.AuthorityRank,
		Lifecycle:          p.Lifecycle,
		Retention:          p.Retention,
		CanonicalEligible:  p.CanonicalEligible,
		ProvenanceScore:    provenance,
		RetrievalWeight:    scalar.Round(weight, 4),
		DuplicateGroupKey:  DuplicateGroupKey(c),
		CanonicalCandidate: p.CanonicalEligible && provenance >= 0.75,
		SupersessionScope:  scope,
		Warnings:           warnings,
	}
}

// EvidenceAuthority scores how authoritative a chunk is, 0..1: durable
// source sets, authoritative lifecycles and the authority rank.
func EvidenceAuthority(g api.Governance) float64 {
	a := 0.0
	if AuthoritativeSourceSets[SourceSetName(g.SourceSet)] {
		a += 0.45
	}
	if AuthoritativeLifecycles[g.Lifecycle] {
		a += 0.35
	}
	a += 0.2 * math.Max(0, math.Min(1, float64(g.AuthorityRank)/100))
	return math.Min(1, a)
}

func orDefault(s, d string) string {
	if strings.TrimSpace(s) == "" {
		return d
	}
	return s
}

// DuplicateGroupKey groups chunks that say the same thing from the same
// place: source set, project, speaker and the start of the text hash.
func DuplicateGroupKey(c *Chunk) string {
	var buf [256]byte // most keys: one allocation, the string's
	return string(appendDuplicateGroupKey(buf[:0], c, c.TextHash))
}

// IsDuplicateGroupKey reports whether key is the duplicate group key c
// would have with textHash as its text hash, without making that string
// or a copy of c: a segment compares every chunk's key with it.
func IsDuplicateGroupKey(key string, c *Chunk, textHash string) bool {
	var buf [256]byte
	return string(appendDuplicateGroupKey(buf[:0], c, textHash)) == key
}

// appendDuplicateGroupKey appends c's duplicate group key, textHash
// standing for its text hash.
func appendDuplicateGroupKey(b []byte, c *Chunk, textHash string) []byte {
	speaker := c.Agent
	if speaker == "" {
		speaker = c.Role
	}
	hash16 := textHash
	if len(hash16) > 16 {
		hash16 = hash16[:16]
	}
	b = append(append(b, orDefault(c.SourceSet, "unknown")...), ':')
	b = append(append(b, c.Project...), ':')
	b = append(append(b, speaker...), ':')
	return append(b, hash16...)
}
