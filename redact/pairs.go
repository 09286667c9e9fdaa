package redact

// Secrets as the values of named keys: key = value pairs, environment
// commands, XML elements, and what makes a name or a value a secret's
// (see Text).

import (
	"regexp"
	"strings"
	"sync"
)

// assignmentSpans adds the values assigned to keys whose names say they
// hold a secret, in every notation a transcript or note has them: .env
// and shell lines (SESSION_TOKEN=..., export MYSQL_PWD=...), JSON and
// YAML ("sessionToken": "...", client_secret: ...), escaped JSON inside a
// tool call ({\"password\":\"...\"}), properties
// (spring.datasource.password=...), URL query parameters (?api_key=...),
// flags (--password=...) and XML elements (<password>...</password>). A
// quoted value is taken whole, spaces and commas included. It is plain
// code run at each '=', ':' and '>', reading the key backwards from there
// (secretKey says which names count).
func assignmentSpans(text string, out []span) []span {
	// pairEnd is where the value of a name key that named a secret ends
	// (name: DB_PASSWORD), -1 if none: a value key right after it holds
	// that secret (see pairedValue).
	pairEnd := -1
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c == '>' {
			if start, end, ok := elementValue(text, i); ok {
				out = append(out, span{start, end})
				i = end - 1
			}
			continue
		}
		keyEnd, after := i, i+1
		if c == fullWidthColon[0] && strings.HasPrefix(text[i:], fullWidthColon) {
			// As CJK input methods type it: read as ':'.
			c, after = ':', i+len(fullWidthColon)
		}
		if c != '=' && c != ':' {
			continue
		}
		next := byte(0)
		if after < len(text) {
			next = text[after]
		}
		switch {
		case c == ':' && next == ':' && after+1 < len(text) && (text[after+1] == ' ' || text[after+1] == '\t'):
			after++ // a Logseq property (password:: ...)
		case c == ':' && (next == '=' || next == ':' || next == '/'):
			// := is read at its '='; :: (std::string) and :// assign
			// nothing.
			continue
		case c == '=' && next == '=':
			i++ // == compares
			continue
		case c == '=' && next == '>':
			after++ // Ruby's =>
		case c == '=' && i > 0 && text[i-1] == ':':
			keyEnd-- // Go's :=
		}
		name, nameStart, quoted := keyBefore(text, keyEnd)
		kind := secretKey(name)
		if kind == ambiguousSecret && !quoted && qualifiedInProse(text, nameStart) {
			kind = clearSecret
		}
		if pairEnd >= 0 && pairedValue(text, pairEnd, keyEnd, name) {
			kind = clearSecret
		}
		pairEnd = -1
		if pairName(name) {
			if start, end := valueAfter(text, after); start < end && secretName(text[start:end]) {
				pairEnd = end
				i = end - 1
				continue
			}
		}
		if kind == notSecret {
			continue
		}
		start, end := valueAfter(text, after)
		if start == end {
			continue
		}
		v := text[start:end]
		valueQuoted := start > 0 && strings.IndexByte("\"'`", text[start-1]) >= 0
		if !secretValue(v) || pathLike(v) || trivialValue(v) || codeReference(text, start, end) || nameValue(v) || !valueQuoted && ownName(name, v) {
			continue
		}
		switch {
		case kind == ambiguousSecret:
			if !randomValue(v) {
				continue
			}
		case c == ':' && !quoted && !valueQuoted && !strings.ContainsAny(name, "_-."):
			// A word (or a camelCase name) and a colon may be prose or a
			// comment ("Secret: the vault path", "ownsToken: uninstalling
			// the job"); "password: hunter2" is not. A period ending the
			// sentence is no symbol of a password ("Key: Deprecated.").
			if len(v) < 6 || !credentialValue(strings.TrimRight(v, ".,;:!?")) {
				continue
			}
		}
		if c == ':' && !valueQuoted && typeName(v) {
			// A declaration (privateKey: PrivateKey, password: !vault).
			continue
		}
		out = append(out, span{start, end})
		i = end - 1
	}
	return out
}

// envCommand matches a variable or a setting that a command sets with no
// '=' between its name and its value, as agents set keys in other shells
// than sh and in tools' configuration: fish's set -x (-gx, -Ux,
// --export), csh's and launchctl's setenv, Windows' setx, npm's, yarn's
// and other tools' "config set NAME VALUE" and git config (groups 1 and
// 2: name and value); and a call that sets one, as tests and scripts do:
// os.Setenv("NAME", "value"), t.Setenv, C's setenv, PowerShell's
// [Environment]::SetEnvironmentVariable (groups 3 and 4). At least one
// flag after a bare set: "set OPENAI_API_KEY to the new key" is prose.
var envCommand = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:\bset(?:[ \t]+--?[a-zA-Z-]+)+|\bsetenv|\bsetx(?:[ \t]+/[a-zA-Z])*|\bconfig(?:[ \t]+--?[a-zA-Z-]+)*[ \t]+set|\bgit[ \t]+config(?:[ \t]+--?[a-zA-Z-]+)*)` +
		`[ \t]+["']?([A-Za-z_][A-Za-z0-9_.-]*)["']?[ \t]+["']?([^\s"'\x60;|&][^\s"'\x60;|&]*)` +
		`|(?i:\b(?:setenv|setenvironmentvariable))\([ \t]*["']([A-Za-z_][A-Za-z0-9_]*)["'][ \t]*,[ \t]*["']([^\s"']+)`)
})

// envCommandAt is envCommand anchored at the start of its text: a match
// can only begin at "set", "config" or "git" (in any case), so it is tried
// there alone. Run over the whole text, the unanchored pattern tried every
// byte and cost four fifths of redaction's time on text that says
// "config".
var envCommandAt = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:` + envCommand().String() + `)`) })

// envCommandSpans adds the values envCommand finds set to variables whose
// names say they hold a secret (secretKey), by the rules an assignment's
// value follows: a reference ($TOKEN, (cat key)), a path or a switch is
// no secret, and an ambiguous name (DEPLOY_KEY) needs a random-looking
// value. lower is text in lower case: without "set" or "config" in it, no
// command is.
func envCommandSpans(text, lower string, out []span) []span {
	if !strings.Contains(lower, "set") && !strings.Contains(lower, "config") {
		return out
	}
	re := envCommandAt()
	for at := 0; ; {
		at = nextCommandWord(lower, at)
		if at < 0 {
			return out
		}
		// No match crosses a line: the pattern's blanks are spaces and
		// tabs, and its values end at white space.
		end := len(text)
		if nl := strings.IndexByte(text[at:], '\n'); nl >= 0 {
			end = at + nl
		}
		m := re.FindStringSubmatchIndex(text[at:end])
		if m == nil {
			at++
			continue
		}
		g := 1
		if m[2] < 0 {
			g = 3
		}
		name, start, stop := text[at+m[2*g]:at+m[2*g+1]], at+m[2*g+2], at+m[2*g+3]
		at += m[1]
		v := text[start:stop]
		kind := secretKey(name)
		if kind == notSecret || !literalSecret(v) || pathLike(v) || kind == ambiguousSecret && !randomValue(v) {
			continue
		}
		out = append(out, span{start, stop})
	}
}

// nextCommandWord returns where the first "set", "config" or "git" at
// the start of a word (envCommand's \b: no ASCII letter, digit or
// underscore before it) begins in lower at or after from; -1 if none.
func nextCommandWord(lower string, from int) int {
	best := -1
	for _, w := range [...]string{"set", "config", "git"} {
		for i := from; i < len(lower); {
			j := strings.Index(lower[i:], w)
			if j < 0 || best >= 0 && i+j >= best {
				break
			}
			if at := i + j; at == 0 || !isWordByte(lower[at-1]) {
				best = at
				break
			}
			i += j + 1
		}
	}
	return best
}

// isWordByte reports an ASCII letter, digit or underscore: what \b
// takes for a word character.
func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// qualifiedInProse reports whether the word before the key that starts at
// offset start of text, one blank before it, says the key holds a secret
// (API key:, Secret key =), as secretQualifiers do inside a name.
func qualifiedInProse(text string, start int) bool {
	if start < 2 || text[start-1] != ' ' {
		return false
	}
	k := start - 1
	for k > 0 && start-1-k < 16 && isLetter(text[k-1]) {
		k--
	}
	if k == start-1 || k > 0 && isKeyByte(text[k-1]) {
		return false
	}
	return secretQualifiers[asciiLower(text[k:start-1])]
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// pairName reports a key whose value names another value's meaning, as
// lists of names and values do (name: DB_PASSWORD, "ParameterKey",
// <add key="ApiKey" ...>); a key that holds a secret itself (api_key)
// is not one.
func pairName(key string) bool {
	words := keyWordsOf(key)
	if len(words) == 0 {
		return false
	}
	last := words[len(words)-1]
	return last == "name" || last == "key" && secretKey(key) != clearSecret
}

// secretName reports a value that is the name of a secret: one
// identifier that secretKey says holds one (DB_PASSWORD, ApiKey).
func secretName(v string) bool {
	for i := 0; i < len(v); i++ {
		if !isKeyByte(v[i]) {
			return false
		}
	}
	return secretKey(v) == clearSecret
}

// pairedValue reports whether key, which ends at offset keyEnd of text,
// is the value key (value, Value, ParameterValue) right after a secret's
// name that ended at pairEnd: only blanks, quotes, escapes and a comma
// between them.
func pairedValue(text string, pairEnd, keyEnd int, key string) bool {
	words := keyWordsOf(key)
	if len(words) == 0 || words[len(words)-1] != "value" || keyEnd-pairEnd > 96 {
		return false
	}
	gap := strings.TrimRight(text[pairEnd:keyEnd], " \t*\"'\\")
	gap, ok := strings.CutSuffix(gap, key)
	return ok && strings.Trim(gap, " \t\r\n\"'\\,") == ""
}

const alphanumerics = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// elementValue returns the range of the text of an XML element whose
// name says it holds a secret, <password>VALUE</password> (Maven's
// settings.xml, .NET and Java configuration), for the '>' at offset i
// that may end its start tag. Only a start tag without attributes and a
// value without blanks count: agents' prompts are full of XML-like tags
// around prose.
func elementValue(text string, i int) (int, int, bool) {
	name, _, quoted := keyBefore(text, i)
	open := i - len(name) - 1
	if name == "" || quoted || open < 0 || text[open] != '<' {
		return 0, 0, false
	}
	// Only a name that says what it holds: a plist's <key> element holds
	// the name of the next value (<key>ProgramArguments</key>).
	if secretKey(name) != clearSecret {
		return 0, 0, false
	}
	start, end := i+1, i+1
	for end < len(text) && end-start <= 256 && text[end] != '<' && text[end] != '>' && !isSpace(text[end]) {
		end++
	}
	if end == start || !strings.HasPrefix(text[end:], "</") {
		return 0, 0, false
	}
	v := text[start:end]
	if !literalSecret(v) || pathLike(v) || nameValue(v) {
		return 0, 0, false
	}
	return start, end, true
}

// keyBefore returns the key that ends at offset end of text (where its
// '=' or ':' is), skipping blanks, the end of Markdown emphasis and a
// closing quote (escaped or not), the offset it starts at and whether it
// was quoted. A key right after '/' is a file path
// (/etc/passwd:), not a key: it returns "".
func keyBefore(text string, end int) (name string, start int, quoted bool) {
	j := end
	for j > 0 && end-j < 8 && (text[j-1] == ' ' || text[j-1] == '\t') {
		j--
	}
	// The end of Markdown emphasis around the key (**Password**:).
	for j > 0 && end-j < 12 && text[j-1] == '*' {
		j--
	}
	if j > 0 && (text[j-1] == '"' || text[j-1] == '\'') {
		quoted = true
		j--
		// Escaped once or more: JSON in a string ({\"password\":...}),
		// itself in a string (a command in a tool call's arguments).
		for j > 0 && end-j < 16 && text[j-1] == '\\' {
			j--
		}
	}
	k := j
	for k > 0 && j-k < 64 && isKeyByte(text[k-1]) {
		k--
	}
	if k == j || (k > 0 && (text[k-1] == '/' || isKeyByte(text[k-1]))) {
		return "", 0, false
	}
	return text[k:j], k, quoted
}

func isKeyByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.'
}

// valueAfter returns the range of the value that starts after blanks at
// offset i of text: inside its quotes when it is quoted (", \", \\\",
// ' or `), on one line; else up to a blank or a character that ends a value in
// JSON, YAML flow, a query string or a shell line, or up to the Markdown
// emphasis it opens with.
func valueAfter(text string, i int) (int, int) {
	i = skipBlanks(text, i)
	// Markdown emphasis: the end of a bold or italic key's (**Password:**
	// value), or marks around the value (Password: **value**), which end
	// it.
	emphasis := ""
	if n := starRun(text, i); n > 0 {
		if i+n == len(text) || isSpace(text[i+n]) {
			i = skipBlanks(text, i+n)
		} else {
			emphasis, i = text[i:i+n], i+n
		}
	}
	if i >= len(text) {
		return i, i
	}
	quote := ""
	switch text[i] {
	case '"', '\'', '`':
		quote = text[i : i+1]
	case '\\':
		// A quote escaped once or more (\", \\\"): the value ends at
		// the same escape.
		j := i
		for j < len(text) && j-i < 16 && text[j] == '\\' {
			j++
		}
		if j < len(text) && text[j] == '"' {
			quote = text[i : j+1]
		}
	}
	if quote != "" {
		start := i + len(quote)
		line := text[start:]
		if nl := strings.IndexByte(line, '\n'); nl >= 0 {
			line = line[:nl]
		}
		if q := strings.Index(line, quote); q >= 0 {
			return start, start + q
		}
		i = start // an unclosed quote: read on as unquoted
	}
	j := i
	for j < len(text) && !isSpace(text[j]) && !cjkPunctuation(text, j) && (strings.IndexByte("\"'`,;&<>(){}[]\\", text[j]) < 0 || j > i && innerSeparator(text, j)) {
		j++
	}
	if emphasis != "" {
		k := strings.Index(text[i:j], emphasis)
		if k < 0 {
			// No closing mark: no emphasis but code (*ptr) or a YAML
			// alias (*key_id), no value.
			return i - len(emphasis), j
		}
		j = i + k
	}
	return i, j
}

// fullWidthColon is the colon CJK input methods type (U+FF1A).
const fullWidthColon = "："

// cjkPunctuation reports whether a CJK or full-width punctuation mark
// (U+3000-U+303F: 。、「; U+FF00-U+FF7F: ，；：（) starts at offset j of
// text: it ends a value as its ASCII counterpart does.
func cjkPunctuation(text string, j int) bool {
	if j+2 >= len(text) {
		return false
	}
	c, d := text[j], text[j+1]
	return c == 0xE3 && d == 0x80 || c == 0xEF && (d == 0xBC || d == 0xBD)
}

func skipBlanks(text string, i int) int {
	for i < len(text) && (text[i] == ' ' || text[i] == '\t') {
		i++
	}
	return i
}

// starRun is the number of '*' at offset i of text.
func starRun(text string, i int) int {
	n := 0
	for i+n < len(text) && text[i+n] == '*' {
		n++
	}
	return n
}

// innerSeparator reports whether the '&' or ';' at offset j of text is
// part of a value (P@ss&w0rd!, pass;word99) rather than its end: the end
// of a query string's or a connection string's value is followed by the
// next key (&page=2, ;Server=db, ;User Id=sa, &amp;), a shell operator
// by a blank, another operator or nothing.
func innerSeparator(text string, j int) bool {
	if text[j] != '&' && text[j] != ';' {
		return false
	}
	rest := text[j+1:]
	if rest == "" || isSpace(rest[0]) || strings.IndexByte("&;|", rest[0]) >= 0 || strings.HasPrefix(rest, "amp;") {
		return false
	}
	k := 0
	for k < len(rest) && k < 64 && (isKeyByte(rest[k]) || k > 0 && rest[k] == ' ') {
		k++
	}
	return k == 0 || k == len(rest) || rest[k] != '='
}

// Kinds of key names (secretKey).
const (
	notSecret = iota
	// clearSecret names say what they hold: DB_PASSWORD, sessionToken,
	// client_secret, api-key.
	clearSecret
	// ambiguousSecret names hold a secret only sometimes (key, auth,
	// sig: cache_key, auth: required); only a random-looking value counts.
	ambiguousSecret
)

// assignmentHints are the lower-case substrings one of which every key
// secretKey accepts contains.
var assignmentHints = []string{"pass", "pwd", "pw", "secret", "token", "key", "auth", "cred", "sig"}

// secretWords end a key that holds a secret; keyWords end one that may.
// Before "key" (and "auth", "pass", ...), secretQualifiers make it clear.
var (
	secretWords = setOf("password", "passwd", "passphrase", "pwd", "secret", "token", "apikey", "authkey", "secretkey",
		"privatekey", "accesskey", "accesstoken", "authtoken", "refreshtoken", "credentials", "credential", "passcode")
	keyWords         = setOf("key", "auth", "pass", "sig", "signature", "creds", "cred", "pw")
	secretQualifiers = setOf("api", "secret", "private", "access", "signing", "encryption", "master", "auth", "account",
		"client", "service", "session", "hmac", "jwt", "webhook", "shared", "app", "license", "crypto", "decryption",
		"cipher", "aes", "bot", "deploy", "admin", "root", "db", "database", "basic", "user", "smtp", "mail")
	// publicWords make a key public whatever follows them.
	publicWords = setOf("public", "publishable", "pub")
	// encodingWords after the secret word name its encoding
	// (SECRET_KEY_BASE, JWT_SECRET_B64).
	encodingWords = setOf("base", "value", "b64", "base64", "hex", "raw")
)

// secretKey classifies a key name by its words: split at _ - . and at
// camelCase humps, lower-cased, encoding words at the end dropped.
func secretKey(name string) int {
	if name == "" {
		return notSecret
	}
	words := keyWordsOf(name)
	for len(words) > 1 && encodingWords[words[len(words)-1]] {
		words = words[:len(words)-1]
	}
	if len(words) == 0 {
		return notSecret
	}
	for _, w := range words {
		if publicWords[w] {
			return notSecret
		}
	}
	last := words[len(words)-1]
	switch {
	case secretWords[last]:
		return clearSecret
	case !keyWords[last]:
		// A secret word glued to its qualifier: PGPASSWORD, MYSECRET,
		// githubtoken.
		for _, w := range []string{"password", "passwd", "passphrase", "secret", "token", "apikey"} {
			if strings.HasSuffix(last, w) {
				return clearSecret
			}
		}
		return notSecret
	case len(words) > 1 && secretQualifiers[words[len(words)-2]]:
		return clearSecret
	}
	return ambiguousSecret
}

// keyWordsOf splits a key name into lower-case words.
func keyWordsOf(name string) []string {
	var words []string
	start := 0
	flush := func(end int) {
		if end > start {
			words = append(words, strings.ToLower(name[start:end]))
		}
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '_' || c == '-' || c == '.':
			flush(i)
			start = i + 1
		case c >= 'A' && c <= 'Z' && i > start && name[i-1] >= 'a' && name[i-1] <= 'z':
			flush(i)
			start = i
		}
	}
	flush(len(name))
	return words
}

func hasInnerUpper(s string) bool {
	return len(s) > 1 && strings.ContainsAny(s[1:], "ABCDEFGHIJKLMNOPQRSTUVWXYZ") && strings.ContainsAny(s, "abcdefghijklmnopqrstuvwxyz")
}

// pathLike reports a value that names a file rather than holding a
// secret: PWD=/home/dev, GOOGLE_APPLICATION_CREDENTIALS=~/creds.json.
func pathLike(v string) bool {
	if strings.HasPrefix(v, "~/") || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "../") {
		return true
	}
	if strings.HasPrefix(v, "/") && !strings.ContainsAny(v, "+=") {
		// Base64 may start with '/' too; a path has two segments or a
		// file extension, and no '+' or '='.
		return strings.Count(v, "/") >= 2 || strings.Contains(v, ".")
	}
	return false
}

// codeReference reports an unquoted value that is code reading the
// secret from elsewhere: a call or an index (os.environ.get("PW"),
// ENV["KEY"]), a dotted name (settings.SECRET_KEY, process.env.TOKEN) or
// a keyword that starts an expression (token := range tokens, const
// token = await getToken()).
func codeReference(text string, start, end int) bool {
	if start > 0 && strings.IndexByte("\"'`", text[start-1]) >= 0 {
		return false
	}
	if end < len(text) && (text[end] == '(' || text[end] == '[' || text[end] == '{') {
		return true
	}
	if expressionKeywords[text[start:end]] {
		return true
	}
	parts := strings.Split(text[start:end], ".")
	if len(parts) < 2 {
		return false
	}
	// Names are words in one case (settings, SECRET_KEY, environ); the
	// parts of a token with dots (hvs.CAES..., a Discord token) mix cases.
	for _, p := range parts {
		if p == "" || !(p[0] == '_' || p[0] >= 'a' && p[0] <= 'z' || p[0] >= 'A' && p[0] <= 'Z') {
			return false
		}
		upper, lower := false, false
		for i := 0; i < len(p); i++ {
			c := p[i]
			switch {
			case c >= 'a' && c <= 'z':
				lower = true
			case c >= 'A' && c <= 'Z':
				upper = true
			case c == '_' || c >= '0' && c <= '9':
			default:
				return false
			}
		}
		if upper && lower && !isCamelWord(p) {
			return false
		}
	}
	return true
}

// expressionKeywords start an expression in the languages agents write
// (Go, JavaScript, TypeScript, Python, Rust, C#): after '=' or ':=' they
// are code, never a secret.
var expressionKeywords = setOf("range", "await", "new", "yield", "typeof", "lambda", "function", "async")

// ownName reports an unquoted value that is the key's own name, as code
// copies a variable into a field (self.token = token, p.password =
// password, c.RewriteToken = rewriteToken, api_key = apiKey).
func ownName(key, v string) bool {
	if i := strings.LastIndexByte(key, '.'); i >= 0 {
		key = key[i+1:]
	}
	unsep := strings.NewReplacer("_", "", "-", "")
	return strings.EqualFold(unsep.Replace(key), unsep.Replace(v))
}

// isCamelWord reports a camelCase or PascalCase name (getenv, apiKey,
// Environ), told from a random token by having no digit and no two
// capitals in a row.
func isCamelWord(p string) bool {
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c >= '0' && c <= '9' || c == '_' {
			return false
		}
		if i > 0 && c >= 'A' && c <= 'Z' && p[i-1] >= 'A' && p[i-1] <= 'Z' {
			return false
		}
	}
	return true
}

// typeName reports an unquoted value after a colon that names a type or
// a YAML tag rather than holding a secret: letters only, with a capital
// inside (PrivateKey, SecretString) or after a '!' (!vault).
func typeName(v string) bool {
	if w, ok := strings.CutPrefix(v, "!"); ok {
		return w != "" && strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") == ""
	}
	return strings.Trim(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") == "" && hasInnerUpper(v) && isCamelWord(v)
}

// nameValue reports a value that names a secret rather than holding one:
// a header, a parameter or a URN made of words, one of them a secret word
// (X-Nova-Internal-Token, urn:ietf:params:oauth:token-type:id_token), or
// an assignment itself (secret: PWD=/home/dev). Base64 padding that
// prose ends with a period or emphasis (KEY=Zm9v...==. or **KEY=...==**)
// is not an assignment.
func nameValue(v string) bool {
	if i := strings.IndexByte(v, '='); i >= 0 && strings.Trim(v[i:], "=.!?*_~") != "" {
		return true
	}
	if strings.Trim(strings.ToLower(v), "abcdefghijklmnopqrstuvwxyz-_:.") != "" || !strings.ContainsAny(v, "-_:.") {
		return false
	}
	lower := strings.ToLower(v)
	return containsAny(lower, []string{"token", "secret", "password", "passwd", "api-key", "api_key", "apikey"})
}

// trivialValue reports switch-like values no secret is.
func trivialValue(v string) bool {
	switch strings.ToLower(v) {
	case "0", "1", "yes", "no", "on", "off", "y", "n", "enabled", "disabled", "none", "empty", "undefined", "redacted":
		return true
	}
	return false
}

// randomValue reports a value that looks generated rather than chosen: at
// least 12 characters that mix letters and digits (or upper and lower
// case over 16 or more), and not only hexadecimal digits and dashes (a
// hash, a UUID: cache_key, idempotency_key); no blank (a sentence) and no
// colon (a structured id: codex:a2b1d370).
func randomValue(v string) bool {
	if len(v) < 12 || strings.ContainsAny(v, " \t:") {
		return false
	}
	hex := true
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' || c == '-') {
			hex = false
			break
		}
	}
	if hex {
		return false
	}
	if MixesLettersAndDigits(v) {
		return true
	}
	return len(v) >= 16 && strings.ContainsAny(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") && strings.ContainsAny(v, "abcdefghijklmnopqrstuvwxyz")
}

// headerCredential reports a value after an Authorization scheme that
// is a credential, not prose or a name ("send a Bearer authentication
// header", "Bearer AuthenticationHeaderValue"): one with a digit, or
// letters of both cases in even measure, as a generated token without a
// digit has (one token of 32 base62 characters in 280 has no digit) and
// a camelCase name does not.
func headerCredential(v string) bool {
	if strings.ContainsAny(v, "0123456789") {
		return true
	}
	upper, lower := 0, 0
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c >= 'A' && c <= 'Z':
			upper++
		case c >= 'a' && c <= 'z':
			lower++
		}
	}
	return len(v) >= 20 && 3*upper >= len(v) && 3*lower >= len(v)
}

// credentialValue reports a value that reads as a password rather than a
// word: a digit or a symbol in it.
func credentialValue(v string) bool {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return true
		}
	}
	return false
}
