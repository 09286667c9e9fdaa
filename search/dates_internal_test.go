package search

import (
	"strings"
	"testing"

	"github.com/nova-recall/nova/lexical"
)

// TestDateRuleNeeds checks that a rule's need holds of every query its
// expression matches in: a need that did not would drop a date.
func TestDateRuleNeeds(t *testing.T) {
	queries := []string{
		"what broke on 2023-08-14?", "deploy 2025/12/3", "What did Caroline do in August 2023?", "when did she go on 8 May, 2023",
		"Aug 14th, 2023", "the 14th of August, 2023", "the meeting on December 30", "on January 2", "on February 29",
		"the outage in December", "last March", "may I ask what you did", "they march on", "during 2025", "port 2096 and 3037",
		"yesterday's deploy", "what did I do today", "the day before yesterday", "this morning", "last night", "tonight", "tomorrow",
		"last week", "this week", "next month", "the past year", "two months ago", "3 days ago", "a few days ago", "a week ago",
		"in the past 10 days", "last 2 weeks", "last Friday", "on monday", "this sunday", "between March 2025 and yesterday",
		"since sept", "early jun", "year 2024", "August of this year", "Sept 3", "3 of oct",
		"今天的会议", "去年8月的数据库备份策略", "今年一月五号", "前年十二月", "2023年8月14日", "2023年", "8月14日", "八月十四号",
		"昨天", "前天谁修了端口", "上周我们讨论了什么", "上个星期", "上周三", "上周日", "周一的事故", "上个月", "这个月", "去年",
		"三个月前", "两周前", "5天前", "最近三天", "过去两周", "近一个月", "8月份", "星期五",
	}
	for _, q := range queries {
		s := lexical.Normalize(q)
		cues := dateCues{s: s, digit: strings.ContainsAny(s, "0123456789"), cjk: lexical.HasCJK(s)}
		matched := false
		for i, r := range dateRules {
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
