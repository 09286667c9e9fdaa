package search

import (
	"slices"
	"testing"
)

func TestNamedPeople_fullAndGivenNames(t *testing.T) {
	agents := []string{"周雨桐", "许航", "欧阳娜娜", "Melanie Ruiz", "Caroline", "Al"}
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"周雨桐的老家在哪里", []string{"周雨桐"}},
		{"雨桐的老家在哪里", []string{"周雨桐"}},
		{"许航现在在哪个组", []string{"许航"}},
		// A one-character given name (航) is too ambiguous.
		{"航班几点起飞", nil},
		{"娜娜养了什么猫", []string{"欧阳娜娜"}},
		{"what did melanie paint", []string{"Melanie Ruiz"}},
		{"what did melanie ruiz paint", []string{"Melanie Ruiz"}},
		// An English name written into a Chinese question with no space.
		{"Melanie画了什么", []string{"Melanie Ruiz"}},
		{"上次Caroline住在哪里", []string{"Caroline"}},
		{"Melanie Ruiz的画", []string{"Melanie Ruiz"}},
		{"where does caroline live", []string{"Caroline"}},
		// Whole words only, and names of three letters or more.
		{"ruizhou's plans", nil},
		{"al went home", nil},
	} {
		got := namedPeople(agents, tc.query)
		if !slices.Equal(got, tc.want) {
			t.Errorf("namedPeople(%q) = %q, want %q", tc.query, got, tc.want)
		}
	}
}

// TestNamedPeople_namesThatAreWords: a name that is also an everyday word
// ("Will", "May", "Art") names its bearer only where the word cannot be
// meant: written with a capital inside a sentence, or as a possessive.
// "will the deploy fail" gave a prior for Will's memories.
func TestNamedPeople_namesThatAreWords(t *testing.T) {
	agents := []string{"Will", "May Chen", "Art", "Caroline"}
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"will the deploy fail tonight", nil},
		{"Will the deploy fail tonight?", nil},
		{"what may have broken the build", nil},
		{"is this state of the art", nil},
		{"What did Will say about the deploy?", []string{"Will"}},
		{"Will's notes on the deploy", []string{"Will"}},
		{"will’s notes on the deploy", []string{"Will"}},
		{"When did May adopt the cat?", []string{"May Chen"}},
		{"what did may chen adopt", []string{"May Chen"}},
		{"the deploy, Art said, was fine", []string{"Art"}},
		{"WHAT DID ART SAY", []string{"Art"}},
		// A title-case query capitalises every word: May is the month
		// there as in lower case, and a name not a word still names.
		{"What Did We Plan For May?", nil},
		{"What Did May Chen Adopt", []string{"May Chen"}},
		{"Caroline's move", []string{"Caroline"}},
		// Written into a Chinese sentence, after its first word.
		{"昨天Will说了什么", []string{"Will"}},
		{"昨天will不来", nil},
		{"caroline’s move", []string{"Caroline"}},
	} {
		got := namedPeople(agents, tc.query)
		if !slices.Equal(got, tc.want) {
			t.Errorf("namedPeople(%q) = %q, want %q", tc.query, got, tc.want)
		}
	}
}

// TestNamedPeople_agentNamesAsWritten: an agent whose name joins words
// with a hyphen (claude-code) is named as people write it, with a space.
func TestNamedPeople_agentNamesAsWritten(t *testing.T) {
	agents := []string{"claude-code", "codex", "claw_laptop"}
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"What did Claude Code decide about the port?", []string{"claude-code"}},
		{"claude-code's notes on the deploy", []string{"claude-code"}},
		{"the claw laptop transcript", []string{"claw_laptop"}},
		{"what did codex change", []string{"codex"}},
		{"claude wrote code", nil},
	} {
		if got := namedPeople(agents, tc.query); !slices.Equal(got, tc.want) {
			t.Errorf("namedPeople(%q) = %q, want %q", tc.query, got, tc.want)
		}
	}
}
