package config

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/go-viper/mapstructure/v2"
	"github.com/knadh/koanf/providers/confmap"
	"github.com/knadh/koanf/v2"
	yamlv3 "go.yaml.in/yaml/v3"

	"github.com/nova-recall/nova/paths"
)

// The checks of what a configuration file holds beyond its schema: the
// keys it may use, the types of their values, and the lines an error
// names.

// tabIndented returns the first line of data whose indentation holds a
// tab, or 0. A blank line or a comment counts: the parser refuses those
// too, and a blank line's tab cannot be seen.
func tabIndented(data []byte) int {
	for i, line := range bytes.Split(data, []byte("\n")) {
		indent := line[:len(line)-len(bytes.TrimLeft(line, " \t\r"))]
		if bytes.IndexByte(indent, '\t') >= 0 {
			return i + 1
		}
	}
	return 0
}

// notUTF8 returns the line of the first byte of data that is not part of
// UTF-8 text, and the byte, or 0.
func notUTF8(data []byte) (line int, b byte) {
	for i, l := range bytes.Split(data, []byte("\n")) {
		if !utf8.Valid(l) {
			for len(l) > 0 {
				r, size := utf8.DecodeRune(l)
				if r == utf8.RuneError && size == 1 {
					return i + 1, l[0]
				}
				l = l[size:]
			}
		}
	}
	return 0, 0
}

// parserError matches the errors of the YAML parser (not its scanner)
// that name a line: the parser numbers it from 0, and the reader's
// message does not add the 1 it adds to the scanner's.
var parserError = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`yaml: line (\d+): (did not find expected (node content|key|'-' indicator|',' or '\]'|',' or '\}'|<document start>))`)
})

// parserLine returns err with the line of a YAML parser error counted
// from 1, as an editor and the scanner's errors count it: "bind: [::1]"
// on line 2 was reported on line 1.
func parserLine(err error) error {
	m := parserError().FindStringSubmatchIndex(err.Error())
	if m == nil {
		return err
	}
	msg := err.Error()
	n, convErr := strconv.Atoi(msg[m[2]:m[3]])
	if convErr != nil {
		return err
	}
	return &relined{msg: msg[:m[2]] + strconv.Itoa(n+1) + msg[m[3]:], err: err}
}

// yamlLine matches the line a YAML error names.
var yamlLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`yaml: line \d+: `) })

// atLine returns the YAML reader's error about a tab ("found a tab
// character that violates indentation") naming line, the tab's, where the
// reader names the line before it or its own; any other error is
// returned as it is.
func atLine(err error, line int) error {
	msg := err.Error()
	loc := yamlLine().FindStringIndex(msg)
	if loc == nil || !strings.Contains(msg, "tab character") {
		return err
	}
	return &relined{msg: msg[:loc[0]] + fmt.Sprintf("yaml: line %d: ", line) + msg[loc[1]:], err: err}
}

// unknownAnchor matches the YAML reader's error about an alias to an
// anchor it has not met, which names no line.
var unknownAnchor = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`yaml: (unknown anchor '([^']*)' referenced)`) })

// anchorLine returns the YAML reader's error about an unknown anchor
// naming the line of the first alias to it in data; any other error is
// returned as it is.
func anchorLine(err error, data []byte) error {
	msg := err.Error()
	m := unknownAnchor().FindStringSubmatchIndex(msg)
	if m == nil {
		return err
	}
	alias := regexp.MustCompile(`\*` + regexp.QuoteMeta(msg[m[4]:m[5]]) + `($|[\s,\]}])`)
	for i, line := range bytes.Split(data, []byte("\n")) {
		if alias.Match(line) {
			return &relined{msg: msg[:m[0]] + fmt.Sprintf("yaml: line %d: ", i+1) + msg[m[2]:m[3]] + msg[m[1]:], err: err}
		}
	}
	return err
}

// relined is an error told with another message, kept for errors.Is.
type relined struct {
	msg string
	err error
}

func (e *relined) Error() string { return e.msg }
func (e *relined) Unwrap() error { return e.err }

// notSettings returns the line of the top of the YAML file data, and what
// it holds, when it parses but is not a mapping of keys, else 0: the
// parser says "cannot unmarshal !!seq into map[string]interface {}".
func notSettings(data []byte) (line int, what string) {
	var doc yamlv3.Node
	if yamlv3.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
		return 0, ""
	}
	switch top := doc.Content[0]; top.Kind {
	case yamlv3.SequenceNode:
		return top.Line, "a list, not settings (keys such as server: and sources:, at the start of a line); a list of sources goes under sources:"
	case yamlv3.ScalarNode:
		return top.Line, "a single value, not settings (keys such as server: and sources:, at the start of a line)"
	}
	return 0, ""
}

// ownFolder reports whether the source folder src is home's root or lies
// in one of the folders Nova writes its own files to. The listing leaves
// out NOVA_HOME only below a source's folder, never the folder itself.
// Links are followed too: a source that is a link to the home (or
// reaches it through one) reads the index as surely as the path written
// out.
func ownFolder(home paths.Home, src string) bool {
	return ownFolderAsWritten(home, src) || ownFolderAsWritten(paths.Home{Root: resolved(home.Root)}, resolved(src))
}

// ownFolderAsWritten is ownFolder comparing the paths as they are
// spelled.
func ownFolderAsWritten(home paths.Home, src string) bool {
	if filepath.Clean(src) == filepath.Clean(home.Root) {
		return true
	}
	for _, own := range []string{home.IndexDir(), home.StateDir(), home.CacheDir(), home.LogsDir()} {
		if rel, err := filepath.Rel(own, src); err == nil && filepath.IsLocal(rel) {
			return true
		}
	}
	return false
}

// resolved returns p with the symbolic links on the way to it followed,
// as far as its folders exist; the part that does not exist yet (a
// source folder not made, a home's state/ before novad ran) is joined on
// as written.
func resolved(p string) string {
	p, rest := filepath.Clean(p), ""
	for {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return filepath.Join(p, rest)
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

// homeWithin returns where the home lies inside the source folder src,
// spelled from src as written (the listing compares the paths it walks
// with it), or "" when the home is not below src. Links are followed, as
// the listing follows a source that is a link to a folder.
func homeWithin(home paths.Home, src string) string {
	if rel, err := filepath.Rel(src, home.Root); err == nil && rel != "." && filepath.IsLocal(rel) {
		return filepath.Clean(home.Root)
	}
	if rel, err := filepath.Rel(resolved(src), resolved(home.Root)); err == nil && rel != "." && filepath.IsLocal(rel) {
		return filepath.Join(src, rel)
	}
	return ""
}

// secondDocument returns the line where a second YAML document with
// content starts in data, or 0: a file holds one document, and YAML
// parsers read the first. Empty documents (a "---" that ends the file)
// and data that does not parse (reported by the parser) count for none.
func secondDocument(data []byte) int {
	dec := yamlv3.NewDecoder(bytes.NewReader(data))
	for n := 0; ; n++ {
		var doc yamlv3.Node
		if err := dec.Decode(&doc); err != nil {
			return 0
		}
		if n == 0 || len(doc.Content) == 0 {
			continue
		}
		if c := doc.Content[0]; c.Kind != yamlv3.ScalarNode || c.Tag != "!!null" {
			return c.Line
		}
	}
}

// setLines sets the File of each FieldError (and NonLoopbackError) in
// err's tree that is about a key of the YAML file data at path, not an
// environment variable, and its Line. It leaves the lines at 0 when data
// does not parse.
func setLines(path string, data []byte, err error) {
	var doc yamlv3.Node
	parsed := yamlv3.Unmarshal(data, &doc) == nil
	var walk func(error)
	walk = func(e error) {
		switch e := e.(type) {
		case *FieldError:
			if e.Env == "" {
				e.File = path
				if e.Line == 0 && parsed {
					e.Line = lineOf(&doc, e.Field)
				}
			}
		case *NonLoopbackError:
			if e.Env == "" {
				e.File = path
				if e.Line == 0 && parsed {
					e.Line = lineOf(&doc, "server.host")
				}
			}
		case interface{ Unwrap() []error }:
			for _, x := range e.Unwrap() {
				walk(x)
			}
		}
	}
	walk(err)
}

// fieldPart matches one step of a field path: a key, or [i] in a list.
var fieldPart = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^.\[\]]+|\[(\d+)\]`) })

// lineOf returns the line of field ("server.port", "sources[1].kind") in
// doc: of its key, or of the deepest part of the path the document holds
// (the include key of "sources[0].include[1]" written as one string,
// "*.md, *.txt"); 0 when
// the document holds none of it.
func lineOf(doc *yamlv3.Node, field string) int {
	node, line := doc, 0
	if node.Kind == yamlv3.DocumentNode && len(node.Content) > 0 {
		node = node.Content[0]
	}
	for _, m := range fieldPart().FindAllStringSubmatch(field, -1) {
		if node.Kind == yamlv3.AliasNode && node.Alias != nil {
			node = node.Alias
		}
		next := (*yamlv3.Node)(nil)
		switch {
		case m[1] != "" && node.Kind == yamlv3.SequenceNode:
			if i, err := strconv.Atoi(m[1]); err == nil && i < len(node.Content) {
				next = node.Content[i]
				line = next.Line
			}
		case m[1] == "" && node.Kind == yamlv3.MappingNode:
			for i := 0; i+1 < len(node.Content); i += 2 {
				if node.Content[i].Value == m[0] {
					next = node.Content[i+1]
					line = node.Content[i].Line
				}
			}
		}
		if next == nil {
			break
		}
		node = next
	}
	return line
}

// envVarRef matches $NAME and ${NAME}.
var envVarRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$(\{|[A-Za-z_])`) })

// notExpanded says why path, as written in a source, would not be the
// folder meant, or returns "": only ~ and ~/ are expanded. $HOME/notes
// or ~bob/notes would be read as a folder of that very name beside
// config.yaml. Environment variables are left alone on purpose: novad
// and the watcher run under launchd or systemd, with other variables than
// the shell the operator tried the path in.
func notExpanded(path string) string {
	switch {
	case envVarRef().MatchString(path):
		return "environment variables are not expanded in paths: write ~/... for your home folder, or the absolute path"
	case strings.HasPrefix(path, "~") && path != "~" && !strings.HasPrefix(path, "~/"):
		return "~NAME (a user's home folder) is not expanded: write ~/... for your own, or the absolute path"
	}
	return ""
}

// checkTypes checks the type of every scalar key against its default's
// and puts the default back in place of a value of the wrong type, so
// that validation reports the other fields rather than this one again. A
// value set by an environment variable is reported with the variable.
func checkTypes(k *koanf.Koanf, fromEnv map[string]string) []error {
	defaults := defaultMap()
	var errs []error
	for _, key := range scalarKeys() {
		v := k.Get(key)
		if v == nil {
			// Every key has its default, so a nil one was written
			// without a value ("port:", "port: ~"), which would decode
			// as 0, false or "" (port 0 picks a random port), not as
			// the default the operator likely meant. A key of a
			// misshapen section, dropped above, no longer exists.
			if k.Exists(key) {
				errs = append(errs, noValue(key, defaults[key]))
				if err := k.Set(key, defaults[key]); err != nil {
					errs = append(errs, err)
				}
			}
			continue
		}
		var reason string
		switch defaults[key].(type) {
		case int:
			reason = notInt(v)
			if text, ok := v.(string); ok && reason == "" {
				// Text is decoded as the decimal notInt judged it
				// as: the decoder reads a leading 0 as octal
				// (NOVA_SERVER_PORT=03037 would serve port 1567).
				n, _ := strconv.Atoi(text)
				if err := k.Set(key, n); err != nil {
					errs = append(errs, err)
				}
			}
		case float64:
			if !isFloat(v) {
				reason = "must be a number"
			}
		case bool:
			if !isBool(v) {
				reason = "must be true or false"
			}
		case string:
			switch v.(type) {
			case map[string]any:
				// Keys under it are reported as unknown keys.
				if err := k.Set(key, defaults[key]); err != nil {
					errs = append(errs, err)
				}
			case []any:
				reason = "must be a single value"
			}
		}
		if reason == "" {
			continue
		}
		if v == "" {
			// Nothing shows in the message's value: say it is empty.
			undo := "remove the key"
			if fromEnv[key] != "" {
				undo = "unset it"
			}
			reason = fmt.Sprintf("is empty: %s to use the default (%v), or give it a value", undo, defaults[key])
		}
		errs = append(errs, &FieldError{Field: key, Env: fromEnv[key], Value: shown(v), Reason: reason})
		if err := k.Set(key, defaults[key]); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// noValue is the error for key written without a value; def is its
// default.
func noValue(key string, def any) error {
	reason := "has no value: write one, or remove the key"
	if def != "" { // an empty default is not worth naming
		reason += fmt.Sprintf(" to use the default (%v)", def)
	}
	return &FieldError{Field: key, Reason: reason}
}

// notInt says why v is not an int, or returns "". An integer beyond the
// int range is too large, not wrapped round by the decoder (2^63 would
// be reported as -2^63); YAML reads a longer one as a float (1e+23).
//
// notInt, isFloat and isBool accept what the decoder reads as such, and
// no more: a string with spaces around the number (" 4000" from an
// environment variable) fails to decode, and the error must come from
// checkTypes, which names the variable.
func notInt(v any) string {
	switch x := v.(type) {
	case int, int64, int32:
		return ""
	case uint64:
		if x > math.MaxInt {
			return "is too large"
		}
		return ""
	case float64:
		switch {
		case x != math.Trunc(x):
			return "must be an integer"
		case x < math.MinInt:
			return "is too small"
		case x >= math.MaxInt: // MaxInt rounds up to 2^63
			return "is too large"
		}
		return ""
	case string:
		_, err := strconv.Atoi(x)
		switch {
		case errors.Is(err, strconv.ErrRange) && strings.HasPrefix(x, "-"):
			return "is too small"
		case errors.Is(err, strconv.ErrRange):
			return "is too large"
		case err != nil:
			return "must be an integer"
		}
		return ""
	}
	return "must be an integer"
}

func isFloat(v any) bool {
	switch x := v.(type) {
	case int, int64, int32, uint64, float64:
		return true
	case string:
		_, err := strconv.ParseFloat(x, 64)
		return err == nil
	}
	return false
}

func isBool(v any) bool {
	switch x := v.(type) {
	case bool:
		return true
	case string:
		_, err := strconv.ParseBool(x)
		return err == nil
	}
	return false
}

func defaultMap() map[string]any {
	d := Defaults()
	return map[string]any{
		"server.host":                     d.Server.Host,
		"server.port":                     d.Server.Port,
		"facade.port":                     d.Facade.Port,
		"embedding.provider":              d.Embedding.Provider,
		"embedding.endpoint":              d.Embedding.Endpoint,
		"embedding.model":                 d.Embedding.Model,
		"embedding.dimension":             d.Embedding.Dimension,
		"embedding.allowRemoteEndpoint":   d.Embedding.AllowRemoteEndpoint,
		"embedding.apiKeyEnv":             d.Embedding.APIKeyEnv,
		"embedding.batchSize":             d.Embedding.BatchSize,
		"embedding.timeoutSeconds":        d.Embedding.TimeoutSeconds,
		"retrieval.topK":                  d.Retrieval.TopK,
		"retrieval.latencyBudgetSeconds":  d.Retrieval.LatencyBudgetSeconds,
		"retrieval.maxConcurrentSearches": d.Retrieval.MaxConcurrentSearches,
		"retrieval.recencyHalfLifeDays":   d.Retrieval.RecencyHalfLifeDays,
		"retrieval.denseChannel":          d.Retrieval.DenseChannel,
		"index.keepGenerations":           d.Index.KeepGenerations,
		"index.chunkMaxChars":             d.Index.ChunkMaxChars,
		"index.chunkOverlapChars":         d.Index.ChunkOverlapChars,
		"index.contextWords":              d.Index.ContextWords,
		"index.contextTurns":              d.Index.ContextTurns,
		"index.annMinChunks":              d.Index.ANNMinChunks,
	}
}

// scalarKeys are the keys that may be set, as dotted paths.
func scalarKeys() []string {
	keys := make([]string, 0, 32)
	for k := range defaultMap() {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// envNotConfig are NOVA_* variables that are not configuration keys.
var envNotConfig = []string{"NOVA_HOME"}

// envKey maps NOVA_RETRIEVAL_MAX_CONCURRENT_SEARCHES to
// retrieval.maxConcurrentSearches.
func envKey(name string) (string, error) {
	if slices.Contains(envNotConfig, name) {
		return "", nil
	}
	rest := strings.TrimPrefix(name, "NOVA_")
	section, field, ok := strings.Cut(rest, "_")
	if !ok {
		return "", &FieldError{Field: name, Env: name, Reason: "unknown environment variable: expected NOVA_<SECTION>_<KEY>, e.g. NOVA_SERVER_PORT"}
	}
	want := strings.ToLower(section) + "." + strings.ToLower(strings.ReplaceAll(field, "_", ""))
	for _, k := range scalarKeys() {
		if strings.ToLower(k) == want {
			return k, nil
		}
	}
	return "", &FieldError{Field: name, Env: name, Reason: "unknown environment variable: no such configuration key"}
}

// checkKeys rejects keys the configuration does not define, naming each,
// and returns the keys whose shape itself is wrong (a section that is not
// a section of keys, a source list that is not a list of sources). Those
// are reported here, once; the caller drops them so that decoding does
// not report them again, and skips validation, since the values around
// them cannot be judged.
func checkKeys(k *koanf.Koanf, dotted map[string]bool) (misshapen []string, _ error) {
	sections := map[string]bool{}
	for _, key := range scalarKeys() {
		section, _, _ := strings.Cut(key, ".")
		sections[section] = true
	}
	allowed := map[string]bool{}
	for _, key := range scalarKeys() {
		allowed[key] = true
	}
	var errs []error
	sources, sourcesIsList := k.Get("sources").([]any)
	if k.Exists("sources") && !sourcesIsList {
		reason := "must be a list of sources"
		if k.Get("sources") == nil {
			reason = `is empty (its sources commented out?): write "sources: []" for none, or remove the line`
		}
		errs = append(errs, &FieldError{Field: "sources", Value: shown(k.Get("sources")), Reason: reason})
		misshapen = append(misshapen, "sources")
	}
	for _, key := range k.Keys() {
		switch {
		case allowed[key] || key == "sources" || strings.HasPrefix(key, "sources."):
			// sources.* is a source list that is a map: reported above.
		case sections[key]:
			reason := "must be a section of keys"
			if k.Get(key) == nil {
				reason = "is empty (its keys commented out?): give it a key, or remove the line"
			}
			errs = append(errs, &FieldError{Field: key, Value: shown(k.Get(key)), Reason: reason})
			misshapen = append(misshapen, key)
		case dotted[key]:
			// Reported as written, with a dot; koanf's flattened key
			// cannot tell it from a nested one.
		default:
			errs = append(errs, &FieldError{Field: key, Reason: "unknown key: " + knownKeys(key)})
		}
	}
	sourceKeys := map[string]bool{}
	var sourceKeyList []string
	for _, f := range reflect.VisibleFields(reflect.TypeFor[Source]()) {
		if name := f.Tag.Get("koanf"); name != "-" {
			sourceKeys[name] = true
			sourceKeyList = append(sourceKeyList, name)
		}
	}
	for i, item := range sources {
		// Each source is read on its own, not through k.Slices, which
		// skips items that are not maps and so would misnumber the rest.
		m, ok := item.(map[string]any)
		if !ok {
			errs = append(errs, &FieldError{Field: fmt.Sprintf("sources[%d]", i), Value: shown(item), Reason: "must be a source: a section of keys such as name, kind and path"})
			if !slices.Contains(misshapen, "sources") {
				misshapen = append(misshapen, "sources")
			}
			continue
		}
		s := koanf.New(".")
		if err := s.Load(confmap.Provider(m, ""), nil); err != nil {
			errs = append(errs, err)
			continue
		}
		for _, key := range s.Keys() {
			top, _, _ := strings.Cut(key, ".")
			if !sourceKeys[top] {
				reason := "unknown key: a source takes " + listed(sourceKeyList)
				if known := sameButCase(top, sourceKeyList); known != "" {
					reason = "unknown key: keys are case-sensitive: write " + known
				}
				errs = append(errs, &FieldError{Field: fmt.Sprintf("sources[%d].%s", i, key), Reason: reason})
			}
		}
	}
	return misshapen, errors.Join(errs...)
}

// knownKeys says what the configuration takes where the unknown key (a
// dotted path, not of a source) is: the sections, the keys of its
// section, or a single value.
func knownKeys(key string) string {
	sections := []string{"sources"}
	for _, k := range scalarKeys() {
		if section, _, _ := strings.Cut(k, "."); !slices.Contains(sections, section) {
			sections = append(sections, section)
		}
	}
	slices.Sort(sections)
	// A key written in another case (Server.Port, topk) is the known
	// key to YAML's reader only in that case.
	if known := sameButCase(key, append(scalarKeys(), sections...)); known != "" {
		return "keys are case-sensitive: write " + known
	}
	parts := strings.Split(key, ".")
	if section := sameButCase(parts[0], sections); section != "" && len(parts) > 1 {
		return "keys are case-sensitive: write " + section + "; " + knownKeys(section+"."+strings.Join(parts[1:], "."))
	}
	switch {
	case len(parts) == 1:
		return "the sections are " + listed(sections)
	case !slices.Contains(sections, parts[0]):
		return parts[0] + " is not a section; the sections are " + listed(sections)
	}
	var keys []string
	for _, k := range scalarKeys() {
		if name, ok := strings.CutPrefix(k, parts[0]+"."); ok {
			keys = append(keys, name)
		}
	}
	if slices.Contains(keys, parts[1]) {
		return parts[0] + "." + parts[1] + " takes a single value"
	}
	return parts[0] + " takes " + listed(keys)
}

// sameButCase returns the name in known that key spells in another
// case, or "".
func sameButCase(key string, known []string) string {
	for _, k := range known {
		if k != key && strings.EqualFold(k, key) {
			return k
		}
	}
	return ""
}

// listed joins names as a sentence does: "a, b and c".
func listed(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// dottedKeys reports the keys of the YAML file data that contain a ".",
// in the order written: "server.port: 4000" is one key of that name to
// YAML, not port under server, and koanf, which joins nested keys with
// ".", cannot tell the two apart. Data that does not parse has none.
func dottedKeys(data []byte) []*FieldError {
	var doc yamlv3.Node
	if yamlv3.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
		return nil
	}
	var found []*FieldError
	var walk func(n *yamlv3.Node, prefix string)
	walk = func(n *yamlv3.Node, prefix string) {
		switch n.Kind {
		case yamlv3.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				key := n.Content[i]
				field := key.Value
				if prefix != "" {
					field = prefix + "." + key.Value
				}
				if strings.Contains(key.Value, ".") {
					parts := strings.Split(key.Value, ".")
					found = append(found, &FieldError{Field: field, Line: key.Line,
						Reason: `a key cannot contain ".": nest its parts instead, each on its own line, indented under the one before (` + strings.Join(parts, ":, ") + ":)"})
					continue
				}
				walk(n.Content[i+1], field)
			}
		case yamlv3.SequenceNode:
			for i, item := range n.Content {
				walk(item, fmt.Sprintf("%s[%d]", prefix, i))
			}
		}
	}
	walk(doc.Content[0], "")
	return found
}

// hostInBrackets matches a host written as an IPv6 address in brackets,
// unquoted: host: [::1].
var hostInBrackets = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s+host:\s*\[[^\]]*:`) })

// bracketedHost returns the line of data where a host is written as an
// IPv6 address in brackets without quotes, or 0. YAML reads "[" there
// as the start of a list, and "::1" is no list item: the parser says
// "did not find expected node content".
func bracketedHost(data []byte) int {
	host := hostInBrackets()
	for i, line := range bytes.Split(data, []byte("\n")) {
		if host.Match(line) {
			return i + 1
		}
	}
	return 0
}

// eachNode calls visit with every node of the YAML file data's document
// below its top and the field it holds ("server.port", "sources[0].tags[1]"),
// in the order written. Data that does not parse has none.
func eachNode(data []byte, visit func(n *yamlv3.Node, field string)) {
	var doc yamlv3.Node
	if yamlv3.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
		return
	}
	var walk func(n *yamlv3.Node, field string)
	walk = func(n *yamlv3.Node, field string) {
		visit(n, field)
		switch n.Kind {
		case yamlv3.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				name := n.Content[i].Value
				if field != "" {
					name = field + "." + name
				}
				walk(n.Content[i+1], name)
			}
		case yamlv3.SequenceNode:
			for i, item := range n.Content {
				walk(item, fmt.Sprintf("%s[%d]", field, i))
			}
		}
	}
	walk(doc.Content[0], "")
}

// duplicateKeys reports the keys of the YAML file data written twice in
// one mapping, at the second, in the order written.
func duplicateKeys(data []byte) []*FieldError {
	var found []*FieldError
	eachNode(data, func(n *yamlv3.Node, field string) {
		if n.Kind != yamlv3.MappingNode {
			return
		}
		first := map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			key := n.Content[i]
			if line, ok := first[key.Value]; ok {
				name := key.Value
				if field != "" {
					name = field + "." + name
				}
				found = append(found, &FieldError{Field: name, Line: key.Line, Reason: fmt.Sprintf("is written twice, first on line %d: remove one", line)})
				continue
			}
			first[key.Value] = key.Line
		}
	})
	return found
}

// octalInts reports the integers of the YAML file data written with a
// leading 0 (port: 03037), which YAML reads as octal (1567), in the order
// written. 0o17 says it is octal, and a quoted "03037" is text, decoded
// as decimal: both are left alone.
func octalInts(data []byte) []*FieldError {
	var found []*FieldError
	eachNode(data, func(n *yamlv3.Node, field string) {
		text := strings.TrimLeft(n.Value, "+-")
		if n.Kind != yamlv3.ScalarNode || n.Style != 0 || n.ShortTag() != "!!int" || len(text) < 2 || text[0] != '0' || strings.ContainsAny(text[1:2], "xXoObB") {
			return
		}
		var octal int64
		decimal, err := strconv.ParseInt(n.Value, 10, 64)
		if n.Decode(&octal) != nil || err != nil || octal == decimal {
			// 08080 is no octal number: YAML reads it as 8080.
			return
		}
		fix := fmt.Sprintf("write %d", decimal)
		if !numberField(field) {
			fix = fmt.Sprintf("write it in quotes, %q, to keep it as written", n.Value)
		}
		found = append(found, &FieldError{Field: field, Line: n.Line, Value: n.Value,
			Reason: fmt.Sprintf("a leading 0 makes YAML read %s as an octal number, %d: %s", n.Value, octal, fix)})
	})
	return found
}

// sourceField matches the field of a source: sources[0].authorityRank.
var sourceField = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^sources\[\d+\]\.(\w+)$`) })

// numberField reports whether field (a dotted key, or a source's) takes
// a number, not text.
func numberField(field string) bool {
	switch defaultMap()[field].(type) {
	case int, float64:
		return true
	}
	m := sourceField().FindStringSubmatch(field)
	if m == nil {
		return false
	}
	for _, f := range reflect.VisibleFields(reflect.TypeFor[Source]()) {
		if f.Tag.Get("koanf") == m[1] {
			switch f.Type.Kind() {
			case reflect.Int, reflect.Float64:
				return true
			}
		}
	}
	return false
}

// shown formats a configuration value for an error message; an empty
// value or a section is not shown, since Go's rendering of it would only
// confuse.
func shown(v any) string {
	switch x := v.(type) {
	case nil, map[string]any:
		return ""
	case []any:
		// As YAML's flow style writes it; a list holding sections or
		// lists is not shown, as a section is not.
		items := make([]string, len(x))
		for i, item := range x {
			switch item.(type) {
			case map[string]any, []any:
				return ""
			}
			items[i] = fmt.Sprint(item)
		}
		return "[" + strings.Join(items, ", ") + "]"
	}
	return fmt.Sprint(v)
}

// splitList decodes a string written where a list of strings belongs
// (tags: "a, b") as the list of its comma-separated items, without the
// spaces around them. A comma inside braces is a glob's alternatives
// (include: "*.{md,txt}"), not a separator.
func splitList(from, to reflect.Type, data any) (any, error) {
	s, ok := data.(string)
	if !ok || from.Kind() != reflect.String || to != reflect.TypeFor[[]string]() {
		return data, nil
	}
	if s == "" {
		return []string{}, nil
	}
	var items []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '{':
			depth++
		case '}':
			depth = max(depth-1, 0)
		case ',':
			if depth == 0 {
				items = append(items, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return append(items, strings.TrimSpace(s[start:])), nil
}

// boolAsText decodes true or false written where text belongs
// (denseChannel: false, a tag true) as the word, where the weakly typed
// decoder would make it "1" or "0".
func boolAsText(from, to reflect.Type, data any) (any, error) {
	if b, ok := data.(bool); ok && from.Kind() == reflect.Bool && to.Kind() == reflect.String {
		return strconv.FormatBool(b), nil
	}
	return data, nil
}

// decodeErrors turns what decoding refused into field errors, one for
// each field, in place of mapstructure's multi-line report. Anything it
// does not recognise is kept as it is.
func decodeErrors(err error) []error {
	var out []error
	var walk func(error)
	walk = func(e error) {
		var de *mapstructure.DecodeError
		switch x := e.(type) {
		case interface{ Unwrap() []error }:
			for _, y := range x.Unwrap() {
				walk(y)
			}
			return
		case *mapstructure.DecodeError:
			de = x
		default:
			if inner := errors.Unwrap(e); inner != nil {
				walk(inner)
				return
			}
			out = append(out, fmt.Errorf("%w: %v", ErrInvalid, e))
			return
		}
		inner := de.Unwrap()
		var nested *mapstructure.DecodeError
		if errors.As(inner, &nested) {
			walk(inner)
			return
		}
		fe := &FieldError{Field: de.Name(), Reason: inner.Error()}
		var pe *mapstructure.ParseError
		var ue *mapstructure.UnconvertibleTypeError
		switch {
		case errors.As(inner, &pe):
			fe.Reason, fe.Value = mustBe(pe.Expected.Kind()), shown(pe.Value)
		case errors.As(inner, &ue):
			fe.Reason, fe.Value = mustBe(ue.Expected.Kind()), shown(ue.Value)
		}
		out = append(out, fe)
	}
	walk(err)
	return out
}

// mustBe says what a value of kind must be, in the words checkTypes uses.
func mustBe(kind reflect.Kind) string {
	switch kind {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "must be an integer"
	case reflect.Float32, reflect.Float64:
		return "must be a number"
	case reflect.Bool:
		return "must be true or false"
	case reflect.String:
		return "must be a single value"
	case reflect.Slice, reflect.Array:
		return "must be a list"
	}
	return "must be a section of keys"
}
