package memory_test

import (
	"testing"

	"github.com/nova-recall/nova/memory"
)

func TestSaid(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"no tool calls", "Both callers pass the CSS size.", "Both callers pass the CSS size."},
		{"one call", "resize_image is called twice.\n[tool: exec_command rg -n resize_image]", "resize_image is called twice."},
		{"calls and more", "Done.\n\n[tool: Grep total cart]\n[tool: Read cart/total.ts]\n[tool: +3 more]", "Done."},
		{"a call quoted mid-text stays", "I ran\n[tool: Grep total]\nand found it.", "I ran\n[tool: Grep total]\nand found it."},
		{"tool calls only", "[tool: spawn_agent]\n[tool: exec_command ls]", "[tool: spawn_agent]\n[tool: exec_command ls]"},
		{"one tool call only", "[tool: spawn_agent]", "[tool: spawn_agent]"},
		{"empty", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := memory.Said(tc.text); got != tc.want {
				t.Errorf("Said(%q) = %q, want %q", tc.text, got, tc.want)
			}
		})
	}
}
