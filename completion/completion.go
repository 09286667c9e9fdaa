// Package completion renders shell completion scripts (bash, zsh, fish)
// for a command tree. It knows shells, not Nova: novactl builds the tree
// from the same command table and flag sets it runs (cli's commands()), so
// the scripts cannot list a command or flag that the tool does not have.
//
// The scripts are static: completing a word never runs the program, so a
// slow or broken binary cannot hang the shell.
package completion

import (
	"bytes"
	"embed"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/template"
)

// Flag is one flag of a command.
type Flag struct {
	// Name is the flag's name without dashes ("json", "v").
	Name string
	// Usage is the flag's one-line help.
	Usage string
	// TakesValue is false for boolean flags; after a flag that takes a
	// value, the shells complete Values, or file names when it has none.
	TakesValue bool
	// Values is the fixed set of words the flag's value is one of
	// ("auto", "text", "json"), nil for a free value such as a path.
	Values []string
	// List is true when the value is a comma-separated list of Values
	// ("codex,gemini"): the shells complete the word after the last comma
	// and keep what comes before it.
	List bool
}

// Spelling is how the flag is offered: "-v" for a one-letter flag, "--json"
// otherwise (Go's flag package accepts both dash forms for every flag).
func (f Flag) Spelling() string {
	if len(f.Name) == 1 {
		return "-" + f.Name
	}
	return "--" + f.Name
}

// Command is one node of the command tree: the program itself at the root,
// then its subcommands.
type Command struct {
	// Name is the word typed to reach the node (the program name at the root).
	Name string
	// Summary is the one-line help shown beside the name by zsh and fish.
	Summary string
	// Flags are the flags the node accepts.
	Flags []Flag
	// Subcommands are the words that may follow. A node without them
	// takes positional arguments, completed as file names.
	Subcommands []Command
}

// Shells lists the shells Write knows, in the order help text names them.
var Shells = []string{"bash", "zsh", "fish"}

//go:embed scripts/*.tmpl
var scripts embed.FS

// node is one command path of the flattened tree, the unit every script
// switches on.
type node struct {
	Path  string // "" for the root, else the words after the program ("index sync")
	Subs  []Command
	Flags []Flag
}

func (n node) SubNames() string {
	names := make([]string, len(n.Subs))
	for i, s := range n.Subs {
		names[i] = s.Name
	}
	return strings.Join(names, " ")
}

func (n node) FlagSpellings() string {
	var out []string
	for _, f := range n.Flags {
		out = append(out, f.Spelling())
	}
	return strings.Join(out, " ")
}

func (n node) ValueFlags() string {
	var out []string
	for _, f := range n.Flags {
		if f.TakesValue {
			out = append(out, f.Spelling())
		}
	}
	return strings.Join(out, " ")
}

// ChoiceFlags returns the node's flags that take one of a fixed set of
// values.
func (n node) ChoiceFlags() []Flag {
	var out []Flag
	for _, f := range n.Flags {
		if f.TakesValue && len(f.Values) > 0 {
			out = append(out, f)
		}
	}
	return out
}

// ValueWords joins the flag's values with spaces.
func (f Flag) ValueWords() string { return strings.Join(f.Values, " ") }

// flatten lists every node depth first, the root first.
func flatten(root Command) []node {
	var out []node
	var walk func(path string, c Command)
	walk = func(path string, c Command) {
		out = append(out, node{Path: path, Subs: c.Subcommands, Flags: c.Flags})
		for _, s := range c.Subcommands {
			walk(strings.TrimSpace(path+" "+s.Name), s)
		}
	}
	walk("", root)
	return out
}

// Write renders the completion script of root for shell ("bash", "zsh" or
// "fish") to w.
func Write(w io.Writer, shell string, root Command) error {
	if !slices.Contains(Shells, shell) {
		return fmt.Errorf("unknown shell %q (want %s)", shell, strings.Join(Shells, ", "))
	}
	if err := validate(root, ""); err != nil {
		return err
	}
	t, err := template.New(shell+".tmpl").Funcs(template.FuncMap{
		"fishQuote": fishQuote,
		"zshItem":   zshItem,
		"ident":     ident,
	}).ParseFS(scripts, "scripts/"+shell+".tmpl")
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := t.Execute(&buf, struct {
		Program string
		Nodes   []node
	}{root.Name, flatten(root)}); err != nil {
		return err
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// validate refuses names that the scripts would have to quote: the
// generated case patterns and word lists rely on plain words.
func validate(c Command, path string) error {
	if !plainWord(c.Name) {
		return fmt.Errorf("command %q: name %q is not a plain word", path, c.Name)
	}
	for _, f := range c.Flags {
		if !plainWord(f.Name) {
			return fmt.Errorf("command %q: flag name %q is not a plain word", path, f.Name)
		}
		for _, v := range f.Values {
			if !plainWord(v) {
				return fmt.Errorf("command %q: value %q of flag %q is not a plain word", path, v, f.Name)
			}
		}
	}
	for _, s := range c.Subcommands {
		if err := validate(s, strings.TrimSpace(path+" "+c.Name)); err != nil {
			return err
		}
	}
	return nil
}

func plainWord(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return true
}

// ident turns a program name into a shell function name fragment.
func ident(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '.' {
			return '_'
		}
		return r
	}, s)
}

// oneLine keeps the first line of a summary: completion menus show one.
func oneLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(s)
}

// fishQuote quotes s for fish: inside single quotes only \ and ' are special.
func fishQuote(s string) string {
	s = strings.ReplaceAll(oneLine(s), `\`, `\\`)
	return "'" + strings.ReplaceAll(s, `'`, `\'`) + "'"
}

// zshItem is one "name:description" element of a _describe array, quoted
// for zsh: the colon separates name and description, so colons in the
// description are escaped, and the whole item is single-quoted.
func zshItem(name, desc string) string {
	item := name + ":" + strings.ReplaceAll(oneLine(desc), ":", `\:`)
	return "'" + strings.ReplaceAll(item, "'", `'\''`) + "'"
}
