package ingest

// Codex rollout files: compressed rollouts, the look-ahead for the turns
// a rollback takes back, and finding the rollout of a thread another one
// was copied from (see the reader's description in codex.go).

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/klauspost/compress/zstd"
	"github.com/zeebo/xxh3"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/memory"
)

// readCodexZst reads a compressed rollout whole, unless the plain rollout
// it was made from is still there: Codex may compress a rollout while
// keeping the plain file, which is authoritative and has the same lines.
func readCodexZst(fc *fileCtx) error {
	if _, err := os.Stat(strings.TrimSuffix(fc.path, ".zst")); err == nil {
		return nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("stat plain rollout: %w", err)
	}
	f, err := openSource(fc.path)
	if err != nil {
		return fmt.Errorf("open rollout: %w", err)
	}
	defer f.Close()
	zr, err := zstd.NewReader(f, zstd.WithDecoderConcurrency(1))
	if err != nil {
		return fmt.Errorf("zstd rollout: %w", err)
	}
	defer zr.Close()
	h, err := newCodexHandler(fc, nil)
	if err != nil {
		return err
	}
	err = h.lookAhead(func() (io.ReadCloser, error) {
		f, err := openSource(fc.path)
		if err != nil {
			return nil, fmt.Errorf("open rollout: %w", err)
		}
		zr, err := zstd.NewReader(f, zstd.WithDecoderConcurrency(1))
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("zstd rollout: %w", err)
		}
		return zstdStream{zstdErrors{zr}, zr, f}, nil
	}, Cursor{}, true)
	if err != nil {
		return err
	}
	_, _, err = readLines(fc, zstdErrors{zr}, h, Cursor{}, true, 0, nil)
	return err
}

// zstdStream is a decompressed rollout to read once and close.
type zstdStream struct {
	io.Reader
	zr *zstd.Decoder
	f  *os.File
}

func (z zstdStream) Close() error {
	z.zr.Close()
	return z.f.Close()
}

// codexRollbackMark is the type of a rollback event as a rollout line
// writes it: a JSON string of its own, which a text that quotes it (its
// quotes escaped) does not hold.
var codexRollbackMark = []byte(`"thread_rolled_back"`)

// lookAhead learns, before a read from the cursor from, what the
// rollbacks after it take back (st.Ahead), so that the read never emits
// those lines' records: the bytes from it to the end of what is written
// are looked through for a rollback (those up to st.Scanned were, by an
// earlier read), and when there is one they are read without emitting
// anything. A rollback that takes back lines up to the cursor, read
// before, is ErrFileChanged: the file is to be read whole. open returns
// the bytes from from.Offset on; whole is readLines'.
func (h *codexHandler) lookAhead(open func() (io.ReadCloser, error), from Cursor, whole bool) error {
	r, err := open()
	if err != nil {
		return err
	}
	defer r.Close()
	skip := max(h.st.Scanned-from.Offset, 0)
	if _, err := io.CopyN(io.Discard, r, skip); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("look for rollbacks: %w", err)
	}
	found, lines, err := scanMark(r, codexRollbackMark)
	if err != nil {
		return fmt.Errorf("look for rollbacks: %w", err)
	}
	if !found {
		h.st.Scanned = from.Offset + skip + lines
		return nil
	}
	quiet := *h.fc
	quiet.sink = Sink{Record: func(memory.Record) error { return nil }, Problem: func(Problem) {}}
	dry, err := newCodexHandler(&quiet, from.State)
	if err != nil {
		return err
	}
	dry.dry, dry.copyLines = true, h.copyLines
	again, err := open()
	if err != nil {
		return err
	}
	defer again.Close()
	end, _, err := readLines(&quiet, again, dry, from, whole, 0, nil)
	if err != nil {
		return fmt.Errorf("look for rollbacks: %w", err)
	}
	for _, span := range dry.found {
		if span.From <= from.Line {
			return fmt.Errorf("%w: a rollback at line %d takes back lines read before", ErrFileChanged, span.To)
		}
		if !slices.Contains(h.st.Ahead, span) {
			h.st.Ahead = append(h.st.Ahead, span)
		}
	}
	h.st.Scanned = end.Offset
	return nil
}

// scanMark reports whether r holds mark and, when it does not, how many
// of its bytes come before the end of its last line ending: a mark on a
// line still being written is looked for again once it is whole.
func scanMark(r io.Reader, mark []byte) (found bool, lines int64, err error) {
	buf := make([]byte, 256<<10)
	var read int64 // bytes of r read before buf[keep:]
	keep := 0      // the end of the chunk before, where a mark may start
	for {
		n, err := r.Read(buf[keep:])
		if n > 0 {
			chunk := buf[:keep+n]
			if bytes.Contains(chunk, mark) {
				return true, 0, nil
			}
			if i := bytes.LastIndexByte(chunk[keep:], '\n'); i >= 0 {
				lines = read + int64(i) + 1
			}
			read += int64(n)
			keep = min(len(mark)-1, len(chunk))
			copy(buf, chunk[len(chunk)-keep:])
		}
		if errors.Is(err, io.EOF) {
			return false, lines, nil
		}
		if err != nil {
			return false, 0, err
		}
	}
}

// PlainRollout returns the plain rollout (rollout-*.jsonl) that the file
// at path, of a source of kind, is the compressed copy of, or "" when it
// is none. Codex (0.137 and later) compresses a rollout left alone for a
// week into rollout-*.jsonl.zst beside it and then deletes the plain file:
// the copy is the same rollout, with the same records, under another name.
func PlainRollout(kind, path string) string {
	if kind != config.KindCodex || !strings.HasSuffix(path, ".jsonl.zst") {
		return ""
	}
	return strings.TrimSuffix(path, ".zst")
}

// zstdErrors names decompression as the cause of a read error, which the
// decoder's own messages ("magic number mismatch") do not.
type zstdErrors struct{ r io.Reader }

func (z zstdErrors) Read(p []byte) (int, error) {
	n, err := z.r.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		err = fmt.Errorf("decompress zstd: %w", err)
	}
	return n, err
}

// rolloutUUID matches the session uuid at the end of a rollout file name.
var rolloutUUID = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
})

// codexFileSession returns the session id in a rollout's file name (the
// same for the .jsonl and the .jsonl.zst; a legacy session's .json), or
// the file name itself.
func codexFileSession(path string) string {
	name := filepath.Base(path)
	name = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(name, ".zst"), ".jsonl"), codexLegacyExt)
	if m := rolloutUUID().FindString(name); m != "" {
		return m
	}
	return name
}

func (h *codexHandler) line(n int, data []byte) error {
	var l codexLine
	if err := json.Unmarshal(data, &l); err != nil {
		return notJSON(err)
	}
	if _, t, ok := parseDate(l.Timestamp, h.fc.loc); ok && !t.IsZero() {
		h.st.LastTime = l.Timestamp
	}
	item, payload := l.Type, l.Payload
	if len(payload) == 0 {
		// An envelope-less rollout: a bare session meta, bare response
		// items, and state lines.
		switch {
		case l.RecordType != "":
			return nil
		case l.Type == "" && l.ID != "":
			item, payload = "session_meta", json.RawMessage(data)
		case l.Type != "":
			item, payload = "response_item", json.RawMessage(data)
		default:
			h.st.Reported.report(h.fc, n, "a line without type or payload")
			return nil
		}
	}
	if item != "session_meta" && h.st.Helper {
		return nil // a helper thread of Codex's own
	}
	if item != "session_meta" && h.st.OwnFrom > 0 && l.Ordinal != nil && *l.Ordinal < h.st.OwnFrom ||
		h.copied(payload) {
		return nil // the parent's history, read from the parent's rollout
	}
	if item == codexPayloadArtifact {
		// After the checks above: a forked thread's copy of its parent's
		// lines holds the same references as the parent's rollout.
		var ok bool
		if item, payload, ok = h.hydrate(n, payload); !ok {
			return nil
		}
	}
	switch item {
	case "session_meta", "turn_context":
		var meta codexMeta
		if !h.payload(n, payload, item, &meta) {
			return nil
		}
		h.meta(item, &meta)
		return nil
	case "compacted":
		return h.compacted(n, payload)
	case "retained_context":
		return h.retained(n, payload)
	case "realtime_item":
		return h.realtime(n, payload)
	case "inter_agent_communication":
		return h.interAgent(n, payload)
	case "response_item", "event_msg":
	default:
		if !codexQuietLines[item] {
			h.st.Reported.report(h.fc, n, "line type "+strconv.Quote(item))
		}
		return nil
	}
	// The payload's type first, so that a payload this reader does not
	// use is skipped whatever the rest of its shape (formats drift).
	var head struct {
		Type string `json:"type"`
	}
	if !h.payload(n, payload, item, &head) {
		return nil
	}
	if item == "response_item" && head.Type == "function_call_output" && len(h.st.Asked) > 0 {
		return h.toolOutput(n, payload)
	}
	if item == "response_item" && head.Type == "agent_message" {
		h.turn(n) // another agent's message: not read, but a turn
	}
	if item == "event_msg" && head.Type == "item_completed" {
		return h.itemCompleted(n, payload)
	}
	if (item == "response_item" && codexQuietItems[head.Type]) || (item == "event_msg" && codexQuietEvents[head.Type]) {
		return nil
	}
	if (item == "response_item" && !codexReadItems[head.Type]) || (item == "event_msg" && !codexReadEvents[head.Type]) {
		// Reported by its type alone: the rest of a shape this reader
		// does not know may not decode as the payloads it reads do.
		h.st.Reported.report(h.fc, n, item+" type "+strconv.Quote(head.Type))
		return nil
	}
	var p codexPayload
	if !h.payload(n, payload, item+" "+head.Type, &p) {
		return nil
	}
	if item == "response_item" {
		return h.responseItem(n, &p, l.Metadata.InheritedUserMessage)
	}
	return h.event(n, &p, payload)
}

// codexMeta holds the fields the reader uses of session_meta and
// turn_context payloads.
type codexMeta struct {
	ID  string `json:"id"`
	Cwd string `json:"cwd"`
	// Source is a string ("cli", "vscode", "exec") for a thread a person
	// started, and {"subagent": ...} for one Codex spawned; newer builds
	// also say "subagent" in ThreadSource.
	Source                      json.RawMessage `json:"source"`
	ThreadSource                string          `json:"thread_source"`
	SubagentHistoryStartOrdinal int64           `json:"subagent_history_start_ordinal"`
}

// codexHelpers are the helper threads Codex runs for itself and records
// in sessions/ beside the user's: the compaction of a thread, the
// consolidation of its memories, the guardian that assesses an action for
// approval, the reviewer a /review runs. Their prompts are Codex's (the
// guardian's carry the whole conversation it assesses, already read from
// its own rollout) and their answers are for Codex, not for anyone to
// recall; a review's request and findings are read from the thread that
// asked for it (entered_review_mode, exited_review_mode).
var codexHelpers = setOf("compact", "memory_consolidation", "guardian", "guardian_review", "review")

// helper reports whether the session meta is that of a helper thread:
// a source of {"internal": ...}, or of a sub-agent or a thread source
// that codexHelpers names ({"subagent": "compact"}, {"subagent":
// {"other": "guardian"}}).
func (m *codexMeta) helper() bool {
	if codexHelpers[m.ThreadSource] {
		return true
	}
	var source map[string]json.RawMessage
	if json.Unmarshal(m.Source, &source) != nil {
		return false
	}
	if _, ok := source["internal"]; ok {
		return true
	}
	var name string
	var other struct {
		Other string `json:"other"`
	}
	sub := source["subagent"]
	return json.Unmarshal(sub, &name) == nil && codexHelpers[name] ||
		json.Unmarshal(sub, &other) == nil && codexHelpers[other.Other]
}

// subAgent reports whether the session meta is that of a spawned thread.
func (m *codexMeta) subAgent() bool {
	var source map[string]json.RawMessage
	_ = json.Unmarshal(m.Source, &source)
	_, spawned := source["subagent"]
	return spawned || m.ThreadSource == "subagent"
}

// meta follows the session's identity and working directory.
func (h *codexHandler) meta(item string, m *codexMeta) {
	id, cwd := m.ID, m.Cwd
	if item == "turn_context" {
		if cwd != "" {
			h.st.Cwd = cwd
		}
		return
	}
	// A rollout starts with its own session_meta; only the first one
	// names the session, so a session_meta copied in later (a forked
	// history) cannot rename it halfway.
	if h.st.MetaSeen {
		if id != "" && id != h.st.Session && h.st.OwnFrom == 0 && h.st.CopyOf == "" && !h.st.CopyEnded {
			h.st.CopyOf = id // the start of its history, copied in
		}
		return
	}
	h.st.MetaSeen = true
	h.st.SubAgent = m.subAgent()
	h.st.Helper = m.helper()
	h.st.OwnFrom = m.SubagentHistoryStartOrdinal
	if id != "" {
		h.st.Session = id
	}
	if cwd != "" {
		h.st.Cwd = cwd
	}
}

// copied reports whether a line (its payload) is one of the history of
// another thread that Codex copied into this rollout when it forked this
// thread from it: a thread the user forked (/fork, an earlier message
// edited), one an agent spawned with its history (spawn_agent with
// fork_context) or forked (builds that number no lines; newer ones say
// where the spawned thread's own begin: OwnFrom). Such a rollout starts
// with its own session_meta, then the other thread's lines as that
// thread's rollout holds them (its session_meta first, times rewritten),
// then its own. Read again, each of the other thread's prompts and
// answers was indexed once more per fork (a spawned agent's prompts as
// the assistant's). Only lines that the other thread's rollout holds, from
// its session_meta on and up to the first that it does not, are that
// history: when that rollout is not found, every line is read.
func (h *codexHandler) copied(payload json.RawMessage) bool {
	if h.st.CopyOf == "" {
		return false
	}
	if h.copyLines == nil {
		h.copyLines = codexThreadLines(h.fc, h.st.CopyOf)
	}
	if h.copyLines[xxh3.Hash(payload)] {
		return true
	}
	h.st.CopyOf, h.st.CopyEnded = "", true
	return false
}

// codexThreadCache keeps the lines of the last rollout codexThreadLines
// read: the agents spawned together with one history are read one after
// the other.
var codexThreadCache struct {
	sync.Mutex
	key   string
	lines map[uint64]bool
}

// codexThreadLines returns the digests of the payloads (of the whole
// line, in rollouts without the envelope) of the rollout of thread id:
// beside the rollout fc reads, or anywhere in the source's folder. It is
// empty when there is none, and never written to.
func codexThreadLines(fc *fileCtx, id string) map[uint64]bool {
	path := codexFindRollout(fc, id)
	if path == "" {
		return map[uint64]bool{}
	}
	fi, err := os.Stat(path)
	if err != nil {
		return map[uint64]bool{}
	}
	key := fmt.Sprintf("%s\x00%d\x00%d", path, fi.Size(), fi.ModTime().UnixNano())
	codexThreadCache.Lock()
	defer codexThreadCache.Unlock()
	if codexThreadCache.key == key {
		return codexThreadCache.lines
	}
	lines := map[uint64]bool{}
	f, err := openSource(path)
	if err != nil {
		return lines
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".zst") {
		zr, err := zstd.NewReader(f, zstd.WithDecoderConcurrency(1))
		if err != nil {
			return lines
		}
		defer zr.Close()
		r = zr
	}
	// Scanned as the rollout itself is read, so that a line too long to
	// keep whole is cut here as in the copy, and their digests agree.
	sc := fc.lines(r)
	for i := 0; ; i++ {
		if i%256 == 0 && fc.ctx.Err() != nil {
			return lines // not kept: the read stops
		}
		l, err := sc.next()
		if err != nil {
			break
		}
		data := bytes.TrimSpace(l.data)
		var line struct {
			Payload json.RawMessage `json:"payload"`
		}
		if json.Unmarshal(data, &line) != nil {
			continue
		}
		if len(line.Payload) == 0 {
			line.Payload = data
		}
		lines[xxh3.Hash(line.Payload)] = true
	}
	codexThreadCache.key, codexThreadCache.lines = key, lines
	return lines
}

// codexFindRollout returns the path of thread id's rollout (the plain
// one when it is still there), looked for beside the rollout fc reads,
// then in the source's folder; "" when there is none.
func codexFindRollout(fc *fileCtx, id string) string {
	if !rolloutUUID().MatchString(id) || len(id) != 36 {
		return ""
	}
	suffix := "-" + id + ".jsonl"
	pick := func(dir string) string {
		for _, name := range []string{suffix, suffix + ".zst"} {
			if m, _ := filepath.Glob(filepath.Join(dir, "rollout-*"+name)); len(m) > 0 {
				return m[0]
			}
		}
		return ""
	}
	if p := pick(filepath.Dir(fc.path)); p != "" {
		return p
	}
	if fi, err := os.Stat(fc.src.Path); err != nil || !fi.IsDir() {
		return ""
	}
	found, root := "", WalkRoot(fc.src.Path)
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		name := d.Name()
		switch {
		case d.IsDir() && p != root && skipsWalk(fc.src, root, p):
			// The folders the listing does not enter (hidden ones, the
			// Codex app's worktrees/ in a Codex home) hold no rollout.
			return fs.SkipDir
		case d.IsDir() || !strings.HasPrefix(name, "rollout-"):
		case strings.HasSuffix(name, suffix):
			found = p
			return fs.SkipAll
		case strings.HasSuffix(name, suffix+".zst"):
			found = p
			if _, err := os.Stat(strings.TrimSuffix(p, ".zst")); err == nil {
				found = strings.TrimSuffix(p, ".zst")
			}
			return fs.SkipAll
		}
		return nil
	})
	return found
}

// skipsWalk reports whether SkipsDir skips the folder at path p under
// root, the folder src's listing walks.
func skipsWalk(src config.Source, root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err != nil || SkipsDir(src, filepath.ToSlash(rel))
}

// codexPayloadArtifact is the type of a line that stands for an item
// Codex stored in a file of its own: newer builds write a session_meta,
// tool_manifest or sampling_boundary line, or a patch_apply_end,
// turn_complete or turn_aborted event, of 8 KiB or more so, the item
// (without its timestamp) in <codex home>/rollout-payloads/<sha256>.json
// and the line {"type": "rollout_payload_artifact", "payload": {"sha256",
// "bytes", "item_type"}} in the rollout (codex-rs rollout, store_line).
const codexPayloadArtifact = "rollout_payload_artifact"

// codexPayloadHydrated are the item types of a payload artifact that the
// reader reads: the others Codex stores so (tool_manifest,
// sampling_boundary, and the event_msg lines, of events it does not read)
// are not opened.
var codexPayloadHydrated = setOf("session_meta", "turn_context", "compacted", "retained_context", "realtime_item",
	"inter_agent_communication", "response_item")

// maxCodexPayload bounds the payload file read for one line: a
// session_meta is tens of KiB.
const maxCodexPayload = 64 << 20

// hydrate returns the item type and payload of the item a payload
// artifact line (see codexPayloadArtifact) stands for, as Codex reads it
// back (hydrate_line): from the file named by its digest, of the size the
// line gives and of that digest, whose item is of the type the line
// gives. ok is false for an item not read, and for one whose file is
// missing or damaged, which is reported: the rest of the rollout is read
// without it.
func (h *codexHandler) hydrate(n int, raw json.RawMessage) (item string, payload json.RawMessage, ok bool) {
	var ref struct {
		SHA256   string `json:"sha256"`
		Bytes    int64  `json:"bytes"`
		ItemType string `json:"item_type"`
	}
	if json.Unmarshal(raw, &ref) != nil || ref.ItemType == "" {
		h.st.Reported.report(h.fc, n, codexPayloadArtifact+" without an item type")
		return "", nil, false
	}
	if !codexPayloadHydrated[ref.ItemType] {
		if ref.ItemType != "event_msg" && !codexQuietLines[ref.ItemType] {
			h.st.Reported.report(h.fc, n, codexPayloadArtifact+" of line type "+strconv.Quote(ref.ItemType))
		}
		return "", nil, false
	}
	file := filepath.Join(codexPayloadDir(h.fc.path), ref.SHA256+".json")
	// Named from rollout-payloads/ on: the whole path would be cut
	// short in the problem.
	name := filepath.Join(filepath.Base(filepath.Dir(file)), filepath.Base(file))
	data, err := readCodexPayload(file, ref.SHA256, ref.Bytes)
	var l codexLine
	switch {
	case errors.Is(err, fs.ErrNotExist):
		h.fc.problem(n, fmt.Sprintf("the %s this line stands for is not read: %s is missing", ref.ItemType, name))
		return "", nil, false
	case err != nil:
		h.fc.problem(n, fmt.Sprintf("the %s this line stands for is not read: %s: %s", ref.ItemType, name, trimErr(err)))
		return "", nil, false
	case json.Unmarshal(data, &l) != nil || l.Type != ref.ItemType || len(l.Payload) == 0:
		h.fc.problem(n, fmt.Sprintf("the %s this line stands for is not read: %s holds no %s", ref.ItemType, name, ref.ItemType))
		return "", nil, false
	}
	return l.Type, l.Payload, true
}

// codexPayloadDir is the folder of the payload artifacts of the rollout
// at path, as Codex finds it: rollout-payloads beside the sessions or
// archived_sessions folder the rollout is under, else beside the rollout.
func codexPayloadDir(path string) string {
	for dir := filepath.Dir(path); ; {
		if b := filepath.Base(dir); b == "sessions" || b == "archived_sessions" {
			return filepath.Join(filepath.Dir(dir), "rollout-payloads")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return filepath.Join(filepath.Dir(path), "rollout-payloads")
}

// readCodexPayload reads a payload artifact: a regular file of size
// bytes whose SHA-256 is sum (hex), as Codex checks it, so that a file
// cut short or replaced is not read as the item.
func readCodexPayload(file, sum string, size int64) ([]byte, error) {
	if len(sum) != sha256.Size*2 || strings.Trim(strings.ToLower(sum), "0123456789abcdef") != "" {
		return nil, errors.New("the line names no SHA-256 digest")
	}
	if size <= 0 || size > maxCodexPayload {
		return nil, fmt.Errorf("the line gives a size of %d bytes", size)
	}
	f, err := openSource(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, size+1))
	if err != nil {
		return nil, err
	}
	got := sha256.Sum256(data)
	if int64(len(data)) != size || !strings.EqualFold(hex.EncodeToString(got[:]), sum) {
		return nil, fmt.Errorf("not the %d bytes of its digest (changed or cut short)", size)
	}
	return data, nil
}
