package memory

import "strings"

// ToolSummaryPrefix begins the one-line summary of a tool call ("[tool:
// name arg]") that the transcript readers attach to the answer that
// follows the call, one line per call after the answer's words.
const ToolSummaryPrefix = "[tool: "

// Said returns text without the tool-call summaries at its end: the words
// of an answer, whichever calls came before it. Two copies of one answer
// differ only there when one of them was read where the calls were made
// (a Codex sub-agent's own rollout) and the other where the answer was
// received (its parent's). A text that is only tool calls says nothing of
// its own and is returned as it is.
func Said(text string) string {
	end := len(text)
	for {
		i := strings.LastIndexByte(text[:end], '\n')
		if !strings.HasPrefix(text[i+1:end], ToolSummaryPrefix) {
			if end == len(text) {
				return text // no tool calls
			}
			return strings.TrimRight(text[:end], " \t\r\n")
		}
		if i < 0 {
			return text // tool calls only
		}
		end = i
	}
}
