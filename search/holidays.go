package search

import (
	"cmp"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

// holiday is a fixed-date holiday: its first day and how many days it
// lasts (the May Day and National Day holidays of China last a week or
// five days; the rest one), or a rule for its first day in year y.
type holiday struct {
	month, day, days int
	// date, when set, finds the first day in year y (Thanksgiving, and
	// the lunar holidays while the table of them lasts).
	date func(y int, loc *time.Location) (time.Time, bool)
}

// holidays maps each name the query may use (normalised: lower case,
// simplified Chinese, straight apostrophes) to its holiday.
var holidays = sync.OnceValue(func() map[string]holiday {
	return map[string]holiday{
		"new year's day":       on(1, 1),
		"new years day":        on(1, 1),
		"new year's eve":       on(12, 31),
		"valentine's day":      on(2, 14),
		"valentines day":       on(2, 14),
		"valentine's":          on(2, 14),
		"halloween":            on(10, 31),
		"christmas eve":        on(12, 24),
		"christmas day":        on(12, 25),
		"christmas":            on(12, 25),
		"xmas":                 on(12, 25),
		"independence day":     on(7, 4),
		"the fourth of july":   on(7, 4),
		"fourth of july":       on(7, 4),
		"thanksgiving":         {days: 1, date: thanksgiving},
		"元旦":                   on(1, 1),
		"情人节":                  on(2, 14),
		"妇女节":                  on(3, 8),
		"三八节":                  on(3, 8),
		"劳动节":                  mayDay,
		"五一":                   mayDay,
		"儿童节":                  on(6, 1),
		"国庆":                   nationalDay,
		"十一黄金周":                nationalDay,
		"十一长假":                 nationalDay,
		"十一假期":                 nationalDay,
		"圣诞":                   on(12, 25),
		"春节":                   springFestival,
		"过年":                   springFestival,
		"除夕":                   lunar(0, -1, 1),
		"大年三十":                 lunar(0, -1, 1),
		"大年初一":                 lunar(0, 0, 1),
		"端午":                   lunar(1, 0, 1),
		"中秋":                   lunar(2, 0, 1),
		"元宵":                   lunar(0, 14, 1),
		"清明":                   {days: 1, date: qingming},
		"chinese new year":     springFestival,
		"lunar new year":       springFestival,
		"dragon boat festival": lunar(1, 0, 1),
		"mid-autumn festival":  lunar(2, 0, 1),
		"平安夜":                  on(12, 24),
	}
})

// The holidays of China's May Day (1-5 May) and National Day (1-7
// October) weeks.
var (
	mayDay      = holiday{month: 5, day: 1, days: 5}
	nationalDay = holiday{month: 10, day: 1, days: 7}
)

// springFestival is the Spring Festival week, 除夕 (the eve) to 初七.
var springFestival = lunar(0, -1, 8)

// lunar is a holiday of days days from the offset-th day after the
// i-th lunar holiday of lunarHolidays (春节, 端午, 中秋).
func lunar(i, offset, days int) holiday {
	return holiday{days: days, date: func(y int, loc *time.Location) (time.Time, bool) {
		if y < lunarFirstYear || y-lunarFirstYear >= len(lunarHolidays) {
			return time.Time{}, false
		}
		md := lunarHolidays[y-lunarFirstYear]
		return time.Date(y, time.Month(md[2*i]), int(md[2*i+1])+offset, 0, 0, 0, 0, loc), true
	}}
}

// on is a one-day holiday on month m, day d.
func on(m, d int) holiday { return holiday{month: m, day: d, days: 1} }

// thanksgiving is the fourth Thursday of November (the United States').
func thanksgiving(y int, loc *time.Location) (time.Time, bool) {
	first := time.Date(y, time.November, 1, 0, 0, 0, 0, loc)
	return first.AddDate(0, 0, (int(time.Thursday)-int(first.Weekday())+7)%7+21), true
}

// qingming is 清明, the solar term of 4 or 5 April, by the common formula
// for the 20th and 21st centuries: [Y×0.2422 + C] − [Y/4], Y the year's
// last two digits, C 5.59 before 2000 and 4.81 from it.
func qingming(y int, loc *time.Location) (time.Time, bool) {
	if y < 1901 || y > 2099 {
		return time.Time{}, false
	}
	c := 48100
	if y < 2000 {
		c = 55900
	}
	yy := y % 100
	return time.Date(y, time.April, (yy*2422+c)/10000-yy/4, 0, 0, 0, 0, loc), true
}

// holidayRe matches a holiday's name with the year it may name: a year
// before a Chinese name (2023年国庆, 去年圣诞), "last", "this" or
// "next" before an English one, a year after it (Christmas 2023,
// Halloween of 2022). 节 after a Chinese name is part of it (国庆节,
// 圣诞节). The names are listed longest first, so "christmas eve" is
// not read as "christmas".
var holidayRe = sync.OnceValue(func() *regexp.Regexp {
	var en, zh []string
	for name := range holidays() {
		if name[0] < 0x80 {
			// Normalize leaves a typographic apostrophe as it is.
			en = append(en, strings.ReplaceAll(regexp.QuoteMeta(name), "'", "['\u2019]"))
		} else {
			zh = append(zh, regexp.QuoteMeta(name))
		}
	}
	longestFirst := func(a []string) string {
		// Longest first, then in order: the pattern must not depend on
		// the map's order.
		slices.SortFunc(a, func(x, y string) int {
			if c := cmp.Compare(len(y), len(x)); c != 0 {
				return c
			}
			return strings.Compare(x, y)
		})
		return strings.Join(a, "|")
	}
	return regexp.MustCompile(`(?:\b(last|this|next)\s+)?\b(` + longestFirst(en) + `)(?:,?\s+(?:of\s+)?(\d{4})\b)?` +
		`|(?:(\d{4})\s*年\s*|(前年|去年|今年|明年))?(` + longestFirst(zh) + `)节?`)
})

// needHoliday: every name holidayRe matches contains the part of a
// holiday's name before any apostrophe (which the query may write ’).
var needHoliday = sync.OnceValue(func() func(dateCues) bool {
	var parts []string
	for name := range holidays() {
		before, _, _ := strings.Cut(name, "'")
		parts = append(parts, before)
	}
	return needWord(parts...)
})

// resolveHoliday resolves a holidayRe match: in the year named, else the
// latest that has begun by today (as a month without a year is), or the
// latest that is over after "last", the next one after "next", or this
// year's after "this".
func resolveHoliday(m []string, now time.Time) (time.Time, time.Time, bool, bool) {
	name, year, rel := m[2], m[3], m[1]
	if name == "" {
		name, year = m[6], m[4]
		rel = map[string]string{"前年": "-2", "去年": "-1", "今年": "this", "明年": "next"}[m[5]]
	}
	h, ok := holidays()[strings.ReplaceAll(name, "\u2019", "'")]
	if !ok {
		return time.Time{}, time.Time{}, false, false
	}
	span := func(y int, relative bool) (time.Time, time.Time, bool, bool) {
		f, ok := h.first(y, now.Location())
		return f, f.AddDate(0, 0, h.days-1), relative, ok
	}
	if year != "" {
		y := atoi(year)
		if y < 1970 || y > now.Year()+5 {
			return time.Time{}, time.Time{}, false, false
		}
		return span(y, false)
	}
	today, y := day(now), now.Year()
	begun := func(y int) bool { f, ok := h.first(y, now.Location()); return ok && !f.After(today) }
	switch rel {
	case "this":
	case "next":
		if begun(y) {
			y++
		}
	case "last":
		// The latest that is over: on Christmas Day, last year's.
		if f, ok := h.first(y, now.Location()); !ok || f.AddDate(0, 0, h.days).After(today) {
			y--
		}
	case "-2", "-1":
		y += atoi(rel)
	default:
		// The latest that has begun by today.
		if !begun(y) {
			y--
		}
	}
	return span(y, true)
}

// first is the holiday's first day in year y, if known.
func (h holiday) first(y int, loc *time.Location) (time.Time, bool) {
	if h.date != nil {
		return h.date(y, loc)
	}
	return time.Date(y, time.Month(h.month), h.day, 0, 0, 0, 0, loc), true
}
