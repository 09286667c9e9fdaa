package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxLineBytes bounds one inbound JSON-RPC line. Nova's tool arguments are
// small (a query is at most 4 000 characters); a longer line is answered
// with an error and discarded.
const MaxLineBytes = 1 << 20

// drainTimeout bounds how long the end of input waits for the answers to
// requests already received (a client that writes its requests and closes
// stdin still gets them).
const drainTimeout = DefaultCallTimeout + 5*time.Second

// guard copies well-formed JSON-RPC lines from in to sdk and answers every
// other line itself on w. When in ends, it waits for the requests in
// flight to be answered (up to drainTimeout), then closes sdk.
func guard(in io.Reader, sdk *io.PipeWriter, w *lockedWriter) {
	r := bufio.NewReaderSize(in, 64<<10)
	var lc lifecycle
	for {
		line, tooLong, err := readLine(r, MaxLineBytes)
		if len(line) > 0 || tooLong {
			var msg []byte
			if tooLong {
				msg = errorResponse(headID(line), jsonrpc.CodeInvalidRequest, "message too large: a JSON-RPC line may be at most 1 MiB")
			} else if line[0] == '[' && lc.batches && json.Valid(line) {
				if !serveBatch(line, &lc, sdk, w) {
					return
				}
			} else if msg = check(line); msg == nil {
				if msg = w.reused(line, nil); msg == nil {
					msg = lc.check(line)
				}
			}
			if msg != nil {
				if werr := w.reply(msg); werr != nil {
					_ = sdk.CloseWithError(werr)
					return
				}
			} else if line[0] != '[' {
				w.track(line)
				if _, werr := sdk.Write(append(w.forward(line), '\n')); werr != nil {
					return // the session is closed
				}
			}
		}
		if err != nil {
			w.drain(drainTimeout)
			_ = sdk.Close()
			return
		}
	}
}

// batchVersion is the only MCP version with JSON-RPC batches: 2025-03-26
// says implementations MUST support receiving them; 2025-06-18 removed
// them.
const batchVersion = "2025-03-26"

// serveBatch takes a JSON-RPC batch in a session that negotiated
// batchVersion: each member is checked like a line of its own, the valid
// ones are handed to the SDK, and their answers, with the guard's errors
// for the others, are written as one JSON array once all are in.
// Notifications and responses add no answer; a batch of only those is
// answered with nothing. It returns false when the session is closed.
func serveBatch(line []byte, lc *lifecycle, sdk *io.PipeWriter, w *lockedWriter) bool {
	var members []json.RawMessage
	_ = json.Unmarshal(line, &members) // valid JSON starting with '['
	if len(members) == 0 {
		if err := w.reply(errorResponse(nil, jsonrpc.CodeInvalidRequest, "invalid request: an empty batch")); err != nil {
			_ = sdk.CloseWithError(err)
			return false
		}
		return true
	}
	var errs, forward [][]byte
	var keys []string
	for _, m := range members {
		m = bytes.TrimSpace(m)
		var msg []byte
		if m[0] != '{' {
			msg = errorResponse(nil, jsonrpc.CodeInvalidRequest, "invalid request: a batch member must be a JSON-RPC message object")
		} else if msg = check(m); msg == nil {
			if msg = w.reused(m, keys); msg == nil {
				msg = lc.check(m)
			}
		}
		if msg != nil {
			errs = append(errs, bytes.TrimSpace(msg))
			continue
		}
		forward = append(forward, m)
		if key, ok := requestKey(m); ok {
			keys = append(keys, key)
		}
	}
	if err := w.startBatch(keys, errs); err != nil {
		_ = sdk.CloseWithError(err)
		return false
	}
	for _, m := range forward {
		w.track(m)
		if _, err := sdk.Write(append(w.forward(m), '\n')); err != nil {
			return false
		}
	}
	return true
}

// headBytes is how much of a line too long to take is kept to read its
// id from.
const headBytes = 4 << 10

// readLine returns the next line without its line ending and surrounding
// white space. A line longer than limit is consumed and reported tooLong,
// with its first bytes (at most headBytes) as line. err is non-nil at the
// end of input (the last line may come with it).
func readLine(r *bufio.Reader, limit int) (line []byte, tooLong bool, err error) {
	var buf []byte
	for {
		chunk, isPrefix, rerr := r.ReadLine()
		if !tooLong && len(buf)+len(chunk) > limit {
			tooLong = true
			buf = append(buf, chunk...)
			buf = bytes.Clone(buf[:min(len(buf), limit, headBytes)])
		} else if !tooLong {
			buf = append(buf, chunk...)
		}
		if rerr != nil {
			return bytes.TrimSpace(buf), tooLong, rerr
		}
		if !isPrefix {
			return bytes.TrimSpace(buf), tooLong, nil
		}
	}
}

// headID returns the id of the message that head starts, when the id
// comes before any value that head cuts off (clients write the id before
// the params); else nil.
func headID(head []byte) any {
	dec := json.NewDecoder(bytes.NewReader(head))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil
		}
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return nil
		}
		if key == "id" {
			if !validID(v) {
				return nil
			}
			return v
		}
	}
	return nil
}

// check returns nil when line is one JSON-RPC message the SDK can take,
// else the error response to send.
func check(line []byte) []byte {
	if !json.Valid(line) {
		return errorResponse(nil, jsonrpc.CodeParseError, "parse error: the line is not valid JSON")
	}
	if line[0] == '[' {
		return errorResponse(nil, jsonrpc.CodeInvalidRequest, "invalid request: JSON-RPC batches are not supported in this protocol version; send one message per line")
	}
	if line[0] != '{' {
		return errorResponse(nil, jsonrpc.CodeInvalidRequest, "invalid request: a JSON-RPC message must be a JSON object")
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method json.RawMessage `json:"method"`
	}
	_ = json.Unmarshal(line, &m) // a valid JSON object
	if m.Method != nil && m.ID != nil && !validID(m.ID) {
		// The SDK would take a null id for a notification (and never
		// answer) and truncate a fractional one (1.5 answered as 1).
		if string(m.ID) == "null" {
			return errorResponse(nil, jsonrpc.CodeInvalidRequest, "invalid request: the id of a request must not be null")
		}
		return errorResponse(nil, jsonrpc.CodeInvalidRequest, "invalid request: the id of a request must be a string or an integer")
	}
	if _, err := jsonrpc.DecodeMessage(line); err != nil {
		return errorResponse(readID(line), jsonrpc.CodeInvalidRequest, "invalid request: "+err.Error())
	}
	return nil
}

// lifecycle follows the session's initialization as the SDK sees it: the
// SDK counts a session initialized once it has taken an initialize
// request. It answers the requests the SDK would refuse with a bare Go
// error, which reaches the client as the invalid code 0: initialize params
// it cannot decode (-32602 here), a second initialize, and a request other
// than ping before initialize (-32600 here). Only the guard goroutine uses
// it.
type lifecycle struct {
	initialized bool
	// batches is whether the session negotiated batchVersion (the SDK
	// answers a version it supports with that version).
	batches bool
}

// beforeInit are the requests the SDK takes before initialize.
var beforeInit = []string{"ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe", "server/discover"}

// check returns nil when the SDK can take line (a valid JSON-RPC message)
// at this point of the session, else the error response to send.
func (lc *lifecycle) check(line []byte) []byte {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method json.RawMessage `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if json.Unmarshal(line, &m) != nil || m.Method == nil || m.ID == nil {
		return nil // a notification or a response
	}
	// An empty or null method is a request too: the SDK answers it with
	// code 0 before initialize.
	var method string
	_ = json.Unmarshal(m.Method, &method) // check let only strings and null through
	id := readID(line)
	switch {
	case method == "initialize" && lc.initialized:
		return errorResponse(id, jsonrpc.CodeInvalidRequest, "invalid request: the session is already initialized")
	case method == "initialize" && statelessRequest(m.Params):
		// The SDK refuses it (-32601: the stateless protocol has no
		// initialize), and the session stays uninitialized.
		return nil
	case method == "initialize":
		var p mcp.InitializeParams
		if len(m.Params) == 0 || string(m.Params) == "null" {
			return errorResponse(id, jsonrpc.CodeInvalidParams, `invalid params: initialize needs params {"protocolVersion", "capabilities", "clientInfo"}`)
		}
		if err := json.Unmarshal(m.Params, &p); err != nil {
			return errorResponse(id, jsonrpc.CodeInvalidParams, "invalid params: initialize: "+err.Error())
		}
		lc.initialized = true
		lc.batches = p.ProtocolVersion == batchVersion
	case !lc.initialized && !slices.Contains(beforeInit, method) && !statelessRequest(m.Params):
		return errorResponse(id, jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: %q before initialize; send initialize first", method))
	}
	return nil
}

// statelessVersion is the first MCP version without initialize: a
// request names its version in _meta, and the SDK serves it in any
// session (SEP-2575).
const statelessVersion = "2026-07-28"

// statelessRequest reports whether params name a version of the
// stateless protocol in _meta, as the SDK judges it (versions are dates,
// compared as strings). A request that names an older version there is
// a request of the initialized protocol, which the SDK refuses before
// initialize with a bare error (code 0).
func statelessRequest(params json.RawMessage) bool {
	var p struct {
		Meta map[string]any `json:"_meta"`
	}
	_ = json.Unmarshal(params, &p)
	v, ok := p.Meta[mcp.MetaKeyProtocolVersion].(string)
	return ok && v >= statelessVersion
}

// maxID bounds the integer ids the SDK takes as they are: larger ones do
// not survive its float64 decoding intact, so the guard hands the SDK a
// stand-in for them (see lockedWriter.forward).
const maxID = 1 << 53

// validID reports whether raw is an id MCP allows: a string, or an integer
// written without fraction or exponent.
func validID(raw json.RawMessage) bool {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return false
	}
	switch v.(type) {
	case string:
		return true
	case float64:
		return intLiteral(raw)
	}
	return false
}

// intLiteral reports whether raw, a valid JSON number, is written as an
// integer: no fraction, no exponent.
func intLiteral(raw json.RawMessage) bool {
	return !bytes.ContainsAny(raw, ".eE")
}

// sdkKeepsID reports whether the SDK answers a request with id raw (a
// valid id) under the same id: a string, or an integer within ±2^53
// written as the SDK writes it back (not -0).
func sdkKeepsID(raw json.RawMessage) bool {
	if len(raw) == 0 || raw[0] == '"' {
		return true
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	return err == nil && n >= -maxID && n <= maxID && strconv.FormatInt(n, 10) == string(raw)
}

// readID returns the message's id when it is a valid id, else nil.
func readID(line []byte) any {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &m) != nil || len(m.ID) == 0 || !validID(m.ID) {
		return nil
	}
	return m.ID
}

// errorResponse renders a JSON-RPC error response line.
func errorResponse(id any, code int, message string) []byte {
	b, _ := json.Marshal(struct {
		JSONRPC string `json:"jsonrpc"`
		ID      any    `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, message}})
	return append(b, '\n')
}

// lockedWriter serialises writes from the SDK and from the guard, so that
// messages never interleave on the stream. It also tracks the requests
// the SDK has not answered yet, and withholds the answers to requests the
// client cancelled.
type lockedWriter struct {
	mu        sync.Mutex
	w         io.Writer
	pending   map[string]string // ids of requests in flight: their methods
	cancelled map[string]bool   // ids of requests the client cancelled
	batchOf   map[string]*batch // ids of batch members not answered yet
	changed   chan struct{}     // signalled when one is answered

	// Stand-ins for ids the SDK would change (see forward): the client's
	// id of each stand-in, and the stand-in of each id key.
	standIns  map[string]json.RawMessage
	standInOf map[string]string
	lastStand uint64

	// broken is the first error a write to w met (the client's end of
	// stdout gone): why the session ended, where the SDK reports what
	// followed it, a read of the transport it then closed.
	broken error
}

// write writes p to the client, noting the first error. l.mu is held.
func (l *lockedWriter) write(p []byte) error {
	_, err := l.w.Write(p)
	if err != nil && l.broken == nil {
		l.broken = err
	}
	return err
}

// brokenBy returns the first error a write to the client met, or nil.
func (l *lockedWriter) brokenBy() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.broken
}

// batch collects the answers to one JSON-RPC batch.
type batch struct {
	waiting int      // members not answered yet
	parts   [][]byte // answers so far
}

// startBatch expects the answers to the requests keys of one batch, which
// already has the answers errs; with no request to wait for it writes
// them at once.
func (l *lockedWriter) startBatch(keys []string, errs [][]byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.batchOf == nil {
		l.batchOf = map[string]*batch{}
	}
	b := &batch{parts: errs}
	for _, k := range keys {
		if _, dup := l.batchOf[k]; !dup {
			l.batchOf[k] = b
			b.waiting++
		}
	}
	if b.waiting == 0 {
		return l.flush(b)
	}
	return nil
}

// answered files the answer to a member of b; the last one writes the
// batch's answers as one JSON array.
func (l *lockedWriter) answered(key string, b *batch, p []byte) error {
	delete(l.batchOf, key)
	if p != nil {
		b.parts = append(b.parts, bytes.Clone(bytes.TrimSpace(p)))
	}
	if b.waiting--; b.waiting > 0 {
		return nil
	}
	return l.flush(b)
}

func (l *lockedWriter) flush(b *batch) error {
	if len(b.parts) == 0 {
		return nil
	}
	out := append([]byte{'['}, bytes.Join(b.parts, []byte{','})...)
	err := l.write(append(out, ']', '\n'))
	return err
}

// reply writes the guard's own answer to a message it did not hand to
// the SDK. It is not taken for the SDK's answer to a request in flight
// with the same id.
func (l *lockedWriter) reply(p []byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.write(p)
}

// Write writes the SDK's messages, noting which request each answers.
func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(p)
	p = l.restore(p)
	if len(l.pending) > 0 || len(l.cancelled) > 0 || len(l.batchOf) > 0 {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(p, &m) == nil && m.Method == "" {
			key, ok := idKey(m.ID)
			if ok && l.cancelled[key] {
				// MCP cancellation: the receiver SHOULD NOT answer a
				// request the sender cancelled.
				delete(l.cancelled, key)
				return n, nil
			}
			if _, pending := l.pending[key]; ok && pending {
				delete(l.pending, key)
				l.signal()
			}
			if b := l.batchOf[key]; ok && b != nil {
				return n, l.answered(key, b, p)
			}
		}
	}
	if err := l.write(p); err != nil {
		return 0, err
	}
	return n, nil
}

// forward returns line as the SDK is to see it. The SDK decodes ids as
// float64 and answers with the integer it holds, so 2^53+1 would be
// answered as 2^53 and -0 as 0: the client would never see its answer,
// and the request would stay in flight. Such an id is replaced by a
// string stand-in, which restore turns back into the client's id, byte
// for byte, in the answer; a cancellation names the stand-in.
func (l *lockedWriter) forward(line []byte) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(line, &m) != nil {
		return line
	}
	var method string
	_ = json.Unmarshal(m["method"], &method)
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case method == "notifications/cancelled":
		var params map[string]json.RawMessage
		if json.Unmarshal(m["params"], &params) != nil {
			return line
		}
		key, ok := idKey(params["requestId"])
		stand, found := l.standInOf[key]
		if !ok || !found {
			return line
		}
		params["requestId"] = quote(stand)
		m["params"] = marshalRaw(params)
	case m["method"] != nil && len(m["id"]) > 0 && !sdkKeepsID(m["id"]):
		key, ok := idKey(m["id"])
		if !ok {
			return line
		}
		if l.standIns == nil {
			l.standIns = map[string]json.RawMessage{}
			l.standInOf = map[string]string{}
		}
		l.lastStand++
		// A stand-in is never a string id of the client's in flight,
		// and reused refuses a client's request with a live stand-in's
		// id.
		stand := fmt.Sprintf("nova-guard-id-%d", l.lastStand)
		for _, taken := l.pending["s:"+stand]; taken; _, taken = l.pending["s:"+stand] {
			l.lastStand++
			stand = fmt.Sprintf("nova-guard-id-%d", l.lastStand)
		}
		l.standIns[stand] = bytes.Clone(m["id"])
		l.standInOf[key] = stand
		m["id"] = quote(stand)
	default:
		return line
	}
	return marshalRaw(m)
}

// restore gives an answer of the SDK's to a stand-in id (see forward) the
// client's id back. Only the id changes: the SDK writes it before the
// result or error, so its first occurrence is the id.
func (l *lockedWriter) restore(p []byte) []byte {
	if len(l.standIns) == 0 {
		return p
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	var stand string
	if json.Unmarshal(p, &m) != nil || m.Method != "" || json.Unmarshal(m.ID, &stand) != nil {
		return p
	}
	raw, ok := l.standIns[stand]
	if !ok {
		return p
	}
	delete(l.standIns, stand)
	if key, ok := idKey(raw); ok {
		delete(l.standInOf, key)
	}
	return bytes.Replace(p, append([]byte(`"id":`), quote(stand)...), append([]byte(`"id":`), raw...), 1)
}

// quote is s as a JSON string.
func quote(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

// marshalRaw renders a decoded message again, without HTML escaping (the
// values are kept as received).
func marshalRaw(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // maps of valid raw JSON
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

func (l *lockedWriter) signal() {
	select {
	case l.changed <- struct{}{}:
	default:
	}
}

// track notes a request (a message with a method and an id) before it is
// handed to the SDK, and marks one the client cancels (except initialize,
// which MCP says a client must not cancel) so that its answer is dropped.
func (l *lockedWriter) track(line []byte) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			RequestID json.RawMessage `json:"requestId"`
		} `json:"params"`
	}
	if json.Unmarshal(line, &m) != nil || m.Method == "" {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.pending == nil {
		l.pending = map[string]string{}
		l.cancelled = map[string]bool{}
		l.changed = make(chan struct{}, 1)
	}
	if m.Method == "notifications/cancelled" {
		key, ok := idKey(m.Params.RequestID)
		if method, pending := l.pending[key]; ok && pending && method != "initialize" {
			delete(l.pending, key)
			l.cancelled[key] = true
			l.signal()
			if b := l.batchOf[key]; b != nil {
				_ = l.answered(key, b, nil) // a write error shows on the next write
			}
		}
		return
	}
	if key, ok := idKey(m.ID); ok {
		l.pending[key] = m.Method
	}
}

// reused returns the error response to a request whose id is that of a
// request still in flight, or of one of batch (the earlier members of the
// batch being read), else nil. MCP forbids reusing an id in a session;
// handed to the SDK, the second request waited for the first and one of
// the two answers was lost.
func (l *lockedWriter) reused(line []byte, batch []string) []byte {
	key, ok := requestKey(line)
	if !ok {
		return nil
	}
	l.mu.Lock()
	_, pending := l.pending[key]
	if s, ok := strings.CutPrefix(key, "s:"); ok && l.standIns[s] != nil {
		pending = true
	}
	l.mu.Unlock()
	if !pending && !slices.Contains(batch, key) {
		return nil
	}
	return errorResponse(readID(line), jsonrpc.CodeInvalidRequest, "invalid request: the id is already used by a request in flight; use a new id for each request")
}

// requestKey returns the normalised id of a request (a message with a
// method and an id).
func requestKey(line []byte) (string, bool) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(line, &m) != nil || m.Method == "" {
		return "", false
	}
	return idKey(m.ID)
}

// drain waits until no request is in flight, or for at most d.
func (l *lockedWriter) drain(d time.Duration) {
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	for {
		l.mu.Lock()
		n, ch := len(l.pending), l.changed
		l.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-ch:
		case <-deadline.C:
			return
		}
	}
}

// idKey normalises a JSON-RPC id (1 and 1.0 are the same id). An integer
// literal is its own key, so that ids beyond float64's precision stay
// apart.
func idKey(raw json.RawMessage) (string, bool) {
	var v any
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
		return "", false
	}
	switch v := v.(type) {
	case string:
		return "s:" + v, true
	case float64:
		if intLiteral(raw) {
			return "n:" + string(raw), true
		}
		return "n:" + strconv.FormatFloat(v, 'g', -1, 64), true
	}
	return "", false
}

// nopWriteCloser keeps the SDK from closing the process's stdout when a
// session ends.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
