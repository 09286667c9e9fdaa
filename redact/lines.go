package redact

// Secrets a terminal broke over lines (see Text).

import "strings"

// minWrapWidth is the narrowest line a terminal is taken to have wrapped:
// a shorter line ends where its writer ended it.
const minWrapWidth = 40

// maxJoinedLine bounds how much of the lines around a broken token is
// read again joined: a key's name or a label before it is on the same
// line, within far less.
const maxJoinedLine = 4096

// lineBreak is a line break inside a run of token characters, as a
// shell line continuation (export TOKEN=ghp_abc\ and the rest on the
// next line) or a terminal wrapping tool output at its width leaves it:
// text[at:end] is what joining the two parts removes (the backslash,
// the line break and the next line's indentation).
type lineBreak struct{ at, end int }

// brokenLineSpans adds the secrets that only the lines joined at their
// breaks (see tokenBreaks) show: a token whose parts are each too short
// for a rule, or whose part after the break has no prefix that says it
// is one, was kept, in part or whole. Only the secrets across a break
// are added: the others were found in text as it is.
func brokenLineSpans(text string, out []span) []span {
	breaks := tokenBreaks(text)
	for len(breaks) > 0 {
		// The breaks of one run of lines (a token wrapped twice) are read
		// together, from the start of the first line to the end of the
		// last.
		n := 1
		for n < len(breaks) && strings.IndexByte(text[breaks[n-1].end:breaks[n].at], '\n') < 0 {
			n++
		}
		out = joinedSpans(text, breaks[:n], out)
		breaks = breaks[n:]
	}
	return out
}

// joinedSpans adds the secrets across the breaks bs of one run of lines
// in text, found in those lines joined.
func joinedSpans(text string, bs []lineBreak, out []span) []span {
	start := bs[0].at - min(bs[0].at, maxJoinedLine)
	if nl := strings.LastIndexByte(text[start:bs[0].at], '\n'); nl >= 0 {
		start += nl + 1
	}
	last := bs[len(bs)-1].end
	end := min(len(text), last+maxJoinedLine)
	if nl := strings.IndexByte(text[last:end], '\n'); nl >= 0 {
		end = last + nl
	}
	// joined is text[start:end] without the breaks; at[i] is the offset
	// in joined where bs[i] was.
	var joined strings.Builder
	at := make([]int, len(bs))
	from := start
	for i, b := range bs {
		joined.WriteString(text[from:b.at])
		at[i] = joined.Len()
		from = b.end
	}
	joined.WriteString(text[from:end])
	// original maps an offset in joined back to text.
	original := func(x int) int {
		o := start + x
		for i, b := range bs {
			if at[i] < x {
				o += b.end - b.at
			}
		}
		return o
	}
	for _, s := range secretSpans(joined.String(), nil) {
		for _, a := range at {
			if s.start < a && a < s.end {
				out = append(out, span{original(s.start), original(s.end)})
				break
			}
		}
	}
	return out
}

// tokenBreaks returns the line breaks of text that may cut a token in
// two: a token character on each side of the break (after the next
// line's indentation when it repeats the line's own, as in a Markdown or
// YAML block), and either a backslash before it (a shell line
// continuation) or a line at least minWrapWidth long before it and, in
// the run joined, letters and digits (a terminal's wrap; a line of
// prose wrapped between words has a blank at its end).
func tokenBreaks(text string) []lineBreak {
	var bs []lineBreak
	for i := 0; ; {
		j := strings.IndexByte(text[i:], '\n')
		if j < 0 {
			return bs
		}
		nl := i + j
		i = nl + 1
		at := nl
		if at > 0 && text[at-1] == '\r' {
			at--
		}
		continued := at > 0 && text[at-1] == '\\'
		if continued {
			at--
		}
		if at == 0 || !tokenByte[text[at-1]] {
			continue
		}
		lineStart := strings.LastIndexByte(text[:at], '\n') + 1
		end := nl + 1
		if indent := text[lineStart:skipBlanks(text, lineStart)]; indent != "" && strings.HasPrefix(text[end:], indent) {
			end += len(indent)
		}
		if end >= len(text) || !tokenByte[text[end]] {
			continue
		}
		if !continued {
			if at-lineStart < minWrapWidth {
				continue
			}
			head, tail := at, end
			for head > lineStart && at-head < maxJoinedLine && tokenByte[text[head-1]] {
				head--
			}
			for tail < len(text) && tail-end < maxJoinedLine && tokenByte[text[tail]] {
				tail++
			}
			if (at-head)+(tail-end) < minSecretRun || !MixesLettersAndDigits(text[head:at]+text[end:tail]) {
				continue
			}
		}
		bs = append(bs, lineBreak{at, end})
	}
}
