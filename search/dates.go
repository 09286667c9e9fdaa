package search

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/lexical"
)

// DateSpan is a span of days a query names, resolved against the clock:
// "August 2023" is 2023-08-01..2023-08-31, "上周" the Monday to Sunday
// before this week. It is a soft prior, never a filter.
type DateSpan = api.DatePrior

// Why not a library: github.com/olebedev/when (the maintained Go parser
// with English and Chinese rules) resolves an expression to one instant,
// so "August 2023" or "last week" lose their span, and its "N months
// ago" computes the month modulo 12 without moving the year (wrong across
// January). Spans are what a prior over memory dates needs.

// dateRule matches one kind of expression and resolves it to a span; now
// is the current time in the user's time zone.
type dateRule struct {
	re      *regexp.Regexp
	resolve func(m []string, now time.Time) (from, to time.Time, relative, ok bool)
	// need is true of every query re can match in (what each match must
	// hold: a digit, a CJK character, a word): most queries name no date,
	// and running the rules was most of a query's date parsing.
	need func(c dateCues) bool
	// veto, when set, refuses a match by the query's text before and
	// after it.
	veto func(m []string, before, after string) bool
	// hours, when set, resolves in place of resolve a rule that counts
	// hours back: it is given now in the user's zone, as an hour is
	// real time, and a day with a change of clocks has 23 or 25 of them.
	hours func(m []string, zoned time.Time) (from, to time.Time, ok bool)
}

// modalMay refuses "this may" before a word that makes it the modal verb
// ("this may be why"): the month reads on only at the end of a clause or
// before a word that can follow a time ("this May we moved").
func modalMay(m []string, _, after string) bool {
	if m[1] != "this" || m[2] != "may" {
		return false
	}
	next := strings.TrimLeft(after, " ")
	end := strings.IndexFunc(next, func(r rune) bool { return !unicode.IsLetter(r) })
	if end >= 0 {
		next = next[:end]
	}
	return modalAfter(next)
}

// modalAfter reports whether "this may" before word next is the modal
// verb.
func modalAfter(next string) bool { return next != "" && !afterMonth[next] }

// zhNumeralWord refuses a weekday (周一, 上周三) whose numeral begins a
// word of its own with what follows: a count (上周三个会议, three
// meetings last week; 一周一次, once a week) or a word of 一 (上周一直,
// all last week; 这周一共, in all this week). 周一下午 is Monday
// afternoon.
func zhNumeralWord(m []string, _, after string) bool {
	wd, _ := utf8.DecodeLastRuneInString(m[0])
	next, size := utf8.DecodeRuneInString(after)
	switch {
	case strings.ContainsRune("个次位条件种项天场份批遍趟篇段套台部本张只", next):
		return true
	case wd != '一':
		return false
	case next == '下':
		return !strings.HasPrefix(after[size:], "午")
	}
	return strings.ContainsRune("直共些切定般样", next)
}

// afterMonth are the words after which "this may" is still the month:
// pronouns, articles, prepositions, conjunctions and the verbs a month
// is the subject of.
var afterMonth = map[string]bool{
	"i": true, "we": true, "you": true, "he": true, "she": true, "they": true, "it": true, "my": true, "our": true,
	"your": true, "his": true, "her": true, "their": true, "the": true, "a": true, "an": true, "at": true, "in": true,
	"on": true, "for": true, "and": true, "or": true, "but": true, "when": true, "while": true, "during": true,
	"before": true, "after": true, "to": true, "with": true, "was": true, "is": true, "were": true, "has": true, "had": true,
}

// dayTo is what joins the first and last day of a range of days.
const dayTo = `(?:-|–|—|~|to|until|till|through|thru)`

var (
	// monthEnd and monthStart find a month name next to a range of days
	// ("July 14 to 16 August"): the range is then of two months, two
	// days joinRanges makes one span of.
	monthEnd   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b` + enMonth + `\.?\s*$`) })
	monthStart = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*(?:of\s+)?` + enMonth + `\b`) })
)

// monthBefore refuses a range of days after a month name, or inside a
// number.
func monthBefore(m []string, before, after string) bool {
	return monthEnd().MatchString(before) || inNumber(m, before, after)
}

// monthAfter refuses a range of days before a month name, or inside a
// number.
func monthAfter(m []string, before, after string) bool {
	return monthStart().MatchString(after) || inNumber(m, before, after)
}

// inNumber refuses a match that is part of a version, a time or a
// fraction: after "." or ":" or "/" ("v1.14-16 July"), or before one
// of them and a digit ("July 14 to 16:30").
func inNumber(_ []string, before, after string) bool {
	if strings.HasSuffix(before, ".") || strings.HasSuffix(before, ":") || strings.HasSuffix(before, "/") {
		return true
	}
	return len(after) > 1 && strings.ContainsRune(".:/", rune(after[0])) && after[1] >= '0' && after[1] <= '9'
}

// notPastWeekday refuses a weekday alone that the word before makes a
// day to come, a habit or a name, or that names a site (monday.com). So
// does a deadline, which may be to come (until Monday, before Friday: a
// wrong day's prior misleads more than none), unless it ends a range
// (Monday until Wednesday, 14 July till Friday: joinRanges joins them).
func notPastWeekday(m []string, before, after string) bool {
	if m[1] != "" || len(after) > 1 && after[0] == '.' && after[1] >= 'a' && after[1] <= 'z' {
		return true
	}
	switch w := lastWord(before); w {
	case "before", "due":
		return true
	case "until", "till", "til":
		// An expression read before this one is masked (ParseDates).
		start := strings.TrimRight(strings.TrimSuffix(strings.TrimRight(before, " "), w), " ")
		return !strings.HasSuffix(start, "\x00")
	}
	return false
}

// timeCue are the words before a slashed month and day ("on 7/14")
// that make it a time: without one it is as likely a score or a fraction.
var timeCue = map[string]bool{"on": true, "since": true, "from": true, "until": true, "till": true, "to": true,
	"through": true, "thru": true, "before": true, "after": true, "around": true}

// lastWord is the word that before ends with, if it ends with one.
func lastWord(before string) string {
	before = strings.TrimRight(before, " ")
	i := strings.LastIndexFunc(before, func(r rune) bool { return !isWordRune(r) })
	return before[i+1:]
}

// firstWord is the word after begins with, past spaces, and whether the
// clause goes on (after holds more than spaces and punctuation).
func firstWord(after string) (word string, more bool) {
	after = strings.TrimLeft(after, " ")
	r, _ := utf8.DecodeRuneInString(after)
	if after == "" || !isWordRune(r) {
		return "", false
	}
	end := strings.IndexFunc(after, func(r rune) bool { return !isWordRune(r) })
	if end < 0 {
		end = len(after)
	}
	return after[:end], true
}

// notSlashedDay refuses a slashed month and day without a word before
// that makes it a time, or inside a number (v1.4/12, 7/14/25).
func notSlashedDay(m []string, before, after string) bool {
	return !timeCue[lastWord(before)] || inNumber(m, before, after)
}

// ordinalOfThing refuses "the 3rd" followed by a noun (the 3rd time):
// it is a day at the end of a clause (what happened the 14th?), or after
// a word that makes it a time before a word a time can precede (on the
// 14th we shipped).
func ordinalOfThing(m []string, before, after string) bool {
	next, more := firstWord(after)
	return more && !(timeCue[lastWord(before)] && afterMonth[next])
}

// countAfter refuses a "week 3" that counts a noun after it (week 3
// bugs): a week number ends its clause or comes before a word a time
// can precede, unless group year of m names its year.
func countAfter(year int) func(m []string, before, after string) bool {
	return func(m []string, before, after string) bool {
		if inNumber(m, before, after) {
			return true
		}
		next, more := firstWord(after)
		return m[year] == "" && more && !afterMonth[next]
	}
}

// zhWeekOfMonth refuses 第2周 of a month (3月的第2周) and 第2周年, an
// anniversary.
func zhWeekOfMonth(m []string, _, after string) bool {
	return m[2] != "" || strings.HasPrefix(after, "年")
}

// needDigitMonth is true of a query with a digit and a month name.
func needDigitMonth(c dateCues) bool { return c.digit && needMonth(c) }

// dateCues is what a query holds that the date rules need.
type dateCues struct {
	s          string // the normalised query
	digit, cjk bool
}

func needDigit(c dateCues) bool { return c.digit }
func needCJK(c dateCues) bool   { return c.cjk }

// needWord is true of a query that contains one of words.
func needWord(words ...string) func(dateCues) bool {
	return func(c dateCues) bool {
		return slices.ContainsFunc(words, func(w string) bool { return strings.Contains(c.s, w) })
	}
}

// needHours is true of a query that may count hours: "hour", "hr", or
// an "h" with a digit (24h).
func needHours(c dateCues) bool {
	return strings.Contains(c.s, "hour") || strings.Contains(c.s, "hr") || c.digit && strings.Contains(c.s, "h")
}

// needMonth: every name enMonth matches begins with one of these.
var needMonth = needWord("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")

const (
	enMonth = `(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)`
	enDay   = `(\d{1,2})(?:st|nd|rd|th)?`
	enNum   = `(\d{1,2}|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a couple of|a couple|a few|few|couple of|couple)`
	zhNum   = `([0-9]{1,2}|[一二两三四五六七八九十]{1,3})`
	// monthCue: a month name alone counts only after one of these words
	// ("may" and "march" are also verbs), or joined to one by a hyphen
	// (mid-March).
	monthCue = `(?:in|during|since|until|till|by|of|from|early|late|mid|last|this|next|past|around)`
)

var dateRules = sync.OnceValue(func() []dateRule {
	return []dateRule{
		// Holidays (holidays.go): 国庆节, 2023年元旦, Christmas 2023, last
		// Halloween. First, so that 十一黄金周 or 五一 is no number to a
		// later rule.
		{need: needHoliday(), re: holidayRe(), resolve: resolveHoliday},
		// 2026-W10, 2026w10: an ISO week as ISO 8601 and weekly notes write
		// it.
		{need: needDigit, re: regexp.MustCompile(`\b(\d{4})-?w(\d{2})\b`), resolve: func(m []string, now time.Time) (time.Time, time.Time, bool, bool) {
			return isoWeekSpan(atoi(m[1]), atoi(m[2]), now)
		}},
		// the first week of March, the last week of February 2024: a week
		// of a month, its days 1-7, 8-14, 15-21 or 22-28, or its last seven.
		// Before "last week" and the month alone.
		{need: needWord("week"), re: regexp.MustCompile(`\b(first|1st|second|2nd|third|3rd|fourth|4th|last)\s+week\s+(?:of|in)\s+` + enMonth + `\b\.?(?:,?\s+(\d{4})\b)?`), resolve: func(m []string, now time.Time) (time.Time, time.Time, bool, bool) {
			n := map[string]int{"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4}[m[1]]
			return weekOfMonth(atoi(m[3]), monthNum(m[2]), n, now)
		}},
		// 2023-08-14, 2023/8/14, 2023.08.14, 2023-08-14T10:04:05Z (the day as
		// written)
		{need: needDigit, re: regexp.MustCompile(`\b(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?:t\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:z|[+-]\d{2}:?\d{2})?|\b)`), resolve: func(m []string, now time.Time) (time.Time, time.Time, bool, bool) {
			d, ok := ymd(atoi(m[1]), atoi(m[2]), atoi(m[3]), now)
			return d, d, false, ok
		}},
		// 12/25/2025, 25/12/2025, 25.12.2025: only when one of day and month
		// is over 12, or they are the same (3/4/2025 is March or April as
		// the reader's country has it).
		{need: needDigit, re: regexp.MustCompile(`\b(\d{1,2})[/.](\d{1,2})[/.](\d{4})\b`), resolve: func(m []string, now time.Time) (time.Time, time.Time, bool, bool) {
			a, b, y := atoi(m[1]), atoi(m[2]), atoi(m[3])
			var d time.Time
			ok := false
			switch {
			case a > 12 && b <= 12:
				d, ok = ymd(y, b, a, now)
			case b > 12 && a <= 12, a == b:
				d, ok = ymd(y, a, b, now)
			}
			return d, d, false, ok
		}},
		// 2024-03, 2024/3: a month (2024-03-99, no day, is no month either).
		{need: needDigit, re: regexp.MustCompile(`\b(\d{4})[-/](\d{1,2})\b([-/]\d)?`), resolve: func(m []string, now time.Time) (time.Time, time.Time, bool, bool) {
			if m[3] != "" {
				return time.Time{}, time.Time{}, false, false
			}
			f, t, ok := monthSpan(atoi(m[1]), atoi(m[2]), now)
			return f, t, false, ok
		}},
		// 14-16 July, 14th to 16th of July 2025, July 14-16, Jul 14 to 16,
		// 2025: days of one month, the start the latest such day when no year
		// is named (the end may then be still to come). Before the single
		// days, which read "16 July" alone as the latest 16 July.
		{need: needDigitMonth, re: regexp.MustCompile(`\b` + enDay + `\s*` + dayTo + `\s*` + enDay + `\s+(?:of\s+)?` + enMonth + `\b\.?(?:,?\s+(\d{4})\b)?`), veto: monthBefore, resolve: func(m []string, now time.Time) (time.Time, time.Time, bool, bool) {
			return monthDays(atoi(m[4]), monthNum(m[3]), atoi(m[1]), atoi(m[2]), now)
		}},
		{need: needDigitMonth, re: regexp.MustCompile(`\b` + enMonth + `\.?\s+` + enDay + `\s*` + dayTo + `\s*` + enDay + `\b(?:,?\s+(\d{4})\b)?`), veto: monthAfter, resolve: func(m []string, now time.Time) (time.Time, time.Time, bool, bool) {
			return monthDays(atoi(m[4]), monthNum(m[1]), atoi(m[2]), atoi(m[3]), now)
		}},
		// 7月14日到16日 / 2025年7月14-16日 / 去年七月十四号至十六号: days of one
		// month (7月14日至8月2日, two months, is two days joinRanges makes one
		// span of).
		{need: needCJK, re: regexp.MustCompile(`(?:(\d{4})\s*年\s*|(前年|去年|今年|明年)\s*)?` + zhNum + `\s*月\s*` + zhNum + `\s*[日号]?\s*(?:到|至|-|–|—|~)\s*` + zhNum + `\s*[日号]`), veto: inNumber, resolve: func(m []string, now time.Time) (time.Time, time.Time, bool, bool) {
			y := atoi(m[1])
			if m[2] != "" {
				y = now.Year() + map[string]int{"前年": -2, "去年": -1, "明年": 1}[m[2]]
			}
			from, to, relative, ok := monthDays(y, zhAtoi(m[3]), zhAtoi(m[4]), zhAtoi(m[5]), now)
			return from, to, relative || m[2] != "", ok
		}},
		// Q3 2024, 2024 Q3, 2024年第三季度, 2024年Q3 ("Q3" alone is also
		// the name of a recall pass).
		{need: needDigit, re: regexp.MustCompile(`\bq([1-4])\s*(?:of\s+)?(\d{4})\b|\b(\d{4})\s*q([1-4])\b|(\d{4})\s*年\s*(?:第\s*([一二三四1-4])\s*季度?|q([1-4])\b)`), resolve: func(m []string, now time.Time) (time.Time, time.Time, bool, bool) {
			y, q := m[2]+m[3]+m[5], m[1]+m[4]+m[6]+m[7]
			f, t, ok := quarterSpan(atoi(y), zhAtoi(q), now)
			return f, t, false, ok
		}},
		// 上半年 / 去年下半年 / 2024年上半年 / H1 2024 / 2024 H2: a half of a
		// year, this year's when none is named.
		{need: needWord("半年", "h1", "h2"), re: regexp.MustCompile(`(?:(\d{4})\s*年\s*|(前年|去年|今年|明年)\s*)?(上|下)半年|\bh([12])\s*(\d{4})\b|\b(\d{4})\s*h([12])\b`), resolve: func(m []string, now time.Time) (time.Time, time.Time, bool, bool) {
			y, relative := atoi(m[1]+m[5]+m[6]), false
			if y == 0 {
				y, relative = now.Year()+map[string]int{"前年": -2, "去年": -1, "明年": 1}[m[2]], true
			}
			half := map[string]int{"上": 1, "下": 2}[m[3]] + atoi(m[4]+m[7])
			f, _, ok := monthSpan(y, 6*half-5, now)
			return f, f.AddDate(0, 6, -1), relative, ok
		}},
		// 第28周 / 2025年第28周: an ISO week (Monday first) of this year, or
		// of the year named. Not a week of a month (3月的第2周) nor an
		// anniversary (第2周年).
		{need: needWord("第"), re: regexp.MustCompile(`(?:(\d{4})\s*年\s*(?:的\s*)?|(月\s*(?:的\s*)?))?第\s*(\d{1,2})\s*(?:周|星期)`), veto: zhWeekOfMonth, resolve: func(m []string, now time.Time) (time.Time, time.Time, bool, bool) {
			return isoWeekSpan(atoi(m[1]), atoi(m[3]), now)
		}},
		// 2023年8月14日, 2023年8月
		{need: needCJK, re: regexp.MustCompile(`(\d{4})\s*年\s*` + zhNum + `\s*月(?:\s*` + zhNum + `\s*[日号])?`), resolve: func(m []string, now time.Time) (time.Time, time.Time, bool, bool) {
			y, mo := atoi(m[1]), zhAtoi(m[2])
			if m[3] != "" {
				d, ok := ymd(y, mo, zhAtoi(m[3]), now)
				return d, d, false, ok
			}
			f, t, ok := monthSpan(y, mo, now)
			return f, t, false, ok
		}},
		// 去年8月 / 今年三月五号: a month, or a day, of a year named relative to
		// this one (read apart, 去年 and 8月 gave two spans, 8月 of this year).
		{need: needCJK, re: regexp.MustCompile(`(前年|去年|今年|明年)\s*` + zhNum + `\s*月(?:\s*` + zhNum + `\s*[日号])?`), resolve: func(m []string, now time.Time) (time.Time, time.Time, bool, bool) {
			y, mo := now.Year()+map[string]int{"前年": -2, "去年": -1, "明年": 1}[m[1]], zhAtoi(m[2])
			if m[3] != "" {
				d, ok := ymd(y, mo, zhAtoi(m[3]), now)
				return d, d, true, ok
			}
			f, t, ok := monthSpan(y, mo, now)
			return f, t, true, ok
		}},
		// 8月14日 / 八月十四号: the latest such day not after today.
		{need: needCJK, re: regexp.MustCompile(zhNum + `\s*月\s*` + zhNum + `\s*[日号]`), resolve: func(m []string, now time.Time) (time.Time, time.Time, bool, bool) {
			d, ok := latestDay(zhAtoi(m[1]), zhAtoi(m[2]), now)
			return d, d, true, ok
		}},
		// 2023年
		{need: needCJK, re: regexp.MustCompile(`(\d{4})\s*年`), resolve: func(m []string, now time.Time) (time.Time, time.Time, bool, bool) {
			f, t, ok := yearSpan(atoi(m[1]), now)
			return f, t, false, ok
		}},
		// August 14, 2023 / Aug 14th 2023
		{need: needDigit, re: regexp.MustCompile(`\b` + enMonth + `\.?\s+` + enDay + `,?\s+(\d{4})\b`), resolve: func(m []string, now time.Time) (time.Time, time.Time, bool, bool) {
			d, ok := ymd(atoi(m[3]), monthNum(m[1]), atoi(m[2]), now)
			return d, d, false, ok
		}},
		// 14 August 2023 / 14th of August, 2023
		{need: needDigit, re: regexp.MustCompile(`\b` + enDay + `\s+(?:of\s+)?` + enMonth + `\.?,?\s+(\d{4})\b`), resolve: func(m []string, now time.Time) (time.Time, time.Time, bool, bool) {
			d, ok := ymd(atoi(m[3]), monthNum(m[2]), atoi(m[1]), now)
			return d, d, false, ok
		}},
		// August last year / August of this year
		{need: needWord("year"), re: regexp.MustCompile(`\b` + enMonth + `\.?,?\s+(?:of\s+)?(last|this|next)\s+year\b`), resolve: func(m []string, now time.Time) (time.Time, time.Time, bool, bool) {
			f, t, ok := monthSpan(now.Year()+map[string]int{"last": -1, "next": 1}[m[2]], monthNum(m[1]), now)
			return f, t, true, ok
		}},
		// August 2023 / August of 2023
		{need: needDigit, re: regexp.MustCompile(`\b` + enMonth + `\.?,?\s+(?:of\s+)?(\d{4})\b`), resolve: func(m []string, now time.Time) (time.Time, time.Time, bool, bool) {
			f, t, ok := monthSpan(atoi(m[2]), monthNum(m[1]), now)
			return f, t, false, ok
		}},
		// August 14 / 14 August / the 14th of August: the latest such day.
		{need: needDigit, re: regexp.MustCompile(`\b` + enMonth + `\.?\s+` + enDay + `\b`), resolve: func(m []string, now time.Time) (time.Time, time.Time, bool, bool) {
			d, ok := latestDay(monthNum(m[1]), atoi(m[2]), now)
			return d, d, true, ok
		}},
		{need: needDigit, re: regexp.MustCompile(`\b` + enDay + `\s+(?:of\s+)?` + enMonth + `\b`), resolve: func(m []string, now time.Time) (time.Time, time.Time, bool, bool) {
			d, ok := latestDay(monthNum(m[2]), atoi(m[1]), now)
			return d, d, true, ok
		}},
		// the day before yesterday, yesterday, today, tomorrow, last night
		{need: needWord("yesterday", "today", "tonight", "this", "last", "tomorrow"), re: regexp.MustCompile(`\b(the day before yesterday|yesterday|today|tonight|this morning|this afternoon|this evening|last night|the day after tomorrow|tomorrow)\b`), resolve: func(m []string, now time.Time) (time.Time, time.Time, bool, bool) {
			off := map[string]int{"the day before yesterday": -2, "yesterday": -1, "last night": -1, "tomorrow": 1, "the day after tomorrow": 2}[m[1]]
			d := day(now).AddDate(0, 0, off)
			switch m[1] {
			case "tonight", "this evening":
				return nightUnderWay(now), d, true, true
			case "last night":
				return d, nightJustHad(now), true, true
			}
			return d, d, true, true
		}},
		// the past 24 hours, the last few hours, the past hour: from the day
		// that many hours back until today.
		{need: needHours, re: regexp.MustCompile(`\b(?:last|past|previous)\s+(?:` + enNum + `\s*(?:hours|hrs|h)|hour)\b`), hours: func(m []string, zoned time.Time) (time.Time, time.Time, bool) {
			return hoursBack(m[1], "", zoned)
		}},
		// 3 hours ago, an hour ago, a few hours ago
		{need: needHours, re: regexp.MustCompile(`\b` + enNum + `\s*(?:hours?|hrs?|h)\s+ago\b`), hours: func(m []string, zoned time.Time) (time.Time, time.Time, bool) {
			return hoursAgo(m[1], "", zoned)
		}},
		// 过去24小时, 最近三个小时, 近两个钟头, 24小时内: from the day that many
		// hours back until today.
		{need: needWord("小时", "钟头"), re: regexp.MustCompile(`(?:过去|最近|近)\s*的?\s*` + zhHours + `\s*个?\s*(?:小时|钟头)|` + zhHours + `\s*个?\s*(?:小时|钟头)\s*(?:之|以)?内`), hours: func(m []string, zoned time.Time) (time.Time, time.Time, bool) {
			return hoursBack("", m[1]+m[2], zoned)
		}},
		// 3小时前, 两个小时之前, 几个钟头前
		{need: needWord("小时", "钟头"), re: regexp.MustCompile(zhHours + `\s*个?\s*(?:小时|钟头)\s*(?:之|以)?前`), hours: func(m []string, zoned time.Time) (time.Time, time.Time, bool) {
			return hoursAgo("", m[1], zoned)
		}},
		// 3 days ago, two weeks ago, a couple of months ago, a year ago
		{need: needWord("ago"), re: regexp.MustCompile(`\b` + enNum + `\s+(day|week|month|year)s?\s+ago\b`), resolve: func(m []string, now time.Time) (time.Time, time.Time, bool, bool) {
			n, ok := enAtoi(m[1])
			if !ok {
				return time.Time{}, time.Time{}, false, false
			}
			f, t := unitSpan(m[2], -n, now)
			return f, t, true, true
		}},
		// the last 3 days, past two weeks: from then until today
		{need: needWord("last", "past"), re: regexp.MustCompile(`\b(?:last|past)\s+` + enNum + `\s+(day|week|month|year)s?\b`), resolve: func(m []string, now time.Time) (time.Time, time.Time, bool, bool) {
			n, ok := enAtoi(m[1])
			if !ok {
				return time.Time{}, time.Time{}, false, false
			}
			return back(m[2], n, now), day(now), true, true
		}},
		// last week, this month, next year, the past week, last quarter
		{need: needWord("week", "month", "year", "quarter"), re: regexp.MustCompile(`\b(last|this|next|past)\s+(week|month|quarter|year)\b`), resolve: func(m []string, now time.Time) (time.Time, time.Time, bool, bool) {
			if m[1] == "past" {
				return back(m[2], 1, now), day(now), true, true
			}
			f, t := unitSpan(m[2], map[string]int{"last": -1, "next": 1}[m[1]], now)
			return f, t, true, true
		}},
		// week 28 / in week 28 of 2025: an ISO week (Monday first) of this
		// year, or of the year named. After "last week", whose "week" it
		// would read in "last week 3 bugs".
		{need: needWord("week"), re: regexp.MustCompile(`\bweek\s+(\d{1,2})\b(?:,?\s+(?:of\s+)?(\d{4})\b)?`), veto: countAfter(2), resolve: func(m []string, now time.Time) (time.Time, time.Time, bool, bool) {
			return isoWeekSpan(atoi(m[2]), atoi(m[1]), now)
		}},
		// on 7/14, since 14/7: a month and day only when one of them is over
		// 12 and a word before makes it a time ("10/14 passed" is a score,
		// "3/4 of the tests" a fraction, and 3/4 March or April as the
		// reader's country has it); the latest such day.
		{need: needDigit, re: regexp.MustCompile(`\b(\d{1,2})/(\d{1,2})\b`), veto: notSlashedDay, resolve: func(m []string, now time.Time) (time.Time, time.Time, bool, bool) {
			a, b := atoi(m[1]), atoi(m[2])
			var d time.Time
			ok := false
			switch {
			case a > 12 && b <= 12:
				d, ok = latestDay(b, a, now)
			case b > 12 && a <= 12, a == b:
				d, ok = latestDay(a, b, now)
			}
			return d, d, true, ok
		}},
		// the 14th, on the 3rd: of this month, or of the latest month that
		// has the day when it is still to come. Not an ordinal of a thing
		// (the 3rd time, on the 2nd attempt, the 21st century).
		{need: needDigit, re: regexp.MustCompile(`\bthe\s+(\d{1,2})(?:st|nd|rd|th)\b`), veto: ordinalOfThing, resolve: func(m []string, now time.Time) (time.Time, time.Time, bool, bool) {
			d, ok := latestDayOfMonth(atoi(m[1]), now)
			return d, d, true, ok
		}},
		// last Monday, on Friday: the latest such day before today; this
		// Friday: this week's, as 本周五 is (today, asked on a Friday).
		{need: needWord("day"), re: regexp.MustCompile(`\b(last|on|this|past)\s+(monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b`), resolve: func(m []string, now time.Time) (time.Time, time.Time, bool, bool) {
			wd := weekdayNum(m[2])
			if m[1] == "this" {
				monday, _ := unitSpan("week", 0, now)
				d := monday.AddDate(0, 0, (int(wd)+6)%7)
				return d, d, true, true
			}
			d := latestWeekday(wd, day(now).AddDate(0, 0, -1))
			return d, d, true, true
		}},
		// Monday, show me Friday, Sunday's deploy: a weekday alone is the
		// latest before today, as "on Monday" is. Not a day to come (next
		// Monday, by Friday; notPastWeekday: until Monday), a habit (every
		// Monday, Mondays) or a name (Black Friday, monday.com).
		{need: needWord("day"), re: regexp.MustCompile(`\b(?:(next|every|each|coming|following|by|black|good|cyber|super|ash|easter|palm)\s+)?(monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b`), veto: notPastWeekday, resolve: func(m []string, now time.Time) (time.Time, time.Time, bool, bool) {
			d := latestWeekday(weekdayNum(m[2]), day(now).AddDate(0, 0, -1))
			return d, d, true, true
		}},
		// in August / since March / last May: a month name after a cue word;
		// this March: this year's, as this Christmas is.
		{need: needMonth, re: regexp.MustCompile(`\b(` + monthCue + `)(?:\s+|-)` + enMonth + `\b`), veto: modalMay, resolve: func(m []string, now time.Time) (time.Time, time.Time, bool, bool) {
			mo := monthNum(m[2])
			switch m[1] {
			case "next":
				f, t, ok := monthSpan(now.Year()+boolInt(mo <= int(now.Month())), mo, now)
				return f, t, true, ok
			case "this":
				f, t, ok := monthSpan(now.Year(), mo, now)
				return f, t, true, ok
			}
			ref := now
			if m[1] == "last" {
				// The month before this one (AddDate would turn 31 March
				// into 3 March).
				ref = time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, now.Location()).AddDate(0, 0, -1)
			}
			f, t, ok := latestMonth(mo, ref)
			return f, t, true, ok
		}},
		// in 2023 / during 2023 / early 2023 / mid-2023
		{need: needDigit, re: regexp.MustCompile(`\b(?:(?:in|during|since|of|from|by|year)\s+|(?:early|late|mid)(?:\s+|-))(\d{4})\b`), resolve: func(m []string, now time.Time) (time.Time, time.Time, bool, bool) {
			f, t, ok := yearSpan(atoi(m[1]), now)
			return f, t, false, ok
		}},
		// 大前天 前天 昨天 今天 明天 后天, 前晚 昨晚 今早 明晚
		{need: needCJK, re: regexp.MustCompile(`(大前天|前天|前晚|昨天|昨日|昨晚|昨早|今天|今日|今晚|今早|今晨|明天|明早|明晚|后天)`), resolve: func(m []string, now time.Time) (time.Time, time.Time, bool, bool) {
			off := map[string]int{"大前天": -3, "前天": -2, "前晚": -2, "昨天": -1, "昨日": -1, "昨晚": -1, "昨早": -1, "明天": 1, "明早": 1, "明晚": 1, "后天": 2}[m[1]]
			d := day(now).AddDate(0, 0, off)
			switch m[1] {
			case "今晚":
				return nightUnderWay(now), d, true, true
			case "昨晚":
				return d, nightJustHad(now), true, true
			}
			return d, d, true, true
		}},
		// last weekend, this weekend, over the weekend: a Saturday and
		// Sunday, of the week named or the latest that has begun.
		{need: needWord("weekend"), re: regexp.MustCompile(`\b(last|this|next|past|the)\s+weekend\b`), resolve: func(m []string, now time.Time) (time.Time, time.Time, bool, bool) {
			f, t := weekend(map[string]int{"last": -1, "next": 1}[m[1]], m[1] == "past" || m[1] == "the", now)
			return f, t, true, true
		}},
		// 上周末 / 这个周末 / 周末: before 上周, which would read 上周末 as
		// all of last week.
		{need: needWord("周末"), re: regexp.MustCompile(`(?:(上上|上|本|这|下)个?)?周末`), resolve: func(m []string, now time.Time) (time.Time, time.Time, bool, bool) {
			f, t := weekend(map[string]int{"上上": -2, "上": -1, "下": 1}[m[1]], m[1] == "", now)
			return f, t, true, true
		}},
		// 上周三 / 本周五 / 下星期一
		{need: needCJK, re: regexp.MustCompile(`(上上|上|本|这|下)(?:个)?(?:周|星期|礼拜)([一二三四五六日天])`), veto: zhNumeralWord, resolve: func(m []string, now time.Time) (time.Time, time.Time, bool, bool) {
			weeks := map[string]int{"上上": -2, "上": -1, "下": 1}[m[1]]
			f, _ := unitSpan("week", weeks, now)
			d := f.AddDate(0, 0, zhWeekday(m[2]))
			return d, d, true, true
		}},
		// 上周 本月 上季度 去年 ...
		{need: needCJK, re: regexp.MustCompile(`(上上(?:个)?(?:周|星期|礼拜)|上(?:个)?(?:周|星期|礼拜)|(?:本|这个?)(?:周|星期|礼拜)|下(?:个)?(?:周|星期|礼拜)|上上个?月|上个?月|本月|这个?月|下个?月|上个?季度|本季度|这个?季度|下个?季度|前年|去年|今年|明年)`), resolve: func(m []string, now time.Time) (time.Time, time.Time, bool, bool) {
			s := m[1]
			unit := "week"
			switch {
			case strings.HasSuffix(s, "月"):
				unit = "month"
			case strings.HasSuffix(s, "季度"):
				unit = "quarter"
			case strings.HasSuffix(s, "年"):
				unit = "year"
			}
			n := 0
			switch {
			case strings.HasPrefix(s, "上上") || s == "前年":
				n = -2
			case strings.HasPrefix(s, "上") || s == "去年":
				n = -1
			case strings.HasPrefix(s, "下") || s == "明年":
				n = 1
			}
			f, t := unitSpan(unit, n, now)
			return f, t, true, true
		}},
		// 3天前 两个星期前 两个月前 一年前
		{need: needCJK, re: regexp.MustCompile(zhNum + `\s*(?:个)?\s*(天|日|周|星期|礼拜|月|年)(?:以)?前`), resolve: func(m []string, now time.Time) (time.Time, time.Time, bool, bool) {
			n := zhAtoi(m[1])
			if n <= 0 {
				return time.Time{}, time.Time{}, false, false
			}
			f, t := unitSpan(zhUnit(m[2]), -n, now)
			return f, t, true, true
		}},
		// 最近三天 过去两周 近一个月
		{need: needCJK, re: regexp.MustCompile(`(?:最近|过去|近)\s*` + zhNum + `\s*(?:个)?\s*(天|日|周|星期|礼拜|月|年)`), resolve: func(m []string, now time.Time) (time.Time, time.Time, bool, bool) {
			n := zhAtoi(m[1])
			if n <= 0 {
				return time.Time{}, time.Time{}, false, false
			}
			return back(zhUnit(m[2]), n, now), day(now), true, true
		}},
		// 8月 / 八月 alone: the latest such month not after this one.
		{need: needCJK, re: regexp.MustCompile(zhNum + `\s*月(?:份)?`), resolve: func(m []string, now time.Time) (time.Time, time.Time, bool, bool) {
			f, t, ok := latestMonth(zhAtoi(m[1]), now)
			return f, t, true, ok
		}},
		// 月底 / 年初 / 中旬 alone: of this month or year. After the rules
		// that read 3月底, 上个月中旬 or 去年年底, whose 月 or 年 they masked
		// (\x00 makes the match one ParseDates skips).
		{need: needCJK, re: regexp.MustCompile(`\x00?(?:(月|年)(?:初|底|末)|[上中下]旬)`), resolve: func(m []string, now time.Time) (time.Time, time.Time, bool, bool) {
			unit := map[string]string{"月": "month", "年": "year", "": "month"}[m[1]]
			f, t := unitSpan(unit, 0, now)
			return f, t, true, true
		}},
		// 周三 / 星期五 alone: the latest such day before today.
		{need: needCJK, re: regexp.MustCompile(`(?:周|星期|礼拜)([一二三四五六日天])`), veto: zhNumeralWord, resolve: func(m []string, now time.Time) (time.Time, time.Time, bool, bool) {
			wd := time.Weekday((zhWeekday(m[1]) + 1) % 7)
			d := latestWeekday(wd, day(now).AddDate(0, 0, -1))
			return d, d, true, true
		}},
	}
})

// maxDateSpans bounds the spans of one query.
const maxDateSpans = 4

// ParseDates returns the date spans query names, resolved against now
// (which carries the user's time zone). Each part of the query is used by
// at most one expression, the most specific first.
func ParseDates(query string, now time.Time) []DateSpan {
	// The spans are calendar days: they are worked out on now's wall
	// clock read as UTC, where every day has a midnight. In the user's
	// zone a change to daylight saving time can skip it (Havana), and
	// time.Date then puts the day's midnight on the day before.
	zoned := now // hours back are counted in real time (dateRule.hours)
	now = time.Date(now.Year(), now.Month(), now.Day(), now.Hour(), now.Minute(), now.Second(), now.Nanosecond(), time.UTC)
	s := lexical.Normalize(query)
	norm := s
	cues := dateCues{s: s, digit: strings.ContainsAny(s, "0123456789"), cjk: lexical.HasCJK(s)}
	var out []DateSpan
	var at [][2]int // where in the query each span was read
	for _, r := range dateRules() {
		if !r.need(cues) {
			// cues are of the unmasked query: masking a match only
			// takes text away, so a rule it cannot need stays unneeded.
			continue
		}
		for _, loc := range r.re.FindAllStringSubmatchIndex(s, -1) {
			m := make([]string, len(loc)/2)
			for i := range m {
				if loc[2*i] >= 0 {
					m[i] = s[loc[2*i]:loc[2*i+1]]
				}
			}
			if strings.ContainsRune(m[0], '\x00') || r.veto != nil && r.veto(m, s[:loc[0]], s[loc[1]:]) {
				continue
			}
			var from, to time.Time
			var relative, ok bool
			if r.hours != nil {
				from, to, ok = r.hours(m, zoned)
				relative = true
			} else {
				from, to, relative, ok = r.resolve(m, now)
			}
			if !ok {
				continue
			}
			if today := day(now); sinceAt(s, loc[0], loc[1]) && to.Before(today) && !from.After(today) {
				to, relative = today, true
			}
			out = append(out, DateSpan{Text: strings.TrimSpace(m[0]), From: from.Format(time.DateOnly), To: to.Format(time.DateOnly), Relative: relative})
			at = append(at, [2]int{loc[0], loc[1]})
			if len(out) == maxDateSpans {
				// No later match is kept: a pasted log names a day on
				// every line, and each rule's search of the rest of
				// it was the most of such a query's plan.
				return joinRanges(norm, out, at)
			}
			// Mask the match so no less specific rule reads it again.
			s = s[:loc[0]] + strings.Repeat("\x00", loc[1]-loc[0]) + s[loc[1]:]
		}
	}
	return joinRanges(norm, out, at)
}

// joinRanges makes one span of two that the query joins as a range
// ("between March and May", "from Monday to Wednesday", "3月到5月",
// "12月1日至5日"): the days between them are asked about too. An end read
// apart from its start as the latest such month or day (5月, asked in
// April, is last May) is taken in the year after when it would come
// before the start (in the week after, for a weekday).
func joinRanges(norm string, spans []DateSpan, at [][2]int) []DateSpan {
	for i := 0; i < len(spans); i++ {
		for j := 0; j < len(spans); j++ {
			if i == j || at[i][1] > at[j][0] || !rangeBetween(norm, at[i][0], at[i][1], at[j][0]) {
				continue
			}
			a, b := spans[i], spans[j]
			if b.To < a.From && b.Relative {
				b.From, b.To = later(a.From, b)
			}
			a.Text = strings.TrimSpace(norm[at[i][0]:at[j][1]])
			a.From, a.To = min(a.From, b.From), max(a.To, b.To)
			a.Relative = a.Relative || b.Relative
			spans[i], at[i][1] = a, at[j][1]
			spans, at = slices.Delete(spans, j, j+1), slices.Delete(at, j, j+1)
			return joinRanges(norm, spans, at)
		}
	}
	return spans
}

// rangeBetween reports whether the text between an expression at
// norm[lo:hi] and one at norm[next:] joins them as a range.
func rangeBetween(norm string, lo, hi, next int) bool {
	gap := strings.TrimSpace(norm[hi:next])
	switch gap {
	case "to", "until", "till", "through", "thru", "-", "–", "—", "~", "到", "至":
		return true
	case "and":
		before := strings.TrimRight(norm[:lo], " ")
		w, ok := strings.CutSuffix(before, "between")
		r, _ := utf8.DecodeLastRuneInString(w)
		return ok && (w == "" || !isWordRune(r))
	}
	return false
}

// later moves span b, the end of a range read apart from its start as
// the latest such month or day, past start: a week on when it is one day
// less than a week before it (a weekday: "from Monday to Wednesday"
// asked on a Tuesday ends tomorrow), else a year on.
func later(start string, b DateSpan) (from, to string) {
	s, err1 := time.Parse(time.DateOnly, start)
	t, err2 := time.Parse(time.DateOnly, b.To)
	if b.From == b.To && err1 == nil && err2 == nil && s.Sub(t) < 7*24*time.Hour {
		d := t.AddDate(0, 0, 7).Format(time.DateOnly)
		return d, d
	}
	return yearLater(b.From), yearLater(b.To)
}

// yearLater is day d (YYYY-MM-DD) a year on, kept in its month (29
// February becomes 28 February).
func yearLater(d string) string {
	t, err := time.Parse(time.DateOnly, d)
	if err != nil {
		return d
	}
	return addMonths(t, 12).Format(time.DateOnly)
}

// sinceAt reports whether the expression at s[lo:hi] is the start of a
// span that runs to today: "since March", "3月以来", "上周至今", "自从上个
// 月", "from May until now". The span it names alone is its oldest part.
func sinceAt(s string, lo, hi int) bool {
	before, expr, after := strings.TrimRight(s[:lo], " "), s[lo:hi], strings.TrimLeft(s[hi:], " ")
	if strings.HasPrefix(expr, "since ") || strings.HasSuffix(before, "自从") {
		return true
	}
	if w, ok := strings.CutSuffix(before, "since"); ok {
		if r, _ := utf8.DecodeLastRuneInString(w); w == "" || !isWordRune(r) {
			return true
		}
	}
	for _, until := range []string{"以来", "至今", "到现在", "until now", "till now"} {
		if strings.HasPrefix(after, until) {
			return true
		}
	}
	return false
}

// zhHours is a count of hours in Chinese: zhNum, 几 (a few) or 半 (half
// an hour).
const zhHours = `([0-9]{1,2}|[一二两三四五六七八九十]{1,3}|几|半)`

// hourCount reads a count of hours, English (enNum, "" for one: "the
// past hour") or Chinese (zhHours), as a duration; 几 is a few, as "a
// few" is.
func hourCount(en, zh string) (time.Duration, bool) {
	n := 0
	switch {
	case zh == "半":
		return 30 * time.Minute, true
	case zh == "几":
		n = enNumbers["a few"]
	case zh != "":
		n = zhAtoi(zh)
	case en == "":
		n = 1
	default:
		n, _ = enAtoi(en)
	}
	return time.Duration(n) * time.Hour, n > 0
}

// wallDay is the day t falls on in its own zone, as the other rules
// give days: midnight on now's wall clock read as UTC (ParseDates).
func wallDay(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

// hoursBack is the span from the day the hours counted back from zoned
// began until today.
func hoursBack(en, zh string, zoned time.Time) (time.Time, time.Time, bool) {
	d, ok := hourCount(en, zh)
	if !ok {
		return time.Time{}, time.Time{}, false
	}
	return wallDay(zoned.Add(-d)), wallDay(zoned), true
}

// hoursAgo is the span of days an hour either side of the hours counted
// back from zoned touch (none of them after zoned): "3 hours ago" is
// rarely exactly three, and at 01:00 "an hour ago" may be either side
// of midnight.
func hoursAgo(en, zh string, zoned time.Time) (time.Time, time.Time, bool) {
	d, ok := hourCount(en, zh)
	if !ok {
		return time.Time{}, time.Time{}, false
	}
	return wallDay(zoned.Add(-d - time.Hour)), wallDay(zoned.Add(-max(d-time.Hour, 0))), true
}

// smallHours is the hour before which "tonight" and "last night" are the
// night under way.
const smallHours = 5

// nightUnderWay is the first day of "tonight" asked at now: yesterday in
// the small hours, when the night began the evening before; else today.
func nightUnderWay(now time.Time) time.Time {
	if now.Hour() < smallHours {
		return day(now).AddDate(0, 0, -1)
	}
	return day(now)
}

// nightJustHad is the last day of "last night" asked at now: today in
// the small hours, when the night went on past midnight; else
// yesterday.
func nightJustHad(now time.Time) time.Time {
	if now.Hour() < smallHours {
		return day(now)
	}
	return day(now).AddDate(0, 0, -1)
}

func day(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, t.Location())
}

func ymd(y, m, d int, now time.Time) (time.Time, bool) {
	if m < 1 || m > 12 || d < 1 || d > 31 || y < 1900 || y > 2200 {
		return time.Time{}, false
	}
	t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, now.Location())
	return t, t.Day() == d // 31 April does not exist
}

func monthSpan(y, m int, now time.Time) (time.Time, time.Time, bool) {
	if m < 1 || m > 12 || y < 1900 || y > 2200 {
		return time.Time{}, time.Time{}, false
	}
	f := time.Date(y, time.Month(m), 1, 0, 0, 0, 0, now.Location())
	return f, f.AddDate(0, 1, -1), true
}

// quarterSpan is quarter q (1-4) of year y.
func quarterSpan(y, q int, now time.Time) (time.Time, time.Time, bool) {
	if q < 1 || q > 4 {
		return time.Time{}, time.Time{}, false
	}
	f, _, ok := monthSpan(y, 3*q-2, now)
	return f, f.AddDate(0, 3, -1), ok
}

func yearSpan(y int, now time.Time) (time.Time, time.Time, bool) {
	if y < 1970 || y > now.Year()+5 {
		return time.Time{}, time.Time{}, false
	}
	return time.Date(y, 1, 1, 0, 0, 0, 0, now.Location()), time.Date(y, 12, 31, 0, 0, 0, 0, now.Location()), true
}

// latestMonth is month m of this year if it has begun, else of last year.
func latestMonth(m int, now time.Time) (time.Time, time.Time, bool) {
	y := now.Year()
	if m > int(now.Month()) {
		y--
	}
	return monthSpan(y, m, now)
}

// latestDay is month m, day d of this year if it is not after today, else
// of last year.
func latestDay(m, d int, now time.Time) (time.Time, bool) {
	t, ok := ymd(now.Year(), m, d, now)
	if ok && t.After(day(now)) {
		return ymd(now.Year()-1, m, d, now)
	}
	if !ok && m == 2 && d == 29 {
		// The latest 29 February.
		for y := now.Year() - 1; y > now.Year()-8; y-- {
			if t, ok := ymd(y, m, d, now); ok {
				return t, true
			}
		}
	}
	return t, ok
}

// monthDays is days first to last of month m of year y, or, when y is
// 0, of the latest year whose day first is not after today (the last
// day may then be still to come). relative is true when y was 0.
func monthDays(y, m, first, last int, now time.Time) (from, to time.Time, relative, ok bool) {
	if first >= last {
		return time.Time{}, time.Time{}, false, false
	}
	if y == 0 {
		relative = true
		start, ok := latestDay(m, first, now)
		if !ok {
			return time.Time{}, time.Time{}, false, false
		}
		y = start.Year()
		if _, ok := ymd(y, m, last, now); !ok {
			// 28-29 February in a year without a 29th: the latest year
			// that has both.
			end, ok := latestDay(m, last, now)
			if !ok {
				return time.Time{}, time.Time{}, false, false
			}
			y = end.Year()
		}
	}
	from, ok1 := ymd(y, m, first, now)
	to, ok2 := ymd(y, m, last, now)
	return from, to, relative, ok1 && ok2
}

// latestDayOfMonth is day d of this month if it is not after today,
// else of the latest month before that has it (the 31st asked in April
// is 31 March).
func latestDayOfMonth(d int, now time.Time) (time.Time, bool) {
	if d < 1 || d > 31 {
		return time.Time{}, false
	}
	first := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, now.Location())
	for i := range 3 {
		m := first.AddDate(0, -i, 0)
		t, ok := ymd(m.Year(), int(m.Month()), d, now)
		if ok && !t.After(day(now)) {
			return t, true
		}
	}
	return time.Time{}, false
}

// isoWeekSpan is the Monday to Sunday of ISO week w of year y, or,
// when y is 0, of the ISO year today is in.
func isoWeekSpan(y, w int, now time.Time) (time.Time, time.Time, bool, bool) {
	relative := y == 0
	if relative {
		y, _ = day(now).ISOWeek()
	}
	if y < 1900 || y > 2200 || w < 1 || w > 53 {
		return time.Time{}, time.Time{}, false, false
	}
	// 4 January is always in week 1.
	jan4 := time.Date(y, 1, 4, 0, 0, 0, 0, now.Location())
	monday := jan4.AddDate(0, 0, -((int(jan4.Weekday())+6)%7)+7*(w-1))
	if wy, _ := monday.ISOWeek(); wy != y {
		return time.Time{}, time.Time{}, false, false // week 53 of a year of 52
	}
	return monday, monday.AddDate(0, 0, 6), relative, true
}

// weekOfMonth is the nth seven days of month m (n 0: its last seven) of
// year y, or, with no year, of the latest such month that has begun.
func weekOfMonth(y, m, n int, now time.Time) (time.Time, time.Time, bool, bool) {
	relative := y == 0
	var first time.Time
	var ok bool
	if relative {
		first, _, ok = latestMonth(m, now)
	} else {
		first, _, ok = monthSpan(y, m, now)
	}
	if !ok {
		return time.Time{}, time.Time{}, false, false
	}
	from := first.AddDate(0, 0, 7*(n-1))
	if n == 0 {
		from = first.AddDate(0, 1, -7)
	}
	return from, from.AddDate(0, 0, 6), relative, true
}

// weekend is the Saturday and Sunday of the week n weeks from this one,
// or, when latest is set, of the latest weekend that has begun (this
// one on a Saturday or Sunday, else last week's).
func weekend(n int, latest bool, now time.Time) (time.Time, time.Time) {
	if latest && day(now).Weekday() != time.Saturday && day(now).Weekday() != time.Sunday {
		n = -1
	}
	monday, _ := unitSpan("week", n, now)
	return monday.AddDate(0, 0, 5), monday.AddDate(0, 0, 6)
}

func latestWeekday(wd time.Weekday, from time.Time) time.Time {
	for from.Weekday() != wd {
		from = from.AddDate(0, 0, -1)
	}
	return from
}

// unitSpan is the calendar day, ISO week (Monday first), month, quarter
// or year n units from the one containing now.
func unitSpan(unit string, n int, now time.Time) (time.Time, time.Time) {
	d := day(now)
	switch unit {
	case "week":
		monday := d.AddDate(0, 0, -((int(d.Weekday())+6)%7)+7*n)
		return monday, monday.AddDate(0, 0, 6)
	case "month":
		f := time.Date(d.Year(), d.Month(), 1, 0, 0, 0, 0, d.Location()).AddDate(0, n, 0)
		return f, f.AddDate(0, 1, -1)
	case "quarter":
		f := time.Date(d.Year(), d.Month()-(d.Month()-1)%3, 1, 0, 0, 0, 0, d.Location()).AddDate(0, 3*n, 0)
		return f, f.AddDate(0, 3, -1)
	case "year":
		f := time.Date(d.Year()+n, 1, 1, 0, 0, 0, 0, d.Location())
		return f, f.AddDate(1, 0, -1)
	}
	t := d.AddDate(0, 0, n)
	return t, t
}

// back is the first day of the last n units up to today.
func back(unit string, n int, now time.Time) time.Time {
	d := day(now)
	switch unit {
	case "week":
		return d.AddDate(0, 0, -7*n)
	case "month":
		return addMonths(d, -n)
	case "quarter":
		return addMonths(d, -3*n)
	case "year":
		return addMonths(d, -12*n)
	}
	return d.AddDate(0, 0, -n)
}

// addMonths moves d by n months, keeping the day within the month (31
// March minus one month is 28 February, not 3 March).
func addMonths(d time.Time, n int) time.Time {
	first := time.Date(d.Year(), d.Month(), 1, 0, 0, 0, 0, d.Location()).AddDate(0, n, 0)
	last := first.AddDate(0, 1, -1).Day()
	return first.AddDate(0, 0, min(d.Day(), last)-1)
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

var enNumbers = map[string]int{"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
	"eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "a couple of": 2, "couple of": 2, "a couple": 2, "couple": 2, "a few": 3, "few": 3}

func enAtoi(s string) (int, bool) {
	if n, ok := enNumbers[s]; ok {
		return n, true
	}
	n, err := strconv.Atoi(s)
	return n, err == nil && n > 0
}

// zhAtoi reads 1-99 in digits or Chinese numerals (八, 十二, 二十, 两).
func zhAtoi(s string) int {
	if n, err := strconv.Atoi(s); err == nil {
		return n
	}
	digit := map[rune]int{'一': 1, '二': 2, '两': 2, '三': 3, '四': 4, '五': 5, '六': 6, '七': 7, '八': 8, '九': 9}
	r := []rune(s)
	switch {
	case len(r) == 1 && r[0] == '十':
		return 10
	case len(r) == 1:
		return digit[r[0]]
	case len(r) == 2 && r[0] == '十':
		return 10 + digit[r[1]]
	case len(r) == 2 && r[1] == '十':
		return 10 * digit[r[0]]
	case len(r) == 3 && r[1] == '十':
		return 10*digit[r[0]] + digit[r[2]]
	}
	return 0
}

func zhUnit(s string) string {
	switch s {
	case "天", "日":
		return "day"
	case "月":
		return "month"
	case "年":
		return "year"
	}
	return "week"
}

// zhWeekday is the offset of 一..日 from Monday.
func zhWeekday(s string) int {
	if s == "天" {
		s = "日"
	}
	return strings.Index("一二三四五六日", s) / len("一")
}

func monthNum(s string) int {
	s = strings.TrimSuffix(s, ".")
	for i, m := range []string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"} {
		if strings.HasPrefix(s, m) {
			return i + 1
		}
	}
	return 0
}

func weekdayNum(s string) time.Weekday {
	for i, d := range []string{"sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"} {
		if s == d {
			return time.Weekday(i)
		}
	}
	return time.Sunday
}
