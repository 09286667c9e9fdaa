package agentconf

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Hermes keeps MCP servers under the top-level mcp_servers: mapping of
// config.yaml. Nova edits it by lines: yaml.v3 locates the keys, and the
// new entry is inserted as a block after the last line of mcp_servers (or
// a new mcp_servers: block is appended), so comments and layout stay.

// yamlDoc is a parsed document and its root mapping.
type yamlDoc struct {
	root *yaml.Node // the top-level mapping, or nil for an empty document
}

func parseYAML(src []byte) (*yamlDoc, error) {
	if bytes.Count(src, []byte("\r")) != bytes.Count(src, []byte("\r\n")) || bytes.ContainsAny(src, "\u0085\u2028\u2029") {
		// Edits work by lines ending in \n; a lone \r (or NEL, LS, PS) is
		// a line break to YAML but not to them.
		return nil, fmt.Errorf("the file has unusual line breaks (a lone carriage return, NEL, LS or PS); convert them to \\n and try again")
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, err
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return &yamlDoc{}, nil
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return &yamlDoc{}, nil
	}
	if root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("the document must be a mapping")
	}
	if root.Style&yaml.FlowStyle != 0 {
		return nil, fmt.Errorf("the top level is written in flow style ({...}); add the server by hand")
	}
	return &yamlDoc{root: root}, nil
}

// pair returns the key and value nodes of key in mapping m.
func pair(m *yaml.Node, key string) (*yaml.Node, *yaml.Node) {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i], m.Content[i+1]
		}
	}
	return nil, nil
}

// yamlLookup returns mcp_servers.<name> decoded, if present.
func yamlLookup(src []byte, keys []string, name string) (any, bool, error) {
	d, err := parseYAML(src)
	if err != nil {
		return nil, false, err
	}
	node := d.root
	for _, k := range append(append([]string{}, keys...), name) {
		_, v := pair(node, k)
		if v == nil {
			return nil, false, nil
		}
		node = v
	}
	var out any
	if err := node.Decode(&out); err != nil {
		return nil, true, err
	}
	return out, true, nil
}

// renderYAMLEntry renders "name:" and the entry's fields at indent, with
// step as one level.
func renderYAMLEntry(name string, e Entry, indent, step, nl string) string {
	var b strings.Builder
	b.WriteString(indent + yamlKey(name) + ":" + nl)
	in := indent + step
	b.WriteString(in + "command: " + quoteJSON(e.Command) + nl)
	args := make([]string, len(e.Args))
	for i, a := range e.Args {
		args[i] = quoteJSON(a)
	}
	b.WriteString(in + "args: [" + strings.Join(args, ", ") + "]" + nl)
	if len(e.Env) > 0 {
		b.WriteString(in + "env:" + nl)
		for _, k := range e.envKeys() {
			b.WriteString(in + step + yamlKey(k) + ": " + quoteJSON(e.Env[k]) + nl)
		}
	}
	for _, kv := range e.keep {
		b.WriteString(in + yamlKey(kv.key) + ": " + string(kv.value.(rawValue)) + nl)
	}
	return b.String()
}

// yamlSettings returns the keys of mcp_servers.<name> other than
// entryKeys, in document order, each value in flow style (as JSON, which
// YAML reads the same), so that it fits on the key's line.
func yamlSettings(src []byte, keys []string, name string) (orderedMap, error) {
	d, err := parseYAML(src)
	if err != nil {
		return nil, err
	}
	node := d.root
	for _, k := range append(append([]string{}, keys...), name) {
		if _, node = pair(node, k); node == nil {
			return nil, nil
		}
	}
	if node.Kind != yaml.MappingNode {
		return nil, nil
	}
	var out orderedMap
	for i := 0; i+1 < len(node.Content); i += 2 {
		k := node.Content[i].Value
		if slices.Contains(entryKeys, k) {
			continue
		}
		var v any
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		err := node.Content[i+1].Decode(&v)
		if err == nil {
			err = enc.Encode(v)
		}
		if err != nil {
			return nil, fmt.Errorf("cannot carry %s.%s.%s over to the new entry (%v); remove it, run install again, then add it back", strings.Join(keys, "."), name, k, err)
		}
		out = append(out, keyValue{k, rawValue(bytes.TrimSpace(b.Bytes()))})
	}
	return out, nil
}

func yamlKey(k string) string {
	if bareKey().MatchString(k) {
		return k
	}
	return quoteJSON(k)
}

// yamlInsert adds the entry under the top-level key keys[0] (Nova only
// needs one level: mcp_servers), and refuses when the lines it adds would
// change another value: a block scalar that keeps its trailing lines (|+,
// >+) takes in the blank line written before the entry, or loses the
// blank lines the entry goes before.
func yamlInsert(src []byte, keys []string, name string, e Entry) ([]byte, Insertion, error) {
	out, ins, err := yamlInsertLines(src, keys, name, e)
	if err != nil {
		return nil, Insertion{}, err
	}
	var before, after any
	if yaml.Unmarshal(src, &before) != nil || yaml.Unmarshal(out, &after) != nil ||
		!reflect.DeepEqual(yamlWithout(before, keys[0], name), yamlWithout(after, keys[0], name)) {
		return nil, Insertion{}, fmt.Errorf("yaml: adding %s under %s would change another value of the file (a block scalar that keeps its trailing lines, |+ or >+, ends where the entry goes); add the server by hand", name, keys[0])
	}
	return out, ins, nil
}

// yamlWithout returns a decoded document without entry name under its
// top-level key, and without that key when nothing else is under it, so
// that a document before and after an insertion compare equal.
func yamlWithout(doc any, key, name string) any {
	// strip removes name and reports whether nothing is left.
	strip := func(servers any) bool {
		switch s := servers.(type) {
		case nil:
			return true
		case map[string]any:
			delete(s, name)
			return len(s) == 0
		case map[any]any:
			delete(s, name)
			return len(s) == 0
		}
		return false
	}
	switch m := doc.(type) {
	case map[string]any:
		if strip(m[key]) {
			delete(m, key)
		}
		if len(m) == 0 {
			return nil
		}
	case map[any]any:
		if strip(m[key]) {
			delete(m, key)
		}
		if len(m) == 0 {
			return nil
		}
	}
	return doc
}

// yamlInsertLines is yamlInsert without the check.
func yamlInsertLines(src []byte, keys []string, name string, e Entry) ([]byte, Insertion, error) {
	if len(keys) != 1 {
		return nil, Insertion{}, fmt.Errorf("yaml: only a top-level servers key is supported")
	}
	d, err := parseYAML(src)
	if err != nil {
		return nil, Insertion{}, err
	}
	nl := newline(src)
	lines := splitLines(src)
	k, v := pair(d.root, keys[0])
	if k == nil {
		// Append a new "mcp_servers:" block at the end.
		sep := ""
		switch {
		case len(bytes.TrimSpace(src)) == 0:
		case bytes.HasSuffix(src, []byte("\n")):
			sep = nl
		default:
			sep = nl + nl
		}
		step := yamlStep(d.root)
		text := sep + yamlKey(keys[0]) + ":" + nl + renderYAMLEntry(name, e, step, step, nl)
		return append(append([]byte{}, src...), text...), Insertion{Offset: len(src), Text: text, CreatedLevels: 1}, nil
	}
	if k.Column != 1 {
		return nil, Insertion{}, fmt.Errorf("yaml: %s is not at the start of its line", keys[0])
	}
	switch {
	case v.Kind == yaml.ScalarNode && v.Tag == "!!null" && (v.Value == "" || v.Value == "~" || v.Value == "null"):
		if v.Value != "" {
			return nil, Insertion{}, fmt.Errorf("yaml: %s is %s; replace it with an empty line and run install again", keys[0], v.Value)
		}
		// "mcp_servers:" with nothing under it: insert after its line.
		off := lineEnd(lines, k.Line)
		step := yamlStep(d.root)
		text := renderYAMLEntry(name, e, step, step, nl)
		if off == len(src) && !bytes.HasSuffix(src, []byte("\n")) {
			text = nl + text
		}
		return splice(src, off, text), Insertion{Offset: off, Text: text}, nil
	case v.Kind == yaml.MappingNode && v.Style&yaml.FlowStyle != 0:
		if len(v.Content) > 0 {
			return nil, Insertion{}, fmt.Errorf("yaml: %s is written in flow style ({...}); convert it to block style or add the server by hand", keys[0])
		}
		// "mcp_servers: {}": fill the braces.
		line := lines[k.Line-1]
		open := bytes.IndexByte(line, '{')
		if open < 0 || !bytes.HasPrefix(bytes.TrimSpace(line[open:]), []byte("{}")) {
			return nil, Insertion{}, fmt.Errorf("yaml: cannot locate %s: {} on line %d", keys[0], k.Line)
		}
		off := lineEnd(lines, k.Line-1) + open + 1
		text := yamlFlowEntry(name, e)
		return splice(src, off, text), Insertion{Offset: off, Text: text}, nil
	case v.Kind == yaml.MappingNode:
		if len(v.Content) == 0 {
			return nil, Insertion{}, fmt.Errorf("yaml: cannot read %s", keys[0])
		}
		indent := strings.Repeat(" ", v.Content[0].Column-1)
		step := indent
		// The last line of the block: before the next top-level key (or the
		// end), back over blank lines and comments that are less indented
		// than the entries (they introduce what follows).
		endLine := len(lines) // 1-based last line of the block
		if next := nextKey(d.root, k); next != nil {
			endLine = next.Line - 1
		}
		for endLine > k.Line {
			l := lines[endLine-1]
			t := bytes.TrimSpace(l)
			if len(t) == 0 || (t[0] == '#' && leadingSpaces(l) < len(indent)) || string(t) == "---" || string(t) == "..." {
				endLine--
				continue
			}
			break
		}
		off := lineEnd(lines, endLine)
		text := renderYAMLEntry(name, e, indent, step, nl)
		if off == len(src) && !bytes.HasSuffix(src, []byte("\n")) {
			text = nl + text
		}
		return splice(src, off, text), Insertion{Offset: off, Text: text}, nil
	}
	return nil, Insertion{}, fmt.Errorf("yaml: %s is not a mapping", keys[0])
}

// yamlFlowEntry renders {name: {command: ..., args: [...]}} contents.
func yamlFlowEntry(name string, e Entry) string {
	args := make([]string, len(e.Args))
	for i, a := range e.Args {
		args[i] = quoteJSON(a)
	}
	s := yamlKey(name) + ": {command: " + quoteJSON(e.Command) + ", args: [" + strings.Join(args, ", ") + "]"
	if len(e.Env) > 0 {
		pairs := make([]string, 0, len(e.Env))
		for _, k := range e.envKeys() {
			pairs = append(pairs, yamlKey(k)+": "+quoteJSON(e.Env[k]))
		}
		s += ", env: {" + strings.Join(pairs, ", ") + "}"
	}
	for _, kv := range e.keep {
		s += ", " + yamlKey(kv.key) + ": " + string(kv.value.(rawValue))
	}
	return s + "}"
}

// yamlStep is the document's indentation step (2 when it cannot tell).
func yamlStep(root *yaml.Node) string {
	if root != nil {
		for i := 1; i < len(root.Content); i += 2 {
			v := root.Content[i]
			if v.Kind == yaml.MappingNode && v.Style&yaml.FlowStyle == 0 && len(v.Content) > 0 && v.Content[0].Column > 1 {
				return strings.Repeat(" ", v.Content[0].Column-1)
			}
		}
	}
	return "  "
}

func nextKey(root, k *yaml.Node) *yaml.Node {
	for i := 0; i+2 < len(root.Content); i += 2 {
		if root.Content[i] == k {
			return root.Content[i+2]
		}
	}
	return nil
}

func leadingSpaces(l []byte) int {
	n := 0
	for n < len(l) && l[n] == ' ' {
		n++
	}
	return n
}

// lineEnd is the offset just after 1-based line n (0: the start).
func lineEnd(lines [][]byte, n int) int {
	off := 0
	for i := 0; i < n && i < len(lines); i++ {
		off += len(lines[i])
	}
	return off
}

func splice(src []byte, off int, text string) []byte {
	out := make([]byte, 0, len(src)+len(text))
	return append(append(append(out, src[:off]...), text...), src[off:]...)
}

// yamlRemove removes the entry: the "name:" line under the servers key
// and every line after it that is more indented (its body), or the name
// member of a flow mapping. With createdLevels > 0 a servers key left
// with nothing under it is removed too.
func yamlRemove(src []byte, keys []string, name string, createdLevels int) ([]byte, bool, error) {
	d, err := parseYAML(src)
	if err != nil {
		return nil, false, err
	}
	_, v := pair(d.root, keys[0])
	if v == nil {
		return src, false, nil
	}
	nk, _ := pair(v, name)
	if nk == nil {
		return src, false, nil
	}
	lines := splitLines(src)
	if v.Style&yaml.FlowStyle != 0 {
		// "mcp_servers: {nova: {...}}" on one line, as install writes it
		// into "mcp_servers: {}": empty the braces again.
		line := lines[nk.Line-1]
		open := bytes.IndexByte(line, '{')
		end := bytes.LastIndexByte(line, '}')
		if len(v.Content) != 2 || v.Line != nk.Line || open < 0 || end < open {
			return nil, true, fmt.Errorf("yaml: %s is written in flow style; remove %s from it by hand", keys[0], name)
		}
		off := lineEnd(lines, nk.Line-1)
		return append(append(append([]byte{}, src[:off+open+1]...), line[end:]...), src[off+len(line):]...), true, nil
	}
	start := nk.Line - 1 // 0-based
	indent := nk.Column - 1
	end := start + 1
	for end < len(lines) {
		l := lines[end]
		t := bytes.TrimSpace(l)
		if len(t) == 0 {
			// A blank line belongs to the body only if the body goes on.
			j := end
			for j < len(lines) && len(bytes.TrimSpace(lines[j])) == 0 {
				j++
			}
			if j < len(lines) && leadingSpaces(lines[j]) > indent {
				end = j
				continue
			}
			break
		}
		if leadingSpaces(l) <= indent {
			break
		}
		end++
	}
	lines = append(lines[:start:start], lines[end:]...)
	out := joinLines(lines)
	if createdLevels > 0 {
		d2, err := parseYAML(out)
		if err == nil {
			if k2, v2 := pair(d2.root, keys[0]); k2 != nil && v2.Kind == yaml.ScalarNode && v2.Tag == "!!null" && v2.Value == "" {
				ls := splitLines(out)
				i := k2.Line - 1
				if i < len(ls) && strings.TrimSpace(string(ls[i])) == keys[0]+":" {
					// Also the blank line that separated it.
					from := i
					if from > 0 && len(bytes.TrimSpace(ls[from-1])) == 0 {
						from--
					}
					out = joinLines(ls[:from], ls[i+1:])
				}
			}
		}
	}
	return out, true, nil
}
