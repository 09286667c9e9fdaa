package ingest

import (
	"strings"
	"testing"
)

// codexPaginatedMeta opens a rollout Codex writes in its paginated
// history mode (session_meta history_mode "paginated", every line
// numbered by its ordinal).
const codexPaginatedMeta = `{"timestamp":"2026-10-12T09:00:00.000Z","ordinal":0,"type":"session_meta","payload":{"id":"019db000-0195-7000-8000-000000000195","timestamp":"2026-10-12T09:00:00.000Z","cwd":"/Users/ana/work/brand","originator":"codex-tui","cli_version":"0.154.0","source":"cli","thread_source":"user","model_provider":"openai","history_mode":"paginated"}}`

// The review's item_completed lines below are shaped as codex-rs writes
// them: codex-rs/rollout/src/policy.rs (should_persist_event_msg) keeps
// ItemCompleted in a paginated rollout and drops the legacy
// entered_review_mode and exited_review_mode events there;
// codex-rs/core/src/tasks/review.rs emits TurnItem::EnteredReviewMode
// and, from exit_review_mode, TurnItem::ExitedReviewMode; and
// codex-rs/protocol/src/items.rs tags a TurnItem by its variant's name
// ("type":"EnteredReviewMode") over the fields of EnteredReviewModeItem
// (id, target, user_facing_hint) and ExitedReviewModeItem (id,
// review_output).
const (
	codexReviewEnteredItem = `{"timestamp":"2026-10-12T09:00:02.000Z","ordinal":3,"type":"event_msg","payload":{"type":"item_completed","thread_id":"019db000-0195-7000-8000-000000000195","turn_id":"019db000-0200-7000-8000-000000000001","item":{"type":"EnteredReviewMode","id":"019db000-0201-7000-8000-000000000001","target":{"type":"uncommittedChanges"},"user_facing_hint":"current changes"},"started_at_ms":1791795602000,"completed_at_ms":1791795602000}}`
	codexReviewExitedItem  = `{"timestamp":"2026-10-12T09:01:30.001Z","ordinal":8,"type":"event_msg","payload":{"type":"item_completed","thread_id":"019db000-0195-7000-8000-000000000195","turn_id":"019db000-0200-7000-8000-000000000001","item":{"type":"ExitedReviewMode","id":"019db000-0202-7000-8000-000000000001","review_output":{"findings":[{"title":"[P1] Logo scaled past its size","body":"The header scales the 64px logo to 128px.","confidence_score":0.8,"priority":1,"code_location":{"absolute_file_path":"/Users/ana/work/brand/header.css","line_range":{"start":10,"end":12}}}],"overall_correctness":"patch is incorrect","overall_explanation":"The logo is blurry.","overall_confidence_score":0.8}},"started_at_ms":1791795690001,"completed_at_ms":1791795690001}}`
)

func TestReadCodexFile_paginatedReview(t *testing.T) {
	findings := "assistant: The logo is blurry.\n\nReview comment:\n\n- [P1] Logo scaled past its size — /Users/ana/work/brand/header.css:10-12\n  The header scales the 64px logo to 128px."
	// The reviewer's prompt, sent on from its thread as a UserMessage
	// item (codex-rs/core/src/tasks/review.rs, process_review_events),
	// and the scaffolding that hands the findings to the model.
	reviewerPrompt := `{"timestamp":"2026-10-12T09:00:03.000Z","ordinal":4,"type":"event_msg","payload":{"type":"item_completed","thread_id":"019db000-0195-7000-8000-000000000195","turn_id":"019db000-0200-7000-8000-000000000001","item":{"type":"UserMessage","id":"019db000-0203-7000-8000-000000000001","content":[{"type":"text","text":"Review the current code changes (staged, unstaged, and untracked files) and provide prioritized findings.","text_elements":[]}]},"started_at_ms":1791795603000,"completed_at_ms":1791795603000}}`
	userAction := `{"timestamp":"2026-10-12T09:01:30.000Z","ordinal":7,"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<user_action>\n  <context>User initiated a review task. Here's the full review output from reviewer model. User may select one or more comments to resolve.</context>\n  <action>review</action>\n  <results>\nThe logo is blurry.\n  </results>\n</user_action>"}]}}`
	// exit_review_mode records the findings rendered for the model as an
	// assistant message and emits its AgentMessage item.
	rendered := `{"timestamp":"2026-10-12T09:01:30.002Z","ordinal":9,"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"The logo is blurry.\n\n[P1] Logo scaled past its size"}]}}`
	renderedItem := `{"timestamp":"2026-10-12T09:01:30.003Z","ordinal":10,"type":"event_msg","payload":{"type":"item_completed","thread_id":"019db000-0195-7000-8000-000000000195","turn_id":"019db000-0200-7000-8000-000000000001","item":{"type":"AgentMessage","id":"019db000-0204-7000-8000-000000000001","content":[{"type":"Text","text":"The logo is blurry.\n\n[P1] Logo scaled past its size"}]},"started_at_ms":1791795690003,"completed_at_ms":1791795690003}}`
	fixIt := []string{
		`{"timestamp":"2026-10-12T09:02:00.000Z","ordinal":11,"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"fix it"}]}}`,
		`{"timestamp":"2026-10-12T09:02:00.001Z","ordinal":12,"type":"event_msg","payload":{"type":"item_completed","thread_id":"019db000-0195-7000-8000-000000000195","turn_id":"019db000-0200-7000-8000-000000000002","item":{"type":"UserMessage","id":"019db000-0205-7000-8000-000000000001","content":[{"type":"text","text":"fix it","text_elements":[]}]},"started_at_ms":1791795720001,"completed_at_ms":1791795720001}}`,
	}
	turnStarted := `{"timestamp":"2026-10-12T09:00:01.000Z","ordinal":2,"type":"event_msg","payload":{"type":"turn_started","turn_id":"019db000-0200-7000-8000-000000000001","started_at":1791795601,"model_context_window":272000,"collaboration_mode_kind":"default"}}`
	tests := []codexSourceCase{
		{
			name: "paginated",
			lines: append([]string{codexPaginatedMeta, turnStarted, codexReviewEnteredItem, reviewerPrompt, userAction,
				codexReviewExitedItem, rendered, renderedItem}, fixIt...),
			want: []string{"user: /review current changes", findings, "user: fix it"},
		},
		{
			// A custom review's hint is the user's own instructions.
			name: "custom target",
			lines: []string{codexPaginatedMeta,
				strings.Replace(strings.Replace(codexReviewEnteredItem, `{"type":"uncommittedChanges"}`, `{"type":"custom","instructions":"check the header's logo sizing"}`, 1),
					`"user_facing_hint":"current changes"`, `"user_facing_hint":"check the header's logo sizing"`, 1)},
			want: []string{"user: /review check the header's logo sizing"},
		},
		{
			// An interrupted review exits with no output
			// (review_output null): nothing to keep, and the next prompt
			// is the user's.
			name: "interrupted",
			lines: append([]string{codexPaginatedMeta, codexReviewEnteredItem, reviewerPrompt,
				`{"timestamp":"2026-10-12T09:01:30.001Z","ordinal":8,"type":"event_msg","payload":{"type":"item_completed","thread_id":"019db000-0195-7000-8000-000000000195","turn_id":"019db000-0200-7000-8000-000000000001","item":{"type":"ExitedReviewMode","id":"019db000-0202-7000-8000-000000000001","review_output":null},"started_at_ms":1791795690001,"completed_at_ms":1791795690001}}`,
				`{"timestamp":"2026-10-12T09:01:30.002Z","ordinal":9,"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Review was interrupted. Please re-run /review and wait for it to complete."}]}}`,
			}, fixIt...),
			want: []string{"user: /review current changes", "assistant: Review was interrupted. Please re-run /review and wait for it to complete.", "user: fix it"},
		},
		{
			// A rollout that holds both forms (the item, then the legacy
			// event Codex derives from it, which names the item:
			// codex-rs/core/tests/suite/review.rs) gives each once.
			name: "both forms",
			lines: append([]string{codexPaginatedMeta, turnStarted, codexReviewEnteredItem,
				`{"timestamp":"2026-10-12T09:00:02.001Z","ordinal":4,"type":"event_msg","payload":{"type":"entered_review_mode","target":{"type":"uncommittedChanges"},"user_facing_hint":"current changes","turn_id":"019db000-0200-7000-8000-000000000001","item_id":"019db000-0201-7000-8000-000000000001"}}`,
				userAction, codexReviewExitedItem,
				`{"timestamp":"2026-10-12T09:01:30.002Z","ordinal":9,"type":"event_msg","payload":{"type":"exited_review_mode","review_output":{"findings":[{"title":"[P1] Logo scaled past its size","body":"The header scales the 64px logo to 128px.","confidence_score":0.8,"priority":1,"code_location":{"absolute_file_path":"/Users/ana/work/brand/header.css","line_range":{"start":10,"end":12}}}],"overall_correctness":"patch is incorrect","overall_explanation":"The logo is blurry.","overall_confidence_score":0.8},"turn_id":"019db000-0200-7000-8000-000000000001","item_id":"019db000-0202-7000-8000-000000000001"}}`,
				rendered}, fixIt...),
			want: []string{"user: /review current changes", findings, "user: fix it"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := readCodexSource(t, tc)
			if strings.Join(got, "\n--\n") != strings.Join(tc.want, "\n--\n") {
				t.Errorf("records:\n%s\nwant:\n%s", strings.Join(got, "\n--\n"), strings.Join(tc.want, "\n--\n"))
			}
		})
	}
}
