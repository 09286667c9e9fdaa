package redact

// Secrets in Markdown tables (see Text).

import "strings"

// tableSpans adds the cells of Markdown tables that hold a secret: those
// under a header that names one (| User | Password |) and those after a
// row's first cell that names one (| DB_PASSWORD | value |), when the
// header, if any, says that column holds values (not | Flag | Type |).
// Only rows that open with '|' count.
func tableSpans(text string, out []span) []span {
	if strings.IndexByte(text, '|') < 0 {
		return out
	}
	var secretColumns []bool // the current table's, by column; nil outside one
	valueColumn := true      // whether the second column holds values
	for start := 0; start < len(text); {
		end := len(text)
		if nl := strings.IndexByte(text[start:], '\n'); nl >= 0 {
			end = start + nl
		}
		next := min(end+1, len(text))
		cells := tableCells(text, start, end)
		switch {
		case cells == nil:
			secretColumns, valueColumn = nil, true
		case delimiterRow(text, cells):
		case secretColumns == nil && next < len(text) && delimiterRow(text, tableCells(text, next, lineEnd(text, next))):
			// A header: the columns whose name names a secret.
			secretColumns = make([]bool, len(cells))
			for i, c := range cells {
				name, _ := cellValue(text, c)
				secretColumns[i] = secretName(strings.ReplaceAll(name, " ", "_"))
				if i == 1 {
					valueColumn = strings.HasPrefix(strings.ToLower(name), "value")
				}
			}
		default:
			for i, c := range cells {
				under := i < len(secretColumns) && secretColumns[i]
				beside := false
				if i == 1 && valueColumn {
					name, _ := cellValue(text, cells[0])
					beside = !strings.HasPrefix(name, "-") && secretName(name)
				}
				if !under && !beside {
					continue
				}
				v, quoted := cellValue(text, c)
				if tableSecret(v, quoted) {
					at := strings.Index(text[c.start:c.end], v)
					out = append(out, span{c.start + at, c.start + at + len(v)})
				}
			}
		}
		start = next
		if end == len(text) {
			break
		}
	}
	return out
}

// NameValueRow reports whether row, one Markdown table row, names a
// secret and then gives it (| DB_PASSWORD | Tr0ub4dor3x |): a reader
// that writes a table (an HTML note's) makes a first row so no header,
// so that redaction reads its value as the one beside a secret's name.
func NameValueRow(row string) bool {
	cells := tableCells(row, 0, len(row))
	if len(cells) != 2 {
		return false
	}
	name, _ := cellValue(row, cells[0])
	return secretName(strings.ReplaceAll(name, " ", "_"))
}

func lineEnd(text string, start int) int {
	if nl := strings.IndexByte(text[start:], '\n'); nl >= 0 {
		return start + nl
	}
	return len(text)
}

// tableCells returns the ranges of the cells of the table row in
// text[start:end], blanks trimmed, or nil if it is no row: a line that
// opens with '|' after blanks.
func tableCells(text string, start, end int) []span {
	for start < end && (text[start] == ' ' || text[start] == '\t') {
		start++
	}
	for end > start && isSpace(text[end-1]) {
		end--
	}
	if start == end || text[start] != '|' {
		return nil
	}
	var cells []span
	cell := start + 1
	for i := start + 1; i <= end; i++ {
		if i < end && (text[i] != '|' || text[i-1] == '\\') {
			continue
		}
		if i == end && cell == end {
			break // the row's closing '|'
		}
		a, b := cell, i
		for a < b && (text[a] == ' ' || text[a] == '\t') {
			a++
		}
		for b > a && (text[b-1] == ' ' || text[b-1] == '\t') {
			b--
		}
		cells = append(cells, span{a, b})
		cell = i + 1
	}
	return cells
}

// delimiterRow reports a table's delimiter row (|---|:--:|).
func delimiterRow(text string, cells []span) bool {
	if len(cells) == 0 {
		return false
	}
	for _, c := range cells {
		v := text[c.start:c.end]
		if strings.Trim(v, ":-") != "" || !strings.Contains(v, "-") {
			return false
		}
	}
	return true
}

// cellValue returns a cell's text without the code span or emphasis
// around it, and whether it was a code span.
func cellValue(text string, c span) (string, bool) {
	v := text[c.start:c.end]
	if len(v) >= 2 && v[0] == '`' && v[len(v)-1] == '`' {
		return strings.Trim(v, "`"), true
	}
	if n := starRun(v, 0); n > 0 && len(v) > 2*n && strings.HasSuffix(v, v[:n]) {
		return v[n : len(v)-n], false
	}
	return v, false
}

// tableSecret reports whether a cell that names a secret's column or
// follows a secret's name holds one: a literal without a blank (a cell
// of words, even in a code span, is a description or a label), not a
// type, a reference or a dash, and unless in a code span not a word of
// prose (a password without a digit or a symbol needs eight letters).
func tableSecret(v string, quoted bool) bool {
	if !literalSecret(v) || pathLike(v) || nameValue(v) || strings.ContainsAny(v, " \t") || !strings.ContainsAny(v, alphanumerics) {
		return false
	}
	return quoted || !strings.EqualFold(v, "n/a") && (credentialValue(v) || len(v) >= 8)
}
