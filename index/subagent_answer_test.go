package index_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/paths"
	"github.com/nova-recall/nova/search"
)

// searchTexts runs query through the search engine over home's active
// generation and returns the results' full texts, best first.
func searchTexts(t testing.TB, home paths.Home, query string) []string {
	t.Helper()
	_, g := active(t, home)
	engine := search.New(search.Config{Now: func() time.Time { return epoch }}, lexical.NewAnalyzer())
	r, err := engine.Search(context.Background(), &search.Snapshot{Gen: g, Query: g.Model}, api.SearchRequest{Query: query, TopK: 10, IncludeFullText: true})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, x := range r.Results {
		out = append(out, api.StringOr(x.Text, x.TextPreview))
	}
	return out
}

// countHolding counts the texts that hold s.
func countHolding(texts []string, s string) int {
	n := 0
	for _, text := range texts {
		if strings.Contains(text, s) {
			n++
		}
	}
	return n
}

// TestSearch_claudeSubAgentAnswer: a Claude Code sub-agent's answer is in
// its sidechain file (subagents/agent-<id>.jsonl) and, as the Task tool's
// result, in the main session's file. Through a real sync and a real
// search, a user looking for it finds it once.
func TestSearch_claudeSubAgentAnswer(t *testing.T) {
	const (
		session = "44444444-2100-4000-8000-000000000044"
		answer  = "Only cart/total.ts applyCoupon computes the checkout total, and it rounds each line first."
	)
	head := `{"parentUuid":null,"cwd":"/home/rui/shop","sessionId":"` + session + `","version":"2.1.97","entrypoint":"cli",`
	main := head + `"isSidechain":false,"type":"user","message":{"role":"user","content":"Why is the checkout total off by a cent?"},"uuid":"m1","timestamp":"2026-04-02T09:00:00.000Z"}
` + head + `"isSidechain":false,"type":"assistant","message":{"id":"msg_M1","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[{"type":"tool_use","id":"toolu_T1","name":"Task","input":{"description":"Find total","prompt":"Find every function computing the checkout total","subagent_type":"Explore"}}]},"uuid":"m2","timestamp":"2026-04-02T09:00:02.000Z"}
` + head + `"isSidechain":false,"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_T1","content":[{"type":"text","text":"` + answer + `"},{"type":"text","text":"agentId: e1 (for resuming to continue this agent's work if needed)"}]}]},"toolUseResult":{"status":"completed","agentId":"e1","content":[{"type":"text","text":"` + answer + `"}]},"uuid":"m3","timestamp":"2026-04-02T09:00:30.000Z"}
` + head + `"isSidechain":false,"type":"assistant","message":{"id":"msg_M2","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[{"type":"text","text":"Round once, at the end, in applyCoupon."}]},"uuid":"m4","timestamp":"2026-04-02T09:00:40.000Z"}
`
	side := head + `"isSidechain":true,"agentId":"e1","type":"user","message":{"role":"user","content":"Find every function computing the checkout total"},"uuid":"s1","timestamp":"2026-04-02T09:00:05.000Z"}
` + head + `"isSidechain":true,"agentId":"e1","type":"assistant","message":{"id":"msg_S1","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[{"type":"tool_use","id":"toolu_S1","name":"Grep","input":{"pattern":"total","path":"cart"}}]},"uuid":"s2","timestamp":"2026-04-02T09:00:06.000Z"}
` + head + `"isSidechain":true,"agentId":"e1","type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_S1","content":"cart/total.ts"}]},"uuid":"s3","timestamp":"2026-04-02T09:00:07.000Z"}
` + head + `"isSidechain":true,"agentId":"e1","type":"assistant","message":{"id":"msg_S2","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[{"type":"text","text":"` + answer + `"}]},"uuid":"s4","timestamp":"2026-04-02T09:00:20.000Z"}
`
	for _, tc := range []struct {
		name     string
		sidePath string
	}{
		{name: "subagents folder (2.x)", sidePath: filepath.Join(session, "subagents", "agent-e1.jsonl")},
		{name: "agent file beside the session (1.x)", sidePath: "agent-e1.jsonl"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			project := filepath.Join(dir, "projects", "-home-rui-shop")
			writeFile(t, filepath.Join(project, session+".jsonl"), main)
			writeFile(t, filepath.Join(project, tc.sidePath), side)
			cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "claude", Kind: config.KindClaudeCode, Path: filepath.Join(dir, "projects")})
			mustSync(t, index.New(cfg, index.Options{NoRemote: true, Now: newClock(epoch).Now}))
			got := searchTexts(t, cfg.Home, "applyCoupon checkout total rounds each line")
			if n := countHolding(got, answer); n != 1 {
				t.Errorf("the sub-agent's answer is in %d results, want 1: %q", n, got)
			}
		})
	}
}
