package agentconf

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"
)

// Codex keeps MCP servers as [mcp_servers.<name>] tables in config.toml.
// Nova appends one table block, delimited by two comment lines, at the end
// of the file; uninstall removes Nova's table and those two lines, and
// keeps anything else an editor has put between them. Appending a table
// is always valid TOML after any other content, and the result is parsed
// before it is written.

const (
	tomlBegin = "# BEGIN nova MCP server (added by `novactl mcp install`; remove with `novactl mcp uninstall`)"
	tomlEnd   = "# END nova MCP server"
)

// parseTOML decodes a TOML document.
func parseTOML(src []byte) (map[string]any, error) {
	m := map[string]any{}
	if _, err := decodeTOML(src, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// tomlFound is the text the TOML parser quotes where it expected a
// value: the start of the value, often a secret written without its
// quotes (TOKEN = ghp_...).
var tomlFound = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`found "[^"]*"`) })

// decodeTOML is toml.Decode whose syntax errors name the line and the
// last key but not the text where a value belongs: the error is printed
// by install, status and doctor.
func decodeTOML(src []byte, v any) (toml.MetaData, error) {
	md, err := toml.Decode(string(src), v)
	var perr toml.ParseError
	if errors.As(err, &perr) {
		return md, fmt.Errorf("toml: line %d (last key %q): %s", perr.Position.Line, perr.LastKey, tomlFound().ReplaceAllString(perr.Message, "found unquoted text"))
	}
	return md, err
}

// tomlLookup returns the table mcp_servers.<name>, if any.
func tomlLookup(src []byte, keys []string, name string) (any, bool, error) {
	m, err := parseTOML(src)
	if err != nil {
		return nil, false, err
	}
	var cur any = m
	for _, k := range append(append([]string{}, keys...), name) {
		t, ok := cur.(map[string]any)
		if !ok {
			return nil, false, nil
		}
		if cur, ok = t[k]; !ok {
			return nil, false, nil
		}
	}
	return cur, true, nil
}

// tomlSettings returns the keys of mcp_servers.<name> other than
// entryKeys, in document order, each value as a TOML value (a table as an
// inline table: the entry is one table in Nova's block).
func tomlSettings(src []byte, keys []string, name string) (orderedMap, error) {
	m := map[string]any{}
	md, err := decodeTOML(src, &m)
	if err != nil {
		return nil, err
	}
	cur, found, err := tomlLookup(src, keys, name)
	entry, ok := cur.(map[string]any)
	if err != nil || !found || !ok {
		return nil, err
	}
	// The entry's keys in document order: a key defined through dotted
	// keys or a subtable ([mcp_servers.nova.tools.x]) shows only in its
	// longer keys.
	prefix := append(append([]string{}, keys...), name)
	var out orderedMap
	seen := map[string]bool{}
	for _, k := range md.Keys() {
		if len(k) <= len(prefix) || !slices.Equal(k[:len(prefix)], prefix) {
			continue
		}
		child := k[len(prefix)]
		if seen[child] || slices.Contains(entryKeys, child) {
			continue
		}
		seen[child] = true
		v, err := tomlValue(entry[child])
		if err != nil {
			return nil, fmt.Errorf("cannot carry %s.%s over to the new entry (%v); remove it, run install again, then add it back", strings.Join(prefix, "."), child, err)
		}
		out = append(out, keyValue{child, rawValue(v)})
	}
	return out, nil
}

// tomlValue renders a decoded TOML value as TOML text, tables inline.
func tomlValue(v any) (string, error) {
	switch v := v.(type) {
	case map[string]any:
		parts := make([]string, 0, len(v))
		for _, k := range slices.Sorted(maps.Keys(v)) {
			s, err := tomlValue(v[k])
			if err != nil {
				return "", err
			}
			parts = append(parts, tomlKey(k)+" = "+s)
		}
		if len(parts) == 0 {
			return "{}", nil
		}
		return "{ " + strings.Join(parts, ", ") + " }", nil
	case []map[string]any:
		list := make([]any, len(v))
		for i, m := range v {
			list[i] = m
		}
		return tomlValue(list)
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			s, err := tomlValue(e)
			if err != nil {
				return "", err
			}
			parts[i] = s
		}
		return "[" + strings.Join(parts, ", ") + "]", nil
	}
	// A scalar: the TOML encoder writes it as the value of a key.
	b, err := toml.Marshal(map[string]any{"v": v})
	if err != nil {
		return "", err
	}
	s, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "v = ")
	if !ok || strings.Contains(s, "\n") {
		return "", fmt.Errorf("unexpected value %T", v)
	}
	return s, nil
}

// renderTOMLBlock renders the delimited table for entry.
func renderTOMLBlock(keys []string, name string, e Entry, nl string) string {
	var b strings.Builder
	b.WriteString(tomlBegin + nl)
	header := make([]string, 0, len(keys)+1)
	for _, k := range append(append([]string{}, keys...), name) {
		header = append(header, tomlKey(k))
	}
	b.WriteString("[" + strings.Join(header, ".") + "]" + nl)
	b.WriteString("command = " + quoteJSON(e.Command) + nl)
	args := make([]string, len(e.Args))
	for i, a := range e.Args {
		args[i] = quoteJSON(a)
	}
	b.WriteString("args = [" + strings.Join(args, ", ") + "]" + nl)
	if len(e.Env) > 0 {
		pairs := make([]string, 0, len(e.Env))
		for _, k := range e.envKeys() {
			pairs = append(pairs, tomlKey(k)+" = "+quoteJSON(e.Env[k]))
		}
		b.WriteString("env = { " + strings.Join(pairs, ", ") + " }" + nl)
	}
	for _, kv := range e.keep {
		b.WriteString(tomlKey(kv.key) + " = " + string(kv.value.(rawValue)) + nl)
	}
	b.WriteString(tomlEnd + nl)
	return b.String()
}

var bareKey = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]+$`) })

func tomlKey(k string) string {
	if bareKey().MatchString(k) {
		return k
	}
	return quoteJSON(k)
}

// tomlInsert appends the block, separated from the content by one blank
// line.
func tomlInsert(src []byte, keys []string, name string, e Entry) ([]byte, Insertion, error) {
	if err := tomlInline(src, keys[0]); err != nil {
		return nil, Insertion{}, err
	}
	nl := newline(src)
	sep := ""
	lines := splitLines(src)
	switch {
	case len(src) == 0:
	case isBlank(lines[len(lines)-1]) && bytes.HasSuffix(src, []byte("\n")):
		// The file ends in a blank line already.
	case bytes.HasSuffix(src, []byte("\n")):
		sep = nl
	default:
		sep = nl + nl
	}
	text := sep + renderTOMLBlock(keys, name, e, nl)
	out := append(append([]byte{}, src...), text...)
	if _, err := parseTOML(out); err != nil {
		return nil, Insertion{}, fmt.Errorf("adding [%s.%s] would make the file invalid TOML (%v); is %s written as an inline table? Add the server by hand", strings.Join(keys, "."), name, err, strings.Join(keys, "."))
	}
	return out, Insertion{Offset: len(src), Text: text}, nil
}

// tomlInline refuses a servers table written as a top-level inline table
// or with dotted keys (mcp_servers = {...}): TOML forbids extending it with
// a [mcp_servers.nova] header, though lenient parsers accept it.
func tomlInline(src []byte, key string) error {
	assign := regexp.MustCompile(`^\s*(?:` + regexp.QuoteMeta(key) + `|"` + regexp.QuoteMeta(key) + `")\s*[=.]`)
	for _, l := range splitLines(src) {
		t := bytes.TrimSpace(l)
		if len(t) > 0 && t[0] == '[' {
			return nil // the root table ends at the first header
		}
		if assign.Match(l) {
			return fmt.Errorf("%s is written as an inline table or with dotted keys at the top of the file; add the nova server by hand", key)
		}
	}
	return nil
}

// tomlRemove removes the [mcp_servers.<name>] table and its subtables,
// and Nova's BEGIN/END marker lines with the blank line install put before
// them. Anything else between the markers stays: a TOML editor that keeps
// a document's trailing comment last (toml_edit, which Codex uses) puts a
// table added after Nova's block before the END line.
func tomlRemove(src []byte, keys []string, name string) ([]byte, bool, error) {
	lines := splitLines(src)
	drop := make([]bool, len(lines))
	begin, end := -1, -1
	for i, l := range lines {
		t := strings.TrimSpace(string(l))
		if begin < 0 && t == tomlBegin {
			begin = i
		} else if begin >= 0 && t == tomlEnd {
			end = i
			break
		}
	}
	header := regexp.MustCompile(`^\s*\[\s*` + tomlPath(append(append([]string{}, keys...), name)) + `(\s*\.[^\]]*)?\s*\]\s*(#.*)?$`)
	anyHeader := regexp.MustCompile(`^\s*\[`)
	found := false
	for i := 0; i < len(lines); i++ {
		if !header.Match(bytes.TrimRight(lines[i], "\r\n")) {
			continue
		}
		// The table ends at the next header, or at Nova's END marker.
		j := i + 1
		for j < len(lines) && !anyHeader.Match(lines[j]) && !(j == end && begin < i && i < end) {
			j++
		}
		// Leave the blank and comment lines that lead into what follows,
		// unless that is a subtable of the same server.
		k := j
		for k > i+1 && isBlankOrComment(lines[k-1]) && !(j < len(lines) && header.Match(bytes.TrimRight(lines[j], "\r\n"))) {
			k--
		}
		for n := i; n < k; n++ {
			drop[n] = true
		}
		// A table written between blank lines (by `codex mcp add`, or by
		// hand) takes the one before it along: both would leave two blank
		// lines, or a blank last line, where there was one. The first
		// table takes the one after it: it would be the first line. The
		// server's subtables ([mcp_servers.nova.env], Codex's documented
		// layout, after a blank line) count as one table with it: what is
		// before it is the last line kept above the first.
		p := i - 1
		for p >= 0 && drop[p] {
			p--
		}
		switch {
		case p >= 0 && isBlank(lines[p]) && (k == len(lines) || isBlank(lines[k])):
			drop[p] = true
		case p < 0 && k < len(lines) && isBlank(lines[k]):
			drop[k] = true
		}
		found = true
		i = j - 1
	}
	if !found {
		return tomlRemoveKeys(src, keys, name)
	}
	if begin >= 0 && end > begin {
		drop[begin], drop[end] = true, true
		// The blank line install put before the block goes too, unless
		// what is kept between the markers starts right after it.
		first := -1
		for n := begin + 1; n < end; n++ {
			if !drop[n] {
				first = n
				break
			}
		}
		if begin > 0 && len(bytes.TrimSpace(lines[begin-1])) == 0 && (first < 0 || len(bytes.TrimSpace(lines[first])) == 0) {
			drop[begin-1] = true
		}
	}
	var out []byte
	for i, l := range lines {
		if !drop[i] {
			out = append(out, l...)
		}
	}
	return out, found, nil
}

// tomlRemoveKeys removes an entry written as keys rather than as a table
// of its own: nova = { ... } (or dotted keys nova.command = ...) in the
// [mcp_servers] table, or mcp_servers.nova... at the top of the file, as
// people write them by hand. It removes those lines only, and only when
// the result decodes to the same document without the entry: a line that
// merely looks like one (inside a multi-line string, or the first of a
// value that goes on over more lines) is never cut.
func tomlRemoveKeys(src []byte, keys []string, name string) ([]byte, bool, error) {
	table := regexp.MustCompile(`^\s*\[\s*` + tomlPath(keys) + `\s*\]\s*(#.*)?$`)
	anyHeader := regexp.MustCompile(`^\s*\[`)
	inTable := regexp.MustCompile(`^\s*` + tomlPath([]string{name}) + `\s*[=.]`)
	atRoot := regexp.MustCompile(`^\s*` + tomlPath(append(append([]string{}, keys...), name)) + `\s*[=.]`)
	var out []byte
	found := false
	key := atRoot // the pattern of the entry's lines in the current table
	for _, l := range splitLines(src) {
		line := bytes.TrimRight(l, "\r\n")
		switch {
		case anyHeader.Match(line):
			key = nil
			if table.Match(line) {
				key = inTable
			}
		case key != nil && key.Match(line):
			found = true
			continue
		}
		out = append(out, l...)
	}
	if !found {
		return src, false, nil
	}
	before, err := parseTOML(src)
	if err != nil {
		return nil, false, err
	}
	after, err := parseTOML(out)
	if err != nil {
		return nil, false, fmt.Errorf("removing the lines of %s.%s would make the file invalid TOML (%v); remove it by hand", strings.Join(keys, "."), name, err)
	}
	servers := before
	for _, k := range keys {
		servers, _ = servers[k].(map[string]any)
	}
	delete(servers, name)
	if !reflect.DeepEqual(before, after) {
		return nil, false, fmt.Errorf("%s.%s is written over lines that cannot be removed alone; remove it by hand", strings.Join(keys, "."), name)
	}
	return out, true, nil
}

func tomlPath(keys []string) string {
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = `(?:` + regexp.QuoteMeta(k) + `|"` + regexp.QuoteMeta(k) + `"|'` + regexp.QuoteMeta(k) + `')`
	}
	return strings.Join(parts, `\s*\.\s*`)
}

func isBlank(l []byte) bool { return len(bytes.TrimSpace(l)) == 0 }

func isBlankOrComment(l []byte) bool {
	t := bytes.TrimSpace(l)
	return len(t) == 0 || t[0] == '#'
}

// splitLines splits src into lines that keep their line endings.
func splitLines(src []byte) [][]byte {
	var lines [][]byte
	for len(src) > 0 {
		i := bytes.IndexByte(src, '\n')
		if i < 0 {
			lines = append(lines, src)
			break
		}
		lines = append(lines, src[:i+1])
		src = src[i+1:]
	}
	return lines
}

func joinLines(parts ...[][]byte) []byte {
	var out []byte
	for _, p := range parts {
		for _, l := range p {
			out = append(out, l...)
		}
	}
	return out
}
