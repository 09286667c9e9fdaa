package search_test

import (
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/search"
)

func TestParseDates(t *testing.T) {
	// Wednesday 7 January 2026, 10:00 in UTC: a clock just past a year
	// boundary, so "last month", "上周" and "two months ago" cross it.
	jan := time.Date(2026, 1, 7, 10, 0, 0, 0, time.UTC)
	// Tuesday 31 March 2026: month ends of different lengths.
	mar31 := time.Date(2026, 3, 31, 9, 0, 0, 0, time.UTC)
	// Monday 1 March 2027 (after a non-leap February).
	mar2027 := time.Date(2027, 3, 1, 9, 0, 0, 0, time.UTC)
	// Friday 4 December 2026.
	fri := time.Date(2026, 12, 4, 9, 0, 0, 0, time.UTC)
	// Christmas Day 2026.
	xmas := time.Date(2026, 12, 25, 9, 0, 0, 0, time.UTC)
	// Sunday 6 December 2026.
	sun := time.Date(2026, 12, 6, 9, 0, 0, 0, time.UTC)
	// Wednesday 15 July 2026, and Friday 10 July 2026: a range of days
	// in July asked during it and before it.
	jul15 := time.Date(2026, 7, 15, 9, 0, 0, 0, time.UTC)
	jul10 := time.Date(2026, 7, 10, 9, 0, 0, 0, time.UTC)
	type span struct{ from, to string }
	cases := []struct {
		name  string
		query string
		now   time.Time
		want  []span
	}{
		{"iso day", "what broke on 2023-08-14?", jan, []span{{"2023-08-14", "2023-08-14"}}},
		{"slashed day", "deploy 2025/12/3", jan, []span{{"2025-12-03", "2025-12-03"}}},
		{"iso month", "what shipped in 2024-03", jan, []span{{"2024-03-01", "2024-03-31"}}},
		{"dotted day", "the 2023.08.14 release", jan, []span{{"2023-08-14", "2023-08-14"}}},
		// Day and month before the year: read only when one of them is
		// more than 12, so that it cannot be the month.
		{"us day", "invoice of 12/25/2025", jan, []span{{"2025-12-25", "2025-12-25"}}},
		{"european day", "the 25/12/2025 outage", jan, []span{{"2025-12-25", "2025-12-25"}}},
		{"european dotted day", "am 14.08.2023", jan, []span{{"2023-08-14", "2023-08-14"}}},
		{"day and month that could be either", "on 3/4/2025", jan, nil},
		{"day and month the same", "on 5/5/2025", jan, []span{{"2025-05-05", "2025-05-05"}}},
		{"a fraction is no date", "3/4 of the tests passed", jan, nil},
		{"slashed month", "report 2025/11", jan, []span{{"2025-11-01", "2025-11-30"}}},
		{"no 13th month", "build 2024-13", jan, nil},
		{"no day 99 is no month either", "2024-03-99", jan, nil},
		// Quarters: with a year, or last, this or next. "Q3" alone is
		// left alone (Q0-Q8 are also the names of recall passes).
		{"quarter and year", "the Q3 2024 roadmap", jan, []span{{"2024-07-01", "2024-09-30"}}},
		{"year and quarter", "2025 q4 revenue", jan, []span{{"2025-10-01", "2025-12-31"}}},
		{"last quarter across the year", "what did we ship last quarter", jan, []span{{"2025-10-01", "2025-12-31"}}},
		{"this quarter", "this quarter", mar31, []span{{"2026-01-01", "2026-03-31"}}},
		{"next quarter", "plans for next quarter", mar31, []span{{"2026-04-01", "2026-06-30"}}},
		{"zh quarter of a year", "2024年第三季度", jan, []span{{"2024-07-01", "2024-09-30"}}},
		// Halves of a year: 上半年, 下半年, H1 2024.
		{"zh first half of this year", "今年上半年的营收", mar31, []span{{"2026-01-01", "2026-06-30"}}},
		{"zh second half of last year", "去年下半年", mar31, []span{{"2025-07-01", "2025-12-31"}}},
		{"zh half of a year", "2024年下半年", jan, []span{{"2024-07-01", "2024-12-31"}}},
		{"zh half alone", "上半年", mar31, []span{{"2026-01-01", "2026-06-30"}}},
		{"half and year", "the H2 2025 plan", jan, []span{{"2025-07-01", "2025-12-31"}}},
		{"year and half", "2024 h1", jan, []span{{"2024-01-01", "2024-06-30"}}},
		{"zh last quarter", "上季度的营收", jan, []span{{"2025-10-01", "2025-12-31"}}},
		{"zh this quarter", "本季度", mar31, []span{{"2026-01-01", "2026-03-31"}}},
		{"a quarter alone is no date", "Q3 recall was weak", jan, nil},
		// A timestamp pasted from a log names its day.
		{"rfc 3339 timestamp", "what failed at 2025-12-03T10:04:05Z?", jan, []span{{"2025-12-03", "2025-12-03"}}},
		{"timestamp with an offset", "the crash at 2025-12-03T23:10:00+08:00", jan, []span{{"2025-12-03", "2025-12-03"}}},
		{"month and year", "What did Caroline do in August 2023?", jan, []span{{"2023-08-01", "2023-08-31"}}},
		{"february of a leap year", "in February 2024", jan, []span{{"2024-02-01", "2024-02-29"}}},
		{"day month year", "when did she go on 8 May, 2023", jan, []span{{"2023-05-08", "2023-05-08"}}},
		{"month day year", "Aug 14th, 2023", jan, []span{{"2023-08-14", "2023-08-14"}}},
		{"day of month with year", "the 14th of August, 2023", jan, []span{{"2023-08-14", "2023-08-14"}}},
		{"month day without year is the latest past one", "the meeting on December 30", jan, []span{{"2025-12-30", "2025-12-30"}}},
		{"month day this year", "on January 2", jan, []span{{"2026-01-02", "2026-01-02"}}},
		{"no 31 April", "April 31, 2025", jan, nil},
		{"29 February without year", "on February 29", mar2027, []span{{"2024-02-29", "2024-02-29"}}},
		{"month without year: latest past", "the outage in December", jan, []span{{"2025-12-01", "2025-12-31"}}},
		{"month without year: this month", "in January", jan, []span{{"2026-01-01", "2026-01-31"}}},
		{"last month name", "last March", mar31, []span{{"2025-03-01", "2025-03-31"}}},
		{"may the verb", "may I ask what you did", jan, nil},
		{"march the verb", "they march on", jan, nil},
		// "this may" is the modal far more often than the month: before
		// a verb it is no date.
		{"this may the modal", "this may be why the build fails", jan, nil},
		{"this may the modal before an adverb", "this may not have worked", jan, nil},
		{"this may the month at the end", "what did we ship this May?", fri, []span{{"2026-05-01", "2026-05-31"}}},
		{"this may the month before a pronoun", "this May we moved to Berlin", fri, []span{{"2026-05-01", "2026-05-31"}}},
		{"last may", "last May", jan, []span{{"2025-05-01", "2025-05-31"}}},
		{"mid-month hyphenated", "the mid-March outage", mar31, []span{{"2026-03-01", "2026-03-31"}}},
		{"early in a year", "early 2024", jan, []span{{"2024-01-01", "2024-12-31"}}},
		{"late in a year hyphenated", "the late-2023 migration", jan, []span{{"2023-01-01", "2023-12-31"}}},
		// "this March" is this year's, as "this Christmas" is: asked in
		// January it is not the March of last year.
		{"this month name asked before it", "what is planned for this March", jan, []span{{"2026-03-01", "2026-03-31"}}},
		{"this may asked before it", "this May we move to Berlin", mar31, []span{{"2026-05-01", "2026-05-31"}}},
		{"this month name asked after it", "this February", mar31, []span{{"2026-02-01", "2026-02-28"}}},
		{"year", "during 2025", jan, []span{{"2025-01-01", "2025-12-31"}}},
		{"a port is no year", "port 2096 and 3037", jan, nil},
		{"yesterday", "yesterday's deploy", jan, []span{{"2026-01-06", "2026-01-06"}}},
		{"today", "what did I do today", jan, []span{{"2026-01-07", "2026-01-07"}}},
		{"day before yesterday", "the day before yesterday", jan, []span{{"2026-01-05", "2026-01-05"}}},
		{"day after tomorrow is not tomorrow", "the day after tomorrow", jan, []span{{"2026-01-09", "2026-01-09"}}},
		{"zh day after tomorrow", "后天的会", jan, []span{{"2026-01-09", "2026-01-09"}}},
		{"last week across the year", "last week", jan, []span{{"2025-12-29", "2026-01-04"}}},
		{"this week", "this week", jan, []span{{"2026-01-05", "2026-01-11"}}},
		{"last month across the year", "last month", jan, []span{{"2025-12-01", "2025-12-31"}}},
		{"last month from a 31st", "last month", mar31, []span{{"2026-02-01", "2026-02-28"}}},
		{"last year", "last year", jan, []span{{"2025-01-01", "2025-12-31"}}},
		{"two months ago across the year", "two months ago", jan, []span{{"2025-11-01", "2025-11-30"}}},
		{"days ago", "3 days ago", jan, []span{{"2026-01-04", "2026-01-04"}}},
		{"a few days ago", "a few days ago", jan, []span{{"2026-01-04", "2026-01-04"}}},
		{"a couple of days ago", "a couple of days ago", jan, []span{{"2026-01-05", "2026-01-05"}}},
		// "of" is often left out.
		{"a couple days ago", "a couple days ago", jan, []span{{"2026-01-05", "2026-01-05"}}},
		{"couple weeks ago", "couple weeks ago", jan, []span{{"2025-12-22", "2025-12-28"}}},
		{"the last couple days", "the last couple days", jan, []span{{"2026-01-05", "2026-01-07"}}},
		{"a week ago is that week", "a week ago", jan, []span{{"2025-12-29", "2026-01-04"}}},
		{"past days", "in the past 10 days", jan, []span{{"2025-12-28", "2026-01-07"}}},
		{"last weekday", "last Friday", jan, []span{{"2026-01-02", "2026-01-02"}}},
		{"last friday asked on a friday is a week back", "last Friday", fri, []span{{"2026-11-27", "2026-11-27"}}},
		// "this Friday" is this week's, as 本周五 is: today when asked on
		// a Friday, not the Friday a week back.
		{"this friday asked on a friday is today", "this Friday", fri, []span{{"2026-12-04", "2026-12-04"}}},
		{"this sunday is this week's", "this sunday", jan, []span{{"2026-01-11", "2026-01-11"}}},
		{"this monday is this week's", "this Monday", fri, []span{{"2026-11-30", "2026-11-30"}}},
		// A weekday alone is the latest before today, as "on Monday" is;
		// it was not read at all.
		{"weekday alone", "show me Monday", fri, []span{{"2026-11-30", "2026-11-30"}}},
		{"weekday alone across the year", "what did I do Wednesday", jan, []span{{"2025-12-31", "2025-12-31"}}},
		{"weekday alone asked on it is a week back", "what did I do Monday", mar2027, []span{{"2027-02-22", "2027-02-22"}}},
		{"weekday alone possessive", "Sunday's deploy", jan, []span{{"2026-01-04", "2026-01-04"}}},
		{"weekday to weekday", "from Monday to Wednesday", sun, []span{{"2026-11-30", "2026-12-02"}}},
		{"month to the month before it is a year on", "3月到2月", mar31, []span{{"2026-03-01", "2027-02-28"}}},
		{"weekday to weekday asked between them", "from Monday to Wednesday", time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC), []span{{"2026-11-30", "2026-12-02"}}},
		{"next weekday is no past one", "plans for next Monday", jan, nil},
		{"a deadline is no past day", "what is due before Friday?", jan, nil},
		{"blocked until a weekday is no past day", "what is blocked until Monday", jan, nil},
		{"till a weekday is no past day", "frozen till Thursday", jan, nil},
		{"weekday until weekday", "from Monday until Wednesday", sun, []span{{"2026-11-30", "2026-12-02"}}},
		{"a day till a weekday", "from 30 November till Wednesday", sun, []span{{"2026-11-30", "2026-12-02"}}},
		{"a weekly habit is no day", "every Friday we deploy", jan, nil},
		{"weekdays plural are no day", "standups on Mondays", jan, nil},
		{"black friday is no friday", "Black Friday sales", jan, nil},
		{"a site is no weekday", "the monday.com board", jan, nil},
		// A month and day with a slash: only when one of them is over
		// 12 and a word before makes it a time; the latest such day.
		{"slashed month and day", "what did I do on 7/14", jan, []span{{"2025-07-14", "2025-07-14"}}},
		{"slashed day and month", "since 14/7", fri, []span{{"2026-07-14", "2026-12-04"}}},
		{"slashed day across the year", "the deploy on 12/31", jan, []span{{"2025-12-31", "2025-12-31"}}},
		{"slashed days as a range", "from 7/14 to 7/16", jan, []span{{"2025-07-14", "2025-07-16"}}},
		{"slashed day that could be either", "on 3/4", jan, nil},
		{"a score is no day", "10/14 passed", jan, nil},
		{"a score after on is no day", "on 10/14/25 builds", jan, nil},
		{"a version is no day", "v1.4/2 on 1.14.0", jan, nil},
		{"a time is no day", "on 14:30", jan, nil},
		// The 14th: of this month, or of the latest that has it when it
		// is still to come.
		{"ordinal day still to come", "what happened on the 14th", fri, []span{{"2026-11-14", "2026-11-14"}}},
		{"ordinal day this month", "the 3rd", fri, []span{{"2026-12-03", "2026-12-03"}}},
		{"ordinal day across the year", "the 14th?", jan, []span{{"2025-12-14", "2025-12-14"}}},
		{"ordinal day today", "the 31st", mar31, []span{{"2026-03-31", "2026-03-31"}}},
		{"ordinal day of the latest month that has it", "the 31st", time.Date(2026, 4, 15, 9, 0, 0, 0, time.UTC), []span{{"2026-03-31", "2026-03-31"}}},
		{"ordinal day before a clause", "on the 14th we shipped", fri, []span{{"2026-11-14", "2026-11-14"}}},
		{"an ordinal of a thing is no day", "the 3rd time it failed", jan, nil},
		{"an ordinal after on of a thing is no day", "passed on the 2nd attempt", jan, nil},
		{"a century is no day", "the 21st century", jan, nil},
		// ISO weeks (Monday first) of this year, or of the year named.
		{"iso week", "what did we ship in week 28", jan, []span{{"2026-07-06", "2026-07-12"}}},
		{"iso week one across the year", "week 1", jan, []span{{"2025-12-29", "2026-01-04"}}},
		{"iso week 53", "week 53", jan, []span{{"2026-12-28", "2027-01-03"}}},
		{"no week 53 in a year of 52, but the year", "week 53 of 2025", jan, []span{{"2025-01-01", "2025-12-31"}}},
		{"iso week of a year", "week 2, 2024", jan, []span{{"2024-01-08", "2024-01-14"}}},
		// As ISO 8601 and weekly notes write a week.
		{"iso week written", "notes for 2026-W10", jan, []span{{"2026-03-02", "2026-03-08"}}},
		{"iso week compact", "2025w52 retro", jan, []span{{"2025-12-22", "2025-12-28"}}},
		{"no week 53 in 2025", "2025-W53", jan, nil},
		// A week of a month: its first seven days, the next seven, ...,
		// or its last seven; not last week, nor the whole month.
		{"first week of a month", "the first week of March 2025", jan, []span{{"2025-03-01", "2025-03-07"}}},
		{"last week of a month", "in the last week of February 2024", jan, []span{{"2024-02-23", "2024-02-29"}}},
		{"second week of the latest month", "second week of December", jan, []span{{"2025-12-08", "2025-12-14"}}},
		{"a week counting is no week", "fixed week 3 bugs", jan, nil},
		{"last week then a count", "last week 3 bugs", jan, []span{{"2025-12-29", "2026-01-04"}}},
		{"zh iso week", "第28周做了什么", jan, []span{{"2026-07-06", "2026-07-12"}}},
		{"zh iso week of a year", "2024年第1周", jan, []span{{"2024-01-01", "2024-01-07"}}},
		{"zh week of a month is no iso week", "3月的第2周", mar31, []span{{"2026-03-01", "2026-03-31"}}},
		{"zh anniversary is no week", "第2周年纪念", jan, nil},
		{"two expressions", "in March 2025 and yesterday", jan, []span{{"2025-03-01", "2025-03-31"}, {"2026-01-06", "2026-01-06"}}},
		// A range is one span, from the first day of its start to the
		// last of its end: the days between were left out.
		{"between and", "between March 2025 and yesterday", jan, []span{{"2025-03-01", "2026-01-06"}}},
		{"from to", "what did we ship from March to May 2025", jan, []span{{"2025-03-01", "2025-05-31"}}},
		{"between holidays", "what happened between Christmas and New Year's Day", jan, []span{{"2025-12-25", "2026-01-01"}}},
		{"days with a dash", "2025-12-01 - 2025-12-05 deploys", jan, []span{{"2025-12-01", "2025-12-05"}}},
		{"zh month to month", "3月到5月的周报", mar31, []span{{"2026-03-01", "2026-05-31"}}},
		// Days of one month: the start is the latest such day, as a
		// single day is (the end may be still to come); "16 July" alone
		// was read as the latest 16 July, a year back when asked on the
		// 15th.
		{"days of a month", "what did I do 14-16 July", jan, []span{{"2025-07-14", "2025-07-16"}}},
		{"days of a month asked during them", "what did I do 14-16 July", jul15, []span{{"2026-07-14", "2026-07-16"}}},
		{"month and days asked during them", "July 14-16", jul15, []span{{"2026-07-14", "2026-07-16"}}},
		{"days to days asked before them", "14 to 16 July", jul10, []span{{"2025-07-14", "2025-07-16"}}},
		{"ordinal days of a month of a year", "the 14th to 16th of July 2024", jan, []span{{"2024-07-14", "2024-07-16"}}},
		{"month and days of a year", "July 14-16, 2024", jan, []span{{"2024-07-14", "2024-07-16"}}},
		{"days across the year", "30-31 December", jan, []span{{"2025-12-30", "2025-12-31"}}},
		{"days of this january", "1-2 January", jan, []span{{"2026-01-01", "2026-01-02"}}},
		{"days of the latest 29 february", "28-29 February", mar2027, []span{{"2024-02-28", "2024-02-29"}}},
		{"day of a month to day of another", "from 14 July to 2 August", jan, []span{{"2025-07-14", "2025-08-02"}}},
		{"month day to day month is two months", "July 14 to 16 August", jan, []span{{"2025-07-14", "2025-08-16"}}},
		{"a time is no last day", "July 14 to 16:30", jan, []span{{"2025-07-14", "2025-07-14"}}},
		{"a version is no first day", "v1.14-16 july", jan, []span{{"2025-07-16", "2025-07-16"}}},
		{"zh days of a month", "7月14日到16日", jan, []span{{"2025-07-14", "2025-07-16"}}},
		{"zh days of a month asked during them", "7月14日到16日做了什么", jul15, []span{{"2026-07-14", "2026-07-16"}}},
		{"zh days of a month with a dash", "2024年7月14-16日", jan, []span{{"2024-07-14", "2024-07-16"}}},
		{"zh days of a month of last year", "去年七月十四号至十六号", jan, []span{{"2025-07-14", "2025-07-16"}}},
		{"zh days across the year", "12月1日至5日", jan, []span{{"2025-12-01", "2025-12-05"}}},
		{"zh day of a month to day of another", "7月14日至8月2日", jan, []span{{"2025-07-14", "2025-08-02"}}},
		{"zh day to day", "2025年12月1日至12月5日", jan, []span{{"2025-12-01", "2025-12-05"}}},
		{"and alone is no range", "在3月和5月", mar31, []span{{"2026-03-01", "2026-03-31"}, {"2025-05-01", "2025-05-31"}}},
		// "since" runs to today: the prior was on March alone, the
		// oldest part of what was asked.
		{"since a month", "what changed since March", fri, []span{{"2026-03-01", "2026-12-04"}}},
		{"since a year", "since 2024", fri, []span{{"2024-01-01", "2026-12-04"}}},
		{"since a weekday", "what broke since last Tuesday", fri, []span{{"2026-12-01", "2026-12-04"}}},
		{"since yesterday", "anything new since yesterday", fri, []span{{"2026-12-03", "2026-12-04"}}},
		{"since a day", "since 2026-11-20", fri, []span{{"2026-11-20", "2026-12-04"}}},
		{"zh since a month", "3月以来的改动", fri, []span{{"2026-03-01", "2026-12-04"}}},
		{"zh since last year", "去年以来", fri, []span{{"2025-01-01", "2026-12-04"}}},
		{"zh last week until now", "上周至今", fri, []span{{"2026-11-23", "2026-12-04"}}},
		{"zh since", "自从上个月", fri, []span{{"2026-11-01", "2026-12-04"}}},
		{"in a month is not since", "in March", fri, []span{{"2026-03-01", "2026-03-31"}}},
		{"zh today", "今天的会议", jan, []span{{"2026-01-07", "2026-01-07"}}},
		{"zh month of last year", "去年8月的数据库备份策略", jan, []span{{"2025-08-01", "2025-08-31"}}},
		{"zh day of this year", "今年一月五号", jan, []span{{"2026-01-05", "2026-01-05"}}},
		{"zh month the year before last", "前年十二月", jan, []span{{"2024-12-01", "2024-12-31"}}},
		{"month of last year", "in August last year", jan, []span{{"2025-08-01", "2025-08-31"}}},
		{"month of this year", "December of this year", jan, []span{{"2026-12-01", "2026-12-31"}}},
		{"zh yesterday", "昨天", jan, []span{{"2026-01-06", "2026-01-06"}}},
		{"zh this morning", "今早的站会", jan, []span{{"2026-01-07", "2026-01-07"}}},
		{"zh the night before last", "前晚谁改了配置", jan, []span{{"2026-01-05", "2026-01-05"}}},
		{"zh tomorrow evening", "明晚的发布", jan, []span{{"2026-01-08", "2026-01-08"}}},
		{"zh day before yesterday", "前天谁修了端口", jan, []span{{"2026-01-05", "2026-01-05"}}},
		{"zh last week across the year", "上周我们讨论了什么", jan, []span{{"2025-12-29", "2026-01-04"}}},
		{"zh last week other words", "上个星期", jan, []span{{"2025-12-29", "2026-01-04"}}},
		{"zh weekday of last week", "上周三", jan, []span{{"2025-12-31", "2025-12-31"}}},
		// A weekend is its Saturday and Sunday, of the week named, or the
		// latest that has begun.
		{"last weekend across the year", "what did I do last weekend", jan, []span{{"2026-01-03", "2026-01-04"}}},
		{"last weekend asked on a sunday", "last weekend", sun, []span{{"2026-11-28", "2026-11-29"}}},
		{"this weekend", "plans for this weekend", jan, []span{{"2026-01-10", "2026-01-11"}}},
		{"next weekend", "next weekend", jan, []span{{"2026-01-17", "2026-01-18"}}},
		{"over the weekend", "what broke over the weekend", jan, []span{{"2026-01-03", "2026-01-04"}}},
		{"the weekend asked on a sunday is this one", "over the weekend", sun, []span{{"2026-12-05", "2026-12-06"}}},
		{"zh weekend alone", "周末去哪了", jan, []span{{"2026-01-03", "2026-01-04"}}},
		{"zh weekend alone asked on a sunday", "周末", sun, []span{{"2026-12-05", "2026-12-06"}}},
		{"zh last weekend is not all of last week", "上周末", jan, []span{{"2026-01-03", "2026-01-04"}}},
		{"zh last weekend other words", "上个周末", jan, []span{{"2026-01-03", "2026-01-04"}}},
		{"zh this weekend", "这周末", jan, []span{{"2026-01-10", "2026-01-11"}}},
		{"zh next weekend", "下周末", jan, []span{{"2026-01-17", "2026-01-18"}}},
		{"zh sunday of last week", "上周日", jan, []span{{"2026-01-04", "2026-01-04"}}},
		{"zh weekday alone", "周一的事故", jan, []span{{"2026-01-05", "2026-01-05"}}},
		// 一直, 一共, 三个: a numeral after 周 that begins a word of its
		// own names no weekday.
		{"zh all of last week", "上周一直在调试端口", jan, []span{{"2025-12-29", "2026-01-04"}}},
		{"zh in all this week", "这周一共修了几个bug", jan, []span{{"2026-01-05", "2026-01-11"}}},
		{"zh a count last week", "上周三个会议都取消了", jan, []span{{"2025-12-29", "2026-01-04"}}},
		{"zh one client last week", "上周一个客户投诉了", jan, []span{{"2025-12-29", "2026-01-04"}}},
		{"zh once a week", "一周一次的例会", jan, nil},
		{"zh monday afternoon of last week", "上周一下午的会", jan, []span{{"2025-12-29", "2025-12-29"}}},
		{"zh friday evening", "周五晚上的发布", jan, []span{{"2026-01-02", "2026-01-02"}}},
		{"zh last month across the year", "上个月", jan, []span{{"2025-12-01", "2025-12-31"}}},
		{"zh this month", "这个月", jan, []span{{"2026-01-01", "2026-01-31"}}},
		{"zh last year", "去年", jan, []span{{"2025-01-01", "2025-12-31"}}},
		{"zh months ago", "三个月前", jan, []span{{"2025-10-01", "2025-10-31"}}},
		{"zh two weeks ago", "两周前", jan, []span{{"2025-12-22", "2025-12-28"}}},
		{"zh days ago", "5天前", jan, []span{{"2026-01-02", "2026-01-02"}}},
		{"zh recent days", "最近三天", jan, []span{{"2026-01-04", "2026-01-07"}}},
		{"zh month alone: latest past", "8月的会议", jan, []span{{"2025-08-01", "2025-08-31"}}},
		{"zh month in numerals", "十二月", jan, []span{{"2025-12-01", "2025-12-31"}}},
		// The start or end of a month or year is of that month or year
		// (3月初 is March); alone, of this one.
		{"zh early in a month", "3月初", mar31, []span{{"2026-03-01", "2026-03-31"}}},
		{"zh end of the month", "月底前要上线的功能", mar31, []span{{"2026-03-01", "2026-03-31"}}},
		{"zh end of the year", "年底的目标", mar31, []span{{"2026-01-01", "2026-12-31"}}},
		{"zh end of last month", "上个月底", mar31, []span{{"2026-02-01", "2026-02-28"}}},
		{"zh end of last year", "去年年底", mar31, []span{{"2025-01-01", "2025-12-31"}}},
		{"zh within months is no middle", "三个月中", mar31, nil},
		{"zh middle of last month", "上个月中旬", jan, []span{{"2025-12-01", "2025-12-31"}}},
		{"zh middle of a month", "3月中旬", mar31, []span{{"2026-03-01", "2026-03-31"}}},
		{"zh middle of the month alone", "中旬的会议", mar31, []span{{"2026-03-01", "2026-03-31"}}},
		{"zh last days of the month alone", "下旬", jan, []span{{"2026-01-01", "2026-01-31"}}},
		{"zh month and day", "8月14日", jan, []span{{"2025-08-14", "2025-08-14"}}},
		{"zh full date", "2023年8月14号", jan, []span{{"2023-08-14", "2023-08-14"}}},
		{"zh year and month", "2023年8月", jan, []span{{"2023-08-01", "2023-08-31"}}},
		{"zh year", "2024年", jan, []span{{"2024-01-01", "2024-12-31"}}},
		{"full-width digits", "２０２３年８月", jan, []span{{"2023-08-01", "2023-08-31"}}},
		{"christmas across the year", "what did we do at Christmas?", jan, []span{{"2025-12-25", "2025-12-25"}}},
		{"christmas eve is not christmas", "on Christmas Eve", jan, []span{{"2025-12-24", "2025-12-24"}}},
		{"christmas of a year", "Christmas 2023", jan, []span{{"2023-12-25", "2023-12-25"}}},
		{"last christmas", "last Christmas", jan, []span{{"2025-12-25", "2025-12-25"}}},
		// On Christmas Day "last Christmas" is a year back, and during
		// the Spring Festival week "last Spring Festival" is last year's.
		{"last christmas asked on christmas day", "last Christmas", xmas, []span{{"2025-12-25", "2025-12-25"}}},
		{"christmas asked on christmas day", "Christmas", xmas, []span{{"2026-12-25", "2026-12-25"}}},
		{"last chinese new year during it", "last Chinese New Year", time.Date(2026, 2, 18, 9, 0, 0, 0, time.UTC), []span{{"2025-01-28", "2025-02-04"}}},
		{"next christmas", "plans for next Christmas", jan, []span{{"2026-12-25", "2026-12-25"}}},
		{"this christmas", "this christmas", jan, []span{{"2026-12-25", "2026-12-25"}}},
		{"halloween", "What costume did she wear for Halloween?", jan, []span{{"2025-10-31", "2025-10-31"}}},
		{"valentine's day not yet this year", "Valentine's Day", jan, []span{{"2025-02-14", "2025-02-14"}}},
		{"valentine's day this year", "valentines day", mar31, []span{{"2026-02-14", "2026-02-14"}}},
		{"new year's day", "New Year's Day", jan, []span{{"2026-01-01", "2026-01-01"}}},
		{"new year's eve", "on New Year's Eve", jan, []span{{"2025-12-31", "2025-12-31"}}},
		{"curly apostrophe", "Valentine\u2019s Day", mar31, []span{{"2026-02-14", "2026-02-14"}}},
		{"fourth of july", "the Fourth of July", jan, []span{{"2025-07-04", "2025-07-04"}}},
		{"independence day of a year", "Independence Day of 2024", jan, []span{{"2024-07-04", "2024-07-04"}}},
		{"thanksgiving is the fourth thursday", "at Thanksgiving", jan, []span{{"2025-11-27", "2025-11-27"}}},
		{"thanksgiving of a year", "Thanksgiving 2023", jan, []span{{"2023-11-23", "2023-11-23"}}},
		{"thanksgiving when november begins on a thursday", "Thanksgiving 2029", mar2027, []span{{"2029-11-22", "2029-11-22"}}},
		{"zh national day week", "国庆节去了哪里？", jan, []span{{"2025-10-01", "2025-10-07"}}},
		{"zh golden week", "十一黄金周", jan, []span{{"2025-10-01", "2025-10-07"}}},
		{"zh may day holiday", "五一假期去哪里旅行了？", mar31, []span{{"2025-05-01", "2025-05-05"}}},
		{"zh labour day", "劳动节", jan, []span{{"2025-05-01", "2025-05-05"}}},
		{"zh national day of a year", "2023年国庆", jan, []span{{"2023-10-01", "2023-10-07"}}},
		{"zh christmas of last year", "去年圣诞节", jan, []span{{"2025-12-25", "2025-12-25"}}},
		{"zh christmas of this year", "今年圣诞节", jan, []span{{"2026-12-25", "2026-12-25"}}},
		{"zh christmas eve", "平安夜", jan, []span{{"2025-12-24", "2025-12-24"}}},
		{"zh new year", "元旦", jan, []span{{"2026-01-01", "2026-01-01"}}},
		{"zh valentine's", "情人节送了什么", jan, []span{{"2025-02-14", "2025-02-14"}}},
		{"zh women's day", "妇女节", mar31, []span{{"2026-03-08", "2026-03-08"}}},
		{"zh children's day", "儿童节", jan, []span{{"2025-06-01", "2025-06-01"}}},
		{"zh eleven is no holiday", "十一点的会", jan, nil},
		{"zh spring festival week before this year's", "春节回老家了吗？", jan, []span{{"2025-01-28", "2025-02-04"}}},
		{"zh spring festival of a year", "2024年春节", jan, []span{{"2024-02-09", "2024-02-16"}}},
		{"zh new year's eve of a month starting the year", "除夕", mar31, []span{{"2026-02-16", "2026-02-16"}}},
		{"zh mid-autumn", "中秋节吃了什么月饼", jan, []span{{"2025-10-06", "2025-10-06"}}},
		{"zh mid-autumn of last year", "去年中秋", mar31, []span{{"2025-10-06", "2025-10-06"}}},
		{"zh dragon boat", "端午节", mar31, []span{{"2025-05-31", "2025-05-31"}}},
		{"zh lantern festival", "元宵节吃汤圆了吗", mar31, []span{{"2026-03-03", "2026-03-03"}}},
		{"zh lantern festival of a year", "2025年元宵", jan, []span{{"2025-02-12", "2025-02-12"}}},
		{"zh qingming before this year's", "清明节回老家", jan, []span{{"2025-04-04", "2025-04-04"}}},
		{"zh qingming of a year", "2026年清明", jan, []span{{"2026-04-05", "2026-04-05"}}},
		{"zh qingming of another year", "2023年清明节", jan, []span{{"2023-04-05", "2023-04-05"}}},
		{"chinese new year of a year", "Chinese New Year 2023", jan, []span{{"2023-01-21", "2023-01-28"}}},
		{"mid-autumn festival", "the Mid-Autumn Festival", jan, []span{{"2025-10-06", "2025-10-06"}}},
		{"zh spring festival before the table", "1960年春节", jan, nil},
		{"nothing", "why was port 2096 unavailable", jan, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := search.ParseDates(c.query, c.now)
			if len(got) != len(c.want) {
				t.Fatalf("%q: got %+v, want %v", c.query, got, c.want)
			}
			for i, w := range c.want {
				if strings.ContainsRune(got[i].Text, 0) || !strings.Contains(lexical.Normalize(c.query), got[i].Text) {
					t.Errorf("%q: span %d reads %q, not text of the query", c.query, i, got[i].Text)
				}
				if got[i].From != w.from || got[i].To != w.to {
					t.Errorf("%q: span %d = %s..%s, want %s..%s", c.query, i, got[i].From, got[i].To, w.from, w.to)
				}
			}
		})
	}
}

func TestParseDates_timeZone(t *testing.T) {
	// 23:30 on 31 December in New York is already 1 January in UTC and in
	// Shanghai: "today" and "this year" are the user's.
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Skip("no time zone database:", err)
	}
	sh, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Skip("no time zone database:", err)
	}
	instant := time.Date(2025, 12, 31, 23, 30, 0, 0, ny)
	for _, c := range []struct {
		loc         *time.Location
		query       string
		from, to    string
		description string
	}{
		{ny, "today", "2025-12-31", "2025-12-31", "New York is still in 2025"},
		{time.UTC, "today", "2026-01-01", "2026-01-01", "UTC is in 2026"},
		{sh, "今天", "2026-01-01", "2026-01-01", "Shanghai is in 2026"},
		{ny, "this year", "2025-01-01", "2025-12-31", "New York's year"},
		{sh, "去年", "2025-01-01", "2025-12-31", "Shanghai's last year"},
		{ny, "yesterday", "2025-12-30", "2025-12-30", "New York's yesterday"},
		{ny, "New Year's Day", "2025-01-01", "2025-01-01", "New York's New Year's Day is past"},
		{sh, "元旦", "2026-01-01", "2026-01-01", "Shanghai's New Year's Day is today"},
		{ny, "Christmas", "2025-12-25", "2025-12-25", "New York's Christmas"},
		{ny, "Wednesday", "2025-12-24", "2025-12-24", "New York's today is a Wednesday"},
		{sh, "wednesday", "2025-12-31", "2025-12-31", "Shanghai's yesterday was a Wednesday"},
		{ny, "the 1st", "2025-12-01", "2025-12-01", "New York's 1st is a month back"},
		{sh, "on the 1st", "2026-01-01", "2026-01-01", "Shanghai's 1st is today"},
		{ny, "on 1/13", "2025-01-13", "2025-01-13", "New York's 13 January"},
		{ny, "1-2 January", "2025-01-01", "2025-01-02", "New York's 1 January is past"},
		{sh, "1月1日到2日", "2026-01-01", "2026-01-02", "Shanghai's 1 January is today"},
	} {
		got := search.ParseDates(c.query, instant.In(c.loc))
		if len(got) != 1 || got[0].From != c.from || got[0].To != c.to {
			t.Errorf("%s: %q at %s = %+v, want %s..%s", c.description, c.query, instant.In(c.loc), got, c.from, c.to)
		}
	}
}

func TestEngineResolvesDatesInItsLocation(t *testing.T) {
	sh, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Skip("no time zone database:", err)
	}
	snap := dialogueSnapshot(t)
	// 20:00 UTC on 14 July is 04:00 on 15 July in Shanghai.
	clock := func() time.Time { return time.Date(2026, 7, 14, 20, 0, 0, 0, time.UTC) }
	for _, c := range []struct {
		loc  *time.Location
		want string
	}{{time.UTC, "2026-07-13"}, {sh, "2026-07-14"}} {
		e := search.New(search.Config{Dense: true, Now: clock, Location: c.loc}, lexical.NewAnalyzer())
		resp := ask(t, e, snap, api.SearchRequest{Query: "what did we say yesterday"})
		if p := resp.QueryPlan.DatePriors; len(p) != 1 || p[0].From != c.want {
			t.Errorf("%s: datePriors %+v, want %s", c.loc, p, c.want)
		}
	}
}

func TestParseDates_monthArithmeticKeepsTheMonth(t *testing.T) {
	// From 31 March, "the past month" starts on 28 February, and "last
	// March" is a year back.
	now := time.Date(2026, 3, 31, 9, 0, 0, 0, time.UTC)
	got := search.ParseDates("the past month", now)
	if len(got) != 1 || got[0].From != "2026-02-28" || got[0].To != "2026-03-31" {
		t.Errorf("past month: %+v", got)
	}
	got = search.ParseDates("过去一年", time.Date(2024, 2, 29, 9, 0, 0, 0, time.UTC))
	if len(got) != 1 || got[0].From != "2023-02-28" {
		t.Errorf("过去一年 from 29 February: %+v", got)
	}
}

// TestParseDates_midnightSkipped: where the change to daylight saving
// time skips midnight (Havana's 8 March 2026 begins at 01:00), the day
// is still a day. Its midnight was put an hour into the day before:
// "yesterday" asked on 9 March was 7 March, and "2026-03-08" named no
// day at all.
func TestParseDates_midnightSkipped(t *testing.T) {
	havana, err := time.LoadLocation("America/Havana")
	if err != nil {
		t.Skip("no time zone database:", err)
	}
	now := time.Date(2026, 3, 9, 10, 0, 0, 0, havana) // a Monday
	for _, c := range []struct{ query, from, to string }{
		{"yesterday", "2026-03-08", "2026-03-08"},
		{"what broke on 2026-03-08", "2026-03-08", "2026-03-08"},
		{"3月8日", "2026-03-08", "2026-03-08"},
		{"last week", "2026-03-02", "2026-03-08"},
		{"last Sunday", "2026-03-08", "2026-03-08"},
		{"上周日", "2026-03-08", "2026-03-08"},
		{"2 days ago", "2026-03-07", "2026-03-07"},
		{"past week", "2026-03-02", "2026-03-09"},
		{"妇女节", "2026-03-08", "2026-03-08"},
	} {
		got := search.ParseDates(c.query, now)
		if len(got) != 1 || got[0].From != c.from || got[0].To != c.to {
			t.Errorf("%q on %s: %+v, want %s..%s", c.query, now, got, c.from, c.to)
		}
	}
}

// TestParseDates_hours: a span of hours ("the past 24 hours", "3 hours
// ago", 过去24小时, 几个小时前) is of the days those hours fall on in the
// user's zone, counted in real hours across a change of clocks. Such
// queries named no date at all: asked just after midnight, "the last 24
// hours" is mostly yesterday, and the prior left it out.
func TestParseDates_hours(t *testing.T) {
	zone := func(name string) *time.Location {
		loc, err := time.LoadLocation(name)
		if err != nil {
			t.Skip("no time zone database:", err)
		}
		return loc
	}
	berlin, ny, lordHowe, kolkata, chatham := zone("Europe/Berlin"), zone("America/New_York"), zone("Australia/Lord_Howe"), zone("Asia/Kolkata"), zone("Pacific/Chatham")
	for _, c := range []struct {
		now         time.Time
		query       string
		from, to    string
		description string
	}{
		{time.Date(2026, 3, 31, 0, 30, 0, 0, berlin), "what changed in the past 24 hours", "2026-03-30", "2026-03-31", "just after midnight, mostly yesterday"},
		{time.Date(2026, 3, 30, 0, 30, 0, 0, berlin), "what changed in the last 24 hours", "2026-03-28", "2026-03-30", "Sunday the clocks went forward had 23 hours"},
		{time.Date(2026, 3, 31, 23, 30, 0, 0, kolkata), "past 2 hours", "2026-03-31", "2026-03-31", "late evening, today only"},
		{time.Date(2026, 10, 5, 0, 10, 0, 0, lordHowe), "the last 24 hours", "2026-10-03", "2026-10-05", "a 23½-hour day"},
		{time.Date(2026, 3, 8, 1, 30, 0, 0, ny), "3 hours ago", "2026-03-07", "2026-03-07", "an evening's hours"},
		{time.Date(2026, 1, 1, 0, 30, 0, 0, chatham), "an hour ago", "2025-12-31", "2026-01-01", "across the year"},
		{time.Date(2026, 1, 1, 0, 30, 0, 0, chatham), "the past hour", "2025-12-31", "2026-01-01", "across the year"},
		{time.Date(2026, 3, 31, 0, 30, 0, 0, berlin), "过去24小时", "2026-03-30", "2026-03-31", "Chinese, a span"},
		{time.Date(2026, 3, 31, 0, 30, 0, 0, berlin), "最近三个小时做了什么", "2026-03-30", "2026-03-31", "Chinese numerals"},
		{time.Date(2026, 3, 31, 1, 0, 0, 0, berlin), "几个小时前", "2026-03-30", "2026-03-30", "a few hours ago"},
		{time.Date(2026, 3, 31, 15, 0, 0, 0, berlin), "a few hours ago", "2026-03-31", "2026-03-31", "the afternoon's few hours"},
		{time.Date(2026, 3, 31, 0, 30, 0, 0, berlin), "anything in the last 24h", "2026-03-30", "2026-03-31", "hours as h"},
		{time.Date(2026, 3, 31, 0, 30, 0, 0, berlin), "past 48 hrs", "2026-03-28", "2026-03-31", "hours as hrs, back across the 23-hour day"},
		{time.Date(2026, 3, 31, 0, 30, 0, 0, berlin), "24小时内的改动", "2026-03-30", "2026-03-31", "within 24 hours"},
		{time.Date(2026, 3, 31, 0, 20, 0, 0, kolkata), "过去半小时", "2026-03-30", "2026-03-31", "half an hour back"},
		{time.Date(2026, 3, 31, 0, 20, 0, 0, kolkata), "半小时前", "2026-03-30", "2026-03-31", "half an hour ago"},
	} {
		got := search.ParseDates(c.query, c.now)
		if len(got) != 1 || got[0].From != c.from || got[0].To != c.to || !got[0].Relative {
			t.Errorf("%s: %q at %s = %+v, want %s..%s", c.description, c.query, c.now, got, c.from, c.to)
		}
	}
}

// TestEngineResolvesHoursInItsLocation: the engine's clock, in its zone,
// is what a span of hours is counted back from, and queryPlan shows the
// days: in Berlin just after midnight on the Monday after clocks went
// forward, the last 24 hours began on Saturday.
func TestEngineResolvesHoursInItsLocation(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skip("no time zone database:", err)
	}
	snap := dialogueSnapshot(t)
	clock := func() time.Time { return time.Date(2026, 3, 29, 22, 30, 0, 0, time.UTC) } // 00:30 CEST on 30 March
	e := search.New(search.Config{Dense: true, Now: clock, Location: berlin}, lexical.NewAnalyzer())
	resp := ask(t, e, snap, api.SearchRequest{Query: "what did we change in the last 24 hours"})
	if p := resp.QueryPlan.DatePriors; len(p) != 1 || p[0].From != "2026-03-28" || p[0].To != "2026-03-30" {
		t.Errorf("datePriors %+v, want 2026-03-28..2026-03-30", p)
	}
}

// TestParseDates_tonightAfterMidnight: "tonight" (this evening, 今晚)
// asked in the small hours is the night under way, which began the day
// before: at 00:30 the evening's work was all yesterday's, and the prior
// was today alone. Asked in the evening it is today.
func TestParseDates_tonightAfterMidnight(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skip("no time zone database:", err)
	}
	chatham, err := time.LoadLocation("Pacific/Chatham")
	if err != nil {
		t.Skip("no time zone database:", err)
	}
	for _, c := range []struct {
		now      time.Time
		query    string
		from, to string
	}{
		{time.Date(2026, 3, 30, 0, 30, 0, 0, berlin), "what did we decide tonight", "2026-03-29", "2026-03-30"},
		{time.Date(2026, 3, 30, 1, 0, 0, 0, berlin), "this evening's deploy", "2026-03-29", "2026-03-30"},
		{time.Date(2026, 3, 30, 0, 30, 0, 0, berlin), "今晚做了什么", "2026-03-29", "2026-03-30"},
		{time.Date(2026, 1, 1, 0, 30, 0, 0, chatham), "tonight", "2025-12-31", "2026-01-01"},
		{time.Date(2026, 3, 30, 20, 0, 0, 0, berlin), "tonight", "2026-03-30", "2026-03-30"},
		{time.Date(2026, 3, 30, 20, 0, 0, 0, berlin), "今晚", "2026-03-30", "2026-03-30"},
		{time.Date(2026, 3, 30, 0, 30, 0, 0, berlin), "today", "2026-03-30", "2026-03-30"},
		// "last night" in the small hours is the night just had: the
		// evening before and the hours after midnight.
		{time.Date(2026, 3, 30, 1, 0, 0, 0, berlin), "what did we fix last night", "2026-03-29", "2026-03-30"},
		{time.Date(2026, 3, 30, 1, 0, 0, 0, berlin), "昨晚修了什么", "2026-03-29", "2026-03-30"},
		{time.Date(2026, 3, 30, 9, 0, 0, 0, berlin), "last night", "2026-03-29", "2026-03-29"},
		{time.Date(2026, 3, 30, 9, 0, 0, 0, berlin), "昨晚", "2026-03-29", "2026-03-29"},
	} {
		got := search.ParseDates(c.query, c.now)
		if len(got) != 1 || got[0].From != c.from || got[0].To != c.to {
			t.Errorf("%q at %s = %+v, want %s..%s", c.query, c.now, got, c.from, c.to)
		}
	}
}
