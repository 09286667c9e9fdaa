package lexical

import (
	"slices"
	"strings"
	"testing"
)

// TestTermsCamelCase: a camelCase or PascalCase identifier gives its words
// as terms beside its own, so "parse the config", parse_config and
// parseConfig meet; words that are only capitalised or all capitals are
// one word.
func TestTermsCamelCase(t *testing.T) {
	a := NewAnalyzer()
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"parseConfig", []string{"pars", "config", "parseconfig"}},
		{"ParseConfig", []string{"pars", "config", "parseconfig"}},
		{"parse_config", []string{"pars", "config", "parse_config"}},
		{"HTTPServer", []string{"http", "server", "httpserver"}},
		{"getUserByID", []string{"get", "user", "id", "getuserbyid"}}, // "by" is a stop word
		{"XMLHttpRequest", []string{"xml", "http", "request", "xmlhttprequest"}},
		{"useEffect()", []string{"use", "effect", "useeffect"}},
		{"IOError", []string{"io", "error", "ioerror"}},
		{"IUserService", []string{"user", "servic", "iuserservic"}},
		{"iPhone", []string{"phone", "iphon"}},
		// An acronym's plural is one word, also at the end of another.
		{"URLs", []string{"url"}},
		{"getURLs", []string{"get", "url", "geturl"}},
		{"the APIsFor", []string{"api", "apisfor"}},
		// Capitalised, all capitals, lower case: one word each.
		{"Hello NASA hello", []string{"hello", "nasa", "hello"}},
		// Inside a run of connectors, each word is split; the whole run
		// stays one more term.
		{"src/parseConfig.ts", []string{"src", "pars", "config", "parseconfig", "ts", "src/parseconfig.ts"}},
		{"cfg.parseConfig()", []string{"cfg", "pars", "config", "parseconfig", "cfg.parseconfig"}},
		// A word with digits or letters beyond ASCII is kept whole (its
		// letters folded as Normalize folds them).
		{"utf8Decode naïveParse", []string{"utf8decode", "naivepars"}},
		// Text whose normalised form is shorter or longer than it
		// (full-width punctuation, a no-break space, a superscript).
		{"调用parseConfig，然后", []string{"\x01调", "\x01用", "调用", "调用", "pars", "config", "parseconfig", "\x01然", "\x01后", "然后", "然后"}},
		{"run\u00a0parseConfig now", []string{"run", "pars", "config", "parseconfig"}},
		{"Ｘ parseConfig", []string{"pars", "config", "parseconfig"}},
		{"parseConfig² ok", []string{"parseconfig2", "ok"}},
		{"\u0041\u030abo loadFile", []string{"abo", "load", "file", "loadfil"}},
	} {
		if got := a.Terms(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("Terms(%q) = %q, want %q", tc.in, got, tc.want)
		}
		// AppendTerms is the same analysis.
		if got := a.AppendTerms([]string{"x"}, tc.in); !slices.Equal(got[1:], tc.want) {
			t.Errorf("AppendTerms(%q) = %q, want %q", tc.in, got[1:], tc.want)
		}
	}
}

// FuzzNormalizeCamel: the text normalizeCamel returns is Normalize's, and
// each camelCase word it finds is there, lower-cased, as a whole word; a
// text with none gives none.
func FuzzNormalizeCamel(f *testing.F) {
	for _, s := range append(slices.Clone(normalizeCases), "调用parseConfig，然后", "A\u030a loadFile ＸparseConfig", "run\u00a0getUserByID² now", "ﬁleName fooBar") {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		norm, camel := normalizeCamel(nil, s)
		if want := Normalize(s); norm != want {
			t.Fatalf("normalizeCamel(%q) = %q, Normalize says %q", s, norm, want)
		}
		for _, c := range camel {
			if c.at < 0 || c.at+len(c.word) > len(norm) || !isLowerOf(norm[c.at:c.at+len(c.word)], c.word) {
				t.Fatalf("normalizeCamel(%q): %q is not at %d of %q", s, c.word, c.at, norm)
			}
			if !strings.Contains(s, c.word) || camelBreak(c.word, 0) == len(c.word) {
				t.Fatalf("normalizeCamel(%q): %q is not a camelCase word of it", s, c.word)
			}
		}
	})
}

func TestCamelParts(t *testing.T) {
	for text, want := range map[string]string{
		"parseConfig on an HTTPServer": "parse config http server",
		"getUserByID, then URLs":       "get user by id",
		"plain text, Hello NASA":       "",
		"调用parseConfig，然后":             "parse config",
	} {
		if got := CamelParts(text); got != want {
			t.Errorf("CamelParts(%q) = %q, want %q", text, got, want)
		}
	}
}
