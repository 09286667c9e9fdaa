package ingest

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/config"
)

// fakeBlob returns n bytes of deterministic binary, base64-encoded.
func fakeBlob(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*131 + i/7)
	}
	return base64.StdEncoding.EncodeToString(b)
}

func TestStripBinary(t *testing.T) {
	blob := fakeBlob(600)
	// 570 bytes are 760 base64 characters: ten full 76-column lines. (A
	// last line shorter than 60 characters would be left in place.)
	var wrapped strings.Builder
	for s := fakeBlob(570); s != ""; {
		k := min(76, len(s))
		wrapped.WriteString(s[:k] + "\n")
		s = s[k:]
	}
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"data url", "see data:image/png;base64," + fakeBlob(30) + " here", "see [binary] here"},
		{"data url in capitals", "see DATA:image/png;base64," + fakeBlob(30) + " here", "see [binary] here"},
		{"data url after a colon", "a:b Data:image/png;base64," + fakeBlob(30), "a:b [binary]"},
		{"data url first", "data:image/png;base64," + fakeBlob(30), "[binary]"},
		{"long run", "payload " + blob + " end", "payload [binary] end"},
		{"wrapped run keeps next line", "cert:\n" + wrapped.String() + "next line", "cert:\n[binary]\nnext line"},
		{"short base64 kept", "etag " + fakeBlob(40), "etag " + fakeBlob(40)},
		{"sha256 kept", "sum e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "sum e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{"rule kept", strings.Repeat("-", 240), strings.Repeat("-", 240)},
		{"letters only kept", strings.Repeat("abcdefghij", 25), strings.Repeat("abcdefghij", 25)},
		{"prose kept", "Totals drift because each line is rounded.", "Totals drift because each line is rounded."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := StripBinary(tt.in); got != tt.want {
				t.Errorf("StripBinary\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestToolSummary(t *testing.T) {
	long := strings.Repeat("x", 200)
	tests := []struct {
		name  string
		tool  string
		input string
		want  string
	}{
		{"command list", "shell", `{"command":["rg","-n","round(","src"]}`, "[tool: shell rg -n round( src]"},
		{"file path before description", "Read", `{"file_path":"/a/b.go","description":"x"}`, "[tool: Read /a/b.go]"},
		{"pattern before path", "Grep", `{"pattern":"TODO","path":"src"}`, "[tool: Grep TODO]"},
		{"multi-line command on one line", "Bash", `{"command":"cd src &&\n  go test ./..."}`, "[tool: Bash cd src && go test ./...]"},
		// Gemini CLI's file tools name their paths otherwise.
		{"gemini read_file", "read_file", `{"absolute_path":"/repo/main.go","offset":10}`, "[tool: read_file /repo/main.go]"},
		{"gemini list_directory", "list_directory", `{"dir_path":"/repo/cmd"}`, "[tool: list_directory /repo/cmd]"},
		{"gemini read_many_files", "read_many_files", `{"paths":["docs/a.md","docs/b.md"]}`, "[tool: read_many_files docs/a.md docs/b.md]"},
		{"no known argument", "TodoWrite", `{"todos":[]}`, "[tool: TodoWrite]"},
		// Cursor once wrote the start of a call's arguments into its name.
		{"name with a line break", "Grep path\n/repo", `{"pattern":"TODO"}`, "[tool: Grep TODO]"},
		{"name of line breaks only", "\n\n", `{"pattern":"TODO"}`, "[tool: unknown TODO]"},
		{"cut to 160", "Bash", `{"command":"` + long + `"}`, "[tool: Bash " + long[:159] + "…]"},
		{"160 is not cut", "Bash", `{"command":"` + long[:160] + `"}`, "[tool: Bash " + long[:160] + "]"},
		// Redacted before the cut: cut first, the key's tail is gone and
		// what is left no longer looks like a key.
		{"secret at the cut", "Bash", `{"command":"` + long[:140] + ` sk-proj-Zk3vQ9xR2mT7wY4pL8nB5cF1hJ6dG0sA"}`, "[tool: Bash " + long[:140] + " [redacted]]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var input map[string]json.RawMessage
			if err := json.Unmarshal([]byte(tt.input), &input); err != nil {
				t.Fatal(err)
			}
			if got := toolSummary(tt.tool, input); got != tt.want {
				t.Errorf("toolSummary = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCodexToolSummary_patch(t *testing.T) {
	patch := "*** Begin Patch\n*** Update File: src/money.py\n@@\n-a\n+b\n*** Delete File: old.py\n*** End Patch"
	tests := []struct{ name, tool, arg, want string }{
		{"apply_patch tool", "apply_patch", patch, "[tool: apply_patch src/money.py old.py]"},
		{"patch through shell", "shell", "apply_patch " + patch, "[tool: apply_patch src/money.py old.py]"},
		{"plain command", "shell", "make test", "[tool: shell make test]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := codexToolSummary(tt.tool, tt.arg); got != tt.want {
				t.Errorf("codexToolSummary = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestAppendTools(t *testing.T) {
	var tools []string
	for i := range 12 {
		tools = append(tools, formatToolSummary("Read", "f"+string(rune('a'+i))))
	}
	got := appendTools("done", tools, 0)
	lines := strings.Split(got, "\n")
	if len(lines) != 12 || lines[0] != "done" || lines[10] != "[tool: Read fj]" || lines[11] != "[tool: +2 more]" {
		t.Errorf("appendTools = %q", got)
	}
	// Pending tools keep only maxToolLines summaries and count the rest.
	var p pendingTools
	for _, tl := range tools {
		p.add(tl)
	}
	if got2 := p.take("done"); got2 != got || len(p.Tools) != 0 || p.More != 0 {
		t.Errorf("pendingTools.take = %q, want %q", got2, got)
	}
	if got := appendTools("done", nil, 0); got != "done" {
		t.Errorf("appendTools without tools = %q", got)
	}
}

// TestRedact_metadata: the secrets in a record's title, tags and subject,
// and in a note's headings (which also name its id), are redacted as its
// text is.
func TestRedact_metadata(t *testing.T) {
	dir := t.TempDir()
	const key = "sk-proj-Zk3vQ9xR2mT7wY4pL8nB5cF1hJ6dG0sA"
	jsonl := filepath.Join(dir, "r.jsonl")
	if err := os.WriteFile(jsonl, []byte(`{"id":"r1","text":"rotated it","title":"new key `+key+`","tags":["ops","`+key+`"],"subject":"key `+key+`"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	md := filepath.Join(dir, "n.md")
	if err := os.WriteFile(md, []byte("# Keys\n\n## New key "+key+"\n\nrotated it on Monday\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var res readResult
	readFrom(t, config.Source{Name: "r", Kind: config.KindJSONL, Path: dir}, jsonl, "r.jsonl", Cursor{}, &res)
	readFrom(t, config.Source{Name: "n", Kind: config.KindMarkdown, Path: dir}, md, "n.md", Cursor{}, &res)
	if len(res.records) < 2 {
		t.Fatalf("records %+v problems %+v", res.records, res.problems)
	}
	for _, r := range res.records {
		b, _ := json.Marshal(r)
		if strings.Contains(strings.ToLower(string(b)), strings.ToLower(key[:12])) {
			t.Errorf("the key is in the record: %s", b)
		}
		if r.Redactions == 0 {
			t.Errorf("no redaction counted: %s", b)
		}
	}
}

// TestParseDate_zoneless: a time written without an offset is read in the
// machine's zone, so that search, which shows times there, shows it as
// written (read as UTC it moved by the offset, in Tokyo to the next day).
// A JSONL record's date is read so.
func TestParseDate_zoneless(t *testing.T) {
	tokyo := time.FixedZone("JST", 9*3600)
	for _, s := range []string{"2026-12-02T23:30", "2026-12-02 23:30", "2026-12-02T23:30:00", "2026-12-02T23:30:00.123456"} {
		date, at, ok := parseDate(s, tokyo)
		if !ok || date != "2026-12-02" || at.In(tokyo).Format("2006-01-02 15:04") != "2026-12-02 23:30" {
			t.Errorf("%s: %s %v %v, want 2026-12-02 and 23:30 in the machine's zone", s, date, at, ok)
		}
	}
	// An offset or Z is kept: the instant is what was written.
	if _, at, _ := parseDate("2026-12-02T23:30:00Z", tokyo); !at.Equal(time.Date(2026, 12, 2, 23, 30, 0, 0, time.UTC)) {
		t.Errorf("Z: %v", at)
	}
	rec, reason, err := parseJSONLLine([]byte(`{"id": 1, "text": "late deploy", "date": "2026-12-02T23:30"}`), tokyo)
	if err != nil || reason != "" || rec.Date != "2026-12-02" || !rec.Time.Equal(time.Date(2026, 12, 2, 14, 30, 0, 0, time.UTC)) {
		t.Errorf("JSONL record: %+v %q %v, want 2026-12-02 at 14:30 UTC", rec, reason, err)
	}
}
