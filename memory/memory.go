// Package memory defines what Nova remembers: a Record read from a source
// (one JSONL line, one Markdown section, one agent message), the Chunk that
// is indexed and cited, and the governance rules that say how much a chunk
// from a given source set can be trusted.
package memory

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/nova-recall/nova/api"
)

// Record is one unit of memory as a source reader produces it, before
// chunking. Readers fill what they know; empty fields take the source's
// configured defaults.
type Record struct {
	// ID is the stable logical identity of the record (a JSONL record's
	// id, a session message key, a note path with its heading). It becomes
	// provenance.sourceId of every chunk cut from the record.
	ID   string
	Text string
	// Title is an optional heading or subject.
	Title string
	// Date is the business date, YYYY-MM-DD.
	Date string
	// Time is the exact time when known.
	Time      time.Time
	Agent     string
	Role      string
	Project   string
	Tags      []string
	WorkType  string
	SourceSet string
	Lifecycle string
	// SessionID groups the messages of one agent session.
	SessionID string
	// HeadingPath is the Markdown heading trail of a section.
	HeadingPath []string
	// Path is the source file the record was read from.
	Path string
	// Line is the 1-based line (or ordinal) of the record in its file.
	Line int
	// Kind is the reader that produced the record (jsonl, markdown,
	// codex, claude-code); it becomes sourceType.
	Kind string
	// Layer is the content layer (dialogue, note, record, ...).
	Layer string
	// Conversation groups records whose neighbours give useful context
	// (the turns of one conversation or session). Empty: no neighbours.
	Conversation string
	// Subject names what the record describes when later records may
	// describe the same thing in a newer state (a JSONL record's
	// "subject", folded: capitals, spacing and Unicode form do not tell
	// subjects apart); records of one project with the same subject form
	// a version chain in which the newest wins.
	Subject string
	// Redactions counts secrets removed from Text.
	Redactions int
}

// Chunk is one indexed, retrievable, citable unit.
type Chunk struct {
	ID string `json:"id"`
	// Text is what is shown and cited.
	Text string `json:"text"`
	// Context holds a few words of the records before and after this one
	// in its conversation: a second lexical field, never shown as evidence.
	Context string `json:"context,omitempty"`
	// Before is the part of Context that comes from the record before. The
	// dense channel embeds it with the text; the words after are left out
	// so that appending a turn to a conversation (how transcripts grow)
	// never changes the vectors of the turns already indexed.
	Before string `json:"before,omitempty"`
	// Subject is the version-chain key (memory.Record.Subject; for a
	// task-board snapshot section, its heading path, begun with
	// UntitledCard when the board has no title, which keeps the chain to
	// its own board): within a project, the newest chunk of a subject
	// supersedes the older ones.
	Subject     string   `json:"subject,omitempty"`
	Title       string   `json:"title,omitempty"`
	Date        string   `json:"date,omitempty"`
	Time        string   `json:"time,omitempty"`
	Agent       string   `json:"agent,omitempty"`
	Role        string   `json:"role,omitempty"`
	Project     string   `json:"project,omitempty"`
	Tags        []string `json:"tags"`
	WorkType    string   `json:"workType"`
	Layer       string   `json:"layer"`
	SourceName  string   `json:"sourceName"`
	SourceSet   string   `json:"sourceSet"`
	SourceType  string   `json:"sourceType"`
	SourceID    string   `json:"sourceId"`
	SourcePath  string   `json:"sourcePath"`
	LineNumber  int      `json:"lineNumber"`
	SessionID   string   `json:"sessionId,omitempty"`
	HeadingPath []string `json:"headingPath,omitempty"`
	// Conversation is the record's conversation within its source (see
	// Record.Conversation); chunks of one conversation are each other's
	// neighbours, and an incremental build finds them by it.
	Conversation string `json:"conversation,omitempty"`
	// Part is the 1-based piece number of a record cut into several
	// chunks; Parts is how many pieces it has (1 when it was not cut).
	Part       int            `json:"part"`
	Parts      int            `json:"parts"`
	TextHash   string         `json:"textHash"`
	DedupeKey  string         `json:"dedupeKey"`
	Governance api.Governance `json:"governance"`
}

// OwnText is the chunk's own searchable text: its title and text. The
// lexical channel indexes it as the main field.
func (c *Chunk) OwnText() string {
	if c.Title != "" && !strings.Contains(c.Text, c.Title) {
		return c.Title + "\n" + c.Text
	}
	return c.Text
}

// IndexText is what the dense channel embeds: the own text and the words
// of the record before.
func (c *Chunk) IndexText() string {
	if c.Before == "" {
		return c.OwnText()
	}
	return c.OwnText() + "\n" + c.Before
}

// HashText returns the SHA-256 hex of s.
func HashText(s string) string {
	// Sum256 only reads its argument: hashing the string's bytes in
	// place saves a copy of every text a search decodes.
	return hexSum(sha256.Sum256(unsafe.Slice(unsafe.StringData(s), len(s))))
}

// hexSum is a SHA-256 sum in lower-case hex, in one allocation.
func hexSum(sum [sha256.Size]byte) string {
	var b [2 * sha256.Size]byte
	hex.Encode(b[:], sum[:])
	return string(b[:])
}

// DedupeKey is the key that finds the same piece of the same record
// across source sets: its source set, record id, part and first 160
// characters.
func DedupeKey(c *Chunk) string {
	head := c.Text
	if i := runeOffset(head, 160); i >= 0 {
		head = head[:i]
		if !utf8.ValidString(head) {
			// []rune replaces invalid bytes with U+FFFD; keep the key
			// what it has always been for such text.
			head = string([]rune(c.Text)[:160])
		}
	}
	// The key's input is assembled in a buffer that stays on the stack for
	// most chunks, not in a concatenated string.
	b := make([]byte, 0, 512)
	b = append(append(b, c.SourceSet...), '|')
	b = append(append(b, c.SourceID...), '|')
	b = append(appendPart(b, c.Part), '|')
	b = append(b, head...)
	return hexSum(sha256.Sum256(b))
}

// runeOffset returns the byte offset of s's n-th rune (counting from 0),
// or -1 when s has at most n runes. An invalid byte counts as one rune,
// as converting to []rune counts it.
func runeOffset(s string, n int) int {
	i := 0
	for i < len(s) && n > 0 && s[i] < utf8.RuneSelf { // ASCII: a rune a byte
		i++
		n--
	}
	for range n {
		if i >= len(s) {
			return -1
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	if i >= len(s) {
		return -1
	}
	return i
}

// ChunkID returns a stable chunk id for part of record id in source:
// the same record and part always get the same id, across rebuilds, and
// two records' chunks never share one. A piece of a record cut in several
// is "source:id#N"; a record whose own id ends as a piece's does ("x#2",
// or "x#", which "x#" + a piece of "x" would give) gets a '#' after it, so
// that "x#2" whole ("source:x#2#") is not the second piece of "x"
// ("source:x#2"). Every other id is the record's as written.
func ChunkID(source, recordID string, part, parts int) string {
	var buf [128]byte // most ids: one allocation, the string's
	return string(appendChunkID(buf[:0], source, recordID, part, parts))
}

// IsChunkID reports whether id is ChunkID(source, recordID, part,
// parts), without making that string: a segment compares every chunk's
// id with it.
func IsChunkID(id, source, recordID string, part, parts int) bool {
	var buf [128]byte
	return string(appendChunkID(buf[:0], source, recordID, part, parts)) == id
}

// appendChunkID appends the chunk id ChunkID returns.
func appendChunkID(b []byte, source, recordID string, part, parts int) []byte {
	b = append(append(append(b, source...), ':'), recordID...)
	if endsLikeAPiece(recordID) {
		b = append(b, '#')
	}
	if parts <= 1 {
		return b
	}
	return appendPart(append(b, '#'), part)
}

// endsLikeAPiece reports whether id ends with '#' and decimal digits or
// with '#' alone: the end ChunkID gives a piece, or one it escapes.
func endsLikeAPiece(id string) bool {
	end := strings.TrimRight(id, "0123456789")
	return strings.HasSuffix(end, "#")
}

// appendPart appends a part number's decimal digits; a negative part has
// none, as ids and keys have always been written.
func appendPart(b []byte, part int) []byte {
	if part < 0 {
		return b
	}
	return strconv.AppendInt(b, int64(part), 10)
}
