package ingest

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/zeebo/xxh3"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/memory"
	"github.com/nova-recall/nova/redact"
)

// Cursor is where the reading of an append-only line file stopped, so
// that the next read continues from there. It is plain data, safe to
// store as JSON between runs. The zero Cursor is the start of a file.
type Cursor struct {
	// Offset is the byte offset just after the last line consumed.
	Offset int64 `json:"offset"`
	// Line is the 1-based number of that line (0: none yet).
	Line int `json:"line"`
	// State is what the reader of the file's kind needs to continue (the
	// Codex session, working directory and pending tool calls; the Claude
	// Code session title; ...). Opaque to callers.
	State json.RawMessage `json:"state,omitempty"`
	// Open is set when the last line consumed was the end of the file
	// without a line ending but a whole JSON value: the line ending that
	// follows it later completes that line instead of starting a new one.
	Open bool `json:"open,omitempty"`
	// Prefix is a digest (XXH3-64, hex) of every byte before Offset,
	// checked before resuming: a file changed anywhere before the cursor
	// (a record edited in place, then an append) is reported as
	// ErrFileChanged. A cursor without one (written by an older version)
	// is never resumed.
	Prefix string `json:"prefix,omitempty"`
	// Window is a digest (XXH3-64, hex) of the first and the last
	// windowBytes before Offset, and Size the file's size when the cursor
	// was made: a transcript that grew past Size is read on once its
	// window still matches, without reading the whole prefix again (see
	// checkPrefix). Its new cursor then has no Prefix.
	Window string `json:"window,omitempty"`
	Size   int64  `json:"size,omitempty"`

	// run is set on a cursor this process returned: reading on from it
	// (the next piece of a large file) hashes only the new bytes, where a
	// stored cursor has its whole prefix read and hashed again.
	run *running
}

// Same reports whether c and d are the same cursor, as stored.
func (c Cursor) Same(d Cursor) bool {
	return c.Offset == d.Offset && c.Line == d.Line && bytes.Equal(c.State, d.State) && c.Open == d.Open &&
		c.Prefix == d.Prefix && c.Window == d.Window && c.Size == d.Size
}

// running is what reading on from a cursor of this process needs.
type running struct {
	// sum is the hash behind Prefix; it is copied, never written to. Nil
	// when the read started from a window proof (no Prefix).
	sum *xxh3.Hasher
	// tail is the hash of the last tailBytes before the cursor, checked
	// in place of the whole prefix: the readers of one build check the
	// file's stat around each piece, and the next sync checks the whole
	// prefix again.
	tail uint64
}

// tailBytes is how much before a cursor of this process is checked.
const tailBytes = 1024

// ErrFileChanged means a file no longer starts with what a Cursor
// consumed (it was truncated or rewritten): read it again from the zero
// Cursor.
var ErrFileChanged = errors.New("file changed before the cursor (rewritten or truncated); read it again from the start")

// LineBased reports whether a file of kind at path is a sequence of
// independent lines that only grows (JSONL: kinds jsonl, codex with plain
// .jsonl rollouts, claude-code, openclaw sessions, gemini .jsonl
// recordings, cursor agent transcripts; and Aider's Markdown chat
// histories), so that ReadFile can
// resume it from a Cursor and a record's line number places it. Markdown
// notes (an OpenClaw workspace's memory and Claude Code's auto memory
// too), compressed .jsonl.zst rollouts and chat exports (one JSON list,
// which a new export replaces) are read whole every time.
func LineBased(kind, path string) bool {
	switch kind {
	case config.KindJSONL:
		return !strings.HasSuffix(path, ".zst")
	case config.KindCodex:
		return !strings.HasSuffix(path, ".zst") && !codexLegacy(path)
	case config.KindClaudeCode, config.KindOpenClaw:
		return !agentNote(path)
	case config.KindGemini:
		return strings.HasSuffix(path, ".jsonl")
	case config.KindAider, config.KindCursor:
		return true
	}
	return false
}

// ReadFile reads one file of src from the cursor from and returns the
// cursor after the last line it consumed. Records go to sink.Record in
// file order, problems to sink.Problem; sink.File is not called.
//
// Only complete lines are consumed: a line ending in "\n", or a last line
// without one that is a whole JSON value (a file whose writer never ends
// it). A torn last line (a write in progress) is left for the next read.
// Records are the same, ids, line numbers and every field, whether a file
// is read whole or in resumed pieces.
//
// A file that is not LineBased (markdown, .jsonl.zst) is read whole: from
// must be the zero Cursor and the zero Cursor is returned. A cursor that
// no longer matches the file gives ErrFileChanged before anything is
// read. Binary content is reported and skipped (the cursor does not move).
func ReadFile(ctx context.Context, src config.Source, f File, from Cursor, sink Sink) (Cursor, error) {
	cur, _, err := ReadFilePiece(ctx, src, f, from, 0, sink)
	return cur, err
}

// ReadFilePiece is ReadFile that stops at the first line ending after
// limit bytes (0: no limit) and reports whether it stopped there (more):
// reading on from the returned cursor gives the records a whole read
// would have, so a build reads a large file in pieces of bounded memory.
// A file that is not LineBased is read whole.
func ReadFilePiece(ctx context.Context, src config.Source, f File, from Cursor, limit int64, sink Sink) (cur Cursor, more bool, err error) {
	// The machine's zone and clock enter the readers here, and only
	// here: a time written without an offset is its wall-clock time (see
	// parseDate), and a file's age is judged against the read's start
	// (fileCtx.settled).
	fc := &fileCtx{ctx: ctx, src: src, path: f.Path, rel: f.Rel, sink: sink, loc: time.Local, now: time.Now(), memo: f.memo}
	if f.Info != nil {
		fc.mod = f.Info.ModTime()
	}
	if !LineBased(src.Kind, f.Path) {
		if from.Offset != 0 || from.Line != 0 {
			return from, false, fmt.Errorf("%s is read whole: it cannot resume from a cursor", f.Path)
		}
		switch src.Kind {
		case config.KindMarkdown:
			if strings.EqualFold(filepath.Ext(f.Path), canvasExt) {
				return Cursor{}, false, readCanvas(fc)
			}
			return Cursor{}, false, readMarkdown(fc)
		case config.KindCodex:
			if codexLegacy(f.Path) {
				return Cursor{}, false, readCodexLegacy(fc)
			}
			return Cursor{}, false, readCodexZst(fc)
		case config.KindOpenClaw, config.KindClaudeCode:
			return Cursor{}, false, readAgentNote(fc, src.Kind)
		case config.KindHermes:
			return Cursor{}, false, readHermes(fc)
		case config.KindGemini:
			if agentNote(f.Path) {
				return Cursor{}, false, readGeminiNote(fc)
			}
			return Cursor{}, false, readGeminiLegacy(fc)
		case config.KindChatExport:
			return Cursor{}, false, readChatExport(fc)
		}
		return from, false, fmt.Errorf("unknown source kind %q", src.Kind)
	}
	if src.Kind == config.KindClaudeCode && inDir(f.Rel, "tool-results") {
		return from, false, nil
	}
	file, err := openSource(f.Path)
	if err != nil {
		return from, false, err
	}
	defer file.Close()
	sum, err := checkPrefix(file, from, appendOnly(src.Kind))
	if err != nil {
		return from, false, err
	}
	if _, err := file.Seek(from.Offset, io.SeekStart); err != nil {
		return from, false, err
	}
	h, err := newLineHandler(fc, from.State)
	if err != nil {
		return from, false, fmt.Errorf("%w: cursor state: %v", ErrFileChanged, err)
	}
	if l, ok := h.(looker); ok {
		err := l.lookAhead(func() (io.ReadCloser, error) {
			return io.NopCloser(io.NewSectionReader(file, from.Offset, math.MaxInt64-from.Offset)), nil
		}, from, false)
		if err != nil {
			return from, false, err
		}
	}
	doc := false
	if jh, ok := h.(jsonlHandler); ok && from.Offset == 0 {
		// A JSON document is read whole, in one piece: it has no lines
		// to stop between.
		var docSum *xxh3.Hasher
		if cur, docSum, doc, err = jh.readDocument(file); err != nil {
			return from, false, err
		}
		if doc {
			sum = docSum
		}
	}
	fin, holds := h.(finisher)
	if holds {
		limit = 0 // its records wait for its last line: one piece
	}
	if !doc {
		if cur, more, err = readLines(fc, file, h, from, false, limit, sum); err != nil {
			return from, false, err
		}
	}
	if holds {
		if err := fin.finish(); err != nil {
			return from, false, err
		}
	}
	ended := false
	if e, ok := h.(ender); ok && !more {
		// Also when this read consumed nothing: the piece before it
		// stopped at its limit on the last line.
		if ended, err = e.end(); err != nil {
			return from, false, err
		}
	}
	if cur.Offset == from.Offset && !ended {
		return from, false, nil
	}
	if cur.State, err = h.state(); err != nil {
		return from, false, err
	}
	if doc {
		cur.State = documentState
	}
	tail, err := tailHash(file, cur.Offset)
	if err != nil {
		return from, false, err
	}
	if cur.Window, err = windowDigest(file, cur.Offset); err != nil {
		return from, false, err
	}
	if fi, err := file.Stat(); err == nil {
		cur.Size = fi.Size()
	}
	cur.run = &running{tail: tail}
	if sum != nil {
		cur.Prefix, cur.run.sum = digest(sum), sum
	}
	return cur, more, nil
}

// appendOnly reports whether files of kind are only ever appended to by
// their writers: the agents' transcripts (Codex rollouts, Claude Code and
// OpenClaw sessions, Gemini CLI recordings, Aider chat histories, Cursor
// agent transcripts). A jsonl source is an export a user's tool may rewrite in
// place, so its whole prefix is always checked.
func appendOnly(kind string) bool {
	return kind == config.KindCodex || kind == config.KindClaudeCode || kind == config.KindOpenClaw || kind == config.KindGemini ||
		kind == config.KindAider || kind == config.KindCursor
}

// CountLines counts path's lines as a whole read would consume them: every
// line ending, and a last line without one.
func CountLines(path string) (int, error) {
	f, err := openSource(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	buf := make([]byte, 256<<10)
	n, last := 0, byte('\n')
	for {
		k, err := f.Read(buf)
		if k > 0 {
			n += bytes.Count(buf[:k], []byte{'\n'})
			last = buf[k-1]
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, err
		}
	}
	if last != '\n' {
		n++
	}
	return n, nil
}

// lineHandler reads the lines of one file of one kind.
type lineHandler interface {
	// line handles line n (data has no line ending); an error stops the
	// read (a bad line is a problem, not an error).
	line(n int, data []byte) error
	// state is what a later read needs to continue after the last line.
	state() (json.RawMessage, error)
}

func newLineHandler(fc *fileCtx, state json.RawMessage) (lineHandler, error) {
	switch fc.src.Kind {
	case config.KindJSONL:
		if len(state) > 0 {
			return nil, errDocumentCursor // only a JSON document's cursor has a state
		}
		return jsonlHandler{fc}, nil
	case config.KindCodex:
		return newCodexHandler(fc, state)
	case config.KindClaudeCode:
		h, err := newClaudeHandler(fc, state)
		if err != nil {
			return nil, err
		}
		if h.aside {
			return claudeAside{h}, nil
		}
		return h, nil
	case config.KindOpenClaw:
		return newOpenClawHandler(fc, state)
	case config.KindGemini:
		return newGeminiHandler(fc, state)
	case config.KindAider:
		return newAiderHandler(fc, state)
	case config.KindCursor:
		h, err := newCursorHandler(fc, state)
		if err != nil {
			return nil, err
		}
		if filepath.Ext(fc.path) == cursorTextExt {
			return &cursorTextHandler{h}, nil
		}
		return h, nil
	}
	return nil, fmt.Errorf("unknown source kind %q", fc.src.Kind)
}

// finisher is a lineHandler that holds its records until the last line
// of a read is in (a Gemini CLI recording, whose later lines replace or
// remove earlier messages): finish emits them, or returns ErrFileChanged
// when lines read on from a cursor change what an earlier read gave. Such
// a file is read in one piece.
type finisher interface {
	finish() error
}

// looker is a lineHandler whose later lines can take back records
// earlier ones gave (a Codex rollback): lookAhead, before a read from a
// cursor, reads on to the end of what is written without emitting, so
// that the read emits nothing taken back; it returns ErrFileChanged when
// what is taken back was read before the cursor. open returns the bytes
// from the cursor on; whole is readLines'.
type looker interface {
	lookAhead(open func() (io.ReadCloser, error), from Cursor, whole bool) error
}

// ender is a lineHandler whose last record waits for a line that ends
// it (an Aider reply ends at the next prompt, and nothing marks its last
// line): end emits it once a read has reached the end of what is
// written. The handler keeps in its state that it did, and a later read
// that adds to that record gives ErrFileChanged. A read that stops at a
// piece's limit does not end: the record goes on in the next piece. end
// reports whether it emitted a record (and so changed the state).
type ender interface {
	end() (bool, error)
}

// textLines is a lineHandler of a text format (Aider's Markdown chat
// history) rather than JSON lines: it is given every line as written,
// blank lines, indentation and trailing white space included (Aider
// ends its own lines with two spaces; only the line ending is cut), and
// a last line without a line ending is always a write in progress, never
// a line to consume.
type textLines interface {
	textLines()
}

// readLines feeds the lines of r (positioned at from.Offset) to h and
// returns the cursor after the last line consumed. whole reads a stream
// that will not grow (a decompressed rollout): its last line is read
// even if it is torn. sum, when not nil, is the hash of the bytes before
// from.Offset: the bytes of the lines consumed are added to it.
func readLines(fc *fileCtx, r io.Reader, h lineHandler, from Cursor, whole bool, limit int64, sum *xxh3.Hasher) (Cursor, bool, error) {
	cur := from
	cur.State, cur.Prefix, cur.run = nil, "", nil
	_, text := h.(textLines)
	sc := fc.lines(r)
	sc.sum = sum
	if head, err := sc.br.Peek(sniffBytes); len(head) > 0 && utf16Text(head) {
		fc.problem(0, utf16Problem)
		return from, false, nil
	} else if len(head) > 0 && binaryContent(string(withoutNULRuns(head))) {
		fc.problem(0, "binary content (NUL bytes or mostly invalid UTF-8), not text: skipped")
		return from, false, nil
	} else if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return from, false, err
	}
	for i := 0; ; i++ {
		if i%256 == 0 {
			if err := fc.ctx.Err(); err != nil {
				return from, false, err
			}
		}
		l, err := sc.next()
		if errors.Is(err, io.EOF) {
			return cur, false, nil
		}
		if err != nil {
			return from, false, fmt.Errorf("read line %d: %w", cur.Line+1, err)
		}
		content := bytes.TrimSpace(l.data)
		if text {
			content = bytes.TrimRight(l.data, "\r\n")
		}
		// Windows tools often start a UTF-8 file with a byte-order mark,
		// which would make its first record invalid JSON; files joined
		// with cat (or type, or copy /b) keep each one's mark at the
		// start of a line inside. A mark is never a line's text.
		content = bytes.TrimPrefix(content, utf8BOM)
		content, nuls, cut := splitNULPadding(content)
		if cur.Open {
			// The rest of the line consumed last time: only its line
			// ending is expected.
			if !l.terminated && !whole {
				sc.unread()
				return cur, false, nil
			}
			if len(content) > 0 || l.tooLong {
				fc.problem(cur.Line, "the line grew after it was read; what was added to it is skipped")
			}
			cur.Offset += l.size
			cur.Open = false
			continue
		}
		n := cur.Line + 1
		if !l.terminated && !whole {
			if text || len(content) == 0 || l.tooLong || !json.Valid(content) {
				if nuls && len(content) == 0 && !text && fc.settled() {
					// NUL bytes alone, left so: a crash's preallocation,
					// not a write. Still not consumed, so that a record
					// appended after them is read.
					fc.interrupted(n, "NUL bytes with no line ending, the file left so (a write a crash interrupted): skipped")
				}
				// A write in progress: read it once it is complete.
				sc.unread()
				return cur, false, nil
			}
			cur.Open = true
		}
		switch {
		case cut:
			fc.interrupted(n, "the start of a line cut short by NUL bytes (a write a crash interrupted): skipped")
		case nuls:
			fc.interrupted(n, "NUL bytes (a write a crash interrupted): skipped")
		}
		switch {
		case l.tooLong:
			fc.problem(n, fmt.Sprintf("line is longer than %d bytes even without its binary payloads: skipped", maxLineBytes))
		case len(content) > 0 || text:
			if err := readLine(fc, h, n, content); err != nil {
				return from, false, err
			}
		}
		cur.Offset += l.size
		cur.Line = n
		if limit > 0 && l.terminated && cur.Offset-from.Offset >= limit {
			return cur, true, nil
		}
	}
}

// readLine hands one line to h. A line that is not JSON may be a line a
// crash cut short followed by the next record (see tornRecord): that
// record is read and the cut start reported.
func readLine(fc *fileCtx, h lineHandler, n int, content []byte) error {
	err := h.line(n, content)
	var bad *notJSONError
	if !errors.As(err, &bad) {
		return err
	}
	if rec, ok := tornRecord(content); ok {
		fc.interrupted(n, "the start of a line cut short (a write a crash interrupted), joined to the next record: skipped")
		if err = h.line(n, rec); !errors.As(err, &bad) {
			return err
		}
	}
	fc.problem(n, bad.reason)
	return nil
}

// Continues reports whether the file at path still starts with the bytes
// c consumed, byte for byte (its Prefix digest): reading on from c reads
// on the same content. A cursor that consumed nothing, or has no Prefix,
// continues nothing.
func Continues(path string, c Cursor) bool {
	if c.Offset == 0 || c.Prefix == "" && c.Window == "" {
		return false
	}
	f, err := openSource(path)
	if err != nil {
		return false
	}
	defer f.Close()
	c.run = nil // the whole prefix, not the tail a cursor of this process checks
	if c.Prefix == "" {
		// Read on from a window proof: the window is all there is to
		// check, and the caller's file identity (the same inode) with it.
		w, err := windowDigest(f, c.Offset)
		return err == nil && c.Window != "" && w == c.Window
	}
	_, err = checkPrefix(f, c, false)
	return err == nil
}

// checkPrefix verifies that file still holds what from consumed and
// returns the hash of those bytes to hash on from (nil: none is kept). A
// cursor this process returned carries that hash: only its tail is read
// again.
//
// A stored cursor of an append-only file (appendOnly) that grew past its
// Size is proven by its Window, the first and last windowBytes before it,
// instead of every byte: hashing a long transcript's prefix cost
// 0.38 ms/MB, most of a sync over GB of them, for every line an agent
// added. Its writer only appends; an edit that would change the bytes
// before the cursor without changing their length, either end or the
// inode (a rename, which a new inode shows) is the one case this misses.
// A file that did not grow past Size but changed (rewritten in place with
// the same size, touched) has its whole prefix checked, or, with no
// Prefix to check, is read again from the start.
func checkPrefix(file *os.File, from Cursor, appendOnly bool) (*xxh3.Hasher, error) {
	if from.Offset == 0 {
		return xxh3.New(), nil
	}
	fi, err := file.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() < from.Offset {
		return nil, ErrFileChanged
	}
	if from.run != nil {
		tail, err := tailHash(file, from.Offset)
		if err != nil {
			return nil, err
		}
		if tail != from.run.tail {
			return nil, ErrFileChanged
		}
		if from.run.sum == nil {
			return nil, nil
		}
		sum := *from.run.sum
		return &sum, nil
	}
	if appendOnly && from.Window != "" && from.Size > 0 && fi.Size() > from.Size {
		w, err := windowDigest(file, from.Offset)
		if err != nil {
			return nil, err
		}
		if w != from.Window {
			return nil, ErrFileChanged
		}
		return nil, nil
	}
	if from.Prefix == "" {
		return nil, ErrFileChanged
	}
	sum := xxh3.New()
	if _, err := io.CopyBuffer(sum, io.NewSectionReader(file, 0, from.Offset), make([]byte, 256<<10)); err != nil {
		return nil, fmt.Errorf("read before the cursor: %w", err)
	}
	if digest(sum) != from.Prefix {
		return nil, ErrFileChanged
	}
	return sum, nil
}

func digest(sum *xxh3.Hasher) string {
	return fmt.Sprintf("%016x", sum.Sum64())
}

// windowBytes is how much of each end of the bytes before a cursor its
// Window covers.
const windowBytes = 4096

// windowDigest is the Window of a cursor at offset: the hash of the first
// and the last windowBytes before offset (they overlap in a short file),
// and of offset itself.
func windowDigest(file *os.File, offset int64) (string, error) {
	head := make([]byte, min(offset, windowBytes))
	if _, err := file.ReadAt(head, 0); err != nil {
		return "", fmt.Errorf("read before the cursor: %w", err)
	}
	start := max(0, offset-windowBytes)
	tail := make([]byte, offset-start)
	if _, err := file.ReadAt(tail, start); err != nil {
		return "", fmt.Errorf("read before the cursor: %w", err)
	}
	h := xxh3.New()
	_, _ = h.Write(head)
	_, _ = h.Write(tail)
	_, _ = fmt.Fprintf(h, "%d", offset)
	return digest(h), nil
}

// tailHash is the hash of up to tailBytes before offset.
func tailHash(file *os.File, offset int64) (uint64, error) {
	start := max(0, offset-tailBytes)
	buf := make([]byte, offset-start)
	if _, err := file.ReadAt(buf, start); err != nil {
		return 0, fmt.Errorf("read before the cursor: %w", err)
	}
	return xxh3.Hash(buf), nil
}

// fileCtx is the reading of one file: where records and problems go.
type fileCtx struct {
	ctx       context.Context
	src       config.Source
	path, rel string
	sink      Sink
	// loc is the machine's zone, in which a time written without an
	// offset is read.
	loc *time.Location
	// mod is the file's modification time as listed (zero when the
	// caller gave no stat): the time of a transcript's lines that carry
	// none.
	mod time.Time
	// now is when the read started (zero when the caller gave no
	// clock): what a file's age is measured against.
	now time.Time
	// memo is the file's listing's (File.memo; nil when the file comes
	// from no listing).
	memo *listingMemo
	// redacted counts the ids redact.ID gave this file's records.
	redacted map[string]int
	// cleanTags is a list of tags the reader has redacted itself and
	// gives the record it emits next (a note's tags, on each of its
	// sections, with the section's own): emit leaves a record's Tags
	// that are this very list as they are. Redacting it again for every record cost sections times
	// tags: minutes for a log with a tag a day.
	cleanTags []string
}

// settleAfter is how long a file must have been left alone for an
// unfinished end (NUL bytes with no line ending, a whole document cut
// short) to be a crash's remains rather than a write in progress: an
// agent's write lands in well under that, a file a crash left stays so.
const settleAfter = time.Minute

// settled reports whether the file was last written settleAfter or more
// before the read started (false when the caller gave no stat).
func (fc *fileCtx) settled() bool {
	return !fc.mod.IsZero() && !fc.now.IsZero() && fc.now.Sub(fc.mod) >= settleAfter
}

// problem reports input skipped at line (0: the whole file). The
// reason is redacted: some quote what they refuse (a record's "date", a
// decoder's error), and a problem is kept in the file's state and the
// build report and shown by doctor and status.
func (fc *fileCtx) problem(line int, reason string) {
	reason, _ = redact.Text(reason)
	fc.sink.Problem(Problem{Source: fc.src.Name, Path: fc.path, Line: line, Reason: reason})
}

// interrupted reports the remains of a write a crash interrupted (see
// Problem.Interrupted), its reason redacted as problem's.
func (fc *fileCtx) interrupted(line int, reason string) {
	reason, _ = redact.Text(reason)
	fc.sink.Problem(Problem{Source: fc.src.Name, Path: fc.path, Line: line, Reason: reason, Interrupted: true})
}

// agent is the agent of the records a reader of kind labels as its
// own (sessions, and notes that name none): the source's agent when it
// names one (to tell two machines' Codex apart, say), else the kind.
func (fc *fileCtx) agent(kind string) string { return cmp.Or(fc.src.Agent, kind) }

// noteSourceSet is the source set of an agent's own memory notes (an
// OpenClaw workspace's, a Hermes home's, a Gemini home's): the source's
// when it names one, as for its sessions, else that of notes, not of
// transcripts.
func (fc *fileCtx) noteSourceSet() string {
	return cmp.Or(fc.src.SourceSet, DefaultSourceSet(config.KindMarkdown))
}

// emit hands rec to the sink unless its text is binary, which is
// reported instead.
func (fc *fileCtx) emit(rec memory.Record) error {
	if id, n := redact.ID(rec.ID, fc.rel, rec.Line); n > 0 {
		// Records of one line (a JSON array's elements written on one)
		// get the same suffix: the second and later are numbered in
		// their order in the file, which every read of it repeats.
		if fc.redacted == nil {
			fc.redacted = map[string]int{}
		}
		fc.redacted[id]++
		if k := fc.redacted[id]; k > 1 {
			id += "~" + strconv.Itoa(k)
		}
		rec.ID, rec.Redactions = id, rec.Redactions+n
	}
	if tags := rec.Tags; len(tags) > 0 && len(tags) == len(fc.cleanTags) && &tags[0] == &fc.cleanTags[0] {
		rec.Tags = nil
		redactMetadata(&rec)
		rec.Tags = tags
	} else {
		redactMetadata(&rec)
	}
	if binaryContent(rec.Text) {
		fc.problem(rec.Line, "text is binary (control characters or invalid UTF-8), not indexed")
		return nil
	}
	if err := fc.sink.Record(rec); err != nil {
		return &sinkError{err}
	}
	return nil
}

// sinkError is an error of the sink's Record, which stops a read: Read
// returns it as it is, where a file's own read error is a problem.
type sinkError struct{ err error }

func (e *sinkError) Error() string { return e.err.Error() }
func (e *sinkError) Unwrap() error { return e.err }
