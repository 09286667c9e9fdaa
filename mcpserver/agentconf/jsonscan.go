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

// JSON documents are edited surgically: this file's scanner locates
// members by byte offsets, and jsonedit.go inserts or removes text there,
// so everything else in the file (comments, key order, spacing, other
// servers) stays byte for byte. The scanner accepts the JSON dialects agents use: strict JSON (Claude Code),
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
	// skipping is above zero while the scanner checks a value no caller
	// reads (see interest): it keeps nothing of it, so a read of one entry
	// in a Claude Code file of megabytes of project history allocates
	// almost nothing for the history.
	skipping int
}

// interest names the members of an object that a read decodes, each with
// the interest in its own members: nil decodes a value whole, and the key
// "*" stands for every member not named. Other members keep their key and
// extent, but their value is only checked (the document must still be
// valid) and is skippedValue.
type interest map[string]interest

// skippedValue is the value of a member outside the interest of a read.
type skippedValue struct{}

// member says whether a member named key is decoded, and with which
// interest in its own members.
func (in interest) member(key string) (interest, bool) {
	if in == nil {
		return nil, true
	}
	if sub, ok := in[key]; ok {
		return sub, true
	}
	sub, ok := in["*"]
	return sub, ok
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
func parseJSONDoc(src []byte) (*jsonObject, error) { return parseJSONFor(src, nil) }

// parseJSONFor parses a document whose root must be an object, decoding
// only the members want names (nil: all). It accepts and refuses exactly
// the documents parseJSONDoc does.
func parseJSONFor(src []byte, want interest) (*jsonObject, error) {
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
	v, err := s.value(0, want)
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

func (s *jsonScanner) value(depth int, want interest) (any, error) {
	if depth > maxDepth {
		return nil, s.fail("nesting too deep")
	}
	if s.pos >= len(s.src) {
		return nil, s.fail("unexpected end of document")
	}
	switch c := s.src[s.pos]; c {
	case '{':
		return s.object(depth, want)
	case '[':
		return s.array(depth, want)
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
		switch string(s.src[start:s.pos]) {
		case "true":
			return true, nil
		case "false":
			return false, nil
		case "null":
			return nil, nil
		}
		tok := string(s.src[start:s.pos])
		if _, err := strconv.ParseFloat(strings.TrimPrefix(tok, "+"), 64); err == nil || isJSON5Number(tok) {
			return json.Number(tok), nil
		}
		s.pos = start
		// Not the word itself: it is often a secret written without
		// its quotes ("API_KEY": sk-...), and the error is printed.
		return nil, s.fail("unquoted text where a value belongs (a string needs double quotes)")
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

func (s *jsonScanner) object(depth int, want interest) (*jsonObject, error) {
	var obj *jsonObject
	if s.skipping == 0 {
		obj = &jsonObject{open: s.pos}
	}
	s.pos++ // {
	for {
		if err := s.space(); err != nil {
			return nil, err
		}
		if s.pos >= len(s.src) {
			return nil, s.fail("unterminated object")
		}
		if s.src[s.pos] == '}' {
			if obj != nil {
				obj.close = s.pos
			}
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
			if s.skipping == 0 {
				m.key = string(s.src[start:s.pos])
			}
		}
		m.keyEnd = s.pos
		if err := s.space(); err != nil {
			return nil, err
		}
		if s.pos >= len(s.src) || s.src[s.pos] != ':' {
			return nil, s.fail("expected ':' after %q", s.keyOf(m))
		}
		s.pos++
		if err := s.space(); err != nil {
			return nil, err
		}
		m.valueStart = s.pos
		sub, decode := want.member(m.key)
		if !decode {
			s.skipping++
		}
		v, err := s.value(depth+1, sub)
		if err != nil {
			return nil, err
		}
		if !decode {
			s.skipping--
			v = skippedValue{}
		}
		m.value, m.valueEnd = v, s.pos
		if obj != nil {
			obj.members = append(obj.members, m)
		}
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
		return nil, s.fail("expected ',' or '}' after the value of %q", s.keyOf(m))
	}
}

// keyOf is m's key, decoded again when it was skipped: a skipped value's
// errors name its keys as the whole parse's do.
func (s *jsonScanner) keyOf(m jsonMember) string {
	if s.skipping == 0 {
		return m.key
	}
	if c := s.src[m.keyStart]; c == '"' || c == '\'' {
		k, _ := (&jsonScanner{src: s.src, pos: m.keyStart}).str()
		return k
	}
	return string(s.src[m.keyStart:m.keyEnd])
}

func (s *jsonScanner) array(depth int, want interest) ([]any, error) {
	s.pos++ // [
	var out []any
	if s.skipping == 0 {
		out = []any{}
	}
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
		v, err := s.value(depth+1, want)
		if err != nil {
			return nil, err
		}
		if s.skipping == 0 {
			out = append(out, v)
		}
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
			if s.skipping > 0 {
				return "", nil
			}
			raw := s.src[start:s.pos]
			if body := raw[1 : len(raw)-1]; bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) {
				// Nothing to decode, the common case: encoding/json takes
				// most of the time over a Claude Code file of megabytes.
				return string(body), nil
			}
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

// only returns the member named key, or nil, and an error when there are
// several: Nova would edit one copy while the agent's parser (JSON.parse
// and most others) keeps the last, so Nova's entry would not be seen.
// path names the member in the error.
func (o *jsonObject) only(src []byte, key, path string) (*jsonMember, error) {
	var lines []string
	for _, m := range o.members {
		if m.key == key {
			lines = append(lines, strconv.Itoa(1+bytes.Count(src[:m.keyStart], []byte("\n"))))
		}
	}
	if len(lines) > 1 {
		return nil, fmt.Errorf("the key %q appears %d times (lines %s); the agent reads only the last one, so Nova does not edit this file: merge them into one by hand", path, len(lines), strings.Join(lines, ", "))
	}
	return o.member(key), nil
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
