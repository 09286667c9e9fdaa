package agentconf

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// This file edits the documents jsonscan.go parses: it renders values in
// a document's own layout and inserts or removes members as text.

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
	case rawValue:
		return string(v)
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

// rawValue is a value already written in the target syntax: a setting
// carried over from an entry an update replaces.
type rawValue string

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
		m, err := obj.only(src, k, strings.Join(keys[:i+1], "."))
		if err != nil {
			return nil, Insertion{}, err
		}
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
	off, replaced, text := insertMember(src, obj, key, val, l)
	out := make([]byte, 0, len(src)+len(text))
	out = append(append(append(out, src[:off]...), text...), src[off+len(replaced):]...)
	return out, Insertion{Offset: off, Text: text, Replaced: replaced, CreatedLevels: created}, nil
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
// last member of obj, in the style of its existing members: the offset,
// the original text there that the insertion replaces (usually none; text
// repeats it), and the text to put in its place.
func insertMember(src []byte, obj *jsonObject, key string, val any, l jsonLayout) (off int, replaced, text string) {
	closeIndent := lineIndent(src, obj.open)
	if len(obj.members) == 0 {
		if !l.multiline {
			return obj.open + 1, "", l.key(key) + l.colon + renderJSONValue(val, closeIndent, l)
		}
		memberIndent := closeIndent + l.unit
		text := l.nl + memberIndent + l.key(key) + l.colon + renderJSONValue(val, memberIndent, l)
		if !bytes.ContainsRune(src[obj.open:obj.close], '\n') {
			// "{}": put '}' on its own line.
			text += l.nl + closeIndent
		}
		return obj.open + 1, "", text
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
		return last.valueEnd, "", l.comma + l.key(key) + l.colon + renderJSONValue(val, closeIndent, l)
	}
	memberIndent := lineIndent(src, first.keyStart)
	member := l.nl + memberIndent + l.key(key) + l.colon + renderJSONValue(val, memberIndent, l)
	if eol, comma, ok := lineCommentEnd(src, last.valueEnd); ok {
		// A comment ends the last member's line: it stays there, and the
		// new member goes on the next line.
		if comma {
			// A JSON5 trailing comma: the new member gets one too, which
			// tells a structural removal that this comma is not its.
			return eol, "", member + ","
		}
		// The comma goes right after the value, before the comment.
		old := string(src[last.valueEnd:eol])
		return last.valueEnd, old, "," + old + member
	}
	return last.valueEnd, "", "," + member
}

func lineStartOf(src []byte, off int) int { return bytes.LastIndexByte(src[:off], '\n') + 1 }

// jsonLookup returns the decoded member name of the object at keys, or
// nil when there is none.
func jsonLookup(src []byte, keys []string, name string) (any, bool, error) {
	m, err := jsonMemberAt(src, keys, name)
	if m == nil || err != nil {
		return nil, false, err
	}
	return plain(m.value), true, nil
}

// jsonMemberAt returns member name of the object at keys, or nil.
func jsonMemberAt(src []byte, keys []string, name string) (*jsonMember, error) {
	if len(bytes.TrimSpace(src)) == 0 {
		return nil, nil
	}
	// Only the path is decoded: the rest is checked and skipped.
	want := interest{name: nil}
	for i := len(keys) - 1; i >= 0; i-- {
		want = interest{keys[i]: want}
	}
	root, err := parseJSONFor(src, want)
	if err != nil {
		return nil, err
	}
	obj := root
	for i, k := range keys {
		m, err := obj.only(src, k, strings.Join(keys[:i+1], "."))
		if err != nil || m == nil {
			return nil, err
		}
		child, ok := m.value.(*jsonObject)
		if !ok {
			return nil, nil
		}
		obj = child
	}
	return obj.only(src, name, strings.Join(append(append([]string{}, keys...), name), "."))
}

// jsonSettings returns the members of entry name other than those Nova
// writes, in document order, each value as its text in the document.
func jsonSettings(src []byte, keys []string, name string) (orderedMap, error) {
	m, err := jsonMemberAt(src, keys, name)
	if err != nil {
		return nil, err
	}
	var out orderedMap
	if m == nil {
		return nil, nil
	}
	if obj, ok := m.value.(*jsonObject); ok {
		for _, mem := range obj.members {
			if !slices.Contains(entryKeys, mem.key) {
				out = append(out, keyValue{mem.key, rawValue(src[mem.valueStart:mem.valueEnd])})
			}
		}
	}
	return out, nil
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
		for i, k := range target {
			m, err := obj.only(out, k, strings.Join(target[:i+1], "."))
			if err != nil {
				return nil, false, err
			}
			if i == len(target)-1 {
				break
			}
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
		out = cut(out, memberCuts(out, obj, idx))
	}
	return out, true, nil
}

// span is the byte range [start, end) of a document.
type span struct{ start, end int }

// cut returns src without the spans, which are in order and disjoint.
func cut(src []byte, spans []span) []byte {
	out := make([]byte, 0, len(src))
	prev := 0
	for _, s := range spans {
		out = append(out, src[prev:s.start]...)
		prev = s.end
	}
	return append(out, src[prev:]...)
}

// memberCuts is the text to delete to remove member idx of obj with one
// comma that separates it, so that removing a member insertMember added
// restores the original bytes. Comments around the member stay: they may
// describe its neighbours.
func memberCuts(src []byte, obj *jsonObject, idx int) []span {
	m := obj.members[idx]
	own := commaAfter(src, m.valueEnd)
	var spans []span
	switch {
	case len(obj.members) == 1:
		// The only member: back over white space (not comments) before it.
		spans = []span{{spaceBefore(src, m.keyStart, obj.open+1), m.valueEnd}}
		if own >= 0 {
			spans = append(spans, span{own, own + 1}) // a trailing comma (JSON5)
		}
	case idx == 0:
		// The first of several: its comma and the white space up to what
		// follows (a comment or the next key).
		end := own + 1
		for end < len(src) && isSpace(src[end]) {
			end++
		}
		spans = []span{{m.keyStart, m.valueEnd}, {own, end}}
	case own >= 0:
		// Followed by its own comma (another member or a JSON5 trailing
		// comma follows): the white space before it, it and its comma.
		spans = []span{{spaceBefore(src, m.keyStart, 0), m.valueEnd}, {own, own + 1}}
	default:
		// The last member: the previous member's comma, the white space
		// before it, and it.
		prev := commaAfter(src, obj.members[idx-1].valueEnd)
		spans = []span{{prev, prev + 1}, {spaceBefore(src, m.keyStart, prev+1), m.valueEnd}}
	}
	// Join spans separated by white space only.
	out := spans[:1]
	for _, s := range spans[1:] {
		if last := &out[len(out)-1]; len(bytes.TrimLeft(src[last.end:s.start], " \t\r\n")) == 0 {
			last.end = s.end
		} else {
			out = append(out, s)
		}
	}
	// A cut that takes the line ending of a line that may end in a //
	// comment, and leaves text after it on the joined line, would let the
	// comment run on over that text: keep the line ending.
	for i := range out {
		s := &out[i]
		nl := bytes.IndexByte(src[s.start:s.end], '\n')
		if nl < 0 {
			continue
		}
		nl += s.start
		if !bytes.Contains(src[bytes.LastIndexByte(src[:nl], '\n')+1:nl], []byte("//")) {
			continue
		}
		rest := src[s.end:]
		if e := bytes.IndexByte(rest, '\n'); e >= 0 {
			rest = rest[:e]
		}
		if len(bytes.TrimSpace(rest)) > 0 {
			s.start = nl + 1
		}
	}
	return out
}

// commaAfter returns the offset of the comma that follows off, past white
// space and comments, or -1.
func commaAfter(src []byte, off int) int {
	s := &jsonScanner{src: src, pos: off}
	if s.space() == nil && s.pos < len(src) && src[s.pos] == ',' {
		return s.pos
	}
	return -1
}

// spaceBefore moves off back over white space, not below floor.
func spaceBefore(src []byte, off, floor int) int {
	for off > floor && isSpace(src[off-1]) {
		off--
	}
	return off
}

// lineCommentEnd reports whether the text after off, up to the end of its
// line, holds a comment (and maybe a comma) and nothing else, and returns
// where that line's ending starts and whether a comma was seen.
func lineCommentEnd(src []byte, off int) (eol int, comma, ok bool) {
	comment := false
	for i := off; i < len(src); {
		switch c := src[i]; {
		case c == ' ' || c == '\t':
			i++
		case c == ',' && !comma:
			comma = true
			i++
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			comment = true
			for i < len(src) && src[i] != '\n' {
				i++
			}
			if src[i-1] == '\r' {
				i--
			}
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			end := bytes.Index(src[i+2:], []byte("*/"))
			if end < 0 {
				return 0, false, false
			}
			comment = true
			i += 2 + end + 2
		case c == '\r' || c == '\n':
			return i, comma, comment
		default:
			return 0, false, false
		}
	}
	return 0, false, false
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
