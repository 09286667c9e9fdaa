// Package truncate shortens text without ever cutting inside a UTF-8
// character: by terminal cells for what people read in a terminal (wide
// East Asian characters count two, escape sequences none), by characters
// where a limit is stated in characters (the search preview), and by bytes
// where a budget is in bytes (MCP text output).
package truncate

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Ellipsis marks where Width and Left cut.
const Ellipsis = "…"

// Width shortens s to at most w terminal cells, ending in Ellipsis when it
// cuts.
func Width(s string, w int) string { return ansi.Truncate(s, max(w, 0), Ellipsis) }

// Left shortens s to at most w terminal cells by dropping its start, so
// the end (a file name, say) stays; it begins with Ellipsis when it cuts.
func Left(s string, w int) string {
	excess := ansi.StringWidth(s) - max(w, 0)
	if excess <= 0 {
		return s
	}
	return ansi.TruncateLeft(s, excess+ansi.StringWidth(Ellipsis), Ellipsis)
}

// Runes returns the first n characters of s, with no marker.
func Runes(s string, n int) string {
	if n <= 0 {
		return ""
	}
	i := 0
	for count := 0; i < len(s); count++ {
		if count == n {
			return s[:i]
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s
}

// Bytes returns the longest prefix of s of at most n bytes that ends on a
// character boundary, with no marker.
func Bytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	n = max(n, 0)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Words returns the first n characters of s, cut back to the last space
// when one falls after the first half so that no word is split, with no
// marker.
func Words(s string, n int) string {
	if n <= 0 {
		return ""
	}
	cut := Runes(s, n)
	if len(cut) == len(s) {
		return s
	}
	rs := []rune(cut)
	for k := len(rs) - 1; k > n/2; k-- {
		if rs[k] == ' ' {
			return strings.TrimSpace(string(rs[:k]))
		}
	}
	return cut
}
