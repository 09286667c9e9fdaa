package suggest

import "testing"

func TestNearest(t *testing.T) {
	verbs := []string{"build", "sync", "promote", "rollback", "list", "install"}
	flags := []string{"--tag", "--timeout", "--top-k", "--json"}
	for _, tt := range []struct {
		word  string
		names []string
		want  string
	}{
		{"snyc", verbs, "sync"},        // a swap is one edit
		{"instal", verbs, "install"},   // a prefix that begins one name
		{"promot", verbs, "promote"},   // one edit
		{"rolback", verbs, "rollback"}, // one edit
		{"bild", verbs, "build"},       // one edit in a short word
		{"xyz", verbs, ""},             // nothing close
		{"deploy", verbs, ""},          // a real word, no guess
		{"-t", flags, ""},              // begins three flags: no guess
		{"--jsn", flags, "--json"},     // dashes are not letters
		{"", verbs, ""},                // nothing typed
		{"lesons", []string{"lessons", "notes"}, "lessons"},
		{"notes", []string{"lessons", "notes"}, "notes"}, // its own guess
	} {
		if got := Nearest(tt.word, tt.names); got != tt.want {
			t.Errorf("Nearest(%q) = %q, want %q", tt.word, got, tt.want)
		}
	}
}
