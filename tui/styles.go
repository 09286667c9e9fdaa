package tui

import "github.com/charmbracelet/lipgloss"

// Colours are plain ANSI indexes so they read on light and dark terminals
// alike. Adaptive colours are avoided on purpose: resolving one queries the
// terminal's background while Bubble Tea owns the input, which can leak the
// reply into the key stream.
const (
	colorRed    = lipgloss.Color("1")
	colorGreen  = lipgloss.Color("2")
	colorYellow = lipgloss.Color("3")
	colorBlue   = lipgloss.Color("4")
	colorCyan   = lipgloss.Color("6")
	colorGrey   = lipgloss.Color("8")
)

// styles holds every lipgloss style the TUI draws with. It is built once by
// newStyles from one renderer, so the colour profile is the output's (or
// ASCII in tests).
type styles struct {
	title     lipgloss.Style // the top bar's "Nova"
	section   lipgloss.Style // headings: "Search", "Score components", ...
	label     lipgloss.Style // field names in the detail view and the form
	muted     lipgloss.Style // secondary text: dates, hints, separators
	ready     lipgloss.Style // the Ready mark and state
	degraded  lipgloss.Style // the Degraded mark and code
	blocked   lipgloss.Style // the Blocked mark and code (highlighted)
	errorText lipgloss.Style // search failures
	advice    lipgloss.Style // "what to do next" lines
	selected  lipgloss.Style // the selected result row
	citation  lipgloss.Style // citation ids
	score     lipgloss.Style // relevance scores
	prompt    lipgloss.Style // the search box prompt
	focused   lipgloss.Style // a focused form label or prompt
	cursor    lipgloss.Style // text cursors (drawn reversed by bubbles)
	help      helpStyles
}

// helpStyles style the key help line.
type helpStyles struct {
	key, desc, sep lipgloss.Style
}

// newStyles builds the styles with r; nil means lipgloss's default renderer.
func newStyles(r *lipgloss.Renderer) styles {
	if r == nil {
		r = lipgloss.DefaultRenderer()
	}
	s := r.NewStyle
	return styles{
		title:     s().Bold(true).Foreground(colorCyan),
		section:   s().Bold(true),
		label:     s().Foreground(colorBlue),
		muted:     s().Foreground(colorGrey),
		ready:     s().Foreground(colorGreen),
		degraded:  s().Foreground(colorYellow).Bold(true),
		blocked:   s().Foreground(colorRed).Bold(true).Reverse(true),
		errorText: s().Foreground(colorRed).Bold(true),
		advice:    s().Foreground(colorYellow),
		selected:  s().Bold(true).Reverse(true),
		citation:  s().Foreground(colorCyan),
		score:     s().Foreground(colorGreen),
		prompt:    s().Bold(true),
		focused:   s().Bold(true).Foreground(colorCyan),
		cursor:    s(),
		help: helpStyles{
			key:  s().Bold(true),
			desc: s().Foreground(colorGrey),
			sep:  s().Foreground(colorGrey),
		},
	}
}
