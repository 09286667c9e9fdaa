package ingest_test

import (
	"strings"
	"testing"

	"golang.org/x/text/unicode/norm"

	"github.com/nova-recall/nova/config"
)

// TestRecall_globsInEitherForm: a source's exclude and include globs,
// typed composed into the configuration, match the folders and files
// macOS names decomposed (and the reverse), and so does the templates
// folder an Obsidian vault names in its settings: what the owner left
// out is not recalled through a real build and search, and what they
// let in is. Before, a glob matched a name's bytes: "Privé/**" did not
// leave out the folder Privé its Mac named, nor "Modèles" the vault's
// templates.
func TestRecall_globsInEitherForm(t *testing.T) {
	src := config.Source{Kind: config.KindMarkdown, Include: []string{"**/*.md", "Réunions/*.txt"}, Exclude: []string{"Privé/**", norm.NFD.String("ébauche-*.md")}}
	files := map[string]string{
		"ops.md":                              "# Ops\n\nThe wallaby proxy listens on port 7421.\n",
		norm.NFD.String("Privé/banque.md"):    "# Banque\n\nThe wallaby savings account holds the emergency fund.\n",
		"ébauche-wallaby.md":                  "# Draft\n\nThe wallaby draft says the launch slips.\n",
		norm.NFD.String("Réunions/lundi.txt"): "The wallaby standup moved to nine.\n",
		".obsidian/templates.json":            `{"folder": "Modèles"}`,
		norm.NFD.String("Modèles/réunion.md"): "# Wallaby meeting template\n\nAttendees: wallaby placeholder.\n",
	}
	served := recallFiles(t, src, files, "wallaby proxy port", "wallaby savings account emergency fund", "wallaby draft launch slips", "wallaby standup nine", "wallaby meeting template placeholder")
	for _, leak := range []string{"savings account", "launch slips", "template"} {
		if strings.Contains(served, leak) {
			t.Errorf("search served %q, which the configuration leaves out", leak)
		}
	}
	if !strings.Contains(served, "standup moved") {
		t.Errorf("search did not serve the included Réunions/lundi.txt")
	}
}
