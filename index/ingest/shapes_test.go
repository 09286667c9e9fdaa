package ingest

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-recall/nova/config"
)

// TestRead_agentShapes reads the fixtures that reproduce the line shapes
// of Codex 0.42 to 0.146 (and envelope-less rollouts before them) and of
// Claude Code 1.0 to 2.1, and checks every record and problem: each
// user and assistant message is kept, noise is dropped, titles and
// projects come from where each version puts them, and a shape the reader
// does not know is reported once.
func TestRead_agentShapes(t *testing.T) {
	tests := []struct {
		kind     string
		want     []string // file|line|role|project|title|text
		problems []string // file:line: substring
	}{
		{
			kind: config.KindCodex,
			want: []string{
				// 0.146: phase "output", world_state and inter-agent lines,
				// an encrypted compaction with an empty summary.
				`0.146|4|user|dns||Why do the TXT records for _acme-challenge not propagate?`,
				`0.146|10|assistant|dns||The zone has a CNAME on _acme-challenge, and a CNAME cannot coexist with TXT; delete the CNAME.`,
				`0.146|15|user|dns||done, thanks`,
				// 0.42: no phase, user_instructions scaffolding, the answer's
				// event_msg copy written before its response_item.
				`0.42|4|user|ledger||Strip the BOM before the header check.`,
				`0.42|14|assistant|ledger||The header check now strips a leading U+FEFF, so files saved by Excel import every row.\n[tool: shell bash -lc sed -n 1,40p src/csv.rs]\n[tool: apply_patch src/csv.rs]`,
				`0.42|17|assistant|ledger||The user asked to strip the BOM in the ledger CSV importer; the header check in src/csv.rs now trims U+FEFF.`,
				// 0.58: IDE context, content items of type "text", local
				// shell and web search calls, review mode, a compaction whose
				// replacement_history repeats what was read, an image.
				`0.58|3|user|atlas||Why is the tile cache never evicted?`,
				`0.58|9|assistant|atlas||The cache is created with ttl but no max, and lru-cache only evicts on size; add max: 500.\n[tool: shell rg -n evict src]\n[tool: web_search lru-cache maxSize ignored when ttl set]`,
				`0.58|13|assistant|atlas||Summary: the tile cache in src/map.ts needs max: 500.`,
				`0.58|14|user|atlas||ok add it\n[image]`,
				// 0.98: commentary and final_answer phases, a thread name that
				// titles what follows, a torn last line left unread.
				`0.98|4|user|payments||Make the webhook retry idempotent.`,
				`0.98|6|assistant|payments||I'll look at how retries reuse the delivery id first.`,
				`0.98|11|assistant|payments||Retries now reuse the original delivery_id and the consumer ignores ids it has already applied.\n[tool: exec_command rg -n delivery_id app/webhooks]`,
				`0.98|15|user|payments|Idempotent webhook retries|and add a test`,
				// Envelope-less: the project comes from the environment
				// context, the time from the session meta.
				`legacy|4|user|ledger||Why does the ledger import skip rows with a BOM?`,
				`legacy|9|assistant|ledger||The CSV reader compares the first header against "date" without stripping the UTF-8 BOM, so the header check fails and rows are skipped.\n[tool: shell bash -lc rg -n BOM src]`,
			},
			problems: []string{`0.146:17: event_msg type "hologram_update"`, `0.146:19: message role "critic"`},
		},
		{
			kind: config.KindClaudeCode,
			want: []string{
				// 1.0: whole replies on one line (the tool call on its own
				// text), a sidechain in the main file (its prompt is the
				// main agent's), a summary title.
				`1.0|2|user|blog|Static site build speedup|Why does hugo rebuild every page on one change?`,
				`1.0|3|assistant|blog|Static site build speedup|Let me check the config for a global partial cache.\n[tool: Read /home/kim/blog/config.toml]`,
				`1.0|5|assistant|blog|Static site build speedup|List every partial that uses .Site.Pages`,
				`1.0|6|assistant|blog|Static site build speedup|layouts/partials/sidebar.html ranges over .Site.Pages.`,
				`1.0|7|assistant|blog|Static site build speedup|The sidebar partial ranges over .Site.Pages, so every page depends on every other; wrap it in partialCached.`,
				// 2.0: one block per line, a line written twice, an API error,
				// a compact summary and a pasted image.
				`2.0|2|user|ops||Why did the nightly backup job stop at 02:00?`,
				`2.0|4|assistant|ops||Checking the timer unit.`,
				`2.0|7|assistant|ops||The timer has no next run: OnCalendar was removed in the last deploy, so the job never fires.\n[tool: Bash systemctl list-timers backup.timer]`,
				`2.0|11|user|ops||fix it please\n\n[image]`,
				// 2.1: attachments, progress, an AI title then the user's own.
				`2.1|1|user|shop||The checkout total is off by the shipping fee when a coupon applies.`,
				`2.1|5|assistant|shop|Coupon shipping total bug|Let me delegate a search for every place the total is computed.`,
				`2.1|8|assistant|shop|Coupon shipping total bug|applyCoupon subtracts the coupon after shipping is added, so the fee is discounted too; apply coupons to the subtotal.\n[tool: Agent Find total computations]`,
				`2.1|11|user|shop|coupon-vs-shipping|ship it`,
				// The sub-agent's own transcript, whose prompt is the main
				// agent's; tool-results/ is not read.
				`2.1|1|assistant|shop||Find every function computing the checkout total`,
				`2.1|4|assistant|shop||Only cart/total.ts:applyCoupon computes the total.\n[tool: Grep total]`,
			},
			problems: []string{`2.1:8: content block type "hologram"`, `2.1:13: line type "mood-ring"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.kind, func(t *testing.T) {
			root := filepath.Join("testdata", "shapes", tt.kind)
			recs, problems := collect(t, config.Source{Name: "s", Kind: tt.kind, Path: root})
			var got []string
			for _, r := range recs {
				version := strings.SplitN(strings.TrimPrefix(r.Path, root+"/"), "/", 2)[0]
				got = append(got, strings.Join([]string{version, fmt.Sprint(r.Line), r.Role, r.Project, r.Title, r.Text}, "|"))
				if r.Time.IsZero() || r.SessionID == "" || r.Layer != "dialogue" {
					t.Errorf("record %s: time %v session %q layer %q", r.ID, r.Time, r.SessionID, r.Layer)
				}
				if m := noiseLeak.FindString(r.Text); m != "" {
					t.Errorf("record %s: noise %q leaked", r.ID, m)
				}
			}
			want := make([]string, len(tt.want))
			for i, w := range tt.want {
				want[i] = strings.ReplaceAll(w, `\n`, "\n")
			}
			if strings.Join(got, "\n---\n") != strings.Join(want, "\n---\n") {
				t.Errorf("records:\n%s\n\nwant:\n%s", strings.Join(got, "\n---\n"), strings.Join(want, "\n---\n"))
			}
			if len(problems) != len(tt.problems) {
				t.Fatalf("problems %v, want %d", problems, len(tt.problems))
			}
			for i, p := range problems {
				version := strings.SplitN(strings.TrimPrefix(p.Path, root+"/"), "/", 2)[0]
				loc, what, _ := strings.Cut(tt.problems[i], ": ")
				if version+":"+fmt.Sprint(p.Line) != loc || !strings.Contains(p.Reason, what) || p.Source != "s" {
					t.Errorf("problem %d = %v, want %s", i, p, tt.problems[i])
				}
			}
		})
	}
}
