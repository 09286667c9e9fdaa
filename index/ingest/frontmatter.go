package ingest

import (
	"bytes"
	"cmp"
	"fmt"
	"reflect"
	"strings"
	"time"
	"unicode"

	"github.com/BurntSushi/toml"
	"go.yaml.in/yaml/v3"
	"golang.org/x/text/unicode/norm"
)

// frontMatter is the metadata at the top of a note: YAML between "---"
// lines, or TOML between "+++" lines (Hugo). Every field takes any value,
// so that one of an unexpected type (a list: see oneValue) costs the
// note that field, not its whole front matter.
type frontMatter struct {
	Title     any `yaml:"title" toml:"title"`
	Date      any `yaml:"date" toml:"date"`
	Created   any `yaml:"created" toml:"created"`
	Updated   any `yaml:"updated" toml:"updated"`
	Modified  any `yaml:"modified" toml:"modified"`
	LastMod   any `yaml:"lastmod" toml:"lastmod"`
	Tags      any `yaml:"tags" toml:"tags"`
	Project   any `yaml:"project" toml:"project"`
	Agent     any `yaml:"agent" toml:"agent"`
	Lifecycle any `yaml:"lifecycle" toml:"lifecycle"`
	WorkType  any `yaml:"workType" toml:"workType"`
	SourceSet any `yaml:"sourceSet" toml:"sourceSet"`
	// Aliases are the note's other names (Obsidian's aliases property;
	// alias, its older spelling): see noteName.
	Aliases any `yaml:"aliases" toml:"aliases"`
	Alias   any `yaml:"alias" toml:"alias"`
	// Tag is the tags property's older singular spelling, which
	// Obsidian still reads beside it.
	Tag any `yaml:"tag" toml:"tag"`
	// Kanban is set on a board of Obsidian's Kanban plugin, which writes
	// markers of its own in the lanes (kanbanMarkers).
	Kanban any `yaml:"kanban-plugin" toml:"kanban-plugin"`
}

// splitFrontMatter separates a leading "---" YAML block (closed by "---"
// or by "...", YAML's end of document, as Pandoc and Jekyll allow) or
// "+++" TOML block from the body and reports how many lines it took. An
// error names the language the block is not valid in. A "---" block that
// is not a YAML mapping is no front matter but the note's text.
func splitFrontMatter(raw []byte) ([]byte, frontMatter, int, error) {
	var fm frontMatter
	fence := ""
	first, _, found := bytes.Cut(raw, []byte("\n"))
	// Blanks may follow a fence, as Jekyll allows.
	if f := string(bytes.TrimRight(first, " \t")); found && (f == "---" || f == "+++") {
		fence = f
	}
	if fence == "" {
		return raw, fm, 0, nil
	}
	// The block ends at the first line that is only a closer, which may
	// be the line right after the opener (an empty block).
	start := len(first) + 1
	end, next := -1, 0
	for pos := start; end < 0; pos = next {
		line := raw[pos:]
		next = len(raw)
		if i := bytes.IndexByte(line, '\n'); i >= 0 {
			line, next = line[:i], pos+i+1
		}
		switch string(bytes.TrimRight(line, " \t")) {
		case fence:
			end = pos
		case "...":
			if fence == "---" {
				end = pos
			}
		}
		if next == len(raw) {
			break
		}
	}
	if end < 0 {
		return raw, fm, 0, nil
	}
	block := raw[start:end]
	after := raw[next:]
	lines := bytes.Count(raw[:next], []byte("\n"))
	if fence == "+++" {
		if _, err := toml.Decode(string(block), &fm); err != nil {
			return after, frontMatter{}, lines, fmt.Errorf("TOML: %w", err)
		}
		// The TOML decoder puts a local date-time (no offset) in a zone
		// of its own named so, at the machine's offset of today.
		for _, v := range fm.dates() {
			if t, ok := (*v).(time.Time); ok && t.Location().String() == "datetime-local" {
				*v = t.Format(wallClock)
			}
		}
		return after, fm, lines, nil
	}
	var doc yaml.Node
	err := yaml.Unmarshal(block, &doc)
	if err != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		// A key typed with a CJK input method's colon (date：2026-03-05)
		// makes the block a scalar, or not valid YAML.
		var typed yaml.Node
		if b, ok := fullWidthKeys(block); ok && yaml.Unmarshal(b, &typed) == nil &&
			len(typed.Content) != 0 && typed.Content[0].Kind == yaml.MappingNode {
			doc, err = typed, nil
		}
	}
	if err != nil {
		return after, frontMatter{}, lines, fmt.Errorf("YAML: %w", err)
	}
	if len(doc.Content) == 0 || doc.Content[0].ShortTag() == "!!null" {
		return after, fm, lines, nil
	}
	if doc.Content[0].Kind != yaml.MappingNode {
		// Prose or a list between two thematic breaks that open the
		// note: its text, not metadata.
		return raw, fm, 0, nil
	}
	foldKeys(doc.Content[0])
	if err := doc.Decode(&fm); err != nil {
		return after, frontMatter{}, lines, fmt.Errorf("YAML: %w", err)
	}
	// YAML reads a time written with a space and no offset as UTC; only
	// the text tells it from one written in UTC.
	var written frontMatterNodes
	if doc.Decode(&written) == nil {
		nodes := written.dates()
		for i, v := range fm.dates() {
			if t, ok := (*v).(time.Time); ok {
				if _, err := time.Parse("2006-1-2 15:4:5.999999999", nodes[i].Value); err == nil {
					*v = t.Format(wallClock)
				}
			}
		}
	}
	return after, fm, lines, nil
}

// frontMatterKeys are the YAML keys of frontMatter's fields.
var frontMatterKeys = func() []string {
	var keys []string
	for _, f := range reflect.VisibleFields(reflect.TypeFor[frontMatter]()) {
		keys = append(keys, f.Tag.Get("yaml"))
	}
	return keys
}()

// foldKeys spells the keys of mapping that name a frontMatter field in
// another case ("Title", "DATE") as the field's, so that YAML front
// matter is read whatever the case of its keys, as the TOML decoder and
// Hugo read it, and the date keys in the other spellings notes tools
// write (dateKeys) and the title's CJK keys (titleKeys); a key already
// in the field's own spelling wins.
func foldKeys(mapping *yaml.Node) {
	have := map[string]bool{}
	for i := 0; i+1 < len(mapping.Content); i += 2 {
		have[mapping.Content[i].Value] = true
	}
	for i := 0; i+1 < len(mapping.Content); i += 2 {
		k := mapping.Content[i]
		for _, name := range frontMatterKeys {
			if !have[name] && (strings.EqualFold(k.Value, name) || otherSpelling(k.Value) == name) {
				k.Value, have[name] = name, true
			}
		}
	}
}

// dateKeys are the other spellings of the date, created, updated and
// modified keys, as dateKeyWord reduces them: Obsidian's Linter writes
// "date created" and "date modified", exporters and scripts created_at,
// createdAt, updated_at or last_modified, Chinese, Japanese and Korean
// notes 日期, 创建时间, 作成日 or 생성일. Without them a note was of
// the day its file was last written, the export's or the copy's.
var dateKeys = map[string]string{
	"createdat": "created", "createdon": "created", "datecreated": "created", "createddate": "created", "creationdate": "created", "createdtime": "created",
	"updatedat": "updated", "updatedon": "updated", "dateupdated": "updated", "lastupdated": "updated",
	"modifiedat": "modified", "modifiedon": "modified", "datemodified": "modified", "modifieddate": "modified", "lastmodified": "modified",
	// Chinese (simplified and traditional), Japanese and Korean keys.
	"日期": "date", "日付": "date", "날짜": "date",
	"创建时间": "created", "创建日期": "created", "创建于": "created", "創建時間": "created", "創建日期": "created", "建立時間": "created", "建立日期": "created",
	"作成日": "created", "作成日時": "created", "생성일": "created", "생성일시": "created", "작성일": "created", "작성일시": "created",
	"更新时间": "updated", "更新日期": "updated", "更新于": "updated", "更新時間": "updated", "更新日": "updated", "更新日時": "updated", "最終更新日": "updated",
	"수정일": "updated", "수정일시": "updated",
	"修改时间": "modified", "修改日期": "modified", "修改時間": "modified", "變更時間": "modified", "변경일": "modified",
}

// titleKeys are the title key as Chinese (simplified and traditional),
// Japanese and Korean notes write it: without them their front matter's
// title was dropped and the note titled by its file name.
var titleKeys = map[string]string{"标题": "title", "標題": "title", "タイトル": "title", "제목": "title"}

// otherSpelling is the frontMatter key that key is another spelling of
// (dateKeys, titleKeys), or "".
func otherSpelling(key string) string {
	w := dateKeyWord(key)
	return cmp.Or(dateKeys[w], titleKeys[w])
}

// dateKeyWord is key in lower case without its spaces, "_" and "-",
// composed (a Korean key pasted decomposed is the key dateKeys has).
func dateKeyWord(key string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '_', '-':
			return -1
		}
		return unicode.ToLower(r)
	}, norm.NFC.String(key))
}

// dates are the fields that may date a note, first the one that does.
func (fm *frontMatter) dates() []*any {
	return []*any{&fm.Date, &fm.Created, &fm.Updated, &fm.Modified, &fm.LastMod}
}

// frontMatterNodes are the date fields of YAML front matter as written.
type frontMatterNodes struct {
	Date     yaml.Node `yaml:"date"`
	Created  yaml.Node `yaml:"created"`
	Updated  yaml.Node `yaml:"updated"`
	Modified yaml.Node `yaml:"modified"`
	LastMod  yaml.Node `yaml:"lastmod"`
}

// dates are the nodes of frontMatter.dates, in its order.
func (n *frontMatterNodes) dates() []*yaml.Node {
	return []*yaml.Node{&n.Date, &n.Created, &n.Updated, &n.Modified, &n.LastMod}
}

// wallClock writes a front matter time that was written without an
// offset (as Jekyll, Obsidian and Hugo write them), which the decoders
// give a zone of their own, as text without one again: parseDate reads
// it in the note's zone, as the note means it.
const wallClock = "2006-01-02 15:04:05.999999999"

func yamlScalar(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case time.Time:
		if x.Hour() == 0 && x.Minute() == 0 && x.Second() == 0 {
			return x.Format("2006-01-02")
		}
		return x.Format(time.RFC3339)
	default:
		return fmt.Sprint(x)
	}
}

// oneValue is a front matter field that names one thing (a title, a
// project): a scalar as written, or the value of a list of one (an
// Obsidian list property; an unquoted [[link]], which YAML reads as a
// list in a list). ok is false for a longer list or a map.
func oneValue(v any) (string, bool) {
	for {
		switch x := v.(type) {
		case []any:
			if len(x) != 1 {
				return "", len(x) == 0
			}
			v = x[0]
		case map[string]any, map[any]any:
			return "", false
		default:
			return yamlScalar(v), true
		}
	}
}

func frontMatterTags(v any) []string {
	switch x := v.(type) {
	case string:
		var out []string
		// Full-width and ideographic commas part them as a CJK input
		// method types a comma.
		for _, t := range strings.FieldsFunc(x, func(r rune) bool { return r == ',' || r == '，' || r == '、' || unicode.IsSpace(r) }) {
			out = append(out, strings.TrimPrefix(t, "#"))
		}
		return cleanTags(out)
	case []any:
		var out []string
		for _, t := range x {
			out = append(out, strings.TrimPrefix(yamlScalar(t), "#"))
		}
		return cleanTags(out)
	}
	return nil
}

// foldKey is s with each character made the least of those it equals
// under Unicode case folding: two strings have the same key when
// strings.EqualFold holds of them ("K", "k" and the Kelvin sign; "S",
// "s" and the long s).
func foldKey(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		low := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			low = min(low, f)
		}
		b.WriteRune(low)
	}
	return b.String()
}

// linkedName is a front matter value that may link a note, as Obsidian
// writes a link property ("[[Nova]]"): a value that is one wiki link
// names the linked note, whatever its heading or alias; links in text
// read as their text.
func linkedName(v string) string {
	if m := wikiLink().FindStringSubmatchIndex(v); m != nil && m[0] == 0 && m[1] == len(v) && v[0] == '[' && strings.TrimSpace(v[m[2]:m[3]]) != "" {
		return strings.TrimSpace(v[m[2]:m[3]])
	}
	return cleanInline(v)
}
