// Package skill renders and installs Nova's read-only recall skill, an
// Agent Skills SKILL.md that tells an agent when to consult Nova (after
// the current conversation, local files and its own memory), how to call
// it (novactl search or the loopback facade) and how to read the answer.
//
// The file carries a managed marker with the template version and a
// digest of its own content, so the installer can tell its own unmodified
// files (which it may upgrade or remove) from files the person edited
// (which it leaves alone unless forced, and then only after a backup).
package skill

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/template"

	"github.com/nova-recall/nova/agents"
	"github.com/nova-recall/nova/paths"
	"github.com/nova-recall/nova/shellword"
)

// ID is the skill's name: the front-matter name and the directory name.
const ID = "nova-recall"

// FileName is the skill file inside the skill directory.
const FileName = "SKILL.md"

// TemplateVersion is the version of the embedded template. Bump it with
// every change of SKILL.md.tmpl, so that installed copies are upgraded.
const TemplateVersion = 4

// installedForPrefix starts the last line, which names the agents a copy
// was installed for. The digest ignores the agent list when the line is
// exactly one Render writes (see generatedLine); any other text there is
// an edit.
const installedForPrefix = "Installed for: "

// normalAgent replaces the agent list when the digest is computed.
const normalAgent = "<agent>"

// placeholder replaces the digest when the digest is computed.
var placeholder = strings.Repeat("0", 64)

//go:embed SKILL.md.tmpl
var templateText string

// tmpl is templateText parsed, on the first render.
var tmpl = sync.OnceValue(func() *template.Template {
	return template.Must(template.New(FileName).Option("missingkey=error").Parse(templateText))
})

// markerRE matches the managed marker. Only the first match counts.
var markerRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`<!-- nova-managed-skill id=([a-z0-9-]+) template-version=([0-9]{1,9}) template-sha256=([0-9a-f]{64}) -->`)
})

// marker returns the managed marker line with the placeholder digest.
func marker(version int) string {
	return fmt.Sprintf("<!-- nova-managed-skill id=%s template-version=%d template-sha256=%s -->", ID, version, placeholder)
}

// Render returns the SKILL.md for the agents named by installedFor (the
// text of the last line, for example "hermes" or "codex, gemini,
// openclaw"), with its digest filled in, for a home whose facade listens
// at the default address (a Target renders with its home's, see
// Target.Facade). home is the Nova home its commands use: "" for the
// default ~/.nova (the commands are plain novactl), else an absolute path
// that every command sets as NOVA_HOME.
//
// The home rides on each command line ("NOVA_HOME='/x' novactl search
// ...") rather than in an instruction to export it: every agent the
// skill goes to runs commands through a POSIX shell, where a prefix
// assignment reaches that one command and nothing after it.
func Render(installedFor, home string) []byte {
	return render(installedFor, home, "")
}

// render is Render for the facade at base URL facade ("" for the
// default, see Target.Facade).
func render(installedFor, home, facade string) []byte {
	return renderVersion(templateText, TemplateVersion, installedFor, home, facade)
}

// renderVersion renders text (a template like SKILL.md.tmpl) as version.
// Tests use it to build older and newer managed files.
func renderVersion(text string, version int, installedFor, home, facade string) []byte {
	var t *template.Template
	if text == templateText {
		t = tmpl()
	} else {
		t = template.Must(template.New(FileName).Option("missingkey=error").Parse(text))
	}
	data := struct {
		Marker, InstalledFor, Home, Novactl, Facade string
		// FacadeAnyPort: novad takes a new port at each start, so the
		// skill can name no URL.
		FacadeAnyPort bool
	}{marker(version), oneLine(installedFor), home, novactlCommand(home), facade, strings.HasSuffix(facade, ":0")}
	var b bytes.Buffer
	err := t.Execute(&b, data)
	if err != nil {
		panic(err) // the template is embedded and tested
	}
	out, err := Seal(b.Bytes())
	if err != nil {
		panic(err)
	}
	return out
}

// novactlCommand is how the skill's commands start for home (see
// Render): plain novactl, or novactl with NOVA_HOME assigned in front.
func novactlCommand(home string) string {
	if home == "" {
		return "novactl"
	}
	return paths.EnvHome + "=" + shellword.Single(home) + " novactl"
}

// ClaudePermissionRule is the Claude Code permission rule (for
// permissions.allow in its settings.json) that lets it run the skill's
// search for home without asking each time. Claude Code matches a Bash
// rule against the command's text from its start, and an assignment in
// front (NOVA_HOME='/x' novactl ...) is part of that text: a rule for
// plain `novactl search` does not cover a relocated home's command
// (anthropics/claude-code issues 49350 and 32556, as of 2026-12), so the
// rule carries the same assignment.
func ClaudePermissionRule(home string) string {
	return "Bash(" + novactlCommand(home) + " search *)"
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// homeRE matches the search command of a skill rendered for a home, and
// captures the quoted home.
var homeRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^    ` + paths.EnvHome + `=('.*') novactl search "<query>" --top-k 8 --json$`)
})

// installedHome returns the home a skill's search command sets, or ""
// when it sets none. It only reads the command: whether the file is
// what Render writes for that home is for the caller to check.
func installedHome(content []byte) string {
	m := homeRE().FindSubmatch(content)
	if m == nil {
		return ""
	}
	q := string(m[1])
	return strings.ReplaceAll(q[1:len(q)-1], `'\''`, "'")
}

// installedFacade returns the facade a skill's HTTP section names ("" for
// the default, an address with port 0 for a new port at each start; see
// Target.Facade). Like installedHome, it only reads that sentence.
func installedFacade(content []byte) string {
	if m := facadeRE().FindSubmatch(content); m != nil {
		return string(m[1])
	}
	if bytes.Contains(content, []byte(anyPortText)) {
		return anyPortFacade
	}
	return ""
}

// facadeRE matches the HTTP section of a skill rendered for a facade at
// a fixed address other than the default, and captures the address.
var facadeRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("(?m)^Over HTTP, Nova's facade on this machine is at `(http://[^`\n]+)`, the address its configuration sets\\.")
})

// anyPortText is in the HTTP section of a skill rendered for a facade
// on a new port at each start; anyPortFacade is the address
// installedFacade returns for it (whatever the host, the text is the
// same).
const (
	anyPortText   = "Over HTTP, Nova's facade on this machine listens on a new port at each start"
	anyPortFacade = "http://127.0.0.1:0"
)

// Digest is the template-sha256 of the current template rendered for
// environ's Nova home and its facade (see Target.Home and
// Target.Facade): the same for every agent.
func Digest(environ []string) string {
	return digestFor(paths.Relocated(environ), facadeURL(environ))
}

// digestFor is the template-sha256 of the template rendered for home and
// facade.
func digestFor(home, facade string) string {
	m, _ := Parse(render(normalAgent, home, facade))
	return m.Digest
}

// Marker is a parsed managed marker.
type Marker struct {
	// ID is the skill id the marker names.
	ID string
	// Version is the template version.
	Version int
	// Digest is the template-sha256 the marker claims.
	Digest string
	// Verified is true when Digest matches the content.
	Verified bool
}

// ErrNoMarker means the content has no managed marker.
var ErrNoMarker = errors.New("no nova-managed-skill marker")

// Parse finds the managed marker in content and verifies its digest.
func Parse(content []byte) (Marker, error) {
	loc := markerRE().FindSubmatchIndex(content)
	if loc == nil {
		return Marker{}, ErrNoMarker
	}
	v, err := strconv.Atoi(string(content[loc[4]:loc[5]]))
	if err != nil {
		return Marker{}, err
	}
	m := Marker{ID: string(content[loc[2]:loc[3]]), Version: v, Digest: string(content[loc[6]:loc[7]])}
	m.Verified = m.Digest == digest(content, loc)
	return m, nil
}

// Seal fills the managed marker's digest of content and returns the
// result. It is how Render signs its output; tests use it to build
// managed files of other versions.
func Seal(content []byte) ([]byte, error) {
	loc := markerRE().FindSubmatchIndex(content)
	if loc == nil {
		return nil, ErrNoMarker
	}
	out := bytes.Clone(content)
	copy(out[loc[6]:loc[7]], digest(content, loc))
	return out, nil
}

// digest is the sha256 of content with the marker's digest (at loc)
// replaced by the placeholder and the last line normalised.
func digest(content []byte, loc []int) string {
	var b bytes.Buffer
	b.Grow(len(content))
	b.Write(content[:loc[6]])
	b.WriteString(placeholder)
	b.Write(content[loc[7]:])
	sum := sha256.Sum256(normalize(b.Bytes()))
	return hex.EncodeToString(sum[:])
}

// normalize replaces the agent list of a last line "Installed for: ..."
// with a fixed value, so copies for different agents share a digest. Only
// a line Render writes is normalised: any other text on the last line
// (an instruction added after the list, say) stays, and so counts as an
// edit.
func normalize(content []byte) []byte {
	end := len(content)
	if end > 0 && content[end-1] == '\n' {
		end--
	}
	start := bytes.LastIndexByte(content[:end], '\n') + 1
	if !generatedLine(string(content[start:end])) {
		return content
	}
	out := make([]byte, 0, len(content))
	out = append(out, content[:start]...)
	out = append(out, installedForPrefix+normalAgent...)
	return append(out, content[end:]...)
}

// generatedLine reports whether line is a last line Render writes:
// "Installed for: " and distinct agent IDs separated by ", " (or the
// placeholder Digest uses).
func generatedLine(line string) bool {
	list, ok := strings.CutPrefix(line, installedForPrefix)
	if !ok {
		return false
	}
	if list == normalAgent {
		return true
	}
	ids := strings.Split(list, ", ")
	for i, id := range ids {
		if !slices.Contains(agents.IDs(), id) || slices.Contains(ids[:i], id) {
			return false
		}
	}
	return true
}

// InstalledFor returns the text of content's last line after
// "Installed for: ", or "" when there is none.
func InstalledFor(content []byte) string {
	s := strings.TrimSuffix(string(content), "\n")
	last := s[strings.LastIndexByte(s, '\n')+1:]
	if rest, ok := strings.CutPrefix(last, installedForPrefix); ok {
		return rest
	}
	return ""
}

// sameTemplate reports whether a and b differ at most in the agents
// named on the last line.
func sameTemplate(a, b []byte) bool {
	return bytes.Equal(normalize(a), normalize(b))
}
