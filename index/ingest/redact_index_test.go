package ingest_test

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/text/unicode/norm"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/paths"
	"github.com/nova-recall/nova/search"
)

// noteRecall builds a real index of one Markdown note in a temporary
// home, runs each query through the search engine and returns what the
// searches served (results and citations, as JSON). It fails the test
// if no search finds the note.
func noteRecall(t *testing.T, note string, queries ...string) string {
	t.Helper()
	return recall(t, config.KindMarkdown, "ops.md", note, queries...)
}

// recall is noteRecall for a file at rel in a source of kind.
func recall(t *testing.T, kind, rel, content string, queries ...string) string {
	t.Helper()
	return recallFiles(t, config.Source{Kind: kind}, map[string]string{rel: content}, queries...)
}

// recallFiles is recall for the files (by rel) of a source like src
// (its kind and includes).
func recallFiles(t *testing.T, src config.Source, files map[string]string, queries ...string) string {
	t.Helper()
	cfg, now := syncSource(t, src, files)
	_, g, err := index.OpenActive(context.Background(), cfg.Home, lexical.NewAnalyzer())
	if err != nil {
		t.Fatal(err)
	}
	engine := search.New(search.Config{Now: now}, lexical.NewAnalyzer())
	var served strings.Builder
	found := false
	for _, q := range queries {
		r, err := engine.Search(context.Background(), &search.Snapshot{Gen: g, Query: g.Model}, api.SearchRequest{Query: q, TopK: 10})
		if err != nil {
			t.Fatal(err)
		}
		found = found || len(r.Results) > 0
		// Not HTML-escaped: a leaked "&3" must read as itself.
		enc := json.NewEncoder(&served)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(struct{ Results, Citations any }{r.Results, r.CitationPack}); err != nil {
			t.Fatal(err)
		}
	}
	if !found {
		t.Fatalf("no search of %q found anything in %d files: the test proves nothing", queries, len(files))
	}
	return served.String()
}

// TestRecall_notes: secrets a note holds are not recalled, whole or in
// part, through a real build and search: passwords holding '&' or ';',
// credentials in Markdown bold and in a Markdown table, a Kubernetes env
// list's name and value, a hexadecimal key after "API key:", and a
// Logseq block property. Each query asks for the note's words or the
// secret itself.
func TestRecall_notes(t *testing.T) {
	for _, tt := range []struct {
		name, note string
		queries    []string
		leaks      []string
	}{
		{"separators", "# Router\n\nThe router admin login:\n\npassword: P@ss&w0rd!\n\nDB_PASSWORD=Tr0ub4dor&3 for the unit file.\n",
			[]string{"router admin login", "P@ss", "w0rd", "Tr0ub4dor", "unit file"}, []string{"P@ss", "w0rd", "Tr0ub4dor", "&3"}},
		{"markdown emphasis", "# Grafana\n\n- **URL:** https://grafana.internal\n- **User:** admin\n- **Password:** Gr4fanaPw9x\n\nBackup router password: **Rt7Zq2Lm9x**\n",
			[]string{"grafana admin", "Gr4fanaPw9x", "backup router password", "Rt7Zq2Lm9x"}, []string{"Gr4fanaPw9x", "Rt7Zq2Lm9x"}},
		{"name and value", "# Billing deployment\n\n```yaml\nenv:\n  - name: STRIPE_WEBHOOK_PASSWORD\n    value: Wh5Pw8Xq2Lm7zz\n  - name: LOG_LEVEL\n    value: debug\n```\n",
			[]string{"billing deployment env", "Wh5Pw8Xq2Lm7zz", "STRIPE_WEBHOOK_PASSWORD"}, []string{"Wh5Pw8Xq2Lm7zz"}},
		{"qualified key in prose", "# Metrics vendor\n\nAccount for the metrics vendor.\n\nAPI key: 9f86d081884c7d659a2feaa0c55ad015\n",
			[]string{"metrics vendor account", "9f86d081884c7d659a2feaa0c55ad015"}, []string{"9f86d081884c7d659a2feaa0c55ad015"}},
		{"markdown table", "# Staging services\n\n| Service | User | Password |\n|---|---|---|\n| grafana | admin | Gr4fanaPw9 |\n| nexus | deploy | Nx7Pw2Lm9q |\n",
			[]string{"staging services grafana", "nexus deploy", "Gr4fanaPw9", "Nx7Pw2Lm9q"}, []string{"Gr4fanaPw9", "Nx7Pw2Lm9q"}},
		{"logseq property", "- Office router admin page\n  password:: Rt7Zq2Lm9xQ\n  url:: http://10.0.0.1\n",
			[]string{"office router admin", "Rt7Zq2Lm9xQ"}, []string{"Rt7Zq2Lm9xQ"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			served := noteRecall(t, tt.note, tt.queries...)
			for _, leak := range tt.leaks {
				if strings.Contains(served, leak) {
					t.Errorf("search served %q: %s", leak, served)
				}
			}
		})
	}
}

// TestRecall_cjkLabels: a password a Chinese note gives after 密码 and a
// full-width colon is not recalled through a real build and search, and
// the note's words still are.
func TestRecall_cjkLabels(t *testing.T) {
	served := noteRecall(t, "# 数据库\n\n生产数据库的账号是 app，密码：Tr0ub4dor3x，请保管好。\n",
		"数据库 账号", "生产数据库", "Tr0ub4dor3x")
	if strings.Contains(served, "Tr0ub4dor3x") {
		t.Errorf("search served the password: %s", served)
	}
	if !strings.Contains(served, "请保管好") {
		t.Errorf("search lost the prose around the password: %s", served)
	}
}

// TestRecall_cookieInToolCall: the session cookie of a curl command an
// agent ran (a Claude Code Bash call, as "Copy as cURL" gives it) is not
// recalled through a real build and search.
func TestRecall_cookieInToolCall(t *testing.T) {
	curl := `curl -s https://shop.example.com/api/orders -H 'Cookie: sessionid=k8q2x7mz0c4tn5v1wb9e3ry6ud; theme=dark'`
	served := recall(t, config.KindClaudeCode, claudeRel, claudeBashTranscript("why does the orders endpoint return 403", curl, "The orders endpoint rejects the session: the CSRF check fails."),
		"orders endpoint 403", "orders endpoint session CSRF", "k8q2x7mz0c4tn5v1wb9e3ry6ud", "sessionid")
	if strings.Contains(served, "k8q2x7mz0c4tn5v1wb9e3ry6ud") {
		t.Errorf("search served the session cookie: %s", served)
	}
	if !strings.Contains(served, "curl") {
		t.Errorf("the search did not reach the tool call: %s", served)
	}
}

// claudeRel is where claudeBashTranscript's session is in a Claude Code
// source.
const claudeRel = "-home-dev-src-shop/5b1c2d3e-0000-4a4a-9b9b-0000000000c1.jsonl"

// claudeBashTranscript is a Claude Code session in which the user asks a
// question, the assistant runs command through its Bash tool and answers.
func claudeBashTranscript(question, command, answer string) string {
	const session = "5b1c2d3e-0000-4a4a-9b9b-0000000000c1"
	line := func(typ, uuid, at, content string) string {
		return `{"type":"` + typ + `","cwd":"/home/dev/src/shop","sessionId":"` + session + `","uuid":"` + uuid + `","timestamp":"2026-03-02T10:00:0` + at + `.000Z","message":{"role":"` + typ + `","content":` + content + `}}` + "\n"
	}
	return line("user", "u1", "1", strconv.Quote(question)) +
		line("assistant", "a1", "2", `[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":`+strconv.Quote(command)+`}}]`) +
		line("user", "u2", "3", `[{"type":"tool_result","tool_use_id":"toolu_1","content":"done"}]`) +
		line("assistant", "a2", "4", `[{"type":"text","text":`+strconv.Quote(answer)+`}]`)
}

// TestRecall_clientPasswordFlags: the password of a redis-cli command an
// agent ran is not recalled through a real build and search.
func TestRecall_clientPasswordFlags(t *testing.T) {
	served := recall(t, config.KindClaudeCode, claudeRel, claudeBashTranscript("is the session cache reachable", "redis-cli -h cache.internal -a Rd5Pw8Xq2Lm7 ping", "The session cache answers PONG."),
		"session cache reachable", "redis-cli cache.internal", "Rd5Pw8Xq2Lm7")
	if strings.Contains(served, "Rd5Pw8Xq2Lm7") {
		t.Errorf("search served the password: %s", served)
	}
	if !strings.Contains(served, "redis-cli") {
		t.Errorf("the search did not reach the tool call: %s", served)
	}
}

// syncSource writes files (by rel) into a source like src (its kind and
// includes) in a temporary HOME and NOVA_HOME, syncs it once with a
// fixed clock, and returns the configuration and that clock.
func syncSource(t *testing.T, src config.Source, files map[string]string) (config.Config, func() time.Time) {
	t.Helper()
	root := t.TempDir()
	t.Setenv("HOME", root)
	t.Setenv("NOVA_HOME", filepath.Join(root, "nova"))
	dir := filepath.Join(root, "source")
	for rel, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cfg := config.Defaults()
	cfg.Home = paths.Home{Root: filepath.Join(root, "nova")}
	src.Name, src.Path = "src", dir
	cfg.Sources = []config.Source{src}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	now := func() time.Time { return time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC) }
	if _, err := index.New(cfg, index.Options{NoRemote: true, Now: now}).Sync(context.Background()); err != nil {
		t.Fatalf("Sync: %v", err)
	}
	return cfg, now
}

// syncedFiles builds a real index of files (by rel) in a source like src
// in a temporary home and returns every file the home then holds (the
// generation, its segments, the build report, the files' state) by path.
func syncedFiles(t *testing.T, src config.Source, files map[string]string) map[string]string {
	t.Helper()
	cfg, _ := syncSource(t, src, files)
	home := map[string]string{}
	err := filepath.WalkDir(cfg.Home.Root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		home[path] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return home
}

// TestSync_problemsRedacted: a secret a problem quotes (a record's
// "date" that is no date) is not in the build report or the files'
// state, which doctor and status show; it was quoted there whole, and
// a long one (a JWT) cut to 60 characters before redaction, which no
// longer knew it and left its header and the start of its claims.
func TestSync_problemsRedacted(t *testing.T) {
	secrets := []string{"ghp_R4nD0mT0k3nV4lu3F0rT3st1ngXyZ9q8w7", "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"}
	home := syncedFiles(t, config.Source{Kind: config.KindJSONL}, map[string]string{
		"deploys.jsonl": `{"id":"r1","text":"the deploy token was rotated","date":"` + secrets[0] + `"}` + "\n" +
			`{"id":"r2","text":"the staging deploy works again","date":"2026-02-01"}` + "\n",
		"keys.jsonl": `{"id":"k1","text":"the session token was rotated","date":"` + secrets[1] + `"}` + "\n",
	})
	reported := 0
	for path, content := range home {
		for _, secret := range secrets {
			if strings.Contains(content, secret[20:32]) {
				t.Errorf("%s holds %s…", path, secret[:8])
			}
		}
		reported += strings.Count(content, "is not RFC 3339")
	}
	if reported < 2 {
		t.Errorf("the home reports %d dates, not both: the test proves nothing", reported)
	}
}

// TestSync_htmlNoteTables: passwords in an HTML note's tables (Apple
// Notes writes a table of cells without a header cell) are in no file
// of the built home, and the tables' other words are indexed. A cell
// was a line of its own, with nothing to tell a password from a word.
func TestSync_htmlNoteTables(t *testing.T) {
	note := `<html><body><div><h1>Staging services</h1></div>` +
		`<div><table><tbody><tr><td><div>Service</div></td><td><div>User</div></td><td><div>Password</div></td></tr>` +
		`<tr><td><div>grafana</div></td><td><div>admin</div></td><td><div>Gr4fanaPw9</div></td></tr>` +
		`<tr><td><div>nexus</div></td><td><div><b>deploy</b></div></td><td><div>Nx7Pw2Lm9q</div></td></tr></tbody></table></div>` +
		`<table><tr><th>Host</th><th>Root password</th></tr><tr><td>db1 | primary</td><td>Pg8Rt2Wq5Zx</td></tr></table>` +
		`<table><tr><td>DB_PASSWORD<td>Tr0ub4dor3x<tr><td>LOG_LEVEL<td>debug</table>` +
		`<p>Rotate them every quarter.</p></body></html>`
	home := syncedFiles(t, config.Source{Kind: config.KindMarkdown, Include: []string{"*.md", "*.html"}}, map[string]string{"Staging.html": note})
	all := ""
	for path, content := range home {
		for _, secret := range []string{"Gr4fanaPw9", "Nx7Pw2Lm9q", "Pg8Rt2Wq5Zx", "Tr0ub4dor3x"} {
			if strings.Contains(content, secret) {
				t.Errorf("%s holds %q", path, secret)
			}
		}
		all += content
	}
	for _, word := range []string{"grafana", "nexus", "primary", "LOG_LEVEL", "every quarter"} {
		if !strings.Contains(all, word) {
			t.Errorf("no file of the home holds %q: the tables' words are lost", word)
		}
	}
}

// TestSync_invisibleInToken: a key split by invisible characters, as
// text copied from a web page carries them (a soft hyphen in an AWS key
// id, a zero-width space in a GitHub token, in a Markdown note and in an
// HTML note's entities), is in no file of the built home: search reads
// through them, and the key was indexed whole.
func TestSync_invisibleInToken(t *testing.T) {
	const aws, ghp = "AKIAQ7RT2WX5YZ3KLM4N", "ghp_R4nD0mT0k3nV4lu3F0rT3st1ngXyZ9q8w7"
	home := syncedFiles(t, config.Source{Kind: config.KindMarkdown, Include: []string{"*.md", "*.html"}}, map[string]string{
		"keys.md":   "# Deploy keys\n\nThe bucket key is " + aws[:10] + "\u00ad" + aws[10:] + " and the CI token " + ghp[:16] + "\u200b" + ghp[16:] + ".\n",
		"keys.html": "<h1>Web keys</h1><p>Key " + aws[:8] + "&shy;" + aws[8:] + ", token " + ghp[:20] + "&#8203;&#8288;" + ghp[20:] + ".</p>",
	})
	md, html := false, false
	for path, content := range home {
		for _, part := range []string{aws[:10], aws[10:], strings.ToLower(aws), ghp[:16], ghp[20:], strings.ToLower(ghp)} {
			if strings.Contains(content, part) {
				t.Errorf("%s holds %q", path, part)
			}
		}
		md = md || strings.Contains(content, "The bucket key is")
		html = html || strings.Contains(content, ", token")
	}
	if !md || !html {
		t.Errorf("the notes are not indexed: the test proves nothing")
	}
}

// TestRecall_decomposedLabels: a password after a Korean or Japanese
// label in its decomposed form (conjoining jamo, a kana and a combining
// voiced mark, as text pasted from a macOS app comes), or written in
// full-width letters and digits after a Chinese one (a CJK input method's
// full-width mode), is not recalled through a real build and search. The
// index reads all of these in their compatibility-composed form, so the
// label's words and the password were found; the rule saw neither.
func TestRecall_decomposedLabels(t *testing.T) {
	for _, tt := range []struct {
		name, note, secret string
		queries            []string
	}{
		{"jamo", norm.NFD.String("# 서버\n\n운영 서버 계정은 app, 비밀번호: Tr0ub4dor3x 입니다.\n"), "Tr0ub4dor3x", []string{"운영 서버 계정", "비밀번호", "Tr0ub4dor3x"}},
		{"dakuten", norm.NFD.String("# サーバー\n\n本番サーバーのパスワードは Pq5Lm8Zx2w です。\n"), "Pq5Lm8Zx2w", []string{"本番サーバー", "パスワード", "Pq5Lm8Zx2w"}},
		{"full width", "# 数据库\n\n生产数据库的账号是 app，密码：Ｒｔ７Ｚｑ２Ｌｍ９ｘ，请保管好。\n", "rt7zq2lm9x", []string{"生产数据库", "Rt7Zq2Lm9x"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			served := noteRecall(t, tt.note, tt.queries...)
			if strings.Contains(strings.ToLower(norm.NFKC.String(served)), strings.ToLower(tt.secret)) {
				t.Errorf("search served the password: %s", served)
			}
		})
	}
}
