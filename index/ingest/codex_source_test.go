package ingest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-recall/nova/config"
)

// codexSourceCase is a rollout built line by line from the shapes the
// openai/codex Rust source defines (each case names the file), and the
// records a read of it gives, role and text.
type codexSourceCase struct {
	name  string
	lines []string
	want  []string // "role: text"
}

// readCodexSource writes the rollout of tc into a temporary sessions
// directory and reads it as a Codex source.
func readCodexSource(t *testing.T, tc codexSourceCase) []string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "sessions", "2026", "10", "12")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	name := "rollout-2026-10-12T09-00-00-019db000-0195-7000-8000-000000000195.jsonl"
	if err := os.WriteFile(filepath.Join(dir, name), []byte(strings.Join(tc.lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	recs, problems := collect(t, config.Source{Name: "c", Kind: config.KindCodex, Path: filepath.Dir(filepath.Dir(filepath.Dir(dir)))})
	for _, p := range problems {
		t.Errorf("problem %s:%d: %s", p.Path, p.Line, p.Reason)
	}
	got := make([]string, 0, len(recs))
	for _, r := range recs {
		got = append(got, r.Role+": "+r.Text)
	}
	return got
}

const codexSourceMeta = `{"timestamp":"2026-10-12T09:00:00.000Z","type":"session_meta","payload":{"id":"019db000-0195-7000-8000-000000000195","timestamp":"2026-10-12T09:00:00.000Z","cwd":"/Users/ana/work/brand","originator":"codex_cli_rs","cli_version":"0.150.0","source":"cli","model_provider":"openai"}}`

func TestReadCodexFile_sourceShapes(t *testing.T) {
	tests := []codexSourceCase{
		{
			// codex-rs/protocol/src/models.rs (ResponseInputItem::from_user_input,
			// local_image_content_items_with_label_number): a local image Codex
			// cannot attach is replaced in the prompt by a text item,
			// local_image_error_placeholder ("Codex could not read the local
			// image at `path`: error"), invalid_image_error_placeholder ("Image
			// located at `path` is invalid: error") or
			// unsupported_image_error_placeholder ("Codex cannot attach image at
			// `path`: unsupported image `mime`."); the user_message event
			// (codex-rs/protocol/src/protocol.rs UserMessageEvent) has the
			// prompt and the path in local_images.
			name: "local images Codex could not attach",
			lines: []string{
				codexSourceMeta,
				`{"timestamp":"2026-10-12T09:01:00.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Codex could not read the local image at ` + "`/Users/ana/Desktop/logo.png`" + `: No such file or directory (os error 2)"},{"type":"input_text","text":"[Image #1] why does the logo look blurry in the header?"}]}}`,
				`{"timestamp":"2026-10-12T09:01:00.001Z","type":"event_msg","payload":{"type":"user_message","message":"[Image #1] why does the logo look blurry in the header?","images":[],"local_images":["/Users/ana/Desktop/logo.png"],"text_elements":[]}}`,
				`{"timestamp":"2026-10-12T09:01:10.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"The header scales a 64px logo to 128px; export it at 2x."}],"phase":"final_answer"}}`,
				`{"timestamp":"2026-10-12T09:01:10.001Z","type":"event_msg","payload":{"type":"agent_message","message":"The header scales a 64px logo to 128px; export it at 2x.","phase":"final_answer"}}`,
				`{"timestamp":"2026-10-12T09:02:00.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Image located at ` + "`/Users/ana/Desktop/broken.png`" + ` is invalid: image format error: invalid PNG signature"},{"type":"input_text","text":"Codex cannot attach image at ` + "`/Users/ana/Desktop/icon.svg`" + `: unsupported image ` + "`image/svg+xml`" + `."},{"type":"input_text","text":"and these two?"}]}}`,
				`{"timestamp":"2026-10-12T09:02:00.001Z","type":"event_msg","payload":{"type":"user_message","message":"and these two?","images":[],"local_images":["/Users/ana/Desktop/broken.png","/Users/ana/Desktop/icon.svg"],"text_elements":[]}}`,
				`{"timestamp":"2026-10-12T09:02:10.000Z","type":"event_msg","payload":{"type":"agent_message","message":"Neither file reached me: re-export broken.png.","phase":"final_answer"}}`,
				`{"timestamp":"2026-10-12T09:02:10.001Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Neither file reached me: re-export broken.png."}],"phase":"final_answer"}}`,
			},
			want: []string{
				"user: [image] why does the logo look blurry in the header?",
				"assistant: The header scales a 64px logo to 128px; export it at 2x.",
				"user: [image]\n[image]\nand these two?",
				"assistant: Neither file reached me: re-export broken.png.",
			},
		},
		{
			// codex-rs/core/src/tasks/review.rs (start_review_conversation:
			// run_codex_thread_one_shot with SubAgentSource::Review) and
			// codex-rs/protocol/src/protocol.rs (SessionSource, SubAgentSource):
			// a /review runs in a thread of its own, recorded beside the
			// user's with the source {"subagent":"review"}; its prompt is the
			// one Codex writes for the reviewer (codex-rs/core/src/review_prompts.rs)
			// and its answer the findings as JSON, which the parent's
			// entered_review_mode and exited_review_mode already give.
			name: "review sub-agent thread",
			lines: []string{
				`{"timestamp":"2026-10-12T09:00:00.000Z","type":"session_meta","payload":{"id":"019db000-0195-7000-8000-000000000195","forked_from_id":"019db000-0194-7000-8000-000000000194","timestamp":"2026-10-12T09:00:00.000Z","cwd":"/Users/ana/work/brand","originator":"codex_cli_rs","cli_version":"0.150.0","source":{"subagent":"review"},"thread_source":"subagent","model_provider":"openai"}}`,
				`{"timestamp":"2026-10-12T09:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Review the current code changes (staged, unstaged, and untracked files) and provide prioritized findings."}]}}`,
				`{"timestamp":"2026-10-12T09:00:01.001Z","type":"event_msg","payload":{"type":"user_message","message":"Review the current code changes (staged, unstaged, and untracked files) and provide prioritized findings.","images":[],"local_images":[],"text_elements":[]}}`,
				`{"timestamp":"2026-10-12T09:00:30.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"{\"findings\":[{\"title\":\"[P1] Logo scaled past its size\",\"body\":\"The header scales the 64px logo to 128px.\",\"confidence_score\":0.8,\"priority\":1,\"code_location\":{\"absolute_file_path\":\"/Users/ana/work/brand/header.css\",\"line_range\":{\"start\":10,\"end\":12}}}],\"overall_correctness\":\"patch is incorrect\",\"overall_explanation\":\"The logo is blurry.\",\"overall_confidence_score\":0.8}"}],"phase":"final_answer"}}`,
				`{"timestamp":"2026-10-12T09:00:30.001Z","type":"event_msg","payload":{"type":"agent_message","message":"{\"findings\":[{\"title\":\"[P1] Logo scaled past its size\",\"body\":\"The header scales the 64px logo to 128px.\",\"confidence_score\":0.8,\"priority\":1,\"code_location\":{\"absolute_file_path\":\"/Users/ana/work/brand/header.css\",\"line_range\":{\"start\":10,\"end\":12}}}],\"overall_correctness\":\"patch is incorrect\",\"overall_explanation\":\"The logo is blurry.\",\"overall_confidence_score\":0.8}","phase":"final_answer"}}`,
			},
			want: nil,
		},
		{
			// codex-rs/core/src/tasks/review.rs (process_review_events): the
			// events of the reviewer's thread are sent on to the thread that
			// asked for the review ("other => session.send_event"), and
			// codex-rs/core/src/rollout/policy.rs (should_persist_event_msg)
			// records its UserMessage there: the prompt Codex wrote for the
			// reviewer (codex-rs/core/src/review_prompts.rs), between
			// entered_review_mode and exited_review_mode, with no response
			// item of it. The reviewer's progress messages are the
			// assistant's, as the parent shows them.
			name: "review prompt sent on from the reviewer's thread",
			lines: []string{
				codexSourceMeta,
				`{"timestamp":"2026-10-12T09:00:02.000Z","type":"event_msg","payload":{"type":"entered_review_mode","target":{"type":"uncommittedChanges"},"user_facing_hint":"current changes"}}`,
				`{"timestamp":"2026-10-12T09:00:03.000Z","type":"event_msg","payload":{"type":"user_message","message":"Review the current code changes (staged, unstaged, and untracked files) and provide prioritized findings.","images":[],"local_images":[],"text_elements":[]}}`,
				`{"timestamp":"2026-10-12T09:00:10.000Z","type":"event_msg","payload":{"type":"agent_message","message":"Checking how header.css sizes the logo.","phase":"commentary"}}`,
				`{"timestamp":"2026-10-12T09:00:20.000Z","type":"event_msg","payload":{"type":"token_count","info":null,"rate_limits":null}}`,
				`{"timestamp":"2026-10-12T09:01:30.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<user_action>\n  <context>User initiated a review task. Here's the full review output from reviewer model. User may select one or more comments to resolve.</context>\n  <action>review</action>\n  <results>\nThe logo is blurry.\n  </results>\n</user_action>"}]}}`,
				`{"timestamp":"2026-10-12T09:01:30.001Z","type":"event_msg","payload":{"type":"exited_review_mode","review_output":{"findings":[],"overall_correctness":"patch is incorrect","overall_explanation":"The logo is blurry.","overall_confidence_score":0.8}}}`,
				`{"timestamp":"2026-10-12T09:01:30.002Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"The logo is blurry."}]}}`,
				`{"timestamp":"2026-10-12T09:02:00.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"fix it"}]}}`,
				`{"timestamp":"2026-10-12T09:02:00.001Z","type":"event_msg","payload":{"type":"user_message","message":"fix it","images":[],"local_images":[],"text_elements":[]}}`,
			},
			want: []string{
				"user: /review current changes",
				"assistant: Checking how header.css sizes the logo.",
				"assistant: The logo is blurry.",
				"user: fix it",
			},
		},
		{
			// As above, with Codex stopped mid-review: no exited_review_mode
			// is written, and the next prompt (a response item and its
			// user_message event) is the user's again.
			name: "review cut short",
			lines: []string{
				codexSourceMeta,
				`{"timestamp":"2026-10-12T09:00:02.000Z","type":"event_msg","payload":{"type":"entered_review_mode","target":{"type":"uncommittedChanges"},"user_facing_hint":"current changes"}}`,
				`{"timestamp":"2026-10-12T09:00:03.000Z","type":"event_msg","payload":{"type":"user_message","message":"Review the current code changes (staged, unstaged, and untracked files) and provide prioritized findings.","images":[],"local_images":[],"text_elements":[]}}`,
				`{"timestamp":"2026-10-13T10:00:00.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"where were we?"}]}}`,
				`{"timestamp":"2026-10-13T10:00:00.001Z","type":"event_msg","payload":{"type":"user_message","message":"where were we?","images":[],"local_images":[],"text_elements":[]}}`,
				`{"timestamp":"2026-10-13T10:00:09.000Z","type":"event_msg","payload":{"type":"user_message","message":"and after that?","images":[],"local_images":[],"text_elements":[]}}`,
			},
			want: []string{
				"user: /review current changes",
				"user: where were we?",
				"user: and after that?",
			},
		},
		{
			// codex-rs/protocol/src/models.rs (ResponseInputItem::from_user_input,
			// local_audio_content_items, local_media_error_placeholder,
			// unsupported_audio_error_placeholder): a local audio file the
			// user attaches is an input_audio item between the text items
			// "<audio name=[Audio #1] path=...>" and "</audio>", or, when
			// Codex cannot attach it, a text item in its place ("Codex could
			// not read the local audio at `path`: error", "Codex cannot attach
			// audio at `path`: unsupported audio format; ...").
			name: "local audio",
			lines: []string{
				codexSourceMeta,
				`{"timestamp":"2026-10-12T09:01:00.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<audio name=[Audio #1] path=\"/Users/ana/Desktop/standup.wav\">"},{"type":"input_audio","audio_url":"data:audio/wav;base64,UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA="},{"type":"input_text","text":"</audio>"},{"type":"input_text","text":"list the action items from this standup"}]}}`,
				`{"timestamp":"2026-10-12T09:01:00.001Z","type":"event_msg","payload":{"type":"user_message","message":"list the action items from this standup","images":[],"local_images":[],"text_elements":[]}}`,
				`{"timestamp":"2026-10-12T09:01:10.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Ana ships the logo fix; Bo reviews the header."}],"phase":"final_answer"}}`,
				`{"timestamp":"2026-10-12T09:02:00.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Codex cannot attach audio at ` + "`/Users/ana/Desktop/retro.flac`" + `: unsupported audio format; use wav, mp3, m4a, webm, or ogg."},{"type":"input_text","text":"Codex could not read the local audio at ` + "`/Users/ana/Desktop/gone.wav`" + `: No such file or directory (os error 2)"},{"type":"input_text","text":"and these?"}]}}`,
				`{"timestamp":"2026-10-12T09:02:00.001Z","type":"event_msg","payload":{"type":"user_message","message":"and these?","images":[],"local_images":[],"text_elements":[]}}`,
			},
			want: []string{
				"user: [audio]\nlist the action items from this standup",
				"assistant: Ana ships the logo fix; Bo reviews the header.",
				"user: [audio]\n[audio]\nand these?",
			},
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
