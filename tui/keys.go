package tui

import "github.com/charmbracelet/bubbles/key"

// keyMap is every key binding of the TUI. It drives both Update and the help
// line, so the help never lists a key that does not work.
type keyMap struct {
	Search    key.Binding // focus the search box
	Run       key.Binding // run the search (in the search box)
	Open      key.Binding // open the selected result
	Apply     key.Binding // apply the filter form
	Up        key.Binding
	Down      key.Binding
	Move      key.Binding // up and down, for the help only
	PageUp    key.Binding
	PageDown  key.Binding
	Home      key.Binding // the first result, or the top of the detail view
	End       key.Binding // the last result, or the bottom of the detail view
	Ends      key.Binding // home and end, for the full help only
	NextField key.Binding // filter form
	PrevField key.Binding // filter form
	Filters   key.Binding // open the filter form
	Clear     key.Binding // clear every filter (in the form)
	Back      key.Binding
	Cancel    key.Binding // give up the running search
	Refresh   key.Binding // re-run the doctor checks now
	Help      key.Binding // toggle the full help
	Quit      key.Binding // q, only when no text field has focus
	ForceQuit key.Binding // ctrl+c, always
	Suspend   key.Binding // ctrl+z, always: back to the shell until fg
}

func defaultKeyMap() keyMap {
	return keyMap{
		Search:    key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "search")),
		Run:       key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "run search")),
		Open:      key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open")),
		Apply:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "apply")),
		Up:        key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:      key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		Move:      key.NewBinding(key.WithKeys("up", "down"), key.WithHelp("↑↓/kj", "move")),
		PageUp:    key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "page up")),
		PageDown:  key.NewBinding(key.WithKeys("pgdown", " "), key.WithHelp("pgdn", "page down")),
		Home:      key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("home/g", "first")),
		End:       key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("end/G", "last")),
		Ends:      key.NewBinding(key.WithKeys("home", "end"), key.WithHelp("home/end", "first/last")),
		NextField: key.NewBinding(key.WithKeys("tab", "down"), key.WithHelp("tab/↓", "next field")),
		PrevField: key.NewBinding(key.WithKeys("shift+tab", "up"), key.WithHelp("shift+tab/↑", "previous")),
		Filters:   key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "filters")),
		Clear:     key.NewBinding(key.WithKeys("ctrl+r"), key.WithHelp("ctrl+r", "clear all")),
		Back:      key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
		Cancel:    key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
		Refresh:   key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "refresh")),
		Help:      key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "keys")),
		Quit:      key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
		ForceQuit: key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit")),
		Suspend:   key.NewBinding(key.WithKeys("ctrl+z"), key.WithHelp("ctrl+z", "suspend")),
	}
}

// The short helps below list the keys most needed first, but for the
// last two, which stay when a narrow window drops the others from the end;
// the last (the way out) stays alone in the narrowest.

// listHelp is the short help of the main screen with the list focused.
func (k keyMap) listHelp(hasResults, searching bool) []key.Binding {
	if searching {
		return []key.Binding{k.Cancel, k.Search, k.Refresh, k.Quit, k.Help}
	}
	if hasResults {
		return []key.Binding{k.Search, k.Move, k.Open, k.Filters, k.Refresh, k.Quit, k.Help}
	}
	return []key.Binding{k.Search, k.Filters, k.Refresh, k.Quit, k.Help}
}

// searchHelp is the short help while the search box has focus.
func (k keyMap) searchHelp() []key.Binding {
	return []key.Binding{k.Run, k.Back, k.ForceQuit}
}

// formHelp is the short help of the filter form.
func (k keyMap) formHelp() []key.Binding {
	return []key.Binding{k.NextField, k.Clear, k.Apply, k.Back}
}

// detailHelp is the short help of the detail view.
func (k keyMap) detailHelp() []key.Binding {
	return []key.Binding{k.Back, k.Move, k.PageDown, k.Search, k.Refresh, k.Quit, k.Help}
}

// fullHelp lists every binding, grouped, for the "?" view.
func (k keyMap) fullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Search, k.Run, k.Open, k.Back},
		{k.Move, k.PageUp, k.PageDown, k.Ends},
		{k.Filters, k.NextField, k.PrevField, k.Clear},
		{k.Cancel, k.Refresh, k.Help, k.Quit, k.ForceQuit},
	}
}
