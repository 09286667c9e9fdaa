// Package suggest guesses which known name a misspelled one meant: a
// command, a flag, a subcommand, a source set. A guess far from what was
// typed would mislead more than it helps, so most words get none.
package suggest

import "strings"

// Nearest returns the one of names that word most likely misspells, or ""
// when none is close. Close is a prefix of the name, of three letters or
// more, that begins no other name ("instal" for install; "-t" begins
// --tag, --timeout and --top-k, and is no guess at any of them), or at
// most one edit away (two for words of five letters or more), a swap of
// neighbours counting as one ("snyc"). A flag's leading dashes are not
// letters typed. A word that is one of names is its own guess.
func Nearest(word string, names []string) string {
	typed := len([]rune(strings.TrimLeft(word, "-")))
	if typed == 0 {
		return ""
	}
	limit := 1
	if typed >= 5 {
		limit = 2
	}
	begins := 0
	for _, n := range names {
		if strings.HasPrefix(n, word) {
			begins++
		}
	}
	best, bestDist := "", limit+1
	for _, n := range names {
		d := editDistance(word, n)
		if typed >= 3 && begins == 1 && strings.HasPrefix(n, word) {
			d = min(d, 1)
		}
		if d < bestDist {
			best, bestDist = n, d
		}
	}
	return best
}

// editDistance is the optimal string alignment distance between a and b:
// insertions, deletions, substitutions and swaps of adjacent runes.
func editDistance(a, b string) int {
	s, t := []rune(a), []rune(b)
	d := make([][]int, len(s)+1)
	for i := range d {
		d[i] = make([]int, len(t)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(s); i++ {
		for j := 1; j <= len(t); j++ {
			cost := 1
			if s[i-1] == t[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && s[i-1] == t[j-2] && s[i-2] == t[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(s)][len(t)]
}
