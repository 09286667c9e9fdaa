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
// When the environment of r's output turns colours off (NO_COLOR), the
// styles keep only bold and reverse video.
func newStyles(r *lipgloss.Renderer) styles {
	if r == nil {
		r = lipgloss.DefaultRenderer()
	}
	noColor := r.Output().EnvNoColor()
	s := r.NewStyle
	fg := func(c lipgloss.Color) lipgloss.Style {
		if noColor {
			return s()
		}
		return s().Foreground(c)
	}
	return styles{
		title:     fg(colorCyan).Bold(true),
		section:   s().Bold(true),
		label:     fg(colorBlue),
		muted:     fg(colorGrey),
		ready:     fg(colorGreen),
		degraded:  fg(colorYellow).Bold(true),
		blocked:   fg(colorRed).Bold(true).Reverse(true),
		errorText: fg(colorRed).Bold(true),
		advice:    fg(colorYellow),
		selected:  s().Bold(true).Reverse(true),
		citation:  fg(colorCyan),
		score:     fg(colorGreen),
		prompt:    s().Bold(true),
		focused:   fg(colorCyan).Bold(true),
		cursor:    s(),
		help: helpStyles{
			key:  s().Bold(true),
			desc: fg(colorGrey),
			sep:  fg(colorGrey),
		},
	}
}
