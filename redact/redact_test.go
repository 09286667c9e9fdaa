package redact

import (
	"bufio"
	"encoding/base64"
	"math/rand/v2"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/nova-recall/nova/memory"
)

// corpusLines returns the non-comment lines of a testdata/secrets file.
func corpusLines(t testing.TB, name string) []string {
	t.Helper()
	f, err := os.Open("testdata/secrets/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := sc.Text(); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, strings.ReplaceAll(l, `\n`, "\n"))
		}
	}
	return out
}

func TestRedact(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
		n    int
	}{
		{"openai key", "use sk-proj-Zx9fAKE0tok3nF0rTestsOnly4aBcD please", "use [redacted] please", 1},
		{"anthropic key", "ANTHROPIC_API_KEY is sk-ant-api03-fAkEfAkE0123456789_abcdefghij-XYZ", "ANTHROPIC_API_KEY is [redacted]", 1},
		{"github classic", "token ghp_Fake0Token1For2Tests3Only4abcdEFGH5678", "token [redacted]", 1},
		{"github oauth and app", "gho_abcdefghijklmnopqrstuvwxyz0123456789 ghs_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", "[redacted] [redacted]", 2},
		{"github fine-grained", "github_pat_11AAAAAAA0fakefakefake_0123456789abcdefghijklmnop", "[redacted]", 1},
		{"aws access key id", "aws_access_key_id = AKIAIOSFODNN7EXAMPLE", "aws_access_key_id = [redacted]", 1},
		{"slack", "SLACK=xoxb-123456789012-abcdefABCDEF", "SLACK=[redacted]", 1},
		{"bearer header", "curl -H 'Authorization: Bearer abc123DEF456ghi789JKL' https://x", "curl -H 'Authorization: Bearer [redacted]' https://x", 1},
		{"bearer prose", "send a Bearer authentication-header", "send a Bearer authentication-header", 0},
		{"pem block", "key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAfake\nline2\n-----END RSA PRIVATE KEY-----\ndone", "key:\n[redacted]\ndone", 1},
		{"pem cut off", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA", "[redacted]", 1},
		{"password assignment", "password=hunter2 and more", "password=[redacted] and more", 1},
		{"env dump", "DB_PASSWORD=s3cr3t!\nSECRET_KEY_BASE=9f8e7d6c\nAWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG", "DB_PASSWORD=[redacted]\nSECRET_KEY_BASE=[redacted]\nAWS_SECRET_ACCESS_KEY=[redacted]", 3},
		{"yaml api key", "api_key: 0123abcd4567", "api_key: [redacted]", 1},
		{"json secret", `{"client_secret": "abc123def", "name": "x"}`, `{"client_secret": "[redacted]", "name": "x"}`, 1},
		{"key inside assignment counted once", "api_key=sk-proj-Zx9fAKE0tok3nF0rTestsOnly4aBcD", "api_key=[redacted]", 1},
		{"url password", "postgres://app:pa55word@db.local:5432/app", "postgres://app:[redacted]@db.local:5432/app", 1},
		{"url password with an at sign", "postgres://admin:Tr0ub@dor99zz@db.example.com/prod", "postgres://admin:[redacted]@db.example.com/prod", 1},
		{"url password without user", "redis://:Rd5Pw8Xq2Lm7@cache.internal:6379/0", "redis://:[redacted]@cache.internal:6379/0", 1},
		{"url port and path kept", "https://example.com:8080/u/alice@example.com", "https://example.com:8080/u/alice@example.com", 0},
		{"jwt", "cookie eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTYifQ.c2lnbmF0dXJlLWZha2U", "cookie [redacted]", 1},
		{"env reference kept", "password: $DB_PASSWORD", "password: $DB_PASSWORD", 0},
		{"placeholder kept", `api_key: "<your-key>"`, `api_key: "<your-key>"`, 0},
		{"code reference kept", `password = os.environ.get("PW")`, `password = os.environ.get("PW")`, 0},
		{"mask kept", "password: ********", "password: ********", 0},
		{"short sk word kept", "pip install scikit-learn (sk-learn)", "pip install scikit-learn (sk-learn)", 0},
		{"hash kept", "commit 3f2a9c1e5b7d9f0a1c3e5b7d9f0a1c3e5b7d9f0a", "commit 3f2a9c1e5b7d9f0a1c3e5b7d9f0a1c3e5b7d9f0a", 0},
		{"prose kept", "The passwords table has a secret column.", "The passwords table has a secret column.", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, n := Text(tt.in)
			if got != tt.want || n != tt.n {
				t.Errorf("Text(%q)\n got %q, %d\nwant %q, %d", tt.in, got, n, tt.want, tt.n)
			}
		})
	}
}

// TestRedact_tokenCorpus redacts every token of a corpus of real token
// shapes with fake values, in the sentences they come in, and leaves the
// rest of each sentence.
func TestRedact_tokenCorpus(t *testing.T) {
	lines := corpusLines(t, "tokens.txt")
	if len(lines) < 20 {
		t.Fatalf("only %d corpus lines", len(lines))
	}
	for _, l := range lines {
		name, rest, _ := strings.Cut(l, "\t")
		text, secret, ok := strings.Cut(rest, "\t")
		if !ok || !strings.Contains(text, secret) {
			t.Fatalf("corpus line %q: the secret is not in the text", name)
		}
		t.Run(name, func(t *testing.T) {
			got, n := Text(text)
			if n < 1 || strings.Contains(got, secret) || !strings.Contains(got, Mark) {
				t.Errorf("Text(%q) = %q, %d", text, got, n)
			}
			// Only the secret goes: what comes before it stays, but for
			// a secret there too (an AWS key id before its secret); a PEM
			// block goes whole.
			before, _ := Text(text[:strings.Index(text, secret)])
			if !strings.HasPrefix(got, before) && !strings.HasPrefix(before, "-----") {
				t.Errorf("Text(%q) = %q lost %q", text, got, before)
			}
		})
	}
}

// TestRedact_caseChangesLength: text with characters whose lower case has
// another length in UTF-8 (Ⱥ 2 bytes, ⱥ 3; the Kelvin sign 3, k 1)
// before a secret. Positions found in the lower-cased text are used in the
// text itself: they once panicked (slice bounds out of range) or missed
// the secret.
func TestRedact_caseChangesLength(t *testing.T) {
	lines := corpusLines(t, "tokens.txt")
	for _, prefix := range []string{strings.Repeat("Ⱥ", 50), strings.Repeat("\u212a", 30), strings.Repeat("İ", 30)} {
		for _, l := range lines {
			name, rest, _ := strings.Cut(l, "\t")
			text, secret, _ := strings.Cut(rest, "\t")
			text = prefix + " " + text
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Errorf("%s after %.6q: panic %v", name, prefix, r)
					}
				}()
				if got, n := Text(text); n < 1 || strings.Contains(got, secret) || !strings.HasPrefix(got, prefix) {
					t.Errorf("%s after %.6q: Redact = %q, %d", name, prefix, got, n)
				}
			}()
		}
	}
}

// FuzzRedact: redaction never panics, and it changes the text exactly
// when it counts a secret, which it marks.
func FuzzRedact(f *testing.F) {
	for _, l := range corpusLines(f, "tokens.txt") {
		_, rest, _ := strings.Cut(l, "\t")
		text, _, _ := strings.Cut(rest, "\t")
		f.Add(text)
	}
	f.Add("ȺȺȺ my password is Tr0ub4dor3xq ok")
	f.Fuzz(func(t *testing.T, text string) {
		got, n := Text(text)
		if n == 0 && got != text {
			t.Errorf("Text(%q) = %q with no secret counted", text, got)
		}
		if n > 0 && !strings.Contains(got, Mark) {
			t.Errorf("Text(%q) = %q, %d secrets but no mark", text, got, n)
		}
	})
}

func TestRedact_cleanCorpus(t *testing.T) {
	for _, text := range corpusLines(t, "clean.txt") {
		if got, n := Text(text); got != text || n != 0 {
			t.Errorf("Text(%q) = %q, %d", text, got, n)
		}
	}
}

func TestReplaceSpans(t *testing.T) {
	got, n := replaceSpans("a SECRET and TOKENX end", []span{{13, 19}, {2, 8}, {3, 6}, {15, 19}})
	if got != "a [redacted] and [redacted] end" || n != 2 {
		t.Errorf("replaceSpans = %q, %d", got, n)
	}
}

// redactionCorpus is n transcript-like records: prose full of the words
// that enable rules (key, token, secret, password, api), code and paths,
// with a real-shaped fake secret in one record of a hundred.
func redactionCorpus(n int) []string {
	r := rand.New(rand.NewPCG(7, 11))
	words := strings.Fields(`the invoice totals drift by a cent because each line is rounded before summing we switched
to banker's rounding at the invoice level and added a regression test for the migration script that failed on empty
tables the dashboard port was unavailable after the firewall change run go test ./... and check the key rotation
token refresh secret manager config password policy api gateway src/internal/money/round.go:41 v1.4.1 RC-204
deploy rollback 3f2a9c1 auth header user=alice status=ok`)
	secrets := []string{"npm_q8Rz3kWm5Tn0Vb7Yc2Xl9Pd4Hf6Js1Ga8Ke3", "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",
		"ghp_R4nD0mT0k3nV4lu3F0rT3st1ngXyZ9q8w7", "AKIAQ7RT2WX5YZ3KLM4N", "password=Tr0ub4dor3xq"}
	out := make([]string, n)
	for i := range out {
		var b strings.Builder
		for range 20 + r.IntN(120) {
			b.WriteString(words[r.IntN(len(words))])
			b.WriteByte(' ')
		}
		if r.IntN(100) == 0 {
			b.WriteString(secrets[r.IntN(len(secrets))])
		}
		out[i] = b.String()
	}
	return out
}

// BenchmarkRedact_100k redacts a 100 000-record corpus per iteration
// (make bench-redact runs it once).
func BenchmarkRedact_100k(b *testing.B) {
	corpus := redactionCorpus(100_000)
	if _, err := defaultLeakRules(); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		n := 0
		for _, text := range corpus {
			_, k := Text(text)
			n += k
		}
		if n == 0 {
			b.Fatal("nothing redacted")
		}
	}
}

// BenchmarkRedact_clean is the cost of text that holds no secret and no
// rule keyword: the guards alone.
func BenchmarkRedact_clean(b *testing.B) {
	text := strings.Repeat("We rounded once at the invoice level with banker's rounding, see the commit. ", 6)
	for b.Loop() {
		Text(text)
	}
}

// TestRedact_concurrent: the rule set is shared by readers running at
// once (the race detector checks it).
func TestRedact_concurrent(t *testing.T) {
	lines := corpusLines(t, "tokens.txt")
	done := make(chan bool)
	for g := 0; g < 4; g++ {
		go func() {
			ok := true
			for _, l := range lines {
				_, rest, _ := strings.Cut(l, "\t")
				text, secret, _ := strings.Cut(rest, "\t")
				if got, _ := Text(text); strings.Contains(got, secret) {
					ok = false
				}
			}
			done <- ok
		}()
	}
	for g := 0; g < 4; g++ {
		if !<-done {
			t.Error("a secret survived a concurrent Redact")
		}
	}
}

// TestRuleGuards: each rule guard names a rule that is loaded, and is
// true for every text its rule's expression matches: the token corpus,
// texts built around the expression's literals at random, and the
// characters that case folding lets match (the Kelvin sign, the long s).
func TestRuleGuards(t *testing.T) {
	lr, err := defaultLeakRules()
	if err != nil {
		t.Fatal(err)
	}
	guarded := map[string]*leakRule{}
	for i := range lr.rules {
		if r := &lr.rules[i]; ruleGuards[r.id] != nil && r.guard != nil {
			guarded[r.id] = r
		}
	}
	for id := range ruleGuards {
		if guarded[id] == nil {
			t.Fatalf("rule guard %q: no loaded rule has it", id)
		}
	}
	texts := corpusLines(t, "tokens.txt")
	texts = append(texts, corpusLines(t, "clean.txt")...)
	pieces := []string{"ey", ".ey", "eyJhbGciOiJIUzI1NiJ9", "hvs.", "s.", "S.", "s", ".", " ", "\n", ";", "'", "\\n",
		"abcdefghijKLMNOP0123", "\u212A", "\u017F", "x_y-z", "é", "token", "they said"}
	rng := rand.New(rand.NewPCG(5, 9))
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(30) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		texts = append(texts, b.String())
	}
	texts = append(texts, "s."+strings.Repeat("\u212A", 24)+" ", "s."+strings.Repeat("\u017Fa", 12)+"\n",
		"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U ")
	matched := map[string]int{}
	for _, text := range texts {
		for id, r := range guarded {
			if r.re.MatchString(text) {
				matched[id]++
				if !r.guard(text) {
					t.Fatalf("rule %s matches %q but its guard says it cannot", id, text)
				}
			}
		}
	}
	for id := range ruleGuards {
		if matched[id] == 0 {
			t.Errorf("rule %s matched none of the texts: the test proves nothing for it", id)
		}
	}
}

// TestVaultTokenRune: the runes the guard accepts are those [\w-] or
// (?i:[a-z0-9]) match, over every code point.
func TestVaultTokenRune(t *testing.T) {
	re := regexp.MustCompile(`^(?:[\w-]|(?i:[a-z0-9]))$`)
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if utf8.ValidRune(r) && re.MatchString(string(r)) != vaultTokenRune(r) {
			t.Fatalf("vaultTokenRune(%U) = %v, the expression says otherwise", r, vaultTokenRune(r))
		}
	}
}

// TestRedact_tokenBeforePunctuation: a token that prose ends with a
// period, a comma, a bracket or Markdown emphasis is redacted as one
// followed by a blank. Most of gitleaks' rules want a quote, a blank,
// ';' or the end after the secret, as code has it: "charge with
// sk_live_....", "(npm_...)" and "**sk_live_...**" kept the key.
func TestRedact_tokenBeforePunctuation(t *testing.T) {
	for _, l := range corpusLines(t, "tokens.txt") {
		name, rest, _ := strings.Cut(l, "\t")
		text, secret, _ := strings.Cut(rest, "\t")
		// Tokens that stand as words: not a PEM block (it ends at its
		// END line) nor a password inside a URL.
		if next := text[strings.Index(text, secret)+len(secret):]; strings.Contains(secret, "\n") || next != "" && next[0] != ' ' {
			continue
		}
		for _, after := range []string{".", ",", ")", "]", "**", "!", "</code>"} {
			in := strings.Replace(text, secret, secret+after+" ", 1)
			if got, n := Text(in); n < 1 || strings.Contains(got, secret) {
				t.Errorf("%s followed by %q: Text(%q) = %q, %d", name, after, in, got, n)
			}
		}
	}
}

// TestRedact_idempotent: redacting text already redacted finds nothing,
// the mark included. The URL password rule took "[redacted]" between
// ':' and '@' for a password and counted it again (so did the PuTTY
// rule), and Chunk said such a chunk changed: a carried chunk was
// embedded again on every build.
func TestRedact_idempotent(t *testing.T) {
	for _, l := range corpusLines(t, "tokens.txt") {
		name, rest, _ := strings.Cut(l, "\t")
		text, _, _ := strings.Cut(rest, "\t")
		once, _ := Text(text)
		if twice, n := Text(once); twice != once || n != 0 {
			t.Errorf("%s: Text(%q) = %q, %d; want it unchanged, 0", name, once, twice, n)
		}
		c := memory.Chunk{Text: once, Title: once}
		if Chunk(&c) {
			t.Errorf("%s: Chunk of the redacted %q says it changed", name, once)
		}
	}
}

// redactCases runs Redact on each input and wants the output given.
func redactCases(t *testing.T, cases [][2]string) {
	t.Helper()
	for _, c := range cases {
		if got, _ := Text(c[0]); got != c[1] {
			t.Errorf("Text(%q) = %q, want %q", c[0], got, c[1])
		}
	}
}

// TestRedact_valueWithAmpersandOrSemicolon: a password holding '&' or
// ';' is redacted whole. The value ended there as it ends a query
// string's or a connection string's value, so "password: P@ss&w0rd!"
// (four characters before the '&', too short to be a password) was kept
// whole and "password=P@ss&w0rd!" lost only "P@ss". A next key (&page=,
// ;Server=), a blank or a shell operator still end the value.
func TestRedact_valueWithAmpersandOrSemicolon(t *testing.T) {
	redactCases(t, [][2]string{
		{"password: P@ss&w0rd!", "password: [redacted]"},
		{"password=P@ss&w0rd!", "password=[redacted]"},
		{"db:\n  password: pass;word99\n  user: app", "db:\n  password: [redacted]\n  user: app"},
		{"DB_PASSWORD=Tr0ub4dor&3 ./run", "DB_PASSWORD=[redacted] ./run"},
		{"GET /v1/items?token=Qt5Pw8Xq2Lm7Ab3Cd4Ef5Gh6&page=2", "GET /v1/items?token=[redacted]&page=2"},
		{"<a href=\"/x?token=Qt5Pw8Xq2Lm7Ab3Cd4Ef5Gh6&amp;page=2\">", "<a href=\"/x?token=[redacted]&amp;page=2\">"},
		{"Server=db;User Id=sa;Password=Tr0ub4dor3x;Encrypt=true", "Server=db;User Id=sa;Password=[redacted];Encrypt=true"},
		{"Password=Tr0ub4dor3x;User Id=sa;Data Source=db", "Password=[redacted];User Id=sa;Data Source=db"},
		{"export PASSWORD=Tr0ub4dor3x; ./run", "export PASSWORD=[redacted]; ./run"},
		{"PASSWORD=Tr0ub4dor3x&& ./run", "PASSWORD=[redacted]&& ./run"},
		{"PASSWORD=Tr0ub4dor3x& wait", "PASSWORD=[redacted]& wait"},
		// Kept: Go taking a variable's address, which is no value.
		{"bbp.Password = &password\nqr.SkipToken = &skipToken", "bbp.Password = &password\nqr.SkipToken = &skipToken"},
	})
}

// TestRedact_markdownEmphasis: a secret-named key or its value in
// Markdown bold or italics, as notes write credentials down, is
// redacted. "**Password:** Tr0ub4dor3x" read "**" as the value and
// "Password: **Tr0ub4dor3x**" a value starting with '*' as a mask (****),
// and both were kept. Emphasis around words that are no password still
// keeps them.
func TestRedact_markdownEmphasis(t *testing.T) {
	redactCases(t, [][2]string{
		{"**Password:** Tr0ub4dor3x", "**Password:** [redacted]"},
		// Kept: a '*' that opens no emphasis (Go's pointer, a YAML alias),
		// a sentence's period.
		{"_DisableS3ExpressSessionAuth := *p.DisableS3ExpressSessionAuth", "_DisableS3ExpressSessionAuth := *p.DisableS3ExpressSessionAuth"},
		{"- { _id: *aws_key_id, masterKey: *aws_key_material }", "- { _id: *aws_key_id, masterKey: *aws_key_material }"},
		{"// ServiceAccountKey: *Deprecated.* New integrations cannot use it", "// ServiceAccountKey: *Deprecated.* New integrations cannot use it"},
		{"- **Password**: Tr0ub4dor3x", "- **Password**: [redacted]"},
		{"*Password*: Tr0ub4dor3x", "*Password*: [redacted]"},
		{"Password: **Tr0ub4dor3x**", "Password: **[redacted]**"},
		{"DB_PASSWORD=**Tr0ub4dor3x**.", "DB_PASSWORD=**[redacted]**."},
		{"**Wi-Fi password:** `correcthorse9`", "**Wi-Fi password:** `[redacted]`"},
		{"**Token:** \"Tk6Pw8Xq2Lm7Ab3Cd4\"", "**Token:** \"[redacted]\""},
		// Kept: prose, a placeholder, a mask, a rule.
		{"**Password:** must be at least 12 characters", "**Password:** must be at least 12 characters"},
		{"**Token**: see the vault", "**Token**: see the vault"},
		{"Password: *required*", "Password: *required*"},
		{"password: ****", "password: ****"},
		{"**Secret:** none", "**Secret:** none"},
	})
}

// TestRedact_nameValuePairs: a secret given as a name and a value, as
// Kubernetes env lists, ECS task definitions, CloudFormation parameters
// and .NET appSettings write it, is redacted: the value's key is "value",
// which names nothing, and the secret name was the value of the key
// before it. A name that is no secret's keeps its value.
func TestRedact_nameValuePairs(t *testing.T) {
	redactCases(t, [][2]string{
		{"env:\n  - name: DB_PASSWORD\n    value: Tr0ub4dor3x\n  - name: LOG_LEVEL\n    value: debug",
			"env:\n  - name: DB_PASSWORD\n    value: [redacted]\n  - name: LOG_LEVEL\n    value: debug"},
		{"- name: API_TOKEN\n  value: \"Tk6Pw8Xq2Lm7Ab3Cd4\"", "- name: API_TOKEN\n  value: \"[redacted]\""},
		{`"environment": [{"name": "DB_PASSWORD", "value": "Tr0ub4dor3x"}, {"name": "PORT", "value": "8080"}]`,
			`"environment": [{"name": "DB_PASSWORD", "value": "[redacted]"}, {"name": "PORT", "value": "8080"}]`},
		{`{\"ParameterKey\":\"DBPassword\",\"ParameterValue\":\"Tr0ub4dor3x\"}`, `{\"ParameterKey\":\"DBPassword\",\"ParameterValue\":\"[redacted]\"}`},
		{`<add key="ApiKey" value="Tk6Pw8Xq2Lm7Ab3Cd4" />`, `<add key="ApiKey" value="[redacted]" />`},
		// Kept: names that are no secret's, a value far from its name, a
		// reference.
		{"- name: TOKENIZERS_PARALLELISM\n  value: \"false\"", "- name: TOKENIZERS_PARALLELISM\n  value: \"false\""},
		{`{"name": "password", "type": "string", "required": true, "value": "abc"}`, `{"name": "password", "type": "string", "required": true, "value": "abc"}`},
		{"- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef:\n      name: db\n      key: password", "- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef:\n      name: db\n      key: password"},
		{`<input type="password" name="password" value="{{ form.password }}">`, `<input type="password" name="password" value="{{ form.password }}">`},
		// A secret-named key is no name key, whatever its value ends with.
		{"api_key: Xq9zRmTvLwYbNcHdJfG2token", "api_key: [redacted]"},
	})
}

// TestRedact_qualifiedKeyInProse: a label of two words, a qualifier and
// "key" (API key:, License key:, Secret key:), names a secret as api_key
// does. Alone "key" may name anything and needs a random-looking value,
// so a hexadecimal API key after "API key:" was kept.
func TestRedact_qualifiedKeyInProse(t *testing.T) {
	redactCases(t, [][2]string{
		{"API key: 9f86d081884c7d659a2feaa0c55ad015", "API key: [redacted]"},
		{"- **API key**: `9f86d081884c7d659a2feaa0c55ad015`", "- **API key**: `[redacted]`"},
		{"License key: ABCD-EFGH-1234-5678", "License key: [redacted]"},
		{"the secret key = 0123456789abcdef0123", "the secret key = [redacted]"},
		// Kept: other words before "key", and words after it.
		{"cache key: 9f86d081884c7d659a2feaa0c55ad015", "cache key: 9f86d081884c7d659a2feaa0c55ad015"},
		{"primary key: id and sort key: created_at", "primary key: id and sort key: created_at"},
		{"API key: see the vault entry", "API key: see the vault entry"},
		{"public key: 9f86d081884c7d659a2feaa0c55ad015", "public key: 9f86d081884c7d659a2feaa0c55ad015"},
	})
}

// TestRedact_markdownTables: a secret in a Markdown table, under a
// column that names one or beside a cell that does, is redacted. Tables
// are how notes and agents' summaries list credentials, and no cell is
// key=value: they were kept.
func TestRedact_markdownTables(t *testing.T) {
	redactCases(t, [][2]string{
		{"| Service | User | Password |\n|---|:---|---|\n| grafana | admin | Gr4fanaPw9 |\n| nexus | deploy | `N3x!us-pw` |\n| ci | bot | — |",
			"| Service | User | Password |\n|---|:---|---|\n| grafana | admin | [redacted] |\n| nexus | deploy | `[redacted]` |\n| ci | bot | — |"},
		{"| Variable | Value |\n| --- | --- |\n| DB_PASSWORD | Tr0ub4dor3 |\n| LOG_LEVEL | debug |",
			"| Variable | Value |\n| --- | --- |\n| DB_PASSWORD | [redacted] |\n| LOG_LEVEL | debug |"},
		{"| `API_TOKEN` | `Tk6Pw8Xq2Lm7Ab3Cd4` |", "| `API_TOKEN` | `[redacted]` |"},
		{"|| password |\n| | |", "|| password |\n| | |"},
		{"| Name | API key | Notes |\n|-|-|-|\n| maps | **9f86d081884c7d659a2feaa0c55ad015** | rotated |",
			"| Name | API key | Notes |\n|-|-|-|\n| maps | **[redacted]** | rotated |"},
		// Kept: descriptions, types, placeholders, columns about secrets.
		{"| Variable | Description |\n|---|---|\n| DB_PASSWORD | The database password |\n| API_TOKEN | required |",
			"| Variable | Description |\n|---|---|\n| DB_PASSWORD | The database password |\n| API_TOKEN | required |"},
		{"| Field | Type |\n|---|---|\n| password | string |\n| token | `<your token>` |",
			"| Field | Type |\n|---|---|\n| password | string |\n| token | `<your token>` |"},
		{"| Service | Password |\n|---|---|\n| db | see vault |\n| cache | N/A |\n| mail | `********` |",
			"| Service | Password |\n|---|---|\n| db | see vault |\n| cache | N/A |\n| mail | `********` |"},
		{"| Check | ok label |\n| --- | --- |\n| token | `Memory service access ready` |", "| Check | ok label |\n| --- | --- |\n| token | `Memory service access ready` |"},
		{"| Name | Type | Default |\n|---|---|---|\n| `--secret` | `map` | `map[]` |\n| `ClientAuth` | VerifyClientCertIfGiven | none |",
			"| Name | Type | Default |\n|---|---|---|\n| `--secret` | `map` | `map[]` |\n| `ClientAuth` | VerifyClientCertIfGiven | none |"},
		{"| Check | Password policy |\n|---|---|\n| length | min12chars |", "| Check | Password policy |\n|---|---|\n| length | min12chars |"},
	})
}

// TestRedact_cjk: a password or token labelled in Chinese, Japanese or
// Korean, or after a full-width colon as CJK input methods type it, is
// redacted; CJK prose around or about a password is kept. Only ASCII
// labels and colons were read, so "数据库密码：Tr0ub4dor3x" was kept.
func TestRedact_cjk(t *testing.T) {
	redactCases(t, [][2]string{
		{"数据库密码：Tr0ub4dor3x，请保管好。", "数据库密码：[redacted]，请保管好。"},
		{"密码: Tr0ub4dor3x", "密码: [redacted]"},
		{"API 令牌 = Tk6Pw8Xq2Lm7Ab3Cd4", "API 令牌 = [redacted]"},
		{"password：Tr0ub4dor3x", "password：[redacted]"},
		{"管理员的密码是 Tr0ub4dor3x。", "管理员的密码是 [redacted]。"},
		{"パスワード: Tr0ub4dor3x", "パスワード: [redacted]"},
		{"비밀번호: Tr0ub4dor3x", "비밀번호: [redacted]"},
		// Kept: prose about passwords and tokens.
		{"密码：必须包含数字和字母，至少十二位。", "密码：必须包含数字和字母，至少十二位。"},
		{"密码是必填项，令牌已经过期了，请重新生成。", "密码是必填项，令牌已经过期了，请重新生成。"},
		{"迁移后定时任务失败，原因是时区配置不同，已经修复。", "迁移后定时任务失败，原因是时区配置不同，已经修复。"},
		{"令牌数量：4096", "令牌数量：4096"},
	})
}

// TestRedact_cookies: the session cookies a Cookie or Set-Cookie header
// or curl's --cookie sends are redacted: they are bearer credentials, as
// "Copy as cURL" pastes them into a transcript, and no rule knew their
// names (session, sessionid, _app_session, PHPSESSID). Short values and
// cookie attributes are kept.
func TestRedact_cookies(t *testing.T) {
	redactCases(t, [][2]string{
		{"curl 'https://app.example.com/api/me' -H 'Cookie: sessionid=k8q2x7mz0c4tn5v1wb9e3ry6ud; theme=dark'",
			"curl 'https://app.example.com/api/me' -H 'Cookie: sessionid=[redacted]; theme=dark'"},
		{"Set-Cookie: _app_session=QmFzZTY0U2Vzc2lvbkRhdGExMjM0NTY3ODkw--a1b2c3d4e5f6; Path=/; HttpOnly; Expires=Wed, 21 Oct 2026 07:28:00 GMT",
			"Set-Cookie: _app_session=[redacted]; Path=/; HttpOnly; Expires=Wed, 21 Oct 2026 07:28:00 GMT"},
		{"cookie: PHPSESSID=0123456789abcdef0123456789abcdef", "cookie: PHPSESSID=[redacted]"},
		{`{"headers": {"Cookie": "session=Zx9Lm2Qp7Rt4Vw8Yb3Nc6Hd1"}}`, `{"headers": {"Cookie": "session=[redacted]"}}`},
		{`{\"cookie\":\"sid=Zx9Lm2Qp7Rt4Vw8Yb3Nc6Hd1; lang=en\"}`, `{\"cookie\":\"sid=[redacted]; lang=en\"}`},
		{"curl --cookie 'session=Zx9Lm2Qp7Rt4Vw8Yb3Nc6Hd1' https://app.example.com", "curl --cookie 'session=[redacted]' https://app.example.com"},
		// Kept: prose about cookies, short values.
		{"the cookie: a small piece of data the browser stores", "the cookie: a small piece of data the browser stores"},
		{"Cookie: theme=dark; lang=en-US; consent=yes", "Cookie: theme=dark; lang=en-US; consent=yes"},
	})
}

// TestRedact_logseqProperties: a secret in a Logseq property (name::
// value), as Logseq notes keep credentials, is redacted; "::" was read
// as assigning nothing (C++'s std::string, Ruby's Foo::Bar), which it
// still is when no blank follows.
func TestRedact_logseqProperties(t *testing.T) {
	redactCases(t, [][2]string{
		{"- The router admin\n  password:: Rt7Zq2Lm9xQ\n  url:: http://10.0.0.1", "- The router admin\n  password:: [redacted]\n  url:: http://10.0.0.1"},
		{"api-key:: 9f86d081884c7d659a2feaa0c55ad015", "api-key:: [redacted]"},
		// Kept: other properties, code.
		{"collapsed:: true\ntoken-count:: 4096", "collapsed:: true\ntoken-count:: 4096"},
		{"std::string password::value; auto token::Kind = x", "std::string password::value; auto token::Kind = x"},
	})
}

// TestRedact_clientPasswordFlags: the password flags of redis-cli (-a),
// the MongoDB tools and az login (-p), zip (-P) and 7-Zip (-pPASSWORD)
// are redacted as mysql's -p and sshpass's are; they were kept.
func TestRedact_clientPasswordFlags(t *testing.T) {
	redactCases(t, [][2]string{
		{"redis-cli -h cache -a Rd5Pw8Xq2Lm7 ping", "redis-cli -h cache -a [redacted] ping"},
		{"redis-cli -a 'Rd5Pw8Xq2Lm7' --no-auth-warning", "redis-cli -a '[redacted]' --no-auth-warning"},
		{"mongosh -u admin -p Mg5Pw8Xq2Lm7 --authenticationDatabase admin", "mongosh -u admin -p [redacted] --authenticationDatabase admin"},
		{"az login -u me@example.com -p Az5Pw8Xq2Lm7", "az login -u me@example.com -p [redacted]"},
		{"zip -P Zp5Pw8Xq2Lm7 backup.zip a.txt && unzip -P Zp5Pw8Xq2Lm7 backup.zip", "zip -P [redacted] backup.zip a.txt && unzip -P [redacted] backup.zip"},
		{"7z a -pSz5Pw8Xq2Lm7 -mhe=on backup.7z docs/", "7z a -p[redacted] -mhe=on backup.7z docs/"},
		// Kept: other flags, other commands, prose.
		{"redis-cli -a $REDIS_PASSWORD ping; mongosh -p \"$MONGO_PW\"", "redis-cli -a $REDIS_PASSWORD ping; mongosh -p \"$MONGO_PW\""},
		{"zip -r -9 backup.zip docs/ and mkdir -p /srv/app", "zip -r -9 backup.zip docs/ and mkdir -p /srv/app"},
		{"7z x backup.7z -o/tmp/out", "7z x backup.7z -o/tmp/out"},
		// openssl, htpasswd -b and a password piped to sudo -S.
		{"openssl enc -aes-256-cbc -k Os5Pw8Xq2Lm7 -in a.txt", "openssl enc -aes-256-cbc -k [redacted] -in a.txt"},
		{"openssl pkcs12 -export -passout pass:Px5Pw8Xq2Lm7 -out c.p12", "openssl pkcs12 -export -passout pass:[redacted] -out c.p12"},
		{"htpasswd -bc /etc/nginx/.htpasswd admin Ht5Pw8Xq2Lm7", "htpasswd -bc /etc/nginx/.htpasswd admin [redacted]"},
		{"echo 'Su5Pw8Xq2Lm7' | sudo -S systemctl restart nginx", "echo '[redacted]' | sudo -S systemctl restart nginx"},
		// Kept: variables, other openssl flags, sudo without -S.
		{"openssl enc -k $PASSPHRASE -in a.txt; openssl x509 -in c.pem -noout", "openssl enc -k $PASSPHRASE -in a.txt; openssl x509 -in c.pem -noout"},
		{"htpasswd -c /etc/nginx/.htpasswd admin", "htpasswd -c /etc/nginx/.htpasswd admin"},
		{"echo hello | sudo tee /etc/motd", "echo hello | sudo tee /etc/motd"},
	})
}

// hardWrap breaks every line of s after width characters, as a terminal
// wraps a long line in a captured pane or a pasted session.
func hardWrap(s string, width int) string {
	var b strings.Builder
	for i, line := range strings.Split(s, "\n") {
		if i > 0 {
			b.WriteByte('\n')
		}
		r := []rune(line)
		for len(r) > width {
			b.WriteString(string(r[:width]) + "\n")
			r = r[width:]
		}
		b.WriteString(string(r))
	}
	return b.String()
}

// Fake tokens of the real shapes: a classic GitHub token (40
// characters) and an OpenAI project key (164), which a terminal 80
// columns wide breaks in three.
const (
	wrappedGitHubToken = "ghp_R7kQ2mX9vL4nB8cT1wZ5yH3jF6dS0aPeUu2G"
	wrappedOpenAIKey   = "sk-proj-Q7vLx2Nb9KcT4mWz8RyH3dFj6GsA1pEu5BnXq0VkLt2Mw9Zr4Cy7Hd3Jf6Gs8Ka1PeU5Bn2Xq0VkL" +
		"t9Mw4Zr7Cy3Hd6Jf1Gs8Ka5PeU2BnXq0VkLt7Mw4Zr9Cy3Hd6Jf1Gs8Ka5PeU2BnXq0VkLt7Mw4Zr9Cy3HdA"
)

// TestRedact_tokenAcrossLines: a token broken across lines is redacted
// whole: split by a shell line continuation (export TOKEN=ghp_...\ and
// the rest on the next line) or wrapped by a terminal at its width
// inside tool output. Each half was kept: the half after the break has
// no prefix that says it is a token, and a half before it too short for
// a rule was kept too. No part of the token may remain, and the text
// redacted once comes out of a second redaction unchanged (a carried
// chunk would otherwise be embedded again on every build).
func TestRedact_tokenAcrossLines(t *testing.T) {
	gh, sk := wrappedGitHubToken, wrappedOpenAIKey
	for _, tt := range []struct{ name, text, secret string }{
		{"export continued", "export GITHUB_TOKEN=" + gh[:20] + "\\\n" + gh[20:] + "\ngh repo list", gh},
		{"header continued", "curl https://api.openai.com/v1/models \\\n  -H \"Authorization: Bearer " + sk[:60] + "\\\n" + sk[60:] + "\"", sk},
		{"continued indented", "```sh\n    export GH_TOKEN=" + gh[:12] + "\\\n    " + gh[12:] + "\n```", gh},
		{"wrapped at 80 in prose", hardWrap("2026-03-01T08:00:00Z INFO release: pushing tags with the bot token "+gh+" to origin", 80), gh},
		{"wrapped at 80 after a label", hardWrap("GITHUB_TOKEN_FOR_THE_RELEASE_WORKFLOW_ON_THE_BUILD_HOST_MACHINE="+gh, 80), gh},
		{"wrapped prefix split", hardWrap(strings.Repeat("=", 78)+" "+gh, 80), gh},
		{"wrapped twice", hardWrap("$ printenv OPENAI_API_KEY\n"+sk+"\n$ ", 80), sk},
		{"wrapped, CRLF", strings.ReplaceAll(hardWrap(strings.Repeat("x", 70)+" token "+gh+" ok", 80), "\n", "\r\n"), gh},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, n := Text(tt.text)
			if n < 1 {
				t.Fatalf("Text(%q) found no secret", tt.text)
			}
			// Every run of 8 characters of the secret, wherever the
			// break fell.
			for i := 0; i+8 <= len(tt.secret); i++ {
				if frag := tt.secret[i : i+8]; strings.Contains(got, frag) {
					t.Fatalf("Text(%q) = %q keeps %q of the secret", tt.text, got, frag)
				}
			}
			if twice, n := Text(got); twice != got || n != 0 {
				t.Errorf("Text(%q) = %q, %d; want it unchanged, 0", got, twice, n)
			}
		})
	}
}

// TestRedact_wrappedTextKept: text a terminal or an editor wrapped that
// holds no secret stays as it is: prose wrapped at 80 with long words
// and numbers, lists of commit hashes, UUIDs and hex digests one per
// line, a certificate's and an image's base64 wrapped at 64 and 76, a
// shell command continued over lines.
func TestRedact_wrappedTextKept(t *testing.T) {
	var img strings.Builder
	const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg"
	for i := range 600 {
		img.WriteByte(png[(i*7)%len(png)])
	}
	for _, text := range []string{
		hardWrap("The migration of internationalization2024 configuration files moved characterization tests "+
			"and the reimplementation of authentication123 flows into the new package layout of release v2.14.0.", 80),
		"e83c5163316f89bfbde7d9ab23ca2e25604af290\n3b18e512dba79e4c8300dd08aeb37f8e728b8dad\nc0ffee254729296a45a3885639AC7E10F9d54979",
		"123e4567-e89b-12d3-a456-426614174000\n9b2f1c3e-0d4a-4b5e-8f6a-7c8d9e0f1a2b",
		"sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\nsha256:60303ae22b998861bce3b28f33eec1be758a213c86c93c076dbe9f558c11c752",
		"-----BEGIN CERTIFICATE-----\n" + hardWrap("MIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJRTESMBAGA1UEChMJQmFsdGltb3JlMRMwEQYDVQQLEwpDeWJlclRydXN0MSIwIAYDVQQDExlCYWx0aW1vcmUgQ3liZXJUcnVzdCBSb290MB4XDTAwMDUxMjE4NDYwMFoXDTI1MDUxMjIzNTkwMFowWjELMAkGA1UEBhMCSUUxEjAQBgNVBAoTCUJhbHRpbW9yZTETMBEGA1UECxMKQ3liZXJUcnVzdDEiMCAGA1UEAxMZQmFsdGltb3JlIEN5YmVyVHJ1c3QgUm9vdDCCASIwDQYJKoZIhvcNAQEBBQADggEPADCCAQoCggEBAKMEuyKrmD1X6CZymrV51Cni4eiVgLGw41uOKymaZN+hXe2wCQVt2yguzmKiYv60iNoS6zjrIZ3AQSsBUnuId9Mcj8e6uYi1agnnc+gRQKfRzMpijS3ljwumUNKoUMMo6vWrJYeKmpYcqWe4PwzV9/lSEy/CG9VwcPCPwBLKBsua4dnKM3p31vjsufFoREJIE9LAwqSuXmD+tqYF/LTdB1kC1FkYmGP1pWPgkAx9XbIGevOF6uvUA65ehD5f/xXtabz5OTZydc93Uk3zyZAsuT3lySNTPx8kmCFcB5kpvcY67Oduhjprl3RjM71oGDHweI12v/yejl0qhqdNkNwnGjkCAwEAAaNFMEMwHQYDVR0OBBYEFOWdWTCCR1jMrPoIVDaGezq1BE3wMBIGA1UdEwEB/wQIMAYBAf8CAQMwDgYDVR0PAQH/BAQDAgEGMA0GCSqGSIb3DQEBBQUAA4IBAQCFDF2O5G9RaEIFoN27TyclhAO992T9Ldcw46QQF+vaKSm2eT929hkTI7gQCvlYpNRhcL0EYWoSihfVCr3FvDB81ukMJY2GQE/szKN+OMY3EU/t3WgxjkzSswF07r51XgdIGn9w/xZchMB5hbgF/X++ZRGjD8ACtPhSNzkE1akxehi/oCr0Epn3o0WC4zxe9Z2etciefC7IpJ5OCBRLbf1wbWsaY71k5h+3zvDyny67G7fyUIhzksLi4xaNmjICq44Y3ekQEe5+NauQrz4wlHrQMz2nZQ/1/I6eYs9HRCwBXbsdtTLSR9I4LtD+gdwyah617jzV/OeBHRnDJELqYzmp", 64) + "\n-----END CERTIFICATE-----",
		"data:image/png;base64,\n" + hardWrap(img.String(), 76),
		"docker run --rm \\\n  -e LOG_LEVEL=debug \\\n  -v /srv/data:/data \\\n  ghcr.io/example/app:v1.2.3",
	} {
		if got, n := Text(text); got != text || n != 0 {
			t.Errorf("Text(%q) = %q, %d; want it unchanged", text, got, n)
		}
	}
}

// fakeKeyBody is the base64 body of a fake private key, in lines of 64
// characters and a shorter last one, as PEM writes it.
var fakeKeyBody = []string{
	"MIIEowIBAAKCAQEAxV3Rk8pQ2mZ7tYh1LwQ9nB4cD6eF8gH0iJ2kL4mN6oP8qR0sT",
	"2uV4wX6yZ8aB0cD2eF4gH6iJ8kL0mN2oP4qR6sT8uV0wX2yZ4aB6cD8eF0gH2iJ4k",
	"L6mN8oP0qR2sT4uV6wX8yZ0aB2cD4eF6gH8iJ0kL2mN4oP6qR8sT0uV2wX4yZ6aB8",
	"Qx7Lm2Zp9Kv4==",
}

// TestRedact_privateKeyShapes: a private key with no BEGIN line before
// its body (the end of a key file, as tail or a tool output cut at its
// start shows it, also as a JSON string) and a PEM key encoded in base64
// (a Kubernetes secret's data, a CI variable made with base64 -w0, or
// base64 wrapped at 76 columns) are redacted. Both were kept whole: the
// PEM rule starts at a BEGIN line, and the base64 of one says nothing a
// rule knows. Redacting the result again changes nothing.
func TestRedact_privateKeyShapes(t *testing.T) {
	body := fakeKeyBody
	pem := func(kind, sep string) string {
		return "-----BEGIN " + kind + " PRIVATE KEY-----" + sep + strings.Join(body, sep) + sep + "-----END " + kind + " PRIVATE KEY-----" + sep
	}
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	for _, tt := range []struct{ name, text string }{
		{"tail of a key", "$ tail -n 4 ~/.ssh/deploy_rsa\n" + strings.Join(body, "\n") + "\n-----END RSA PRIVATE KEY-----\n$ "},
		{"tail of a key, escaped", `{"stdout":"` + strings.Join(body[1:], `\n`) + `\n-----END PRIVATE KEY-----\n"}`},
		{"tail of a pgp key", strings.Join(body[:3], "\n") + "\n=nPGv\n-----END PGP PRIVATE KEY BLOCK-----"},
		{"base64 of a key", "$ base64 -w0 ~/.ssh/id_ed25519\n" + b64(pem("OPENSSH", "\n")) + "\n"},
		{"kubernetes secret", "apiVersion: v1\nkind: Secret\ndata:\n  id_rsa: " + b64(pem("RSA", "\n")) + "\n  known_hosts: Z2l0aHViLmNvbQ==\n"},
		{"base64 wrapped at 76", "$ base64 deploy.pem\n" + hardWrap(b64(pem("EC", "\n")), 76) + "\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := Text(tt.text)
			for _, l := range body[:3] {
				if strings.Contains(got, l[:20]) || strings.Contains(got, l[40:]) {
					t.Fatalf("Text(%q) = %q keeps a line of the key", tt.text, got)
				}
			}
			if twice, n := Text(got); twice != got || n != 0 {
				t.Errorf("Text(%q) = %q, %d; want it unchanged, 0", got, twice, n)
			}
			if enc := b64(pem("RSA", "\n")); strings.Contains(got, enc[60:90]) {
				t.Fatalf("Text(%q) = %q keeps the encoded key", tt.text, got)
			}
			for _, enc := range []string{b64(pem("OPENSSH", "\n")), b64(pem("EC", "\n")), b64(pem("RSA", "\n"))} {
				for i := 60; i+24 <= len(enc); i += 24 {
					if strings.Contains(got, enc[i:i+24]) {
						t.Fatalf("Text(%q) = %q keeps %q of the encoded key", tt.text, got, enc[i:i+24])
					}
				}
			}
		})
	}
	// Kept: public keys and certificates, as they are and in base64.
	cert := "-----BEGIN CERTIFICATE-----\n" + strings.Join(body, "\n") + "\n-----END CERTIFICATE-----\n"
	for _, text := range []string{
		"$ tail -n 4 server.crt\n" + strings.Join(body, "\n") + "\n-----END CERTIFICATE-----",
		"data:\n  tls.crt: " + b64(cert) + "\n  ca.crt: " + b64(strings.ReplaceAll(cert, "CERTIFICATE", "PUBLIC KEY")) + "\n",
		"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl dev@host",
		"$ base64 server.crt\n" + hardWrap(b64(cert), 76),
	} {
		if got, n := Text(text); got != text || n != 0 {
			t.Errorf("Text(%q) = %q, %d; want it unchanged", text, got, n)
		}
	}
}

// TestRedact_quotedUserPassword: curl -u with a quoted user:password
// whose password has a blank in it (a passphrase) is redacted whole; the
// words after its first blank were kept.
func TestRedact_quotedUserPassword(t *testing.T) {
	redactCases(t, [][2]string{
		{`curl -u "deploy:correct horse 9battery" https://x`, `curl -u "deploy:[redacted]" https://x`},
		{`curl --user 'deploy:Tr0ub4dor and 3' -X POST https://x`, `curl --user 'deploy:[redacted]' -X POST https://x`},
		{`curl -u deploy:S3cr3tPass https://x`, `curl -u deploy:[redacted] https://x`},
		// Kept: a variable, and a user with no password (curl asks).
		{`curl -u "deploy:$DEPLOY_PASSWORD" https://x`, `curl -u "deploy:$DEPLOY_PASSWORD" https://x`},
		{`curl -u "deploy" https://x`, `curl -u "deploy" https://x`},
	})
}

// TestInvisible: invisible's shortcut leaves out no format character or
// variation selector.
func TestInvisible(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if want := unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Variation_Selector, r); invisible(r) != want {
			t.Fatalf("invisible(%U) = %v", r, !want)
		}
	}
}

// TestDropInvisible: invisible characters are dropped inside a token
// only; between words, in an emoji sequence or in Persian (a
// zero-width non-joiner between letters that are not a token's) they stay.
func TestDropInvisible(t *testing.T) {
	for in, want := range map[string]string{
		"key AKIA\u00adQ7RT\u200b\u2060X": "key AKIAQ7RTX",
		"hyph\u00adenation":               "hyphenation",
		"two\u200b words, \u200bthen":     "two\u200b words, \u200bthen",
		"\u200bstart and end\u200b":       "\u200bstart and end\u200b",
		"👩\u200d💻 at work":                "👩\u200d💻 at work",
		"می\u200cخواهم":                   "می\u200cخواهم",
		"日本語\u00ad":                       "日本語\u00ad",
		"plain ASCII text":                "plain ASCII text",
	} {
		if got := dropInvisible(in); got != want {
			t.Errorf("dropInvisible(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestText_invisibleWithoutSecret: text with invisible characters inside
// a word but no secret is returned as it was written, with nothing
// counted; they were dropped from it, so that redaction changed text it
// counted no secret in (FuzzRedact: "0\u06020" became "00"). A token
// split by them is still redacted whole.
func TestText_invisibleWithoutSecret(t *testing.T) {
	for _, text := range []string{"hyph\u00adenation", "0\u06020", "zero\u200bwidth and word\u2060joiner"} {
		if got, n := Text(text); got != text || n != 0 {
			t.Errorf("Text(%q) = %q, %d; want it unchanged, 0", text, got, n)
		}
	}
	if got, n := Text("key AKIA\u00adQ7RTZKXW\u200bLMNOP2AB"); n != 1 || strings.Contains(got, "Q7RT") {
		t.Errorf("a key split by invisible characters: %q, %d", got, n)
	}
}

// TestRedactChunk_id: a carried chunk whose record id holds a secret
// (caught by a rule added since it was indexed) loses it from its
// record id too, which search returns and cites (sourceId kept it), and
// two such chunks that differed only in their secrets keep ids of their
// own, each its record's chunk id, not one "[redacted]" that the build
// would keep once. A later build leaves them as they are.
func TestRedactChunk_id(t *testing.T) {
	secrets := []string{"sk-proj-Xq7Lm2Np9Rt4Vw1Yz6Ab3Cd8Ef5Gh0Jk2Mn7Pq4Rs9Tu1Vw6Xy3Za8Bc5De0FgHjA", "sk-proj-Wp3Kn8Mq1Rs6Tv9Xy4Zb7Ac2Df5Eg0Hj3Km8Np1Qr6St9Uv4Wx7Yz2Ab5Cd0EfGhB"}
	ids := map[string]bool{}
	for i, secret := range secrets {
		c := memory.Chunk{ID: memory.ChunkID("exports", secret, 1, 1), SourceName: "exports", SourceID: secret,
			SourcePath: "/data/keys.jsonl", LineNumber: i + 1, Part: 1, Parts: 1, Text: "The bakery opens at six."}
		if !Chunk(&c) {
			t.Fatalf("Chunk changed nothing")
		}
		if strings.Contains(c.SourceID, secret[8:]) || strings.Contains(c.ID, secret[8:]) {
			t.Errorf("chunk %q of record %q holds the secret", c.ID, c.SourceID)
		}
		if want := memory.ChunkID(c.SourceName, c.SourceID, c.Part, c.Parts); c.ID != want {
			t.Errorf("chunk id %q, want its record's %q", c.ID, want)
		}
		if again := c; Chunk(&again) || again.ID != c.ID {
			t.Errorf("a second build redacts chunk %q again, as %q", c.ID, again.ID)
		}
		ids[c.ID] = true
	}
	if len(ids) != 2 {
		t.Errorf("chunk ids %v: two records became one", ids)
	}
}

// TestRedactPath: a path with a secret in a file's or a folder's name is
// served with the secret replaced and its folders kept; two paths that
// differed only in their secrets stay two; a path without a secret, and
// a path already redacted, are left as they are.
func TestRedactPath(t *testing.T) {
	const a, b = "ghp_R7kQ2mX9vL4nB8cT1wZ5yH3jF6dS0aPeUu2G", "ghp_W3nE8rT5yU1iO7pA2sD9fG4hJ6kL0zX5cV8b"
	for _, p := range []string{"/Users/ana/notes/deploy.md", "/Users/ana/.codex/sessions/2026/12/01/rollout-2026-12-01T09-00-00-019a0000-0000-7000-8000-0000000000c1.jsonl"} {
		if got := Path(p); got != p {
			t.Errorf("Path(%q) = %q, want it unchanged", p, got)
		}
	}
	seen := map[string]bool{}
	for _, p := range []string{"/Users/ana/notes/" + a + ".md", "/Users/ana/notes/" + b + ".md", "/Users/ana/notes/export-" + a + "/plan.md"} {
		got := Path(p)
		if strings.Contains(got, a[4:20]) || strings.Contains(got, b[4:20]) || !strings.HasPrefix(got, "/Users/ana/notes/") || !strings.Contains(got, Mark) {
			t.Errorf("Path(%q) = %q", p, got)
		}
		if again := Path(got); again != got {
			t.Errorf("Path(%q) = %q, redacted again", got, again)
		}
		seen[got] = true
	}
	if len(seen) != 3 {
		t.Errorf("paths that differ in their secrets were served as one: %v", seen)
	}
}

// TestRedactChunk_project: a project named for a key (the last folder of
// a session's working directory) is redacted in memory kept from a file
// that cannot be read again, as a reader redacts it.
func TestRedactChunk_project(t *testing.T) {
	const secret = "ghp_Q1wE2rT3yU4iO5pA6sD7fG8hJ9kL0zX1cV2b"
	c := memory.Chunk{ID: "c", SourceID: "s", Project: secret, Text: "The bakery opens at six."}
	if !Chunk(&c) || strings.Contains(c.Project, secret[4:]) {
		t.Errorf("project %q, want it redacted", c.Project)
	}
}

// wholeTextEnvCommandSpans is envCommandSpans as it was, the pattern run
// over the whole text: the oracle the anchored search is held to.
func wholeTextEnvCommandSpans(text string) []span {
	var out []span
	for _, m := range envCommand().FindAllStringSubmatchIndex(text, -1) {
		g := 1
		if m[2] < 0 {
			g = 3
		}
		name, start, end := text[m[2*g]:m[2*g+1]], m[2*g+2], m[2*g+3]
		v := text[start:end]
		kind := secretKey(name)
		if kind == notSecret || !literalSecret(v) || pathLike(v) || kind == ambiguousSecret && !randomValue(v) {
			continue
		}
		out = append(out, span{start, end})
	}
	return out
}

var envCommandSeeds = []string{
	"set -gx OPENAI_API_KEY sk-proj-Zq8Rz3kWm5Tn0Vb7Yc2Xl9Pd4Hf6Js1Ga8Ke3",
	"config set password Tr0ub4dor3xq\nthen git config --global github.token ghp_R4nD0mT0k3nV4lu3F0rT3st1ngXyZ9q8w7",
	`os.Setenv("DB_PASSWORD", "Tr0ub4dor3xq"); t.Setenv("API_TOKEN","Zq8Rz3kWm5Tn0Vb7")`,
	"reset the config; preset -x TOKEN abc; [Environment]::SetEnvironmentVariable('API_KEY', 'Zq8Rz3kWm5Tn0Vb7Yc2X')",
	"setx SECRET_KEY Zq8Rz3kWm5Tn0Vb7Yc2X /M and setenv AWS_SECRET_ACCESS_KEY wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
	"npm config set //registry.npmjs.org/:_authToken npm_q8Rz3kWm5Tn0Vb7Yc2Xl9Pd4Hf6Js1Ga8Ke3 ﾟconfig set token Zq8Rz3kWm5Tn0Vb7",
	"Config set password Tr0ub4dor3xq; _set -x TOKEN Zq8Rz3kWm5Tn0Vb7; é set -x TOKEN Zq8Rz3kWm5Tn0Vb7",
}

// TestEnvCommandSpans_asWholeText: trying the pattern only where a
// command word begins finds what running it over the whole text found.
func TestEnvCommandSpans_asWholeText(t *testing.T) {
	for _, text := range append(envCommandSeeds, redactionCorpus(200)...) {
		got := envCommandSpans(text, string(asciiLowerBytes(text)), nil)
		if want := wholeTextEnvCommandSpans(text); !slices.Equal(got, want) {
			t.Errorf("envCommandSpans(%q) = %v, want %v", text, got, want)
		}
	}
	if got := envCommandSpans(envCommandSeeds[0], string(asciiLowerBytes(envCommandSeeds[0])), nil); len(got) != 1 {
		t.Errorf("the fish export's key was not found: %v", got)
	}
}

// FuzzEnvCommandSpans holds the anchored search to the whole-text one.
func FuzzEnvCommandSpans(f *testing.F) {
	for _, s := range envCommandSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		got := envCommandSpans(text, string(asciiLowerBytes(text)), nil)
		if want := wholeTextEnvCommandSpans(text); !slices.Equal(got, want) {
			t.Errorf("envCommandSpans(%q) = %v, want %v", text, got, want)
		}
	})
}
