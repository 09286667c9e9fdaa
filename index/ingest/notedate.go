package ingest

import (
	"cmp"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// The forms of a day in a note's name besides YYYY-MM-DD, Logseq's
// YYYY_MM_DD, the CJK forms and a Zettelkasten id (see nameDate): the
// daily-note formats Obsidian, Dendron, Foam, Bear and Day One let their
// users choose. Each is bounded so that a version (v2026.03.05,
// 2026.03.05.1) or a longer number is not read for a day.
var (
	// dottedDay is YYYY.MM.DD (Dendron's daily.journal.2026.03.05): at
	// the start, after a blank or a mark, or after a word and a dot;
	// then the name's end, a mark or its extension.
	dottedDay = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?:^|[^\w.]|_|\pL\.)((?:19|20)\d{2})\.(\d{2})\.(\d{2})(?:$|[^\d.]|\.\D)`)
	})
	// namedMonthDay is a day with its month's name (monthNames), the
	// month first (March 5, 2026; Mar 5th 2026) or the day first
	// (5 March 2026, 1st of September 2026, 5. März 2026, 5 de marzo de
	// 2026): the month is group 1 or 4, the day 2 or 3, the year 5.
	namedMonthDay = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:` + monthName + `\.?\s+` + dayOfMonth + `,?\s+|` +
			dayOfMonth + `\.?\s+(?:of\s+|de\s+)?` + monthName + `\.?,?\s+(?:de\s+)?)((?:19|20)\d{2})\b`)
	})
	// numericDay is a day, a month and a year, the day or the month
	// first, split by the same mark: 25.03.2026, 03-25-2026.
	numericDay = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?:^|[^\w.])(\d{1,2})([-._])(\d{1,2})([-._])((?:19|20)\d{2})(?:$|[^\d.]|\.\D)`)
	})
	// weekNote is an ISO 8601 week, as Obsidian's Periodic Notes name a
	// week's note (2026-W10), maybe with the day of the week, 1 for
	// Monday (2026-W10-4): the year, week and day are groups 1 to 3.
	weekNote = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?:^|[^\w.])((?:19|20)\d{2})-W(\d{2})(?:-([1-7]))?(?:$|[^\w-]|-\D)`)
	})
	// monthNote is a month's note, a name that is only YYYY-MM
	// (Periodic Notes' monthly format): with more after it, the digits
	// may be a count or a code.
	monthNote = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^((?:19|20)\d{2})-(\d{2})$`) })
	// quarterNote is a quarter's note, a name that is only YYYY-Qn
	// (Periodic Notes' quarterly format; 2026Q1 and 2026 Q1 as people
	// write it): the year and the quarter are groups 1 and 2.
	quarterNote = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^((?:19|20)\d{2})[- ]?[Qq]([1-4])$`) })
)

// monthNames are the months' names in the languages notes apps name
// daily notes in (Obsidian's follows its own): English, with the
// abbreviations, and German, French, Spanish, Portuguese, Italian and
// Dutch in full, lower case and composed.
var monthNames = map[string]int{
	"january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7, "august": 8, "september": 9, "october": 10, "november": 11, "december": 12,
	"jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12,
	"januar": 1, "jänner": 1, "februar": 2, "märz": 3, "mai": 5, "juni": 6, "juli": 7, "oktober": 10, "dezember": 12,
	"janvier": 1, "février": 2, "mars": 3, "avril": 4, "juin": 6, "juillet": 7, "août": 8, "septembre": 9, "octobre": 10, "novembre": 11, "décembre": 12,
	"enero": 1, "febrero": 2, "marzo": 3, "abril": 4, "mayo": 5, "junio": 6, "julio": 7, "agosto": 8, "septiembre": 9, "setiembre": 9, "octubre": 10, "noviembre": 11, "diciembre": 12,
	"janeiro": 1, "fevereiro": 2, "março": 3, "maio": 5, "junho": 6, "julho": 7, "setembro": 9, "outubro": 10, "dezembro": 12,
	"gennaio": 1, "febbraio": 2, "aprile": 4, "maggio": 5, "giugno": 6, "luglio": 7, "settembre": 9, "ottobre": 10, "dicembre": 12,
	"januari": 1, "februari": 2, "maart": 3, "mei": 5, "augustus": 8,
}

var (
	// monthName is a name monthNames has, the longest first so that
	// "march" is not read as "mar": group 1.
	monthName = func() string {
		names := slices.Collect(maps.Keys(monthNames))
		slices.SortFunc(names, func(a, b string) int { return cmp.Or(len(b)-len(a), strings.Compare(a, b)) })
		return `(` + strings.Join(names, "|") + `)`
	}()
	// dayOfMonth is a day of the month, maybe with its ordinal's ending
	// (5th, 1er): group 1.
	dayOfMonth = `(\d{1,2})(?:st|nd|rd|th|er)?`
)

// otherNameDay is the day a note's name (or a front matter date) gives
// in one of the forms above, as YYYY-MM-DD for parseDate to check (a 31 February is no day), or "".
// A day and a month of numbers only are read only where the one is over
// 12: 05-03-2026 is 5 March to one reader and May 3 to another, and a
// wrong day hides the note from a search of the right one.
func otherNameDay(name string) string {
	if m := dottedDay().FindStringSubmatch(name); m != nil {
		return m[1] + "-" + m[2] + "-" + m[3]
	}
	// macOS writes a name decomposed: ä is a and a combining mark.
	composed := norm.NFC.String(name)
	if at := namedMonthDay().FindStringSubmatchIndex(composed); at != nil && dayStandsAlone(composed[:at[0]], strings.TrimSuffix(composed[at[1]:], filepath.Ext(composed))) {
		m := func(g int) string {
			if at[2*g] < 0 {
				return ""
			}
			return composed[at[2*g]:at[2*g+1]]
		}
		return isoDay(m(5), strconv.Itoa(monthNames[strings.ToLower(m(1)+m(4))]), m(2)+m(3))
	}
	if m := numericDay().FindStringSubmatch(name); m != nil && m[2] == m[4] {
		a, _ := strconv.Atoi(m[1])
		b, _ := strconv.Atoi(m[3])
		switch {
		case a > 12 && b <= 12:
			return isoDay(m[5], m[3], m[1])
		case b > 12 && a <= 12:
			return isoDay(m[5], m[1], m[3])
		}
	}
	// A week's note is of its Monday, a month's and a quarter's of its
	// first day: the span a search of the week, the month or the quarter
	// (week 10, March 2026, Q1 2026) filters to holds that day.
	if m := weekNote().FindStringSubmatch(name); m != nil {
		return isoWeekDay(m[1], m[2], cmp.Or(m[3], "1"))
	}
	bare := strings.TrimSuffix(name, filepath.Ext(name))
	if m := monthNote().FindStringSubmatch(bare); m != nil {
		return m[1] + "-" + m[2] + "-01"
	}
	if m := quarterNote().FindStringSubmatch(bare); m != nil {
		q, _ := strconv.Atoi(m[2])
		return isoDay(m[1], strconv.Itoa(3*q-2), "1")
	}
	return ""
}

// dayStandsAlone reports whether a day named with its month's name,
// with before and after it, is the day a name gives: it begins or ends
// the name ("Mar 5, 2026 standup", "Retro 5 March 2026"), or a weekday's
// name is all on one side ("Thursday, March 5, 2026 (call)"). In the
// middle of other words it is a count and a month ("Top 10 March 2026
// ideas"), or a day the note only mentions.
func dayStandsAlone(before, after string) bool {
	for _, side := range []string{before, after} {
		w := strings.ToLower(strings.TrimFunc(side, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) }))
		if w == "" || weekdayNames[w] {
			return true
		}
	}
	return false
}

// weekdayNames are the English days' names and their abbreviations.
var weekdayNames = map[string]bool{
	"monday": true, "tuesday": true, "wednesday": true, "thursday": true, "friday": true, "saturday": true, "sunday": true,
	"mon": true, "tue": true, "tues": true, "wed": true, "thu": true, "thur": true, "thurs": true, "fri": true, "sat": true, "sun": true,
}

// headingDay is the day a heading gives, as parseDate reads it, or "":
// one it begins or ends with, of numbers (headingDate: "2024-03-05
// Tuesday", "周报 2026年6月1日") or with its month's name ("Thursday,
// March 5, 2026", "5. März 2026", "Mar 10th, 2026 (Tue)"), where a
// weekday's name (one word) may come before or after it. A named day in
// the middle of the heading's words is one it mentions ("Notes from March
// 11, 2026 retro").
func headingDay(heading string) string {
	// Composed: 2026년 in decomposed Hangul is no day's year, März in
	// decomposed letters no month's name.
	h := norm.NFC.String(heading)
	if m := headingDate().FindStringSubmatch(h); m != nil {
		return cjkDate(m[1] + m[2])
	}
	m := namedMonthDay().FindStringSubmatchIndex(h)
	if m == nil {
		return ""
	}
	oneWord := func(s string) bool {
		s = strings.TrimFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
		return !strings.ContainsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) })
	}
	if !oneWord(h[:m[0]]) && !oneWord(h[m[1]:]) {
		return ""
	}
	return otherNameDay(h[m[0]:m[1]])
}

// isoWeekDay is the day (1 for Monday) of an ISO 8601 week of a year as
// YYYY-MM-DD, or "" for a week the year has not (week 53 of most).
func isoWeekDay(year, week, day string) string {
	y, _ := strconv.Atoi(year)
	w, _ := strconv.Atoi(week)
	d, _ := strconv.Atoi(day)
	// 4 January is always in week 1.
	jan4 := time.Date(y, 1, 4, 0, 0, 0, 0, time.UTC)
	monday := jan4.AddDate(0, 0, -((int(jan4.Weekday())+6)%7)+7*(w-1))
	if wy, _ := monday.ISOWeek(); w < 1 || wy != y {
		return ""
	}
	return monday.AddDate(0, 0, d-1).Format("2006-01-02")
}

// fullWidthKey is a line of front matter whose key ends with the
// full-width colon "：" a Chinese or Japanese input method types, not
// ":": the key (at the line's start, as a top-level key is) is group 1.
var fullWidthKey = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^([^\s#:：\-\[\]{}'"|>&*!%@` + "`" + `][^:：]*?)[ \t]*：[ \t]*`)
})

// fullWidthKeys is block with the "：" after each top-level key made
// ": ", and whether it names a front matter field so (date：, 日付：):
// a block between two "---" lines that names none is the note's text
// (注意：明天发布), not metadata to drop.
func fullWidthKeys(block []byte) ([]byte, bool) {
	var b strings.Builder
	known := false
	for line := range strings.Lines(string(block)) {
		if m := fullWidthKey().FindStringSubmatchIndex(line); m != nil {
			key := line[m[2]:m[3]]
			known = known || otherSpelling(key) != "" || slices.ContainsFunc(frontMatterKeys, func(k string) bool { return strings.EqualFold(k, key) })
			line = key + ": " + line[m[1]:]
		}
		b.WriteString(line)
	}
	return []byte(b.String()), known
}

var (
	// folderYear and folderMonth are the folders a daily note is filed
	// in by its year and month (journals/2026/03/05.md).
	folderYear  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:19|20)\d{2}$`) })
	folderMonth = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d{2}$`) })
	// folderDayName is the name of such a note: its day, alone or before
	// a blank or a mark and a title (05-deploy): group 1.
	folderDayName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\d{1,2})(?:$|[ _-])`) })
)

// folderDay is the day of a note at path named by its day of the month
// in folders of its year and month, as YYYY-MM-DD for parseDate to
// check, or "".
func folderDay(path string) string {
	month := filepath.Dir(path)
	year := filepath.Dir(month)
	name := filepath.Base(path)
	m := folderDayName().FindStringSubmatch(strings.TrimSuffix(name, filepath.Ext(name)))
	if m == nil || !folderMonth().MatchString(filepath.Base(month)) || !folderYear().MatchString(filepath.Base(year)) {
		return ""
	}
	return isoDay(filepath.Base(year), filepath.Base(month), m[1])
}

// nameDate is the day a note's file name gives: a YYYY-MM-DD in it (a
// daily note, a Jekyll post), Logseq's journal YYYY_MM_DD, a day as
// Chinese, Japanese and Korean write it (2026年6月1日, 2026년 6월 1일), a
// Zettelkasten id it begins with, YYYYMMDD with the hour and minute (and
// second) or without, a day in another form daily notes are named with
// (otherNameDay: 2026.03.05, March 5, 2026), or "".
func nameDate(name string, loc *time.Location) string {
	m := fileDate().FindString(name)
	// A Korean name as macOS writes it is decomposed: 년 is three jamo.
	if c := cjkNameDay().FindStringSubmatch(norm.NFC.String(name)); m == "" && c != nil {
		m = isoDay(c[1], c[2], c[3])
	}
	if m == "" {
		if z := zettelID().FindStringSubmatch(name); z != nil {
			m = z[1][:4] + "-" + z[1][4:6] + "-" + z[1][6:]
		}
	}
	if m == "" {
		m = otherNameDay(name)
	}
	if d, _, ok := parseDate(strings.ReplaceAll(m, "_", "-"), loc); ok {
		return d
	}
	return ""
}

// cjkNameDay is a day in a file's name as Chinese, Japanese (年月日) and
// Korean (년월일) write it: the year, the month and the day are groups
// 1 to 3. A day without its year (6月1日) is of no year.
var cjkNameDay = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`((?:19|20)\d{2}) ?[年년] ?(\d{1,2}) ?[月월] ?(\d{1,2}) ?[日일]`)
})

// cjkValueDay is a front matter date as Chinese, Japanese and Korean
// notes write it, the year first: 2026年6月1日, 2026년 6월 1일 or
// 2026/6/1 (the year, month and day are groups 1 to 3, or 1, 4 and 5),
// maybe with its weekday (星期一, (月), 月曜日, 월요일, as date templates
// write it in Obsidian's language) and a time of day (hours, minutes and
// seconds: groups 6 to 8).
var cjkValueDay = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^((?:19|20)\d{2})(?: ?[年년] ?(\d{1,2}) ?[月월] ?(\d{1,2}) ?[日일]|/(\d{1,2})/(\d{1,2}))` +
		`(?: ?[(（]?(?:星期[一二三四五六日天]|[周週][一二三四五六日天]|[月火水木金土日](?:曜日?)?|[월화수목금토일](?:요일)?)[)）]?)?` +
		`(?:[ T]+(\d{1,2}):(\d{2})(?::(\d{2}))?)?$`)
})

// cjkDate is a front matter value that cjkValueDay reads as the text
// parseDate reads ("2026年6月1日 9:05" is "2026-06-01 09:05:00"), or v
// as it is.
func cjkDate(v string) string {
	m := cjkValueDay().FindStringSubmatch(norm.NFC.String(strings.TrimSpace(v)))
	if m == nil {
		return v
	}
	day := isoDay(m[1], cmp.Or(m[2], m[4]), cmp.Or(m[3], m[5]))
	if m[6] == "" {
		return day
	}
	return day + " " + twoDigits(m[6]) + ":" + m[7] + ":" + cmp.Or(m[8], "00")
}

// isoDay writes a year, month and day (of one or two digits) as
// YYYY-MM-DD, which parseDate checks.
func isoDay(year, month, day string) string {
	return year + "-" + twoDigits(month) + "-" + twoDigits(day)
}

// twoDigits is a number of one or two digits written with two.
func twoDigits(n string) string {
	if len(n) == 1 {
		return "0" + n
	}
	return n
}

// zettelID is a Zettelkasten id that begins a file name: the day it was
// made and maybe the minute (and second), then no other digit. The year
// is 19xx or 20xx, so that other numbers are not read for days.
var zettelID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^((?:19|20)\d{6})(?:\d{4}|\d{6})?(?:\D|$)`) })
