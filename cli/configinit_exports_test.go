package cli

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/lexical"
)

// TestConfigInit_notesExports: --notes given an unzipped notes app's
// export writes the source that reads it, with no hand-editing: a Google
// Takeout folder (its Keep folder, a jsonl source of *.json, not the
// other products' JSON beside it), a Day One export (Journal.json
// beside its photos: a jsonl source of *.json) and an Apple Notes HTML
// export (a markdown source of *.md and *.html); a folder of Markdown is
// a markdown source as before. The sync that follows indexes every
// note. Before, each was a markdown source that read none of them, and
// --exports took a Day One export for a chat export that was still zipped.
func TestConfigInit_notesExports(t *testing.T) {
	root, home, env := initHome(t)
	keep := `{"color":"DEFAULT","isTrashed":false,"isPinned":false,"isArchived":false,"textContent":"The boiler engineer is Priya","title":"Boiler","userEditedTimestampUsec":1718000000123456,"createdTimestampUsec":1717000000000000}`
	writeFixture(t, root, "Downloads/Takeout/Keep/Boiler.json", keep)
	writeFixture(t, root, "Downloads/Takeout/Keep/Boiler.html", "<html><body>The boiler engineer is Priya</body></html>")
	writeFixture(t, root, "Downloads/Takeout/Chrome/History.json", `{"Browser History":[{"title":"a page","url":"https://example.com"}]}`)
	writeFixture(t, root, "Downloads/Takeout/archive_browser.html", "<html><body>Takeout's index of the archive</body></html>")
	writeFixture(t, root, "Day One/Journal.json", "{\n  \"metadata\" : {\n    \"version\" : \"1.0\"\n  },\n  \"entries\" : [\n    {\n"+
		"      \"creationDate\" : \"2024-05-04T18:00:00Z\",\n      \"text\" : \"Swam below the waterfall\",\n"+
		"      \"timeZone\" : \"America\\/Los_Angeles\",\n      \"uuid\" : \"6A1F0C2B9E3D4F5A8B7C6D5E4F3A2B1C\"\n    }\n  ]\n}\n")
	writeFixture(t, root, "Day One/photos/0f3c5a6b7d8e9f00112233445566778a.jpeg", "\xff\xd8\xff\xe0")
	writeFixture(t, root, "Apple Notes/Notes/Kiosk.html", "<html><head><title>Kiosk</title></head><body><div>The kiosk reboots at noon</div></body></html>")
	writeFixture(t, root, "Apple Notes/Recipes/Bread.html", "<html><body><h1>Bread</h1><div>Rye needs a starter</div></body></html>")
	writeFixture(t, root, "vault/a.md", "# A\n\nThe vault's own note\n")
	code, out, errOut := runCLI(context.Background(), env, "config", "init", "--json",
		"--notes", "~/Downloads/Takeout", "--notes", "~/Day One", "--notes", "~/Apple Notes", "--notes", "~/vault")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	var res struct {
		Sources []struct {
			Name, Kind, Path string
			Include          []string
		}
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err, out)
	}
	var got []string
	for _, s := range res.Sources {
		got = append(got, s.Name+" "+s.Kind+" "+s.Path+" "+strings.Join(s.Include, ","))
	}
	want := []string{"keep jsonl ~/Downloads/Takeout/Keep *.json", "journal jsonl ~/Day One *.json",
		"notes markdown ~/Apple Notes *.md,*.html", "notes-2 markdown ~/vault "}
	if !slices.Equal(got, want) {
		t.Errorf("sources\n%q\nwant\n%q", got, want)
	}
	// A Day One export given to --exports (it is one, not a chat's),
	// and its Journal.json to --notes, are read as --notes reads the
	// folder, without a warning that no chat is there.
	code, out, errOut = runCLI(context.Background(), env, "config", "init", "--json", "--dry-run",
		"--exports", "~/Day One", "--notes", "~/Day One/Journal.json")
	if code != ExitOK || strings.Contains(errOut, "warning") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err, out)
	}
	got = got[:0]
	for _, s := range res.Sources {
		got = append(got, s.Name+" "+s.Kind+" "+s.Path+" "+strings.Join(s.Include, ","))
	}
	if want := []string{"journal jsonl ~/Day One/Journal.json *.json", "journal-2 jsonl ~/Day One *.json"}; !slices.Equal(got, want) {
		t.Errorf("sources\n%q\nwant\n%q", got, want)
	}
	// The file as written: a path with a blank quoted, the globs too.
	data, err := os.ReadFile(home.Config())
	if err != nil {
		t.Fatal(err)
	}
	if line := "path: '~/Day One', include: ['*.json']}"; !strings.Contains(string(data), line) {
		t.Errorf("config.yaml lacks %q:\n%s", line, data)
	}
	env = append(env, otherPorts...)
	if code, out, errOut := runCLI(context.Background(), env, "index", "sync", "--in-process"); code != ExitOK {
		t.Fatalf("index sync: exit %d\n%s%s", code, out, errOut)
	}
	_, g, err := index.OpenActive(context.Background(), home, lexical.NewAnalyzer())
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	for _, c := range g.All() {
		text.WriteString(c.Text + "\n")
	}
	for _, w := range []string{"Priya", "waterfall", "kiosk reboots", "Rye needs a starter", "vault's own note"} {
		if !strings.Contains(text.String(), w) {
			t.Errorf("the index lacks %q:\n%s", w, text.String())
		}
	}
	for _, w := range []string{"example.com", "Takeout's index"} {
		if strings.Contains(text.String(), w) {
			t.Errorf("the index holds %q, of the Takeout's other files:\n%s", w, text.String())
		}
	}
}
