// Package redact finds secrets in text and replaces them with [redacted]
// (Mark): API keys and tokens of known shapes, private keys, passwords
// and the values of keys named for a secret. Every reader of the index
// redacts what it reads (Text, Fields, List, ID), a build redacts memory
// kept from a file it cannot read again (Chunk), and what is shown of a
// source's path or a diff is redacted too (Path, Text). It reads text
// only: no file, no state.
package redact

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
	"unsafe"

	ahocorasick "github.com/BobuSumisu/aho-corasick"
	"github.com/spf13/viper"
	gitleaks "github.com/zricethezav/gitleaks/v8/config"

	"github.com/nova-recall/nova/memory"
)

// Redaction uses gitleaks' maintained detection rules (the default rule
// set of github.com/zricethezav/gitleaks/v8: npm, Hugging Face, AWS,
// GitHub, GitLab, Slack, Stripe, OpenAI, Anthropic, ... about 220 token
// shapes) plus a few local rules for what those rules leave to a code
// scanner's context (a secret after the word "secret", bearer
// credentials, passwords in URLs, a PEM key cut off before its END line)
// and the values of secret-named keys (assignmentSpans). Only the rule
// data and its allowlists come from gitleaks; its detector (git,
// archives, reports) is not linked.
// Cheap guards run first so that text without a secret costs one pass
// over its bytes: no run of token characters long enough for a secret,
// then no rule keyword (one Aho-Corasick pass), means no regular
// expression runs at all.

// minSecretRun is the shortest run of token characters any rule's secret
// has; a text without one skips the keyword pass and the rules.
const minSecretRun = 16

// skippedRules are gitleaks rules not used: generic-api-key runs on
// every text that says "key", "token" or "password" and cost 30 s per
// 100 000 records; secretAssignment below covers the same shape.
var skippedRules = setOf("generic-api-key")

// gitleaksSuffix ends most of gitleaks' rules (npm, Stripe, Hugging
// Face, Twilio, ...): what may follow a secret, a quote, a blank, ';', an
// escaped line break or the end. It fits code and configuration, the
// text gitleaks scans; prose and Markdown also end a token with a period,
// a comma, a bracket or emphasis ("charge with sk_live_....", "(npm_...)"),
// and the rule missed it there. proseSuffix, which redaction uses in its
// place, adds those (a secret with one of them among its characters is
// still taken whole: the expressions are greedy).
const (
	gitleaksSuffix = `(?:[\x60'"\s;]|\\[nr]|$)`
	proseSuffix    = `(?:[\x60'"\s;.,:!?)\]}>|*<]|\\[nrt]|$)`
)

// leakRule is one gitleaks rule as redaction uses it.
type leakRule struct {
	id          string
	re          *regexp.Regexp
	secretGroup int
	entropy     float64
	allowlists  []*gitleaks.Allowlist
	// guard, when set, is false for a text the rule cannot match (see
	// ruleGuards).
	guard func(string) bool
}

// ruleGuards are cheap tests, each true for every text its rule's
// expression matches, for the rules whose keywords are in ordinary
// prose: "ey" (they, key, survey) enables jwt, and "s." (any plural at
// the end of a sentence) vault-service-token. In a 100 000-record build
// the two expressions ran on one text in seven and were half of
// redaction's time.
var ruleGuards = map[string]func(string) bool{
	// \b(ey[a-zA-Z0-9]{17,}\.ey...: the second part starts ".ey".
	"jwt": func(text string) bool { return strings.Contains(text, ".ey") },
	// \b((?:hvs\.[\w-]{90,120}|s\.(?i:[a-z0-9]{24}))): "s." then 24
	// characters of [\w-] or (?i:[a-z0-9]), which also matches the
	// Kelvin sign and the long s.
	"vault-service-token": func(text string) bool {
		for i := 0; ; {
			j := strings.Index(text[i:], "s.")
			if j < 0 {
				return false
			}
			i += j + 2
			n := 0
			for _, r := range text[i:] {
				if !vaultTokenRune(r) {
					break
				}
				if n++; n == 24 {
					return true
				}
			}
		}
	},
}

// vaultTokenRune reports whether r is in [\w-] or matches (?i:[a-z0-9]).
func vaultTokenRune(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_' || r == '-' ||
		r == '\u212A' || r == '\u017F' // K (Kelvin) and ſ fold to k and s
}

// leakRules is the compiled rule set with its keyword index. Safe for
// concurrent use once built.
type leakRules struct {
	rules []leakRule
	// byKeyword lists, per lower-case keyword, the rules it enables.
	byKeyword map[string][]int
	global    []*gitleaks.Allowlist
}

// defaultLeakRules compiles gitleaks' default rules on first use, so a
// process that never redacts (novactl search, version) never pays for it.
// novad redacts every result's path: it builds them beside serving
// (Warm).
var defaultLeakRules = sync.OnceValues(loadLeakRules)

// Warm builds now what redaction otherwise builds on its first use:
// gitleaks' rules, their hint index and the local rules, about a tenth of
// a second. novad calls it beside serving, so that its first search,
// which redacts its results' paths, does not wait for them.
func Warm() {
	defaultHints() // loads the leak rules too
	localRules()
}

func loadLeakRules() (*leakRules, error) {
	v := viper.New()
	v.SetConfigType("toml")
	if err := v.ReadConfig(strings.NewReader(gitleaks.DefaultConfig)); err != nil {
		return nil, err
	}
	var vc gitleaks.ViperConfig
	if err := v.Unmarshal(&vc); err != nil {
		return nil, err
	}
	cfg, err := vc.Translate()
	if err != nil {
		return nil, err
	}
	lr := &leakRules{byKeyword: map[string][]int{}, global: cfg.Allowlists}
	for _, id := range cfg.OrderedRules {
		r := cfg.Rules[id]
		// Path rules match file names, not text; every text rule has
		// keywords (a rule without any would run on every text).
		if r.Regex == nil || r.Path != nil || len(r.Keywords) == 0 || skippedRules[id] {
			continue
		}
		re := r.Regex
		if src := re.String(); strings.Contains(src, gitleaksSuffix) {
			if wider, err := regexp.Compile(strings.ReplaceAll(src, gitleaksSuffix, proseSuffix)); err == nil {
				re = wider
			}
		}
		i := len(lr.rules)
		lr.rules = append(lr.rules, leakRule{id: id, re: re, secretGroup: r.SecretGroup, entropy: r.Entropy, allowlists: r.Allowlists, guard: ruleGuards[id]})
		for _, k := range r.Keywords {
			k = asciiLower(k)
			lr.byKeyword[k] = append(lr.byKeyword[k], i)
		}
	}
	return lr, nil
}

// hintIndex finds the hint words of every rule in one pass over the
// lower-case text: gitleaks' keywords, the local rules' hints, "secret"
// and the AWS key id prefixes (awsSecretSpans) and the assignment
// scanner's key words. A rule runs only where one of its hints occurs.
// One Aho-Corasick walk replaced a strings.Contains for each of about
// fifty hints, which was a quarter of redaction's time.
type hintIndex struct {
	trie *ahocorasick.Trie
	// Per pattern, by the trie's pattern number: the gitleaks rules it
	// enables, the local rules it enables (a bit each) and the checks.
	leak   [][]int
	local  []uint64
	secret []bool
	assign []bool
	cookie []bool
	// leakWords is the length of a bit set over lr's rules.
	leakWords int
}

// hintsFound is what one walk found: which rules and checks to run.
type hintsFound struct {
	leak                   []uint64 // bit set over the gitleaks rules; nil if none
	local                  uint64
	secret, assign, cookie bool
}

// defaultHints is the hint index of gitleaks' rules (when they load) and
// the local ones, built on first use.
var defaultHints = sync.OnceValue(func() *hintIndex {
	lr, err := defaultLeakRules()
	if err != nil {
		lr = &leakRules{}
	}
	return newHintIndex(lr)
})

func newHintIndex(lr *leakRules) *hintIndex {
	x := &hintIndex{leakWords: (len(lr.rules) + 63) / 64}
	number := map[string]int{}
	var patterns []string
	pattern := func(h string) int {
		n, ok := number[h]
		if !ok {
			n = len(patterns)
			number[h] = n
			patterns = append(patterns, h)
			x.leak, x.local = append(x.leak, nil), append(x.local, 0)
			x.secret, x.assign, x.cookie = append(x.secret, false), append(x.assign, false), append(x.cookie, false)
		}
		return n
	}
	for k, rules := range lr.byKeyword {
		n := pattern(k)
		x.leak[n] = rules
	}
	if len(localRules()) > 64 {
		panic("redact: more than 64 local redaction rules; widen hintsFound.local")
	}
	for i, r := range localRules() {
		for _, h := range r.hints {
			x.local[pattern(h)] |= 1 << i
		}
	}
	for _, h := range []string{"secret", "akia", "asia"} {
		x.secret[pattern(h)] = true
	}
	for _, h := range assignmentHints {
		x.assign[pattern(h)] = true
	}
	x.cookie[pattern("cookie")] = true
	x.trie = ahocorasick.NewTrieBuilder().AddStrings(patterns).Build()
	return x
}

// find walks lower once and reports the hints it holds.
func (x *hintIndex) find(lower []byte) hintsFound {
	var f hintsFound
	x.trie.Walk(lower, func(_, _, p int64) bool {
		f.local |= x.local[p]
		f.secret = f.secret || x.secret[p]
		f.assign = f.assign || x.assign[p]
		f.cookie = f.cookie || x.cookie[p]
		for _, r := range x.leak[p] {
			if f.leak == nil {
				f.leak = make([]uint64, x.leakWords)
			}
			f.leak[r/64] |= 1 << (r % 64)
		}
		return true
	})
	return f
}

// spans adds the byte ranges of the secrets in text that the selected
// rules (a bit set, see hintsFound) find to out.
func (lr *leakRules) spans(text string, selected []uint64, out []span) []span {
	for i := range lr.rules {
		if selected[i/64]&(1<<(i%64)) == 0 {
			continue
		}
		r := &lr.rules[i]
		if r.guard != nil && !r.guard(text) {
			continue
		}
		for _, m := range r.re.FindAllStringSubmatchIndex(text, -1) {
			start, end := secretGroup(m, r.secretGroup)
			secret := text[start:end]
			if secret == "" || (r.entropy > 0 && shannon(secret) < r.entropy) {
				continue
			}
			if lr.allowed(r, secret, text[m[0]:m[1]]) {
				continue
			}
			out = append(out, span{start, end})
		}
	}
	return out
}

// secretGroup returns the range of a match's secret: the rule's secret
// group, else the first capture group that matched, else the match.
func secretGroup(m []int, group int) (int, int) {
	if group > 0 && 2*group+1 < len(m) && m[2*group] >= 0 {
		return m[2*group], m[2*group+1]
	}
	for g := 1; 2*g+1 < len(m); g++ {
		if m[2*g] >= 0 && m[2*g+1] > m[2*g] {
			return m[2*g], m[2*g+1]
		}
	}
	return m[0], m[1]
}

// allowed applies the rule's and the global allowlists (placeholders,
// template variables, stop words) to a secret. Path and commit conditions
// never hold for indexed text.
func (lr *leakRules) allowed(r *leakRule, secret, match string) bool {
	for _, lists := range [][]*gitleaks.Allowlist{r.allowlists, lr.global} {
		for _, a := range lists {
			target := secret
			if a.RegexTarget == "match" || a.RegexTarget == "line" {
				target = match
			}
			regexOK := len(a.Regexes) > 0 && a.RegexAllowed(target)
			stopOK := false
			if len(a.StopWords) > 0 {
				stopOK, _ = a.ContainsStopWord(secret)
			}
			if a.MatchCondition == gitleaks.AllowlistMatchAnd {
				if len(a.Paths) > 0 || len(a.Commits) > 0 || (len(a.Regexes) == 0 && len(a.StopWords) == 0) {
					continue
				}
				if (len(a.Regexes) == 0 || regexOK) && (len(a.StopWords) == 0 || stopOK) {
					return true
				}
				continue
			}
			if regexOK || stopOK {
				return true
			}
		}
	}
	return false
}

// shannon is the Shannon entropy of s in bits per byte, as gitleaks'
// entropy thresholds are defined.
func shannon(s string) float64 {
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	e := 0.0
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / float64(len(s))
			e -= p * math.Log2(p)
		}
	}
	return e
}

// Mark stands in for each secret Text removes.
const Mark = "[redacted]"

// span is a byte range [start, end) of text to redact.
type span struct{ start, end int }

// localRule is a redaction rule of Nova's own: hints are lower-case
// substrings one of which every match contains (the guard), group the
// capture group that is the secret (0: the whole match),
// and valid, if set, decides on the secret. A rule with a window only
// runs on the text from window[0] bytes before each hint to window[1]
// bytes after it (stretched to the end of the word there), not on the
// whole text: case-insensitive patterns are slow to scan.
type localRule struct {
	hints  []string
	re     *regexp.Regexp
	group  int
	valid  func(secret string) bool
	window [2]int
}

// localRules cover shapes gitleaks' rules leave to context or require to
// be exact; they overlap some gitleaks rules on purpose (fake-looking or
// truncated keys), and overlapping ranges are redacted once.
var localRules = sync.OnceValue(func() []localRule {
	return []localRule{
		// PEM and PGP private keys, including a block cut off before its END
		// line, and SSH2 keys (RFC 4716, as PuTTYgen and ssh.com export them:
		// "---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----", four dashes and
		// blanks).
		{[]string{"private key"}, regexp.MustCompile(`(?s)-{4,5} ?BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)? ?-{4,5}.*?(?:-{4,5} ?END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)? ?-{4,5}|\z)`), 0, nil, [2]int{}},
		// The end of a private key whose BEGIN line is not in the text (the
		// last lines of a key file, as tail shows them or a tool output cut at
		// its start holds them, also with escaped line breaks): the lines of
		// base64 before its END line, the last one or two of them short (the
		// body's last line, a PGP checksum).
		{[]string{"private key"}, regexp.MustCompile(`(?:[A-Za-z0-9+/=]{16,}(?:\r?\n|\\r\\n|\\n)[ \t]*)+(?:[A-Za-z0-9+/=]{1,15}(?:\r?\n|\\r\\n|\\n)[ \t]*){0,2}-{4,5} ?END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)? ?-{4,5}`), 0, nil, [2]int{}},
		// A PEM private key encoded in base64 whole, as a Kubernetes secret's
		// data and a CI variable made with base64 -w0 hold it: the encoding of
		// "-----BEGIN " starts it, and its first line must decode to a
		// private key's (a certificate's or a public key's stays). Wrapped
		// lines (base64 at 76 columns) are joined by brokenLineSpans.
		{[]string{"ls0tls1crudjti"}, regexp.MustCompile(`\bLS0tLS1CRUdJTi[A-Za-z0-9+/]{20,}={0,2}`), 0, encodedPrivateKey, [2]int{}},
		// The private part of a PuTTY key file, up to its MAC line or the end.
		{[]string{"private-lines:"}, regexp.MustCompile(`(?s)Private-Lines: *\d+\r?\n(.*?)(?:\r?\nPrivate-(?:MAC|Hash):|\z)`), 1, nil, [2]int{}},
		// OpenAI (sk-, sk-proj-, ...) and Anthropic (sk-ant-...) API keys of
		// any length.
		{[]string{"sk-"}, regexp.MustCompile(`\bsk-[A-Za-z0-9][A-Za-z0-9_-]{19,}`), 0, nil, [2]int{}},
		// GitHub tokens of any length, classic and fine-grained.
		{[]string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}, regexp.MustCompile(`\bgh[pousr]_[A-Za-z0-9]{30,}`), 0, nil, [2]int{}},
		{[]string{"github_pat_"}, regexp.MustCompile(`\bgithub_pat_[A-Za-z0-9_]{30,}`), 0, nil, [2]int{}},
		// Hugging Face access tokens: gitleaks' rule takes 34 letters only,
		// and a token with digits was served. A random-looking value only
		// (mixed case or digits): hf_ then one long lower-case word is a name.
		{[]string{"hf_"}, regexp.MustCompile(`\bhf_[A-Za-z0-9]{34,}\b`), 0, func(s string) bool { return randomValue(s[3:]) }, [2]int{}},
		// The value of gh secret set --body (-b), which is the secret
		// whatever its name, and of doppler secrets set NAME VALUE.
		{[]string{"secret set", "secrets set"}, regexp.MustCompile(`\b(?:gh[ \t]+secret[ \t]+set\b[^\n|;&]*?[ \t](?:--body|-b)(?:[ \t]+|=)|doppler[ \t]+secrets[ \t]+set[ \t]+[A-Za-z_][A-Za-z0-9_]*[ \t]+)["']?([^\s"'\x60-][^\s"'\x60]*)`), 1, literalSecret, [2]int{16, 256}},
		// AWS access key ids (long-term AKIA, temporary ASIA) with any digits.
		{[]string{"akia", "asia"}, regexp.MustCompile(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`), 0, nil, [2]int{}},
		// Slack tokens, Google API keys and JSON Web Tokens.
		// xoxe-1-... is a refresh token of Slack's token rotation, xoxc- and
		// xoxd- a browser session's client token and cookie.
		{[]string{"xox"}, regexp.MustCompile(`\bxox[abcdeprs]-[A-Za-z0-9-]{10,}`), 0, nil, [2]int{}},
		{[]string{"aiza"}, regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}`), 0, nil, [2]int{}},
		{[]string{"eyj"}, regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]+`), 0, nil, [2]int{}},
		// Token shapes of services agents work with that gitleaks' rules find
		// only next to the service's name, or not at all: Google OAuth access
		// and refresh tokens and client secrets, Telegram bot tokens, Stripe
		// webhook secrets, Tailscale auth keys, Groq, xAI, Replicate, Sentry,
		// Doppler, Notion and Figma tokens, Discord webhook URLs.
		{[]string{"ya29.", "1//0", "gocspx-", ":aa", "whsec_", "tskey-", "gsk_", "xai-", "r8_", "sntrys_", "dp.", "secret_", "figd_"},
			regexp.MustCompile(`\b(?:ya29\.[0-9A-Za-z_-]{20,}|1//0[0-9A-Za-z_-]{30,}|GOCSPX-[0-9A-Za-z_-]{20,}|[0-9]{8,10}:AA[0-9A-Za-z_-]{30,}|whsec_[0-9A-Za-z+/]{24,}=*|tskey-[a-z]+-[0-9A-Za-z]+-[0-9A-Za-z]{16,}|gsk_[0-9A-Za-z]{40,}|xai-[0-9A-Za-z]{60,}|r8_[0-9A-Za-z]{30,}|sntrys_[0-9A-Za-z_=-]{40,}|dp\.(?:pt|st|ct|sa|scim|audit)\.(?:[a-z0-9_-]+\.)?[0-9A-Za-z]{40,}|secret_[0-9A-Za-z]{43}\b|figd_[0-9A-Za-z_-]{40,})`), 0, nil, [2]int{}},
		{[]string{"/api/webhooks/"}, regexp.MustCompile(`\bdiscord(?:app)?\.com/api/webhooks/[0-9]+/([0-9A-Za-z_-]{40,})`), 1, nil, [2]int{}},
		// An Authorization bearer credential (see headerCredential).
		{[]string{"bearer"}, regexp.MustCompile(`(?i)\bbearer\s+([A-Za-z0-9._~+/-]{16,}=*)`), 1, headerCredential, [2]int{}},
		// An Authorization header with another scheme than Bearer (Basic,
		// Token, ...) or none, also as escaped JSON in a tool call, once
		// ({\"Authorization\":\"Token ...\"}) or twice (a command in a tool
		// call's arguments). Basic credentials must decode to user:password.
		{[]string{"authorization"}, regexp.MustCompile(`(?i)\bauthorization\\*["']?\s*[:=]\s*\\*["']?(?:(?:basic|token|digest|apikey|api-key|sso-key|key)\s+)?([A-Za-z0-9._~+/-]{16,}=*)`), 1, headerCredential, [2]int{0, 128}},
		{[]string{"basic"}, regexp.MustCompile(`(?i)\bbasic\s+([A-Za-z0-9+/]{8,}={0,2})`), 1, basicCredentials, [2]int{0, 64}},
		// Secrets given as command-line arguments: --password VALUE,
		// --token VALUE, curl -u user:password, mysql -pPASSWORD.
		{[]string{"-pass", "-token", "-api-key", "-apikey", "-secret"}, regexp.MustCompile(`(?:^|\s)--?(?:password|passwd|pass|token|api-key|apikey|secret|client-secret|auth-token|access-token)[ \t]+["']?([^\s"'-][^\s"']*)`), 1, literalSecret, [2]int{}},
		{[]string{"-u", "--user"}, regexp.MustCompile(`(?:^|\s)(?:-u|--user)[ \t]*["']?[^\s:"'-][^\s:"']*:([^\s"']+)`), 1, func(s string) bool { return literalSecret(s) && strings.Trim(s, "0123456789") != "" }, [2]int{}},
		// Quoted, the password may hold blanks (a passphrase): it ends at
		// the closing quote.
		{[]string{"-u", "--user"}, regexp.MustCompile(`(?:^|\s)(?:-u|--user)[ \t]*["'][^\s:"'-][^\n:"']*:([^\n"']+)["']`), 1, literalSecret, [2]int{}},
		{[]string{"mysql", "mariadb"}, regexp.MustCompile(`\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)\b[^\n]*?\s-p([^\s"'-][^\s"']*)`), 1, literalSecret, [2]int{}},
		// -p PASSWORD of the commands that take the password itself there:
		// sshpass and the container registries' login.
		{[]string{"sshpass", "docker login", "podman login", "nerdctl login", "buildah login", "skopeo login", "oras login", "helm login", "helm registry login"},
			regexp.MustCompile(`\b(?:sshpass|(?:docker|podman|nerdctl|buildah|skopeo|oras|helm(?: registry)?) login)\b[^\n|;&]*?\s-p[ \t]*["']?([^\s"'-][^\s"']*)`), 1, literalSecret, [2]int{0, 256}},
		// The password flags of other clients: redis-cli -a, the MongoDB
		// tools' and az login's -p, zip's and unzip's -P, 7-Zip's -pPASSWORD.
		{[]string{"redis-cli", "mongo", "az login", "zip"},
			regexp.MustCompile(`\b(?:redis-cli\b[^\n|;&]*?\s-a|(?:mongosh|mongo|mongodump|mongorestore|mongoexport|mongoimport|az login)\b[^\n|;&]*?\s-p|(?:un)?zip\b[^\n|;&]*?\s-P)[ \t]*["']?([^\s"'-][^\s"']*)`), 1, literalSecret, [2]int{0, 256}},
		{[]string{"7z"}, regexp.MustCompile(`\b7za?\b[^\n|;&]*?\s-p([^\s"'-][^\s"']*)`), 1, literalSecret, [2]int{0, 256}},
		// openssl's -k PASSWORD and pass:PASSWORD (-pass, -passin, -passout),
		// htpasswd -b FILE USER PASSWORD (with its other letters: -bc, -Bb),
		// and a password piped to sudo -S (echo PASSWORD | sudo -S: the
		// password comes before the hint).
		{[]string{"openssl"}, regexp.MustCompile(`\bopenssl\b[^\n|;&]*?\s(?:-k[ \t]+|-pass(?:in|out)?[ \t]+pass:)["']?([^\s"'-][^\s"']*)`), 1, literalSecret, [2]int{0, 256}},
		{[]string{"htpasswd"}, regexp.MustCompile(`\bhtpasswd[ \t]+-[a-zA-Z]*b[a-zA-Z]*[ \t]+(?:-\S+[ \t]+)*\S+[ \t]+\S+[ \t]+["']?([^\s"'-][^\s"']*)`), 1, literalSecret, [2]int{0, 256}},
		{[]string{"sudo -s"}, regexp.MustCompile(`\becho[ \t]+(?:-n[ \t]+)?["']?([^\s"'|$][^\s"'|]*)["']?[ \t]*\|[ \t]*sudo[ \t]+-S\b`), 1, literalSecret, [2]int{256, 8}},
		// A .netrc line: machine HOST login USER password PASSWORD.
		{[]string{"login"}, regexp.MustCompile(`\blogin\s+\S+\s+password\s+(\S+)`), 1, literalSecret, [2]int{}},
		// A password told in prose: "my password is Pq5...", "the new
		// password is: ...". Only a value with a digit or a symbol counts:
		// "the password is required" is not one.
		{[]string{"password", "passphrase", "passwd"}, regexp.MustCompile(`(?i)\b(?:password|passphrase|passwd)\s+(?:is|was|will be|would be)\s*:?\s*["'` + "`" + `]?([^\s"'` + "`" + `]*[^\s"'` + "`" + `.,;:!?)])`), 1, func(s string) bool { return len(s) >= 6 && credentialValue(s) && MixesLettersAndDigits(s) }, [2]int{0, 64}},
		// A password, key or token labelled in Chinese, Japanese or Korean:
		// 密码：..., 令牌 = ..., 密码是 ..., パスワードは .... Only an ASCII
		// value counts: CJK words after the label are prose about it.
		{cjkSecretLabels, regexp.MustCompile(`(?:` + strings.Join(cjkSecretLabels, "|") + `)\s*(?:[:=：＝]|是|为|為|は)\s*["'\x60“]?([\x21-\x7e]*[0-9A-Za-z!@#$%^&*+=_~/-])`), 1,
			func(s string) bool { return len(s) >= 6 && credentialValue(s) && literalSecret(s) }, [2]int{0, 64}},
		// The password of credentials in a URL: postgres://user:pw@host, also
		// with no user (redis://:pw@host) and with '@' or '/' in the password
		// (the userinfo ends at the last '@' before the host).
		{[]string{"://"}, regexp.MustCompile(`(?i)\b[a-z][a-z0-9+.-]*://[^/\s:@]*:(\S*?)@(?:\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::\d*)?(?:[/?#\s"'<>)\],;` + "`" + `]|$)`), 1, urlPassword, [2]int{}},
	}
})

// cjkSecretLabels are the words for password, secret key and token in
// Chinese, Japanese and Korean.
var cjkSecretLabels = []string{"密码", "密碼", "口令", "密钥", "密鑰", "秘钥", "令牌", "パスワード", "비밀번호"}

// Text replaces secrets in text with [redacted] and returns the
// cleaned text and the number of secrets replaced: gitleaks' default
// rules and Nova's local ones (see localRules), also on a token broken
// across lines (see brokenLineSpans). It is a safety net, not a
// guarantee: a secret with no recognizable shape survives.
func Text(text string) (string, int) {
	clean := dropInvisible(text)
	spans := secretSpans(clean, nil)
	spans = brokenLineSpans(clean, spans)
	spans = foldedSpans(clean, spans)
	out, n := replaceSpans(clean, spans)
	if n == 0 {
		// Nothing replaced: the text as it was written, its invisible
		// characters too (a soft hyphen in a word is no secret's).
		return text, 0
	}
	return out, n
}

// dropInvisible removes the invisible characters (format characters, the
// zero-width space among them, and variation selectors) between two
// characters of a token (see tokenByte), as text copied from a web page
// carries them in a long token (a soft hyphen, a zero-width space where
// a line may break). A browser shows the token whole and search reads
// through them (lexical.Normalize), but no rule knew the token split so:
// it was indexed, and found, whole.
func dropInvisible(text string) string {
	i := 0
	for i < len(text) && text[i] < utf8.RuneSelf {
		i++
	}
	if i == len(text) {
		return text // ASCII: nothing to drop
	}
	var b strings.Builder
	last := 0 // text[last:] is not yet copied to b
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !invisible(r) {
			i += size
			continue
		}
		end := i + size
		for end < len(text) {
			r, size := utf8.DecodeRuneInString(text[end:])
			if !invisible(r) {
				break
			}
			end += size
		}
		if i > 0 && end < len(text) && tokenByte[text[i-1]] && tokenByte[text[end]] {
			if b.Len() == 0 {
				b.Grow(len(text))
			}
			b.WriteString(text[last:i])
			last = end
		}
		i = end
	}
	if last == 0 {
		return text
	}
	b.WriteString(text[last:])
	return b.String()
}

// invisible reports a character that shows as nothing: a format
// character (Cf: soft hyphen, zero-width space and joiners, word joiner,
// byte order mark, direction marks) or a variation selector.
func invisible(r rune) bool {
	if r < 0xAD || 0x2070 <= r && r < 0xFE00 {
		return false // none there (TestInvisible): CJK text is not looked up
	}
	return unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Variation_Selector, r)
}

// secretSpans adds the byte ranges of the secrets the rules find in text,
// as it is, to out.
func secretSpans(text string, out []span) []span {
	tokens, ascii := hasTokenRun(text, minSecretRun)
	// Without a long token run, a secret still needs an operator, the word
	// password (netrc, prose, --password X), a -p/-u argument, an XML
	// element (<secret>...</secret>), a table's cell, a full-width colon
	// or a CJK label.
	if !tokens && strings.IndexByte(text, ':') < 0 && strings.IndexByte(text, '=') < 0 && !hasFoldPass(text) && !strings.Contains(text, " -") && !strings.Contains(text, "</") && strings.IndexByte(text, '|') < 0 &&
		(ascii || !strings.Contains(text, fullWidthColon) && !containsAny(text, cjkSecretLabels)) {
		return out
	}
	lowerBytes := asciiLowerBytes(text)
	// lowerBytes is never written again: the string reads the same bytes
	// instead of a copy of every text a build redacts.
	lower := unsafe.String(unsafe.SliceData(lowerBytes), len(lowerBytes))
	found := defaultHints().find(lowerBytes)
	spans := out
	if tokens && found.leak != nil {
		if lr, err := defaultLeakRules(); err == nil {
			spans = lr.spans(text, found.leak, spans)
		}
	}
	local := localRules()
	for i := range local {
		if found.local&(1<<i) == 0 {
			continue
		}
		r := &local[i]
		for _, w := range r.windows(text, lower) {
			for _, m := range r.re.FindAllStringSubmatchIndex(text[w.start:w.end], -1) {
				start, end := m[2*r.group], m[2*r.group+1]
				if start < 0 || (r.valid != nil && !r.valid(text[w.start+start:w.start+end])) {
					continue
				}
				spans = append(spans, span{w.start + start, w.start + end})
			}
		}
	}
	if found.secret {
		spans = awsSecretSpans(text, lower, spans)
	}
	if found.assign {
		spans = assignmentSpans(text, spans)
		spans = tableSpans(text, spans)
		spans = envCommandSpans(text, lower, spans)
	}
	if found.cookie {
		spans = cookieSpans(text, lower, spans)
	}
	return spans
}

// awsSecretSpans adds the bare 40-character AWS secret access keys that
// follow the word "secret" ("the secret is wJalr...") or an access key
// id (AKIA..., a key pair pasted as it is) within 48 bytes, told from a
// 40-hex commit hash or a long word by their mixed case (see
// awsSecretValue). It is plain code: the equivalent case-insensitive
// pattern cost more than every other rule together.
func awsSecretSpans(text, lower string, out []span) []span {
	out = awsSecretsAfter(text, lower, "secret", out)
	out = awsSecretsAfter(text, lower, "akia", out)
	return awsSecretsAfter(text, lower, "asia", out)
}

// awsSecretsAfter adds the AWS secret access keys within 48 bytes after
// each anchor word in lower; "akia" and "asia" anchor only as an access
// key id's prefix, and from the id's end.
func awsSecretsAfter(text, lower, anchor string, out []span) []span {
	for i := 0; ; {
		j := strings.Index(lower[i:], anchor)
		if j < 0 {
			return out
		}
		at := i + j
		i = at + len(anchor)
		if anchor != "secret" {
			if !awsKeyID(text, at) {
				continue
			}
			i = at + 20
		}
		// Runs that start within 48 bytes of the word; a run is read to
		// its end to tell 40 characters from a longer string.
		for k := i; k < min(len(text), i+49); {
			if !isBase64Byte(text[k]) {
				k++
				continue
			}
			start := k
			for k < len(text) && isBase64Byte(text[k]) {
				k++
			}
			if k-start == 40 && (k == len(text) || text[k] != '=') && awsSecretValue(text[start:k]) {
				out = append(out, span{start, k})
			}
		}
	}
}

// awsKeyID reports an AWS access key id (AKIA or ASIA and 16 capitals
// or digits) at offset at of text.
func awsKeyID(text string, at int) bool {
	if at+20 > len(text) || (text[at:at+4] != "AKIA" && text[at:at+4] != "ASIA") {
		return false
	}
	for _, c := range []byte(text[at+4 : at+20]) {
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// MixesLettersAndDigits reports whether s has both a letter and a
// digit, as generated tokens and encoded blobs do and words do not.
func MixesLettersAndDigits(s string) bool {
	letter, digit := false, false
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digit = true
		case unicode.IsLetter(r):
			letter = true
		}
		if letter && digit {
			return true
		}
	}
	return false
}

// setOf returns a set of the given words.
func setOf(items ...string) map[string]bool {
	m := make(map[string]bool, len(items))
	for _, it := range items {
		m[it] = true
	}
	return m
}

func isBase64Byte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '/'
}

// windows returns the parts of text the rule runs on: all of it, or the
// merged windows around its hints.
func (r *localRule) windows(text, lower string) []span {
	if r.window == [2]int{} {
		return []span{{0, len(text)}}
	}
	var ws []span
	for _, h := range r.hints {
		for i := 0; ; {
			j := strings.Index(lower[i:], h)
			if j < 0 {
				break
			}
			at := i + j
			i = at + len(h)
			end := min(len(text), at+r.window[1])
			// A secret running past the window is taken whole.
			for end < len(text) && !isSpace(text[end]) {
				end++
			}
			ws = append(ws, span{max(0, at-r.window[0]), end})
		}
	}
	slices.SortFunc(ws, func(a, b span) int { return a.start - b.start })
	merged := ws[:0]
	for _, w := range ws {
		if n := len(merged); n > 0 && w.start <= merged[n-1].end {
			merged[n-1].end = max(merged[n-1].end, w.end)
			continue
		}
		merged = append(merged, w)
	}
	return merged
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }

// replaceSpans replaces the union of spans with [redacted], counting each
// merged range once. A range inside a mark already there is no secret:
// some rules take the mark for one (postgres://app:[redacted]@db), and
// text redacted again must come out unchanged and uncounted, or a carried
// chunk would count as changed and be embedded again on every build.
func replaceSpans(text string, spans []span) (string, int) {
	if len(spans) == 0 {
		return text, 0
	}
	slices.SortFunc(spans, func(a, b span) int { return a.start - b.start })
	var b strings.Builder
	n, last := 0, 0
	for i := 0; i < len(spans); {
		start, end := spans[i].start, spans[i].end
		for i++; i < len(spans) && spans[i].start < end; i++ {
			end = max(end, spans[i].end)
		}
		if start < last {
			start = last
		}
		if start >= end || withinMark(text, start, end) {
			continue
		}
		b.WriteString(text[last:start])
		b.WriteString(Mark)
		last = end
		n++
	}
	b.WriteString(text[last:])
	return b.String(), n
}

// cookieSpans adds the values of the cookies that a Cookie or Set-Cookie
// header (also as a JSON key, escaped or not) or curl's --cookie sends:
// a session cookie is a bearer credential, whatever its name (session,
// sessionid, PHPSESSID, _app_session). Only values that look generated
// count (see cookieSecret): theme=dark and Path=/ stay.
func cookieSpans(text, lower string, out []span) []span {
	for i := 0; ; {
		j := strings.Index(lower[i:], "cookie")
		if j < 0 {
			return out
		}
		at := i + j
		i = at + len("cookie")
		if at > 0 && isLetter(text[at-1]) || i < len(text) && isKeyByte(text[i]) && text[i] != '-' {
			continue // a word with cookie in it (cookies, cookieJar)
		}
		k := i
		for k < len(text) && k-i < 16 && strings.IndexByte("\\\"' \t", text[k]) >= 0 {
			k++
		}
		if flag := at >= 2 && text[at-2:at] == "--"; !flag {
			if k >= len(text) || text[k] != ':' {
				continue
			}
			k++
		}
		for k < len(text) && k-i < 32 && strings.IndexByte("\\\"' \t", text[k]) >= 0 {
			k++
		}
		// name=value pairs up to the end of the header: a line's end, a
		// quote or an escape.
		for k < len(text) && k-i < 4096 {
			for k < len(text) && (text[k] == ' ' || text[k] == ';') {
				k++
			}
			n := k
			for n < len(text) && isKeyByte(text[n]) {
				n++
			}
			if n == k || n >= len(text) || text[n] != '=' {
				break
			}
			start := n + 1
			end := start
			for end < len(text) && strings.IndexByte(" \t\r\n;,\"'\\", text[end]) < 0 {
				end++
			}
			if cookieSecret(text[start:end]) {
				out = append(out, span{start, end})
			}
			k = end
			if k >= len(text) || text[k] != ';' {
				break
			}
		}
		i = max(i, k)
	}
}

// cookieSecret reports a cookie value that looks generated: sixteen
// characters or more with letters and digits, not a path or a domain.
func cookieSecret(v string) bool {
	return len(v) >= 16 && v[0] != '/' && v[0] != '.' && strings.ContainsAny(v, "0123456789") && strings.ContainsAny(v, alphanumerics[:52])
}

// withinMark reports whether text[start:end] lies inside a redaction
// mark.
func withinMark(text string, start, end int) bool {
	for i := max(0, end-len(Mark)); i <= start; i++ {
		if strings.HasPrefix(text[i:], Mark) {
			return true
		}
	}
	return false
}

// hasFoldPass reports whether text contains "pass" in any case whose
// "ass" is all lower or all upper case (as in pass, Pass, PASS).
func hasFoldPass(text string) bool {
	if !strings.Contains(text, "ass") && !strings.Contains(text, "ASS") {
		return false
	}
	for i := 0; i+4 <= len(text); i++ {
		if text[i]|0x20 == 'p' && text[i+1]|0x20 == 'a' && text[i+2]|0x20 == 's' && text[i+3]|0x20 == 's' {
			return true
		}
	}
	return false
}

// hasTokenRun reports whether text has n consecutive characters that can
// make up a token (letters, digits and + / = _ - .) and, when it has
// none, whether text is all ASCII (no CJK label to look for): one pass
// for both.
func hasTokenRun(text string, n int) (found, ascii bool) {
	run, high := 0, byte(0)
	for i := 0; i < len(text); i++ {
		c := text[i]
		high |= c
		if !tokenByte[c] {
			run = 0
			continue
		}
		if run++; run >= n {
			return true, false
		}
	}
	return false, high < utf8.RuneSelf
}

// tokenByte holds the bytes of a secret-shaped run: letters, digits and
// "+/=_-.".
var tokenByte = func() (t [256]bool) {
	for c := range 256 {
		t[c] = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("+/=_-.", byte(c)) >= 0
	}
	return t
}()

// asciiLower lower-cases the ASCII letters of s and keeps every other
// byte. The rules' hints are ASCII, and a hint's position in the lower-case
// text is used in text itself, so the two must have the same length:
// strings.ToLower changes the length of some characters (Ⱥ is 2 bytes and
// ⱥ 3, the Kelvin sign 3 and k 1), which shifted every later position (a
// slice out of range, or a secret missed).
func asciiLower(s string) string { return string(asciiLowerBytes(s)) }

func asciiLowerBytes(s string) []byte {
	b := make([]byte, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b[i] = c
	}
	return b
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// basicCredentials reports whether s is base64 of user:password, as
// HTTP Basic authentication sends it ("Basic usage" is prose).
func basicCredentials(s string) bool {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		b, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(s, "="))
	}
	if err != nil || !utf8.Valid(b) {
		return false
	}
	user, pass, ok := strings.Cut(string(b), ":")
	return ok && user != "" && pass != "" && !strings.ContainsAny(string(b), "\x00\n\r")
}

// encodedPrivateKey reports whether s, base64 that starts a PEM block,
// starts a private key's: the first line it decodes to names one.
func encodedPrivateKey(s string) bool {
	b, err := base64.StdEncoding.DecodeString(s[:min(len(s), 80)&^3])
	if err != nil {
		return false
	}
	line, _, _ := strings.Cut(string(b), "\n")
	return strings.Contains(line, "PRIVATE KEY")
}

// literalSecret reports whether s is a value, not a reference, a
// placeholder or a switch.
func literalSecret(s string) bool { return secretValue(s) && !trivialValue(s) }

// urlPassword reports whether the password a URL rule matched is one: a
// port followed by a path with an '@' in it (host:8080/u/a@b.example) is
// not.
func urlPassword(s string) bool {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return !(i > 0 && i < len(s) && s[i] == '/')
}

// awsSecretValue reports whether a 40-character candidate looks like an
// AWS secret access key: upper and lower case letters and a digit or
// '/' or '+', which English words and hex hashes lack.
func awsSecretValue(s string) bool {
	return strings.ContainsAny(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") && strings.ContainsAny(s, "abcdefghijklmnopqrstuvwxyz") &&
		strings.ContainsAny(s, "0123456789/+")
}

// secretValue reports whether the value of a secret-named assignment looks
// like a literal secret rather than a reference to one ($DB_PASSWORD,
// os.environ["X"], <your-key>), an empty or boolean value, a mask (****)
// or a value already redacted.
func secretValue(v string) bool {
	if v == "" || strings.ContainsAny(v[:1], "$<{[(%*") || strings.Contains(v, "(") {
		return false
	}
	switch strings.ToLower(v) {
	case "null", "nil", "none", "true", "false", "required", "optional", "string", "str", "iota":
		return false
	}
	return strings.Trim(v, "*xX.•…") != ""
}

// Chunk applies the redaction rules to every field of c that is
// indexed or returned (text, title, subject, project, id, tags, headings) and
// reports whether any changed. Readers redact what they read; this is for
// memory kept from a file that cannot be read again, which rules added
// since it was indexed must reach too.
// A record id redaction changes is made distinct as a reader's is
// (ID, from the file's path and line: the file is not read, so
// its path relative to the source is not at hand), and the chunk id is
// made again from it.
func Chunk(c *memory.Chunk) bool {
	n := Fields(&c.Text, &c.Title, &c.Subject, &c.Project) + List(&c.Tags) + List(&c.HeadingPath)
	if id, m := ID(c.SourceID, c.SourcePath, c.LineNumber); m > 0 {
		c.SourceID, c.ID = id, memory.ChunkID(c.SourceName, id, c.Part, c.Parts)
		return true
	}
	return Fields(&c.ID)+n > 0
}

// ID redacts the secrets in a record's id, read at line of the file at
// rel, and returns it with the number replaced. An id redaction changed
// gets a suffix, "~" and 8 hex digits, so that two ids that differed
// only in their secrets (notes named ghp_A….md and ghp_B….md, both
// "[redacted].md#top"; jsonl ids sk-proj-…A and sk-proj-…B) stay two
// records: the index keeps the first of a duplicate id and drops the
// rest. The suffix hashes facts the index already holds, never the
// secret alone, so it confirms no guess of one: for an id derived from
// its file name (rel + "#" + a section, whose secrets the reader has
// already redacted) the file's path, which sources.json and the chunks'
// paths keep as it is for citations and incremental sync; for any other
// id the path and the line (a record's place in its file). The first is
// stable while the note is edited; the second while its file keeps the
// record on the same line (records that share a line are numbered by
// the reader). An id without a secret is returned unchanged.
func ID(id, rel string, line int) (string, int) {
	red, n := Text(id)
	if n == 0 {
		return id, 0
	}
	key := rel + "\x00" + strconv.Itoa(line)
	if frag, ok := strings.CutPrefix(id, rel+"#"); ok {
		if _, m := Text(frag); m == 0 {
			key = rel // the secret is in the file's name
		}
	}
	sum := sha256.Sum256([]byte(key))
	return red + "~" + hex.EncodeToString(sum[:4]), n
}

// Path returns the path of a source file as it may be served (a
// citation's sourcePath): p itself when it holds no secret, else p with
// each secret in a file's or a folder's name (a note named for a token,
// an export folder named for a key) replaced, then "~" and 8 hex digits
// of p's hash, as ID does for an id, so that two files whose paths
// differed only in their secrets are still two sources to the answer's
// events and links. The folders without a secret are kept, so the user
// can still find the file. The index keeps p as it is: it is the file's
// identity for incremental sync, under a home only the user may read.
func Path(p string) string {
	red, n := Text(p)
	if n == 0 {
		return p
	}
	sum := sha256.Sum256([]byte(p))
	return red + "~" + hex.EncodeToString(sum[:4])
}

// Fields redacts each string in place and returns the number of
// secrets replaced.
func Fields(fields ...*string) int {
	total := 0
	for _, s := range fields {
		if *s == "" {
			continue
		}
		var n int
		*s, n = Text(*s)
		total += n
	}
	return total
}

// List redacts a list's strings and returns the number of secrets
// replaced. A reader may share a slice between its records (the heading
// stack of a note), so a changed list is copied, never written in place.
func List(l *[]string) int {
	total, copied := 0, false
	for i, v := range *l {
		r, n := Text(v)
		if n == 0 {
			continue
		}
		if !copied {
			*l, copied = slices.Clone(*l), true
		}
		(*l)[i] = r
		total += n
	}
	return total
}
