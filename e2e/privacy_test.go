package e2e

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/internal/novatest"
)

// keyBody is the base64 body of a fake private key of the given kind:
// three 64-character lines, distinct per kind so that a leak names its
// kind, and shaped as a real key's body is (no secret words in it).
func keyBody(kind string) []string {
	var lines []string
	for i := range 3 {
		sum := sha256.Sum256([]byte(fmt.Sprintf("%s-%d", kind, i)))
		sum2 := sha256.Sum256(sum[:])
		lines = append(lines, base64.StdEncoding.EncodeToString(append(sum[:], sum2[:16]...))[:64])
	}
	return lines
}

// TestPrivateKeysNotReturned: private keys that span lines, as notes and
// agent transcripts hold them, are redacted whole: PEM blocks of each
// kind (OpenSSH, RSA, EC, PKCS#8 encrypted, PGP), an SSH2 (RFC 4716)
// key as PuTTYgen and ssh.com export it, a Google service-account key
// (its private_key a JSON string with escaped line breaks) and a key an
// agent wrote with printf, its line breaks a literal \n in the command of
// a Claude Code transcript. So are the shapes a key or a token takes
// when it is broken or encoded: the last lines of a key without its
// BEGIN line, a token a terminal wrapped at 80 columns in a pasted
// session, and in commands the agent ran a key encoded in base64 (the
// data of a Kubernetes secret) and a token split by a shell line
// continuation. No line of any key
// body, and no part of those, is served by a search over HTTP, written
// under NOVA_HOME or logged by the sync or novad.
func TestPrivateKeysNotReturned(t *testing.T) {
	t.Parallel()
	bodies := map[string][]string{}
	pem := func(begin, end, kind string, headers ...string) string {
		bodies[kind] = keyBody(kind)
		return strings.Join(append(append([]string{begin}, headers...), append(bodies[kind], end)...), "\n")
	}
	var note strings.Builder
	note.WriteString("# Build host keys\n\nKeys of the build host, kept here until the vault migration.\n")
	for _, k := range []struct{ kind, begin, end string }{
		{"openssh", "-----BEGIN OPENSSH PRIVATE KEY-----", "-----END OPENSSH PRIVATE KEY-----"},
		{"rsa", "-----BEGIN RSA PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----"},
		{"ec", "-----BEGIN EC PRIVATE KEY-----", "-----END EC PRIVATE KEY-----"},
		{"encrypted", "-----BEGIN ENCRYPTED PRIVATE KEY-----", "-----END ENCRYPTED PRIVATE KEY-----"},
		{"pgp", "-----BEGIN PGP PRIVATE KEY BLOCK-----", "-----END PGP PRIVATE KEY BLOCK-----"},
		{"ssh2", "---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----", "---- END SSH2 ENCRYPTED PRIVATE KEY ----"},
	} {
		var headers []string
		if k.kind == "ssh2" {
			headers = []string{`Comment: "rsa-key-20260301"`}
		}
		fmt.Fprintf(&note, "\n## The %s deploy key\n\nThe %s deploy key of the build host:\n\n%s\n\nRotate it every quarter.\n", k.kind, k.kind, pem(k.begin, k.end, k.kind, headers...))
	}
	bodies["service account"] = keyBody("service account")
	note.WriteString("\n## The service account of the build host\n\n```json\n{\n  \"type\": \"service_account\",\n  \"project_id\": \"build-host\",\n" +
		"  \"private_key\": \"-----BEGIN PRIVATE KEY-----\\n" + strings.Join(bodies["service account"], `\n`) + "\\n-----END PRIVATE KEY-----\\n\",\n" +
		"  \"client_email\": \"builder@build-host.iam.gserviceaccount.com\"\n}\n```\n")

	// fragments are the parts of the encoded key and of the tokens that
	// must not be shown, by kind.
	fragments := map[string][]string{}
	parts := func(s string, from int) []string {
		var out []string
		for i := from; i+12 <= len(s); i += 6 {
			out = append(out, s[i:i+12])
		}
		return out
	}
	bodies["tail"] = keyBody("tail")
	note.WriteString("\n## The tail of the old deploy key\n\n```\n$ tail -n 4 ~/.ssh/old_deploy_rsa\n" + strings.Join(bodies["tail"], "\n") +
		"\nQx7Lm2Zp9Kv4==\n-----END RSA PRIVATE KEY-----\n```\n")
	encoded := base64.StdEncoding.EncodeToString([]byte(pem("-----BEGIN OPENSSH PRIVATE KEY-----", "-----END OPENSSH PRIVATE KEY-----", "encoded") + "\n"))
	fragments["encoded key"] = parts(encoded, 48)
	const wrappedToken = "ghp_R7kQ2mX9vL4nB8cT1wZ5yH3jF6dS0aPeUu2G"
	fragments["wrapped token"] = parts(wrappedToken, 4)
	// The terminal was 80 columns wide: the line breaks inside the token.
	wide := "RELEASE_BOT_GITHUB_TOKEN_FOR_TAGGING_THE_BUILD_HOST_IMAGES=" + wrappedToken
	note.WriteString("\n## The release bot of the build host\n\n```\n$ cat ~/.config/release/env\nRELEASE_BOT_NAME=release-bot\n" +
		wide[:80] + "\n" + wide[80:] + "\n```\n")

	claude := filepath.Join(t.TempDir(), "projects")
	project := filepath.Join(claude, "-home-dev-src-build")
	novatest.Must(t, os.MkdirAll(project, 0o700))
	bodies["transcript"] = keyBody("transcript")
	printf := `printf '-----BEGIN OPENSSH PRIVATE KEY-----\n` + strings.Join(bodies["transcript"], `\n`) + `\n-----END OPENSSH PRIVATE KEY-----\n' > ~/.ssh/build_host && chmod 600 ~/.ssh/build_host`
	const continuedToken = "ghp_W3nE8rT5yU1iO7pA2sD9fG4hJ6kL0zX5cV8b"
	fragments["continued token"] = parts(continuedToken, 4)
	export := "export GITHUB_TOKEN=" + continuedToken[:18] + "\\\n" + continuedToken[18:] + "\ngh release create v1.4.0 --notes 'build host images'"
	const session = "5b1c2d3e-0000-4a4a-9b9b-0000000000d7"
	line := func(typ, uuid, at, content string) string {
		return `{"type":"` + typ + `","cwd":"/home/dev/src/build","sessionId":"` + session + `","uuid":"` + uuid + `","timestamp":"2026-11-21T10:00:0` + at + `.000Z","message":{"role":"` + typ + `","content":` + content + `}}` + "\n"
	}
	transcript := line("user", "u1", "1", strconv.Quote("install the build host deploy key on this machine")) +
		line("assistant", "a1", "2", `[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":`+strconv.Quote(printf)+`}}]`) +
		line("user", "u2", "3", `[{"type":"tool_result","tool_use_id":"toolu_1","content":"done"}]`) +
		line("assistant", "a2", "4", `[{"type":"text","text":"The build host deploy key is installed in ~/.ssh/build_host."}]`) +
		line("user", "u3", "5", strconv.Quote("publish the build host release with the release bot token")) +
		line("assistant", "a3", "6", `[{"type":"tool_use","id":"toolu_2","name":"Bash","input":{"command":`+strconv.Quote(export)+`}}]`) +
		line("user", "u4", "7", `[{"type":"tool_result","tool_use_id":"toolu_2","content":"done"}]`) +
		line("assistant", "a4", "8", `[{"type":"text","text":"The build host release v1.4.0 is published."}]`) +
		line("user", "u5", "9", strconv.Quote("restore the kubernetes deploy key of the build host")) +
		line("assistant", "a5", "10", `[{"type":"tool_use","id":"toolu_3","name":"Bash","input":{"command":`+strconv.Quote("echo "+encoded+" | base64 -d > ~/.ssh/k8s_deploy && chmod 600 ~/.ssh/k8s_deploy")+`}}]`)
	novatest.Must(t, os.WriteFile(filepath.Join(project, session+".jsonl"), []byte(transcript), 0o600))

	h := novatest.NewHome(t, fmt.Sprintf("  - {name: claude, kind: claude-code, path: %q}\n", claude))
	novatest.Must(t, os.WriteFile(filepath.Join(h.Data, "keys.md"), []byte(note.String()), 0o600))
	out, errOut, code := h.Novactl("index", "sync", "-v")
	if code != 0 {
		t.Fatalf("sync exit %d: %s %s", code, out, errOut)
	}
	leaked := func(where string, b []byte) {
		t.Helper()
		for kind, lines := range bodies {
			for _, l := range lines {
				// A third of a line is more of a key than may be shown.
				if bytes.Contains(b, []byte(l[:24])) || bytes.Contains(b, []byte(l[40:])) {
					t.Errorf("%s holds a line of the %s key: %s", where, kind, l)
					break
				}
			}
		}
		for kind, parts := range fragments {
			for _, p := range parts {
				if bytes.Contains(b, []byte(p)) {
					t.Errorf("%s holds a part of the %s: %s", where, kind, p)
					break
				}
			}
		}
	}
	leaked("the sync's output", []byte(out+errOut))

	d := h.Start()
	queries := []string{"build host deploy key", "openssh deploy key", "rsa deploy key", "pgp deploy key", "ssh2 deploy key",
		"service account build host", "install the build host deploy key", "BEGIN PRIVATE KEY", "rsa-key-20260301",
		"tail of the old deploy key", "restore the kubernetes deploy key", "release bot github token", "publish the build host release"}
	for _, parts := range fragments {
		queries = append(queries, parts[0], parts[len(parts)-1])
	}
	for _, lines := range bodies {
		queries = append(queries, lines[0][:24], lines[1])
	}
	redacted := 0
	for _, q := range queries {
		r := search(t, d.Facade, `{"query":`+strconv.Quote(q)+`,"topK":20}`)
		if r.status != 200 {
			t.Fatalf("search %q: %d %s", q, r.status, r.body)
		}
		ev := evidence(t, r)
		redacted += bytes.Count(ev, []byte("[redacted]"))
		leaked(fmt.Sprintf("search %q", q), ev)
	}
	if redacted == 0 {
		t.Error("no search served a redacted key: the test did not reach them")
	}
	eachWrittenFile(t, h, leaked)
	d.Stop()
	leaked("novad's log", []byte(d.Logs.String()))
}

// TestSecretInPathNotServed: a secret in a file's or a folder's name (a
// note named for a token, an export folder named for a key) or in the
// working directory of an agent's session is not served: the results,
// citations and answers of a search over HTTP (facade and direct),
// novactl search and its --json, the stats' projects, and novad's log
// do not hold it. The
// citation still names the file's folder, and a note without a secret
// in its path is cited by its path as it is.
func TestSecretInPathNotServed(t *testing.T) {
	t.Parallel()
	const fileToken = "ghp_R7kQ2mX9vL4nB8cT1wZ5yH3jF6dS0aPeUu2G"
	const dirToken = "ghp_W3nE8rT5yU1iO7pA2sD9fG4hJ6kL0zX5cV8b"
	const cwdToken = "ghp_Q1wE2rT3yU4iO5pA6sD7fG8hJ9kL0zX1cV2b"
	codex := filepath.Join(t.TempDir(), "sessions", "2026", "12", "01")
	novatest.Must(t, os.MkdirAll(codex, 0o700))
	rollout := strings.ReplaceAll(codexRollout("019a0000-0000-7000-8000-0000000000c1", "The zebrafish tank needs a heater."), "/home/dev/src/zoo", "/home/dev/src/"+cwdToken)
	novatest.Must(t, os.WriteFile(filepath.Join(codex, "rollout-2026-12-01T09-00-00-019a0000-0000-7000-8000-0000000000c1.jsonl"), []byte(rollout), 0o600))
	h := novatest.NewHome(t, fmt.Sprintf("  - {name: codex, kind: codex, path: %q}\n", filepath.Dir(filepath.Dir(filepath.Dir(codex)))))
	export := filepath.Join(h.Data, "export-"+dirToken)
	novatest.Must(t, os.MkdirAll(export, 0o700))
	// No heading: the note's title is its file's name.
	novatest.Must(t, os.WriteFile(filepath.Join(h.Data, fileToken+".md"), []byte("The zebrafish deploy uses the blue pipeline.\n"), 0o600))
	novatest.Must(t, os.WriteFile(filepath.Join(export, "plan.md"), []byte("# Plan\n\nThe zebrafish migration plan is ready.\n"), 0o600))
	novatest.Must(t, os.WriteFile(filepath.Join(h.Data, "plain.md"), []byte("# Plain\n\nThe zebrafish food is in the shed.\n"), 0o600))
	out, errOut, code := h.Novactl("index", "sync", "-v")
	if code != 0 {
		t.Fatalf("sync exit %d: %s %s", code, out, errOut)
	}
	leaked := func(where string, b []byte) {
		t.Helper()
		for _, tok := range []string{fileToken, dirToken, cwdToken} {
			if bytes.Contains(b, []byte(tok[4:24])) {
				t.Errorf("%s holds the token %s", where, tok)
			}
		}
	}
	leaked("the sync's output", []byte(out+errOut))

	d := h.Start()
	const query = `{"query":"zebrafish","topK":20}`
	r := search(t, d.Facade, query)
	if r.status != 200 {
		t.Fatalf("search: %d %s", r.status, r.body)
	}
	var resp struct {
		Results []struct {
			Provenance struct {
				SourcePath string `json:"sourcePath"`
			} `json:"provenance"`
		} `json:"results"`
	}
	novatest.Must(t, json.Unmarshal(r.body, &resp))
	cited := map[string]bool{}
	for _, res := range resp.Results {
		cited[res.Provenance.SourcePath] = true
	}
	if !cited[filepath.Join(h.Data, "plain.md")] {
		t.Errorf("the note without a secret in its path is not cited by its path: %v", cited)
	}
	inExport := false
	for p := range cited {
		inExport = inExport || strings.HasPrefix(p, filepath.Join(h.Data, "export-"))
	}
	if len(resp.Results) < 4 || !inExport {
		t.Errorf("want the four memories, the export's cited in its folder; got %v", cited)
	}
	leaked("a search over the facade", r.body)
	leaked("a search over the direct API", do(t, http.MethodPost, d.Direct+api.PathSearch, query, nil).body)
	// The stats list the projects, which the memory_status tool gives an
	// agent as filter values.
	leaked("the stats", do(t, http.MethodGet, d.Direct+api.PathStats, "", nil).body)
	leaked("the facade's stats", do(t, http.MethodGet, d.Facade+api.PathFacadeStats, "", nil).body)
	for _, args := range [][]string{{"search", "zebrafish"}, {"search", "--json", "zebrafish"}} {
		o, e, code := h.Novactl(args...)
		if code != 0 || !strings.Contains(o, "zebrafish") {
			t.Fatalf("novactl %v: exit %d: %s %s", args, code, o, e)
		}
		leaked(fmt.Sprintf("novactl %v", args), []byte(o+e))
	}
	d.Stop()
	leaked("novad's log", []byte(d.Logs.String()))
}
