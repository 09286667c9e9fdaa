package tui

import "testing"

func TestEnviron(t *testing.T) {
	e := environ{"TERM=xterm", "NO_COLOR=1", "TERM=xterm-256color", "EMPTY="}
	for name, want := range map[string]string{"TERM": "xterm-256color", "NO_COLOR": "1", "EMPTY": "", "MISSING": ""} {
		if got := e.Getenv(name); got != want {
			t.Errorf("Getenv(%q) = %q, want %q", name, got, want)
		}
	}
	if len(e.Environ()) != 4 {
		t.Errorf("Environ() = %v", e.Environ())
	}
}
