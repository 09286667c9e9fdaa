package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	gojson "github.com/goccy/go-json"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/memory"
	"github.com/nova-recall/nova/redact"
	"github.com/nova-recall/nova/truncate"
)

// jsonlRecord is one line of a jsonl source.
type jsonlRecord struct {
	ID           json.RawMessage `json:"id"`
	Text         *string         `json:"text"`
	Date         json.RawMessage `json:"date"`
	Agent        string          `json:"agent"`
	Role         string          `json:"role"`
	Project      json.RawMessage `json:"project"`
	Tags         json.RawMessage `json:"tags"`
	WorkType     string          `json:"workType"`
	SourceSet    string          `json:"sourceSet"`
	Lifecycle    string          `json:"lifecycle"`
	Title        json.RawMessage `json:"title"`
	Session      json.RawMessage `json:"session"`
	Conversation json.RawMessage `json:"conversation"`
	Subject      json.RawMessage `json:"subject"`
	// Fields notes apps export under names of their own: the id (Day
	// One's uuid), the text (Google Keep's textContent, and a
	// checklist's items as its listContent, and a saved link's title and
	// description as its annotations), the tags (Keep's labels),
	// the date (Day One's creationDate and the zone it was written in;
	// Keep's times in microseconds, created, then last edited) and a
	// note in the trash (Keep's isTrashed), which is left out.
	UUID         json.RawMessage `json:"uuid"`
	TextContent  json.RawMessage `json:"textContent"`
	ListContent  json.RawMessage `json:"listContent"`
	Labels       json.RawMessage `json:"labels"`
	Annotations  json.RawMessage `json:"annotations"`
	CreationDate json.RawMessage `json:"creationDate"`
	TimeZone     json.RawMessage `json:"timeZone"`
	CreatedUsec  json.RawMessage `json:"createdTimestampUsec"`
	EditedUsec   json.RawMessage `json:"userEditedTimestampUsec"`
	IsTrashed    json.RawMessage `json:"isTrashed"`
	// Day One's place an entry was written at (dayOneText).
	Location json.RawMessage `json:"location"`
}

// jsonlHandler reads one record per line of a jsonl source (or per
// element of a JSON document, see readDocument): id and text are required
// (a Google Keep note, which has no id, is identified by its place). The records of one file and project are treated as
// one conversation (their neighbours give context) unless a line names
// its own conversation or session. It keeps no state between lines.
type jsonlHandler struct{ fc *fileCtx }

func (h jsonlHandler) line(n int, data []byte) error { return h.record(n, data, "") }

// record reads one record, data, at line n: a line of a JSONL file, or an
// element of a JSON document (readDocument), whose problems say where it
// is in where ("element [3]: ").
func (h jsonlHandler) record(n int, data []byte, where string) error {
	rec, reason, err := parseJSONLLine(data, h.fc.loc)
	if errors.Is(err, errTrashed) || errors.Is(err, errNoWords) {
		return nil
	}
	if err != nil {
		return err
	}
	if reason != "" {
		h.fc.problem(n, where+reason)
		return nil
	}
	// Secrets go before the record leaves the reader: its text is also
	// the context indexed with its neighbours.
	rec.Text, rec.Redactions = cleanText(rec.Text)
	// A subject is a key, folded (subjectKey) after its secrets are
	// redacted: redaction knows a key by its capitals.
	rec.Redactions += redact.Fields(&rec.Subject)
	rec.Subject = subjectKey(rec.Subject)
	rec.Path, rec.Line, rec.Kind = h.fc.path, n, config.KindJSONL
	if rec.ID == "" {
		// A note exported without an id (Google Keep's, one a file) is
		// the record at its place in its file.
		rec.ID = h.fc.rel + "#" + strconv.Itoa(n)
	}
	if rec.Conversation == "" {
		rec.Conversation = h.fc.rel + "|" + rec.Project
	}
	return h.fc.emit(rec)
}

func (jsonlHandler) state() (json.RawMessage, error) { return nil, nil }

// decodeJSONLRecord decodes a line with goccy/go-json, five times as fast
// as encoding/json on records (a tenth of a build's reading was spent
// decoding), and gives encoding/json the lines it refuses: those are the
// lines users read a warning about, in encoding/json's words.
// FuzzDecodeJSONLRecord checks that both read every line alike.
func decodeJSONLRecord(line []byte) (jsonlRecord, error) {
	// The decoders are given a record of the pool, emptied: one given
	// their own escaped to the heap, 550 bytes a line (55 MB of a 100k
	// build's allocation).
	p := jsonlRecords.Get().(*jsonlRecord)
	defer jsonlRecords.Put(p)
	*p = jsonlRecord{}
	if gojson.Unmarshal(line, p) == nil {
		jr := *p
		*p = jsonlRecord{} // keeps nothing of the line alive
		return jr, nil
	}
	*p = jsonlRecord{}
	err := json.Unmarshal(line, p)
	jr := *p
	*p = jsonlRecord{}
	return jr, err
}

// jsonlRecords holds the records decodeJSONLRecord decodes into.
var jsonlRecords = sync.Pool{New: func() any { return new(jsonlRecord) }}

// jsonlPartsRecord is a line whose "text" is not a string: its Text
// stands in for the record's own (encoding/json takes the shallower of
// two fields of one name).
type jsonlPartsRecord struct {
	jsonlRecord
	Text json.RawMessage `json:"text"`
}

// decodeTextParts decodes a line whose text is written as its parts (see
// partsText), the record's text their words; err is the first other
// field of the wrong type, as decodeJSONLRecord's is, and reason says why
// the text is not read when it is not.
func decodeTextParts(line []byte) (jsonlRecord, string, error) {
	var pr jsonlPartsRecord
	err := json.Unmarshal(line, &pr)
	var wrongType *json.UnmarshalTypeError
	if err != nil && !errors.As(err, &wrongType) {
		return jsonlRecord{}, "", err
	}
	if wrongType != nil {
		// Named as on any other line: "title", not "jsonlRecord.title".
		wrongType.Field = strings.TrimPrefix(wrongType.Field, "jsonlRecord.")
	}
	text, ok := partsText(pr.Text)
	if !ok {
		return jsonlRecord{}, `"text" must be a string, a list of strings or text blocks ({"type":"text","text":"..."}), or one such block`, nil
	}
	pr.jsonlRecord.Text = &text
	return pr.jsonlRecord, "", err
}

// partsText reads a text written as its parts, as chat tools export a
// message: a list of strings (ChatGPT's content.parts), or of content
// blocks ({"type":"text","text":...} of the Anthropic and OpenAI APIs,
// {"text":...} of Gemini's parts), or one such block. The text is the
// words of its strings and text blocks, one part a line; other blocks (an
// image, a tool call, a model's thoughts) hold none of the message's
// words and are left out. ok is false for any other shape.
func partsText(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimLeft(raw, jsonSpace)
	if len(raw) == 0 {
		return "", false
	}
	var parts []json.RawMessage
	switch raw[0] {
	case '[':
		if json.Unmarshal(raw, &parts) != nil {
			return "", false
		}
	case '{':
		parts = []json.RawMessage{raw}
	default:
		return "", false
	}
	var words []string
	for _, p := range parts {
		var s string
		if json.Unmarshal(p, &s) == nil {
			if s = strings.TrimSpace(s); s != "" {
				words = append(words, s)
			}
			continue
		}
		var block struct {
			Type    json.RawMessage `json:"type"`
			Text    json.RawMessage `json:"text"`
			Thought json.RawMessage `json:"thought"`
		}
		if json.Unmarshal(p, &block) != nil {
			return "", false // a number, a list: not a part
		}
		var kind string
		_ = json.Unmarshal(block.Type, &kind)
		if json.Unmarshal(block.Text, &s) != nil || string(block.Thought) == "true" {
			continue
		}
		switch kind {
		case "", "text", "input_text", "output_text":
			if s = strings.TrimSpace(s); s != "" {
				words = append(words, s)
			}
		}
	}
	return strings.Join(words, "\n"), true
}

// parseJSONLLine returns the record of a line, or the reason it is not
// one, or a *notJSONError for a line that is not JSON at all (see
// readLines); a date without an offset is read in loc (see parseDate).
func parseJSONLLine(line []byte, loc *time.Location) (memory.Record, string, error) {
	// A record with bytes that are not UTF-8 is read as a note is (a line
	// saved as Windows-1252, or damaged bytes as U+FFFD), not lost: the
	// JSON's own bytes are ASCII either way.
	line = noteText(line)
	jr, err := decodeJSONLRecord(line)
	var wrongType *json.UnmarshalTypeError
	if errors.As(err, &wrongType) && wrongType.Field == "text" {
		// Not a string: the text may be written as its parts, read
		// again only then so that the common line keeps the fast path.
		var reason string
		if jr, reason, err = decodeTextParts(line); reason != "" {
			return memory.Record{}, reason, nil
		}
	}
	if errors.As(err, &wrongType) && wrongType.Field != "" {
		// A JSON object all the same: name the field, not the line.
		return memory.Record{}, fmt.Sprintf("%q must be a string, not a JSON %s", wrongType.Field, wrongType.Value), nil
	}
	if err != nil {
		return memory.Record{}, "", notJSON(err)
	}
	if string(jr.IsTrashed) == "true" {
		return memory.Record{}, "", errTrashed
	}
	id, ok := idString(jr.ID)
	if !ok {
		id, ok = idString(jr.UUID)
	}
	// A Keep note has no id: it is identified by where it is (record).
	// A record of Nova's own shape, its "text" a string, keeps to its
	// id, the one identity it has that an edit does not move.
	keepNote := jr.Text == nil && (len(jr.TextContent) > 0 || len(jr.ListContent) > 0)
	if !ok && !keepNote {
		return memory.Record{}, wrappedOr(line, `missing or empty "id" (a stable string or number is required)`), nil
	}
	text := noteRecordText(jr)
	if strings.TrimSpace(text) == "" && keepNote {
		// A note of a title alone ("Call mum"): its title is its words.
		text, _ = keyString(jr.Title)
	}
	// A Day One entry: a uuid, not an id, and its creationDate.
	dayOne := len(jr.ID) == 0 && len(jr.UUID) > 0 && len(jr.CreationDate) > 0
	if dayOne {
		if text = dayOneText(text, jr.Location); strings.TrimSpace(text) == "" {
			return memory.Record{}, "", errNoWords
		}
	}
	if strings.TrimSpace(text) == "" {
		return memory.Record{}, wrappedOr(line, `missing or empty "text"`), nil
	}
	// A title too may be a number (a year, a ticket number in a sheet).
	var keys [5]string
	for i, f := range []struct {
		name string
		raw  json.RawMessage
	}{{"project", jr.Project}, {"session", jr.Session}, {"conversation", jr.Conversation}, {"subject", jr.Subject}, {"title", jr.Title}} {
		if keys[i], ok = keyString(f.raw); !ok {
			return memory.Record{}, fmt.Sprintf("%q must be a string or a number", f.name), nil
		}
	}
	project, session, conversation, subject, title := keys[0], keys[1], keys[2], keys[3], keys[4]
	if dayOne && title == "" {
		// Day One shows an entry under its first line, a heading.
		first, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
		if h, ok := strings.CutPrefix(first, "# "); ok {
			title = h
		}
	}
	rec := memory.Record{
		ID: id, Text: strings.TrimSpace(text), Title: strings.TrimSpace(title),
		Agent: jr.Agent, Role: jr.Role, Project: project, WorkType: jr.WorkType,
		SourceSet: jr.SourceSet, Lifecycle: jr.Lifecycle, SessionID: session, Layer: "record",
		Subject: subject,
	}
	if conversation != "" {
		rec.Conversation = conversation
	} else if session != "" {
		rec.Conversation = "session:" + session
	}
	// The zone a note was written in (Day One's timeZone) is the one
	// its day is of: a time in UTC is the next day's evening in America.
	var zone *time.Location
	if name, ok := keyString(jr.TimeZone); ok && name != "" {
		if z, err := time.LoadLocation(name); err == nil {
			loc, zone = z, z
		}
	}
	for _, f := range []struct {
		name string
		raw  json.RawMessage
	}{{"date", jr.Date}, {"creationDate", jr.CreationDate}, {"createdTimestampUsec", jr.CreatedUsec}, {"userEditedTimestampUsec", jr.EditedUsec}} {
		date, t, ok := recordDate(f.raw, loc)
		if !ok && f.name == "date" {
			// Redacted before it is cut: a secret cut short is no
			// longer one redaction knows, and its start tells most of it.
			quoted, _ := redact.Text(string(f.raw))
			return memory.Record{}, fmt.Sprintf("date %s is not RFC 3339, YYYY-MM-DD, RFC 2822 or Unix seconds, milliseconds or microseconds", truncate.Runes(quoted, 60)), nil
		}
		// The other names are an export's, which a record of Nova's own
		// shape may use for something else: one that is no date is not
		// the record's.
		if zone != nil && !t.IsZero() {
			date = t.In(zone).Format("2006-01-02")
		}
		if date != "" {
			rec.Date, rec.Time = date, t
			break
		}
	}
	tags, ok := parseTags(jr.Tags)
	if !ok {
		return memory.Record{}, `"tags" must be a list of strings (or numbers) or a comma-separated string`, nil
	}
	// Labels of another shape than Keep's are not the record's tags.
	labels, _ := parseTags(jr.Labels)
	rec.Tags = append(tags, labels...)
	return rec, "", nil
}

// errTrashed is parseJSONLLine's word that a record is a note in the
// trash (Keep's isTrashed): the user threw it away, so it is left out,
// and is no problem.
var errTrashed = errors.New("a note in the trash")

// errNoWords is parseJSONLLine's word that a record is a Day One entry
// of photos alone (no text but their links, and no place): it holds no
// words to find, so it is left out, and is no problem.
var errNoWords = errors.New("an entry of photos alone")

// noteRecordText is a record's text: its "text", else Keep's
// textContent, and then the items of a checklist (Keep's listContent,
// [{"text", "isChecked"}]) one a line, ticked or not, as a Markdown task
// list writes them, and then, for a Keep note, the title and
// description of each link it saved (its annotations).
func noteRecordText(jr jsonlRecord) string {
	var text string
	switch {
	case jr.Text != nil:
		text = *jr.Text
	default:
		// Another app's field of another type is no text.
		_ = json.Unmarshal(jr.TextContent, &text)
	}
	var items []struct {
		Text      string `json:"text"`
		IsChecked bool   `json:"isChecked"`
	}
	// A saved link's words are the page's title and description, which
	// the note's text, often the address alone, does not hold.
	var links []struct {
		Title       string `json:"title"`
		Description string `json:"description"`
	}
	_ = json.Unmarshal(jr.ListContent, &items)
	if jr.Text == nil {
		_ = json.Unmarshal(jr.Annotations, &links)
	}
	if len(items) == 0 && len(links) == 0 {
		return text
	}
	lines := []string{}
	if strings.TrimSpace(text) != "" {
		lines = append(lines, strings.TrimSpace(text))
	}
	for _, it := range items {
		if it.Text = strings.TrimSpace(it.Text); it.Text == "" {
			continue
		}
		box := "- [ ] "
		if it.IsChecked {
			box = "- [x] "
		}
		lines = append(lines, box+it.Text)
	}
	for _, l := range links {
		for _, s := range []string{l.Title, l.Description} {
			if s = strings.TrimSpace(s); s != "" {
				lines = append(lines, s)
			}
		}
	}
	return strings.Join(lines, "\n")
}

// dayOneMoment is a photo, video or audio of a Day One entry in its text,
// a Markdown image (or link) to dayone-moment://ID: no words of the
// entry's.
var dayOneMoment = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`!?\[[^\]\n]*\]\(dayone-moment:[^)\s]*\)`) })

// dayOneText is a Day One entry's text, as its export writes it in
// Markdown with every punctuation mark that Markdown might read escaped
// ("\." "\!" "\("), read as written: the escapes dropped (but in a code
// block, whose backslashes are its own), the links of its photos left
// out, and the place it was written at (location, its placeName,
// localityName, administrativeArea and country) added as its last line,
// so that a search for the place finds it.
func dayOneText(text string, location json.RawMessage) string {
	text = dayOneMoment().ReplaceAllString(text, "")
	lines := strings.Split(text, "\n")
	code := false
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			code = !code
			continue
		}
		if !code && strings.IndexByte(l, '\\') >= 0 {
			lines[i] = markdownUnescape(l)
		}
	}
	text = strings.Join(lines, "\n")
	var place struct {
		PlaceName          string `json:"placeName"`
		LocalityName       string `json:"localityName"`
		AdministrativeArea string `json:"administrativeArea"`
		Country            string `json:"country"`
	}
	// A location of another shape is no place.
	_ = json.Unmarshal(location, &place)
	var names []string
	for _, n := range []string{place.PlaceName, place.LocalityName, place.AdministrativeArea, place.Country} {
		if n = strings.TrimSpace(n); n != "" && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	if len(names) > 0 {
		text = strings.TrimSpace(text) + "\n\n" + strings.Join(names, ", ")
	}
	return text
}

// markdownUnescape drops the backslash of each Markdown escape in s: one
// before ASCII punctuation (CommonMark's backslash escapes).
func markdownUnescape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", s[i+1]) >= 0 {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// subjectKey is the version-chain key of a subject as exports write it:
// one subject retyped with other capitals or spacing, or with "é" as one
// character in one tool and as e and a combining accent in another, is
// still one subject (lexical.Normalize: NFKC, lower case; runs of white
// space as one space).
func subjectKey(s string) string {
	return normalizeSpace(lexical.Normalize(s))
}

// recordDate reads a record's "date": a string parseDate, mailDate or
// zoneSuffixedDate accepts, or a time as exports from databases and chat
// tools write it, a number or a string of digits: Unix seconds (with a
// fraction, as Slack's ts), milliseconds (JavaScript's Date.now()),
// microseconds (Google Keep's), nanoseconds, or a compact YYYYMMDD. The day of an epoch time is the machine's (loc), as
// for a time without an offset. Nothing, null or "" is no date; ok is
// false for anything else.
func recordDate(raw json.RawMessage, loc *time.Location) (string, time.Time, bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", time.Time{}, true
	}
	s, ok := plainString(raw)
	if !ok && json.Unmarshal(raw, &s) != nil {
		if raw[0] != '-' && (raw[0] < '0' || raw[0] > '9') {
			return "", time.Time{}, false // an object, a list, a boolean
		}
		s = string(raw)
	}
	if s = strings.TrimSpace(s); s == "" {
		return "", time.Time{}, true
	}
	if date, t, ok := parseDate(s, loc); ok {
		return date, t, true
	}
	if date, t, ok := mailDate(s); ok {
		return date, t, true
	}
	if date, t, ok := zoneSuffixedDate(s); ok {
		return date, t, true
	}
	return epochDate(s, loc)
}

// zoneSuffixedDate reads a time with its offset and then its zone's name
// in brackets (RFC 9557, as Java's ZonedDateTime.toString() and
// JavaScript's Temporal write it): the offset decides, the name is not
// looked up. A name after a time without an offset is not guessed.
func zoneSuffixedDate(s string) (string, time.Time, bool) {
	i := strings.IndexByte(s, '[')
	if i <= 0 || !strings.HasSuffix(s, "]") {
		return "", time.Time{}, false
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04Z07:00"} {
		if t, err := time.Parse(layout, s[:i]); err == nil {
			return t.Format("2006-01-02"), t, true
		}
	}
	return "", time.Time{}, false
}

// mailDateLayouts are RFC 2822's date (an email's Date header, as mail
// and many exporters write it; JavaScript's Date.toUTCString()), with or
// without its weekday and seconds, and JavaScript's Date.toString().
var mailDateLayouts = []string{
	"Mon, 2 Jan 2006 15:04:05 -0700", "Mon, 2 Jan 2006 15:04 -0700",
	"2 Jan 2006 15:04:05 -0700", "2 Jan 2006 15:04 -0700",
	"Mon Jan 2 2006 15:04:05 GMT-0700",
}

// mailDate reads s in one of mailDateLayouts and returns its day in its
// own offset and its time. A trailing comment, "(UTC)" or JavaScript's
// "(Central European Standard Time)", is dropped; of the zones named,
// only GMT, UT and UTC are read (as +0000): RFC 2822's obsolete US zones
// and every other name are not guessed, as parseDate does not (Go's
// time.Parse reads an unknown name as +0000).
func mailDate(s string) (string, time.Time, bool) {
	if i := strings.LastIndexByte(s, '('); i > 0 && strings.HasSuffix(s, ")") {
		s = strings.TrimSpace(s[:i])
	}
	for _, zone := range []string{" GMT", " UTC", " UT"} {
		if strings.HasSuffix(s, zone) {
			s = strings.TrimSuffix(s, zone) + " +0000"
			break
		}
	}
	for _, layout := range mailDateLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t.Format("2006-01-02"), t, true
		}
	}
	return "", time.Time{}, false
}

// epochDate reads a number as Unix seconds or milliseconds, or as a
// compact YYYYMMDD (eight digits: as seconds, a day of 1970-1973).
func epochDate(s string, loc *time.Location) (string, time.Time, bool) {
	if len(s) == 8 {
		if t, err := time.Parse("20060102", s); err == nil {
			return t.Format("2006-01-02"), time.Time{}, true
		}
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil && n >= 1e14 {
		// Past 1e14 ms (the year 5138) a time is in microseconds (Google
		// Keep's, 1973 to 5138), or in nanoseconds.
		t := time.UnixMicro(n).UTC()
		if n >= 1e17 {
			t = time.Unix(0, n).UTC()
		}
		return t.In(loc).Format("2006-01-02"), t, true
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 1e9 || v >= 1e14 || math.IsNaN(v) {
		// Below 1e9 (September 2001 in seconds) a number is more likely a
		// count or an id than a time; past 1e14 ms is the year 5138.
		return "", time.Time{}, false
	}
	var t time.Time
	if v >= 1e11 {
		t = time.UnixMilli(int64(v)).UTC()
	} else {
		// A float's digits past the microsecond are its own, not the clock's.
		whole, frac := math.Modf(v)
		t = time.Unix(int64(whole), int64(math.Round(frac*1e6))*1e3).UTC()
	}
	return t.In(loc).Format("2006-01-02"), t, true
}

// parseDate accepts RFC 3339 (with or without fractional seconds, in the
// variants below) or YYYY-MM-DD and returns the business date (in the
// timestamp's own offset) and the exact time (zero for a bare date). A
// time without an offset (Python's isoformat(), Obsidian's "Date & time"
// properties without seconds, 2026-01-15T10:30) is the wall-clock time
// of the person who wrote it, on this machine: it is read in loc, the
// machine's zone (fileCtx.loc), the one search shows times in
// (search.ConfigFor), so it shows as written. Read as UTC, it moved by
// the zone's offset, across midnight near its ends.
func parseDate(s string, loc *time.Location) (string, time.Time, bool) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t.Format("2006-01-02"), time.Time{}, true
	}
	// With an offset: RFC 3339; with a space for the T (Python's str() of
	// an aware datetime); with the offset as +0100 (strftime's %z), after a
	// space too (Jekyll's front matter, Ruby's Time#to_s), and then the
	// zone's name (Go's Time.String; the offset decides); as +01
	// (PostgreSQL's timestamptz); without seconds (ISO 8601 allows it);
	// UTC named (Ruby's Time#to_s of a UTC time). A zone named without
	// an offset is not guessed. Fractional seconds are accepted after
	// the seconds of every layout.
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05Z07:00", "2006-01-02T15:04:05Z0700", "2006-01-02 15:04:05Z0700",
		"2006-01-02 15:04:05 -0700", "2006-01-02 15:04:05 -0700 MST", "2006-01-02 15:04:05Z07", "2006-01-02T15:04Z07:00", "2006-01-02 15:04:05 UTC"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.Format("2006-01-02"), t, true
		}
	}
	for _, layout := range []string{"2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02T15:04", "2006-01-02 15:04"} {
		if t, err := parseWallClock(layout, s, loc); err == nil {
			return t.Format("2006-01-02"), t, true
		}
	}
	return "", time.Time{}, false
}

// parseWallClock is time.ParseInLocation but for a time that loc's
// change to daylight saving time skips (02:30 in New York on the day it
// begins; 00:30 in Santiago, where it skips midnight): that is read as
// the clock shows it after the change, later by the change, as Java's
// ZonedDateTime and JavaScript's Temporal read it. time.Date gives such
// a time in one zone an hour before, in another an hour after, and in
// Santiago an hour before is the day before.
func parseWallClock(layout, s string, loc *time.Location) (time.Time, error) {
	wall, err := time.Parse(layout, s) // the clock's reading, as UTC
	if err != nil {
		return time.Time{}, err
	}
	t := time.Date(wall.Year(), wall.Month(), wall.Day(), wall.Hour(), wall.Minute(), wall.Second(), wall.Nanosecond(), loc)
	if t.Hour() == wall.Hour() && t.Minute() == wall.Minute() && t.Day() == wall.Day() {
		return t, nil
	}
	// Skipped: read it at the offset in force before the change. A
	// day before the reading is before the change in any zone (offsets
	// are within 14 hours), and changes are months apart.
	_, before := wall.Add(-26 * time.Hour).In(loc).Zone()
	return wall.Add(-time.Duration(before) * time.Second).In(loc), nil
}

func idString(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", false
	}
	s, ok := plainString(raw)
	if !ok && json.Unmarshal(raw, &s) == nil {
		ok = true
	}
	if ok {
		s = strings.TrimSpace(s)
		return s, s != ""
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String(), true
	}
	return "", false
}

// keyString reads a field that names something (a project, a session,
// a conversation, a subject, a title, a tag): a string as it is, or a number as written
// (an id from a database), as an id is read; null or nothing is "". ok
// is false for any other value.
func keyString(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", true
	}
	if s, ok := plainString(raw); ok {
		return s, true
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String(), true
	}
	return "", false
}

func parseTags(raw json.RawMessage) ([]string, bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, true
	}
	if list, ok := plainStrings(raw); ok {
		return cleanTags(list), true
	}
	var list []string
	if json.Unmarshal(raw, &list) == nil {
		return cleanTags(list), true
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return cleanTags(strings.Split(s, ",")), true
	}
	// Tags that are numbers ([2024, "q1"]) are kept as written.
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return nil, false
	}
	list = list[:0]
	for _, item := range items {
		tag, ok := keyString(item)
		if !ok {
			// A tag as an object that names it (Keep's labels, {"name": ...}).
			var named struct {
				Name json.RawMessage `json:"name"`
			}
			if json.Unmarshal(item, &named) != nil {
				return nil, false
			}
			if tag, ok = keyString(named.Name); !ok {
				return nil, false
			}
		}
		list = append(list, tag)
	}
	return cleanTags(list), true
}

// recordFields are the keys a record's fields are read from.
var recordFields = func() map[string]bool {
	fields := map[string]bool{}
	t := reflect.TypeFor[jsonlRecord]()
	for i := range t.NumField() {
		fields[t.Field(i).Tag.Get("json")] = true
	}
	return fields
}()

// wrappedOr returns reason, the problem of an object that is not a
// record, unless the object holds records: an array of objects under one
// of its keys, as an API's {"records": [...]} or a dump's {"data": [...]}
// exports them. Those are not read (which array holds the records is
// the export's word, not a guess of the reader's): the problem says where
// they are, so that the user can write the array alone.
func wrappedOr(object []byte, reason string) string {
	dec := json.NewDecoder(bytes.NewReader(object))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return reason
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return reason
		}
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return reason
		}
		if name, _ := key.(string); recordFields[name] {
			continue // a record's own field (text written as its parts)
		}
		if rest, ok := bytes.CutPrefix(value, []byte("[")); ok && bytes.HasPrefix(bytes.TrimLeft(rest, jsonSpace), []byte("{")) {
			return fmt.Sprintf("the records are wrapped in an object, in its array under %q: they are read from a file of that array alone (jq '.%q' writes it) or of one record a line", key, key)
		}
	}
	return reason
}

// plainString decodes a JSON string without escapes, the form of nearly
// every id, without a decoder: its value is the bytes between the quotes.
// raw must be valid JSON in valid UTF-8 (a line parseJSONLLine decoded);
// ok is false for anything else, which encoding/json then decodes.
func plainString(raw []byte) (string, bool) {
	n := len(raw)
	if n < 2 || raw[0] != '"' || raw[n-1] != '"' || bytes.IndexByte(raw[1:n-1], '\\') >= 0 {
		return "", false
	}
	return string(raw[1 : n-1]), true
}

// plainStrings decodes a JSON list of strings without escapes (tags, as
// nearly every line writes them) as plainString does; ok is false for
// any other value.
func plainStrings(raw []byte) ([]string, bool) {
	rest := bytes.TrimLeft(raw, jsonSpace)
	if len(rest) == 0 || rest[0] != '[' {
		return nil, false
	}
	rest = bytes.TrimLeft(rest[1:], jsonSpace)
	list := []string{}
	if len(rest) > 0 && rest[0] == ']' {
		return list, len(bytes.TrimLeft(rest[1:], jsonSpace)) == 0
	}
	for {
		if len(rest) == 0 || rest[0] != '"' {
			return nil, false
		}
		end := bytes.IndexByte(rest[1:], '"')
		if end < 0 {
			return nil, false
		}
		v := rest[1 : 1+end]
		if bytes.IndexByte(v, '\\') >= 0 {
			return nil, false
		}
		list = append(list, string(v))
		rest = bytes.TrimLeft(rest[2+end:], jsonSpace)
		switch {
		case len(rest) > 0 && rest[0] == ',':
			rest = bytes.TrimLeft(rest[1:], jsonSpace)
		case len(rest) > 0 && rest[0] == ']':
			return list, len(bytes.TrimLeft(rest[1:], jsonSpace)) == 0
		default:
			return nil, false
		}
	}
}

// jsonSpace is the white space JSON allows between tokens.
const jsonSpace = " \t\n\r"

func cleanTags(in []string) []string {
	var out []string
	for _, t := range in {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	return out
}

func trimErr(err error) string {
	s := err.Error()
	if len(s) > 120 {
		s = s[:120]
	}
	return s
}
