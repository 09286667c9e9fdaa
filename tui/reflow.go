package tui

import "strings"

// Reflow of Markdown paragraphs so that text wraps to the window.

// reflow joins the hard-wrapped lines of a paragraph so the text can be
// wrapped to the window, keeping blank lines, list items, headings, tables,
// indented lines and fenced code as they are.
func reflow(text string) string {
	lines := strings.Split(strings.TrimSpace(text), "\n")
	var b strings.Builder
	fenced := false
	for i, l := range lines {
		l = strings.TrimRight(l, " \t")
		trimmed := strings.TrimSpace(l)
		if strings.HasPrefix(trimmed, "```") {
			fenced = !fenced
		}
		if i > 0 {
			prev := strings.TrimSpace(lines[i-1])
			if fenced || trimmed == "" || prev == "" || keepsLine(l) || strings.HasPrefix(trimmed, "```") || endsBlock(prev) {
				b.WriteByte('\n')
			} else {
				b.WriteByte(' ')
				l = trimmed
			}
		}
		b.WriteString(l)
	}
	return b.String()
}

// endsBlock reports whether a line is a block on its own (a heading, a
// fence or a table row), so the next line starts anew.
func endsBlock(l string) bool {
	return strings.HasPrefix(l, "#") || strings.HasPrefix(l, "```") || strings.HasPrefix(l, "|")
}

// keepsLine reports whether a line starts a block of its own.
func keepsLine(l string) bool {
	if l != strings.TrimLeft(l, " \t") {
		return true
	}
	for _, p := range []string{"- ", "* ", "+ ", "#", "|", ">"} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	digits := len(l) - len(strings.TrimLeft(l, "0123456789"))
	return digits > 0 && digits < len(l) && (l[digits] == '.' || l[digits] == ')')
}
