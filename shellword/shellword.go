// Package shellword quotes words for a POSIX shell: the commands Nova
// prints for a person to paste, and the search command its skill tells
// an agent to run. One quoting for all of them, so that a path with a
// space or a quote in it pastes the same everywhere.
package shellword

import "strings"

// plain are the characters no POSIX shell treats specially inside a
// word (no expansion, globbing, splitting or redirection).
const plain = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:@%+,"

// Quote returns s as one shell word: as it is when every character is
// plain, else in single quotes (Single); the empty word is a pair of
// single quotes.
func Quote(s string) string {
	if s != "" && strings.Trim(s, plain) == "" {
		return s
	}
	return Single(s)
}

// Single returns s in single quotes, inside which nothing is special but
// the single quote itself, written '\”. A file whose format must not
// depend on the word (the skill's search command) uses it.
func Single(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
