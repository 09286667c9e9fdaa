package search

import (
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/memory"
)

// TestDateRuleNeeds checks that a rule's need holds of every query its
// expression matches in: a need that did not would drop a date.
func TestDateRuleNeeds(t *testing.T) {
	queries := []string{
		"what broke on 2023-08-14?", "deploy 2025/12/3", "in 2024-03", "2023.08.14", "12/25/2025", "25.12.2025", "q3 2024", "2025 q4", "last quarter", "2024年第三季度", "上季度", "这个季度", "去年下半年", "上半年", "h2 2025", "2024 h1", "What did Caroline do in August 2023?", "when did she go on 8 May, 2023",
		"Aug 14th, 2023", "the 14th of August, 2023", "the meeting on December 30", "on January 2", "on February 29",
		"the outage in December", "last March", "may I ask what you did", "they march on", "during 2025", "port 2096 and 3037",
		"yesterday's deploy", "what did I do today", "the day before yesterday", "this morning", "last night", "tonight", "tomorrow",
		"last week", "this week", "next month", "the past year", "two months ago", "3 days ago", "a few days ago", "a week ago",
		"in the past 10 days", "last 2 weeks", "last Friday", "on monday", "this sunday", "between March 2025 and yesterday",
		"last weekend", "over the weekend", "since sept", "early jun", "year 2024", "August of this year", "Sept 3", "3 of oct",
		"今天的会议", "去年8月的数据库备份策略", "今年一月五号", "前年十二月", "2023年8月14日", "2023年", "8月14日", "八月十四号",
		"昨天", "今早", "前晚", "明晚", "前天谁修了端口", "上周我们讨论了什么", "上个星期", "上周三", "上周日", "周一的事故", "上个月", "这个月", "去年",
		"上周末", "这个周末", "周末", "三个月前", "两周前", "5天前", "最近三天", "过去两周", "近一个月", "8月份", "星期五", "月底", "年初",
		"14-16 July", "July 14 to 16th, 2024", "7月14日到16日", "show me Monday", "on 7/14", "the 14th", "week 28", "第28周", "中旬", "Christmas Eve", "last Halloween", "Thanksgiving 2023", "new years day", "the fourth of july", "国庆节", "2023年五一", "去年平安夜", "十一长假", "春节", "除夕", "端午节", "中秋", "元宵节", "清明", "lunar new year", "dragon boat festival",
		"the past 24 hours", "last 24h", "past 48 hrs", "3 hours ago", "an hour ago", "2h ago", "过去24小时", "24小时内", "几个小时前", "半小时前",
	}
	for _, q := range queries {
		s := lexical.Normalize(q)
		cues := dateCues{s: s, digit: strings.ContainsAny(s, "0123456789"), cjk: lexical.HasCJK(s)}
		matched := false
		for i, r := range dateRules() {
			if r.re.MatchString(s) {
				matched = true
				if !r.need(cues) {
					t.Errorf("rule %d (%s) matches %q but does not need it", i, r.re, q)
				}
			}
		}
		if !matched && !strings.Contains(q, "may I") && !strings.Contains(q, "march on") && !strings.Contains(q, "port") {
			t.Errorf("no rule matches %q: the sample tests nothing", q)
		}
	}
}

// TestDayStart holds dayStart to parsing the local day in the engine's
// zone, which it stands in for, across zones with daylight saving and
// memories with and without an exact time.
func TestDayStart(t *testing.T) {
	chunks := []*memory.Chunk{
		{Time: "2026-03-08T09:30:00Z"}, {Time: "2026-03-29T00:30:00+01:00"}, {Time: "2025-12-31T23:59:59-10:00"},
		{Time: "2026-10-25T01:30:00+02:00"}, {Date: "2024-02-29"}, {Date: "2024-02-29", Time: "not a time"}, {},
		{Time: "9999-12-31T23:30:00Z"}, {Time: "0000-01-01T00:30:00+01:00"},
	}
	for _, zone := range []string{"UTC", "America/New_York", "Europe/Berlin", "Pacific/Kiritimati", "America/Sao_Paulo"} {
		loc, err := time.LoadLocation(zone)
		if err != nil {
			t.Skip(err)
		}
		e := New(Config{Location: loc}, lexical.NewAnalyzer())
		for _, c := range chunks {
			want, err := time.ParseInLocation(time.DateOnly, e.localDay(c), loc)
			got, ok := e.dayStart(c)
			if ok != (err == nil) || !got.Equal(want) || got.Location() != want.Location() {
				t.Errorf("%s %+v: dayStart = %v, %v; parsing the local day gives %v, %v", zone, c, got, ok, want, err)
			}
		}
	}
}

// TestLunarHolidays checks the generated table: one row a year to 2100,
// 春节 between 21 January and 20 February (it always is), 端午 in May or
// June and 中秋 in September or October.
func TestLunarHolidays(t *testing.T) {
	if n := lunarFirstYear + len(lunarHolidays) - 1; n != 2100 {
		t.Fatalf("the table ends in %d", n)
	}
	for i, h := range lunarHolidays {
		y := lunarFirstYear + i
		ny := time.Date(y, time.Month(h[0]), int(h[1]), 0, 0, 0, 0, time.UTC)
		if ny.Before(time.Date(y, 1, 21, 0, 0, 0, 0, time.UTC)) || ny.After(time.Date(y, 2, 20, 0, 0, 0, 0, time.UTC)) {
			t.Errorf("%d: 春节 on %s", y, ny.Format(time.DateOnly))
		}
		if h[2] != 5 && h[2] != 6 || h[4] != 9 && h[4] != 10 || h[3] < 1 || h[3] > 31 || h[5] < 1 || h[5] > 31 {
			t.Errorf("%d: %v", y, h)
		}
	}
}

// TestQingming checks the formula against the almanac's 清明 of recent
// years.
func TestQingming(t *testing.T) {
	for y, d := range map[int]int{1990: 5, 2000: 4, 2015: 5, 2016: 4, 2018: 5, 2020: 4, 2022: 5, 2024: 4, 2025: 4, 2026: 5, 2027: 5, 2028: 4} {
		if got, ok := qingming(y, time.UTC); !ok || got.Month() != time.April || got.Day() != d {
			t.Errorf("清明 %d: %v %v, want 4 April %d", y, got, ok, d)
		}
	}
}
