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
