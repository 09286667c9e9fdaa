package systemd

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// InstalledNovaHome returns the NOVA_HOME that the unit file at path gives
// its service (an Environment= assignment, the last one winning as in
// systemd): the home the installed novad serves, which need not be the
// caller's. The error wraps fs.ErrNotExist when there is no unit file.
func InstalledNovaHome(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	home := ""
	for line := range strings.SplitSeq(string(b), "\n") {
		v, ok := strings.CutPrefix(strings.TrimSpace(line), "Environment=")
		if !ok {
			continue
		}
		for _, w := range unitWords(v) {
			if h, ok := strings.CutPrefix(w, "NOVA_HOME="); ok {
				home = h
			}
		}
	}
	if !filepath.IsAbs(home) {
		return "", fmt.Errorf("%s: no Environment= gives an absolute NOVA_HOME (got %q)", path, home)
	}
	return filepath.Clean(home), nil
}

// InstalledCommand returns the whole command line of the ExecStart= of
// the unit file at path (the last one winning), split into words with
// RenderUnit's quoting undone (quotes, backslashes, %% and $$): the
// program may have moved since it was installed. The error wraps
// fs.ErrNotExist when there is no unit file.
func InstalledCommand(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var argv []string
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "ExecStart="); ok {
			argv = unitWords(v)
			// ExecStart expands $VAR, so RenderUnit writes a literal $
			// as $$ there (and not in Environment=, which does not).
			for i, w := range argv {
				argv[i] = strings.ReplaceAll(w, "$$", "$")
			}
		}
	}
	if len(argv) == 0 {
		return nil, fmt.Errorf("%s: no ExecStart= names a program", path)
	}
	return argv, nil
}

// unitWords splits the value of an Environment= line into its
// assignments, undoing what quoted writes: double quotes group, a
// backslash escapes the next character inside them, and %% is a literal %.
func unitWords(s string) []string {
	var out []string
	var b strings.Builder
	word, quoted := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quoted && c == '\\' && i+1 < len(s):
			i++
			b.WriteByte(s[i])
		case c == '"':
			quoted, word = !quoted, true
		case c == '%' && i+1 < len(s) && s[i+1] == '%':
			i++
			b.WriteByte('%')
			word = true
		case !quoted && (c == ' ' || c == '\t'):
			if word {
				out = append(out, b.String())
				b.Reset()
				word = false
			}
		default:
			b.WriteByte(c)
			word = true
		}
	}
	if word {
		out = append(out, b.String())
	}
	return out
}
