package agentconf

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file edits JSON documents surgically: it locates members by byte
// offsets and inserts or removes text, so everything else in the file
// (comments, key order, spacing, other servers) stays byte for byte. The
// scanner accepts the JSON dialects agents use: strict JSON (Claude Code),
// JSON with comments (Gemini CLI) and JSON5 (OpenClaw: comments, trailing
// commas, unquoted keys, single-quoted strings).

// jsonObject is an object's extent and its members.
type jsonObject struct {
	open, close int // offsets of '{' and '}'
	members     []jsonMember
}

// jsonMember is one "key": value pair.
type jsonMember struct {
	key                  string
	keyStart, keyEnd     int // the key token, quotes included
	valueStart, valueEnd int // the value token
	value                any // the decoded value (objects: *jsonObject)
}

type jsonScanner struct {
	src []byte
	pos int
}

// syntaxError says where a document stops being JSON.
type syntaxError struct {
	offset int
	msg    string
	src    []byte
}

func (e *syntaxError) Error() string {
	line := 1 + bytes.Count(e.src[:min(e.offset, len(e.src))], []byte("\n"))
	return fmt.Sprintf("line %d: %s", line, e.msg)
}

func (s *jsonScanner) fail(msg string, args ...any) error {
	return &syntaxError{offset: s.pos, msg: fmt.Sprintf(msg, args...), src: s.src}
}

// parseJSONDoc parses a whole document whose root must be an object.
func parseJSONDoc(src []byte) (*jsonObject, error) {
	s := &jsonScanner{src: src}
	if bytes.HasPrefix(src, []byte("\xef\xbb\xbf")) {
		s.pos = 3
	}
	if err := s.space(); err != nil {
		return nil, err
	}
	if s.pos >= len(src) || src[s.pos] != '{' {
		return nil, s.fail("the document must be a JSON object")
	}
	v, err := s.value(0)
	if err != nil {
		return nil, err
	}
	if err := s.space(); err != nil {
		return nil, err
	}
	if s.pos != len(src) {
		return nil, s.fail("unexpected text after the top-level object")
	}
	return v.(*jsonObject), nil
}

// space skips white space and comments.
func (s *jsonScanner) space() error {
	for s.pos < len(s.src) {
		c := s.src[s.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			s.pos++
		case c == '/' && s.pos+1 < len(s.src) && s.src[s.pos+1] == '/':
			for s.pos < len(s.src) && s.src[s.pos] != '\n' {
				s.pos++
			}
		case c == '/' && s.pos+1 < len(s.src) && s.src[s.pos+1] == '*':
			end := bytes.Index(s.src[s.pos+2:], []byte("*/"))
			if end < 0 {
				return s.fail("unterminated /* comment")
			}
			s.pos += 2 + end + 2
		default:
			r, size := utf8.DecodeRune(s.src[s.pos:])
			if r == '\ufeff' || r == '\u00a0' || r == '\u2028' || r == '\u2029' {
				s.pos += size
				continue
			}
			return nil
		}
	}
	return nil
}

const maxDepth = 200

func (s *jsonScanner) value(depth int) (any, error) {
	if depth > maxDepth {
		return nil, s.fail("nesting too deep")
	}
	if s.pos >= len(s.src) {
		return nil, s.fail("unexpected end of document")
	}
	switch c := s.src[s.pos]; c {
	case '{':
		return s.object(depth)
	case '[':
		return s.array(depth)
	case '"', '\'':
		return s.str()
	default:
		start := s.pos
		for s.pos < len(s.src) {
			c := s.src[s.pos]
			if c == ',' || c == '}' || c == ']' || c == ':' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '/' || c == '{' || c == '[' || c == '"' || c == '\'' {
				break
			}
			s.pos++
		}
		if s.pos == start {
			return nil, s.fail("unexpected %q", string(c))
		}
		tok := string(s.src[start:s.pos])
		switch tok {
		case "true":
			return true, nil
		case "false":
			return false, nil
		case "null":
			return nil, nil
		}
		if _, err := strconv.ParseFloat(strings.TrimPrefix(tok, "+"), 64); err == nil || isJSON5Number(tok) {
			return json.Number(tok), nil
		}
		s.pos = start
		return nil, s.fail("unexpected %q", tok)
	}
}

func isJSON5Number(tok string) bool {
	t := strings.TrimLeft(tok, "+-")
	if t == "Infinity" || t == "NaN" {
		return true
	}
	if strings.HasPrefix(t, "0x") || strings.HasPrefix(t, "0X") {
		_, err := strconv.ParseUint(t[2:], 16, 64)
		return err == nil
	}
	if strings.HasPrefix(t, ".") || strings.HasSuffix(t, ".") {
		_, err := strconv.ParseFloat(strings.Trim(t, ".")+"0", 64)
		return err == nil
	}
	return false
}

func (s *jsonScanner) object(depth int) (*jsonObject, error) {
	obj := &jsonObject{open: s.pos}
	s.pos++ // {
	for {
		if err := s.space(); err != nil {
			return nil, err
		}
		if s.pos >= len(s.src) {
			return nil, s.fail("unterminated object")
		}
		if s.src[s.pos] == '}' {
			obj.close = s.pos
			s.pos++
			return obj, nil
		}
		m := jsonMember{keyStart: s.pos}
		if c := s.src[s.pos]; c == '"' || c == '\'' {
			k, err := s.str()
			if err != nil {
				return nil, err
			}
			m.key = k
		} else {
			start := s.pos
			for s.pos < len(s.src) {
				r, size := utf8.DecodeRune(s.src[s.pos:])
				if !(r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r)) {
					break
				}
				s.pos += size
			}
			if s.pos == start {
				return nil, s.fail("expected a member name")
			}
			m.key = string(s.src[start:s.pos])
		}
		m.keyEnd = s.pos
		if err := s.space(); err != nil {
			return nil, err
		}
		if s.pos >= len(s.src) || s.src[s.pos] != ':' {
			return nil, s.fail("expected ':' after %q", m.key)
		}
		s.pos++
		if err := s.space(); err != nil {
			return nil, err
		}
		m.valueStart = s.pos
		v, err := s.value(depth + 1)
		if err != nil {
			return nil, err
		}
		m.value, m.valueEnd = v, s.pos
		obj.members = append(obj.members, m)
		if err := s.space(); err != nil {
			return nil, err
		}
		if s.pos < len(s.src) && s.src[s.pos] == ',' {
			s.pos++
			continue
		}
		if s.pos < len(s.src) && s.src[s.pos] == '}' {
			continue
		}
		return nil, s.fail("expected ',' or '}' after the value of %q", m.key)
	}
}

func (s *jsonScanner) array(depth int) ([]any, error) {
	s.pos++ // [
	out := []any{}
	for {
		if err := s.space(); err != nil {
			return nil, err
		}
		if s.pos >= len(s.src) {
			return nil, s.fail("unterminated array")
		}
		if s.src[s.pos] == ']' {
			s.pos++
			return out, nil
		}
		v, err := s.value(depth + 1)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		if err := s.space(); err != nil {
			return nil, err
		}
		if s.pos < len(s.src) && s.src[s.pos] == ',' {
			s.pos++
			continue
		}
		if s.pos < len(s.src) && s.src[s.pos] == ']' {
			continue
		}
		return nil, s.fail("expected ',' or ']' in array")
	}
}

// str decodes a double- or single-quoted string.
func (s *jsonScanner) str() (string, error) {
	quote := s.src[s.pos]
	start := s.pos
	s.pos++
	for s.pos < len(s.src) {
		switch s.src[s.pos] {
		case '\\':
			s.pos += 2
			continue
		case '\n':
			return "", s.fail("newline in string")
		case quote:
			s.pos++
			raw := s.src[start:s.pos]
			if quote == '"' {
				var out string
				if err := json.Unmarshal(raw, &out); err == nil {
					return out, nil
				}
			}
			return unescapeJSON5(string(raw[1 : len(raw)-1])), nil
		}
		s.pos++
	}
	return "", s.fail("unterminated string")
}

// unescapeJSON5 decodes the escapes of a JSON5 string body leniently.
func unescapeJSON5(body string) string {
	if !strings.Contains(body, `\`) {
		return body
	}
	var b strings.Builder
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c != '\\' || i+1 >= len(body) {
			b.WriteByte(c)
			continue
		}
		i++
		switch body[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case '0':
			b.WriteByte(0)
		case 'u':
			if i+4 < len(body) {
				if n, err := strconv.ParseUint(body[i+1:i+5], 16, 32); err == nil {
					b.WriteRune(rune(n))
					i += 4
					continue
				}
			}
			b.WriteByte('u')
		case '\n':
			// a line continuation
		default:
			b.WriteByte(body[i])
		}
	}
	return b.String()
}

// member returns the member named key, or nil.
func (o *jsonObject) member(key string) *jsonMember {
	for i := range o.members {
		if o.members[i].key == key {
			return &o.members[i]
		}
	}
	return nil
}

// plain converts a decoded value to plain Go values (maps, slices,
// strings, numbers as json.Number).
func plain(v any) any {
	switch v := v.(type) {
	case *jsonObject:
		m := make(map[string]any, len(v.members))
		for _, mem := range v.members {
			m[mem.key] = plain(mem.value)
		}
		return m
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = plain(e)
		}
		return out
	}
	return v
}

// jsonLayout is how a document is indented.
type jsonLayout struct {
	unit      string // one indentation level
	multiline bool
	nl        string
	colon     string // between a key and its value, e.g. ": "
	comma     string // between items on one line, e.g. ", "
	bareKeys  bool   // JSON5 style: identifier keys without quotes
}

// key renders a member name in the document's style.
func (l jsonLayout) key(k string) string {
	if l.bareKeys && isIdentifier(k) {
		return k
	}
	return quoteJSON(k)
}

func isIdentifier(k string) bool {
	for i, r := range k {
		if !(r == '_' || r == '$' || unicode.IsLetter(r) || (i > 0 && unicode.IsDigit(r))) {
			return false
		}
	}
	return k != ""
}

// bareKeyStyle reports whether the document writes member names without
// quotes (JSON5), judging by the first member of obj, else of root.
func bareKeyStyle(src []byte, root, obj *jsonObject) bool {
	for _, o := range []*jsonObject{obj, root} {
		if len(o.members) > 0 {
			c := src[o.members[0].keyStart]
			return c != '"' && c != '\''
		}
	}
	return false
}

// lineIndent returns the leading white space of the line holding off.
func lineIndent(src []byte, off int) string {
	start := bytes.LastIndexByte(src[:off], '\n') + 1
	end := start
	for end < len(src) && (src[end] == ' ' || src[end] == '\t') {
		end++
	}
	return string(src[start:end])
}

func sameLine(src []byte, a, b int) bool {
	if a > b {
		a, b = b, a
	}
	return !bytes.ContainsRune(src[a:b], '\n')
}

// layoutOf infers the indentation unit and style of a document.
func layoutOf(src []byte, root *jsonObject) jsonLayout {
	l := jsonLayout{unit: "  ", nl: newline(src), colon: ": ", comma: ", "}
	l.multiline = bytes.ContainsRune(src[root.open:root.close], '\n')
	if len(root.members) > 0 {
		first := root.members[0]
		ind, outer := lineIndent(src, first.keyStart), lineIndent(src, root.open)
		if !sameLine(src, root.open, first.keyStart) && len(ind) > len(outer) && strings.HasPrefix(ind, outer) {
			l.unit = ind[len(outer):]
		}
	}
	return l
}

// newline is the document's line ending.
func newline(src []byte) string {
	if bytes.Contains(src, []byte("\r\n")) {
		return "\r\n"
	}
	return "\n"
}

// renderJSONValue renders v (maps in the given key order) at the given
// indentation.
func renderJSONValue(v any, indent string, l jsonLayout) string {
	switch v := v.(type) {
	case orderedMap:
		if len(v) == 0 {
			return "{}"
		}
		var b strings.Builder
		b.WriteByte('{')
		for i, kv := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			if l.multiline {
				b.WriteString(l.nl + indent + l.unit)
			} else if i > 0 {
				b.WriteString(strings.TrimPrefix(l.comma, ","))
			}
			b.WriteString(l.key(kv.key) + l.colon + renderJSONValue(kv.value, indent+l.unit, l))
		}
		if l.multiline {
			b.WriteString(l.nl + indent)
		}
		b.WriteByte('}')
		return b.String()
	case []string:
		parts := make([]string, len(v))
		for i, s := range v {
			parts[i] = quoteJSON(s)
		}
		return "[" + strings.Join(parts, l.comma) + "]"
	case string:
		return quoteJSON(v)
	}
	panic(fmt.Sprintf("renderJSONValue: unexpected %T", v))
}

// quoteJSON is a JSON string literal without HTML escaping; it is also a
// valid TOML basic string and YAML double-quoted scalar.
func quoteJSON(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// orderedMap is a JSON object with a fixed key order.
type orderedMap []keyValue

type keyValue struct {
	key   string
	value any
}

// jsonInsert adds member name = value to the object at keys (creating
// the missing objects on the way) and returns the new document and what
// was inserted.
func jsonInsert(src []byte, keys []string, name string, value orderedMap) ([]byte, Insertion, error) {
	if len(bytes.TrimSpace(src)) == 0 {
		// A new document: {"keys...": {"name": value}}.
		l := jsonLayout{unit: "  ", multiline: true, nl: newline(src), colon: ": ", comma: ", "}
		v := nest(keys, name, value)
		text := renderJSONValue(v, "", l) + l.nl
		out := append(append([]byte{}, src...), text...)
		return out, Insertion{Offset: len(src), Text: text, CreatedLevels: len(keys) + 1}, nil
	}
	root, err := parseJSONDoc(src)
	if err != nil {
		return nil, Insertion{}, err
	}
	l := layoutOf(src, root)
	obj := root
	created := len(keys)
	for i, k := range keys {
		m := obj.member(k)
		if m == nil {
			break
		}
		child, ok := m.value.(*jsonObject)
		if !ok {
			return nil, Insertion{}, fmt.Errorf("%q is not an object; fix it by hand", strings.Join(keys[:i+1], "."))
		}
		obj = child
		created--
	}
	l.bareKeys = bareKeyStyle(src, root, obj)
	missing := keys[len(keys)-created:]
	key, val := name, any(value)
	if len(missing) > 0 {
		key = missing[0]
		val = nest(missing[1:], name, value)
	}
	off, text := insertMember(src, obj, key, val, l)
	out := make([]byte, 0, len(src)+len(text))
	out = append(append(append(out, src[:off]...), text...), src[off:]...)
	return out, Insertion{Offset: off, Text: text, CreatedLevels: created}, nil
}

// nest builds {keys[0]: {keys[1]: ... {name: value}}}.
func nest(keys []string, name string, value orderedMap) orderedMap {
	v := orderedMap{{name, value}}
	for i := len(keys) - 1; i >= 0; i-- {
		v = orderedMap{{keys[i], v}}
	}
	return v
}

// insertMember returns where and what to insert to add key: val as the
// last member of obj, in the style of its existing members.
func insertMember(src []byte, obj *jsonObject, key string, val any, l jsonLayout) (int, string) {
	closeIndent := lineIndent(src, obj.open)
	if len(obj.members) == 0 {
		if !l.multiline {
			return obj.open + 1, l.key(key) + l.colon + renderJSONValue(val, closeIndent, l)
		}
		memberIndent := closeIndent + l.unit
		text := l.nl + memberIndent + l.key(key) + l.colon + renderJSONValue(val, memberIndent, l)
		if !bytes.ContainsRune(src[obj.open:obj.close], '\n') {
			// "{}": put '}' on its own line.
			text += l.nl + closeIndent
		}
		return obj.open + 1, text
	}
	first := obj.members[0]
	last := obj.members[len(obj.members)-1]
	if c := string(src[first.keyEnd:first.valueStart]); !strings.ContainsAny(c, "\n/") {
		l.colon = c
	}
	if sameLine(src, obj.open, first.keyStart) {
		// Members start on the brace's line: stay on one line, spaced
		// like the existing members.
		l.multiline = false
		l.comma = ","
		if first.keyStart > obj.open+1 || !bytes.Contains(src[obj.open:obj.close], []byte(",")) || bytes.Contains(src[obj.open:obj.close], []byte(", ")) {
			l.comma = ", "
		}
		return last.valueEnd, l.comma + l.key(key) + l.colon + renderJSONValue(val, closeIndent, l)
	}
	memberIndent := lineIndent(src, first.keyStart)
	return last.valueEnd, "," + l.nl + memberIndent + l.key(key) + l.colon + renderJSONValue(val, memberIndent, l)
}

func lineStartOf(src []byte, off int) int { return bytes.LastIndexByte(src[:off], '\n') + 1 }

// jsonLookup returns the decoded member name of the object at keys, or
// nil when there is none.
func jsonLookup(src []byte, keys []string, name string) (any, bool, error) {
	if len(bytes.TrimSpace(src)) == 0 {
		return nil, false, nil
	}
	root, err := parseJSONDoc(src)
	if err != nil {
		return nil, false, err
	}
	obj := root
	for _, k := range keys {
		m := obj.member(k)
		if m == nil {
			return nil, false, nil
		}
		child, ok := m.value.(*jsonObject)
		if !ok {
			return nil, false, nil
		}
		obj = child
	}
	m := obj.member(name)
	if m == nil {
		return nil, false, nil
	}
	return plain(m.value), true, nil
}

// jsonRemove deletes member name from the object at keys, then the
// createdLevels innermost containers on keys when they are left empty
// (they were created by the install). It returns false when there is no
// such member.
func jsonRemove(src []byte, keys []string, name string, createdLevels int) ([]byte, bool, error) {
	if len(bytes.TrimSpace(src)) == 0 {
		return src, false, nil
	}
	path := append(append([]string{}, keys...), name)
	out := src
	for level := 0; level <= min(createdLevels, len(keys)); level++ {
		root, err := parseJSONDoc(out)
		if err != nil {
			return nil, false, err
		}
		// Find the parent of path[len(path)-1-level].
		target := path[:len(path)-level]
		obj := root
		for _, k := range target[:len(target)-1] {
			m := obj.member(k)
			if m == nil {
				return out, level > 0, nil
			}
			child, ok := m.value.(*jsonObject)
			if !ok {
				return out, level > 0, nil
			}
			obj = child
		}
		idx := -1
		for i, m := range obj.members {
			if m.key == target[len(target)-1] {
				idx = i
			}
		}
		if idx < 0 {
			return out, level > 0, nil
		}
		if level > 0 {
			// Only remove a created container that is now empty: no
			// members and no comments the user may have written in it.
			c, ok := obj.members[idx].value.(*jsonObject)
			if !ok || len(c.members) > 0 || len(bytes.TrimSpace(out[c.open+1:c.close])) > 0 {
				return out, true, nil
			}
		}
		start, end := memberSpan(out, obj, idx)
		out = append(append([]byte{}, out[:start]...), out[end:]...)
	}
	return out, true, nil
}

// memberSpan is the text to delete to remove member idx of obj, with its
// separator, so that removing a member insertMember added after other
// members restores the original bytes.
func memberSpan(src []byte, obj *jsonObject, idx int) (int, int) {
	m := obj.members[idx]
	switch {
	case idx > 0:
		// ",<space>key: value" after the previous value.
		return obj.members[idx-1].valueEnd, m.valueEnd
	case len(obj.members) > 1:
		// The first of several: up to the next key.
		return m.keyStart, obj.members[1].keyStart
	}
	// The only member: back over white space (not comments) before it.
	start := m.keyStart
	for start > obj.open+1 && isSpace(src[start-1]) {
		start--
	}
	end := m.valueEnd
	// A trailing comma (JSON5) goes with it.
	if s := (&jsonScanner{src: src, pos: end}); s.space() == nil && s.pos < len(src) && src[s.pos] == ',' && !bytes.ContainsRune(src[end:s.pos], '/') {
		end = s.pos + 1
	}
	return start, end
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
