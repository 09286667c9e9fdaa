package index

import (
	"cmp"
	"fmt"
	"strings"
	"time"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index/chunk"
	"github.com/nova-recall/nova/index/ingest"
	"github.com/nova-recall/nova/memory"
)

// chunkRecord applies the source's defaults to r and cuts it into chunks
// (without their neighbouring context, which assignContext adds).
func (x *Indexer) chunkRecord(src config.Source, r memory.Record) []memory.Chunk {
	text, redactions := ingest.Redact(r.Text)
	text = ingest.StripBinary(text)
	r.Redactions += redactions
	if r.Project == "" {
		r.Project = src.Project
	}
	if r.Agent == "" {
		r.Agent = src.Agent
	}
	if r.SourceSet == "" {
		r.SourceSet = src.SourceSet
	}
	if r.SourceSet == "" {
		r.SourceSet = ingest.DefaultSourceSet(src.Kind)
	}
	lifecycle := r.Lifecycle
	if lifecycle == "" {
		lifecycle = src.Lifecycle
	}
	layer := r.Layer
	if layer == "" {
		layer = "record"
	}
	pieces := chunk.Split(text, chunk.Options{MaxChars: x.cfg.Index.ChunkMaxChars, OverlapChars: x.cfg.Index.ChunkOverlapChars})
	tags := append(append([]string(nil), r.Tags...), src.Tags...)
	var t string
	if !r.Time.IsZero() {
		t = r.Time.UTC().Format(time.RFC3339)
	}
	out := make([]memory.Chunk, 0, len(pieces))
	for i, p := range pieces {
		c := memory.Chunk{
			ID: memory.ChunkID(src.Name, r.ID, i+1, len(pieces)), Text: p,
			Title: r.Title, Date: r.Date, Time: t, Agent: r.Agent, Role: r.Role, Project: r.Project,
			Layer: layer, SourceName: src.Name, SourceSet: r.SourceSet, SourceType: r.Kind,
			SourceID: r.ID, SourcePath: r.Path, LineNumber: r.Line, SessionID: r.SessionID,
			HeadingPath: r.HeadingPath, Part: i + 1, Parts: len(pieces), Conversation: r.Conversation,
		}
		c.TextHash = memory.HashText(p)
		head := p
		if rs := []rune(head); len(rs) > 160 {
			head = string(rs[:160])
		}
		c.DedupeKey = memory.HashText(c.SourceSet + "|" + c.SourceID + "|" + fmt.Sprint(c.Part) + "|" + head)
		c.Tags = memory.InferTags(c.Title+"\n"+p, tags, c.Date != "", layer)
		c.WorkType = r.WorkType
		if c.WorkType == "" {
			c.WorkType = src.WorkType
		}
		if c.WorkType == "" {
			c.WorkType = memory.InferWorkType(c.Tags)
		}
		c.Governance = memory.Govern(&c, memory.Override{AuthorityRank: src.AuthorityRank, RetrievalWeight: src.RetrievalWeight, Lifecycle: lifecycle})
		out = append(out, c)
	}
	return out
}

// order places a chunk in the order a full build reads it: sources in
// configuration order, files by path, records by line, pieces by part.
// Neighbouring context follows this order, and so does a delta's layout,
// whichever build wrote a chunk.
type order struct {
	source int
	path   string
	line   int
	part   int
}

func (a order) compare(b order) int {
	if c := cmp.Compare(a.source, b.source); c != 0 {
		return c
	}
	if c := strings.Compare(a.path, b.path); c != 0 {
		return c
	}
	if c := cmp.Compare(a.line, b.line); c != 0 {
		return c
	}
	return cmp.Compare(a.part, b.part)
}

// sameRecord reports whether two chunks are pieces of one record.
func (a order) sameRecord(b order) bool {
	return a.source == b.source && a.path == b.path && a.line == b.line
}

// conversationKey names a conversation: chunks of one conversation of one
// source are each other's neighbours.
type conversationKey struct{ source, conversation string }

// neighbourWords are the words a record lends its neighbours: the first
// ContextWords words of its first piece (redacted text, as indexed).
func (x *Indexer) neighbourWords(firstPiece string) string {
	f := strings.Fields(firstPiece)
	if n := x.cfg.Index.ContextWords; len(f) > n {
		f = f[:n]
	}
	return strings.Join(f, " ")
}

// neighbourContext returns the context and the before-part of a record
// whose conversation neighbours lend words: before are the words of the
// records before it (nearest last), after of those after it. A question
// about a turn is often answered in words of the turns around it (an
// elliptic "Some fun ones like charades" after the turn that names the
// picnic). Before holds only earlier turns, so appending a turn to a
// conversation never changes what the dense channel embedded for the
// turns already there.
func neighbourContext(before, after []string) (ctx, bef string) {
	join := func(ws []string) string {
		parts := make([]string, 0, len(ws))
		for _, w := range ws {
			if w != "" {
				parts = append(parts, w)
			}
		}
		return strings.Join(parts, " … ")
	}
	bef = join(before)
	return strings.TrimSpace(bef + " … " + join(after)), bef
}

// contextTurns is how many records on each side lend their words (0: no
// neighbouring context).
func (x *Indexer) contextTurns() int {
	if x.cfg.Index.ContextWords == 0 {
		return 0
	}
	return x.cfg.Index.ContextTurns
}

// conversationRecord is one record of a conversation, in order: its
// words for the neighbours and the chunks whose context it receives.
type conversationRecord struct {
	words  string
	chunks []*memory.Chunk
}

// assignContext sets the Context and Before of every chunk of records
// (one conversation, in order).
func (x *Indexer) assignContext(records []conversationRecord) {
	turns := x.contextTurns()
	words := make([]string, len(records))
	for i, r := range records {
		words[i] = r.words
	}
	for i, r := range records {
		var ctx, bef string
		if turns > 0 {
			ctx, bef = neighbourContext(words[max(0, i-turns):i], words[i+1:min(len(words), i+1+turns)])
		}
		for _, c := range r.chunks {
			c.Context, c.Before = ctx, bef
		}
	}
}
