package index

import (
	"cmp"
	"strings"
	"time"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index/chunk"
	"github.com/nova-recall/nova/index/ingest"
	"github.com/nova-recall/nova/memory"
)

// chunkRecord applies the source's defaults to r and cuts it into chunks
// (without their neighbouring context, which the build adds once the
// neighbours are known). The readers have already redacted secrets and
// stripped binary payloads from r's text. The chunks come as the sink
// takes them: copied into a slice of pending chunks for each record, they
// were 60 MB of a 100k build's allocation.
func (x *Indexer) chunkRecord(src config.Source, r memory.Record) []pendingChunk {
	text := r.Text
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
	// A hand-written "Lessons" is the lessons source set for the filters
	// and the response, as it is for its governance.
	r.SourceSet = memory.SourceSetName(r.SourceSet)
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
	out := make([]pendingChunk, 0, len(pieces))
	for i, p := range pieces {
		c := memory.Chunk{
			ID: memory.ChunkID(src.Name, r.ID, i+1, len(pieces)), Text: p,
			Title: r.Title, Date: r.Date, Time: t, Agent: r.Agent, Role: r.Role, Project: r.Project,
			Layer: layer, SourceName: src.Name, SourceSet: r.SourceSet, SourceType: r.Kind,
			SourceID: r.ID, SourcePath: r.Path, LineNumber: r.Line, SessionID: r.SessionID,
			HeadingPath: r.HeadingPath, Part: i + 1, Parts: len(pieces), Conversation: r.Conversation,
			Subject: subjectOf(r),
		}
		c.TextHash = memory.HashText(p)
		c.DedupeKey = memory.DedupeKey(&c)
		// Without a title the tags are the text's: the line break before
		// it adds no word, and joining copied every text a build reads.
		tagText := p
		if c.Title != "" {
			tagText = c.Title + "\n" + p
		}
		c.Tags = memory.InferTags(tagText, tags, c.Date != "", layer)
		c.WorkType = r.WorkType
		if c.WorkType == "" {
			c.WorkType = src.WorkType
		}
		if c.WorkType == "" {
			c.WorkType = memory.InferWorkType(c.Tags)
		}
		c.Governance = memory.Govern(&c, memory.Override{AuthorityRank: src.AuthorityRank, RetrievalWeight: src.RetrievalWeight, Lifecycle: lifecycle})
		out = append(out, pendingChunk{c: c})
	}
	return out
}

// order places a chunk in the order a full build reads it: sources in
// configuration order, files by path, records by line, pieces by part.
// Neighbouring context follows this order, and so does a delta's layout,
// whichever build wrote a chunk. Records may share a line (the elements
// of a JSON array written on one line): seq, a record's place in its
// file as the delta read it, tells those apart; it is 0 for a document
// already written, whose line it never shares with another (delta.diff
// writes such records again, together).
type order struct {
	source int
	path   string
	line   int
	seq    int
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
	if c := cmp.Compare(a.seq, b.seq); c != 0 {
		return c
	}
	return cmp.Compare(a.part, b.part)
}

// conversationKey names a conversation: chunks of one conversation of one
// source are each other's neighbours.
type conversationKey struct{ source, conversation string }

// contextParams are the configured neighbouring context (no neighbours
// when contextWords is 0).
func (x *Indexer) contextParams() memory.ContextParams {
	p := memory.ContextParams{Turns: x.cfg.Index.ContextTurns, Words: x.cfg.Index.ContextWords}
	if p.Words == 0 {
		p.Turns = 0
	}
	return p
}

// subjectOf is the version-chain key of a record: its own subject (the
// Markdown reader gives a task board's sections theirs), or for another
// reader's section of a task-board snapshot its heading path (the same
// card on the next snapshot is the same subject in a newer state).
func subjectOf(r memory.Record) string {
	if r.Subject != "" {
		return r.Subject
	}
	if r.SourceSet == memory.TaskBoardSnapshot && len(r.HeadingPath) > 0 {
		return ingest.SnapshotSubject(r.HeadingPath)
	}
	return ""
}
