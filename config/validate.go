package config

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"
)

// Validate checks every field and returns all problems at once.
func (c Config) Validate() error { return c.validate(nil) }

// validate is Validate for a configuration whose values may come from
// environment variables: fromEnv maps a dotted key to the variable that
// set it, and each error about that key names the variable, since that is
// where the operator has to fix it.
func (c Config) validate(fromEnv map[string]string) error {
	var errs []error
	bad := func(field, value, reason string) {
		errs = append(errs, &FieldError{Field: field, Env: fromEnv[field], Value: value, Reason: reason})
	}
	within := func(field string, v, lo, hi int, reason string) {
		if v < lo || v > hi {
			bad(field, fmt.Sprint(v), reason)
		}
	}
	if !IsLoopbackHost(c.Server.Host) {
		errs = append(errs, &NonLoopbackError{Host: c.Server.Host, Env: fromEnv["server.host"]})
	}
	within("server.port", c.Server.Port, 0, 65535, "must be a TCP port 0-65535")
	within("facade.port", c.Facade.Port, 0, 65535, "must be a TCP port 0-65535")
	if c.Server.Port != 0 && c.Server.Port == c.Facade.Port {
		// The error is about the port that was set: a server.port
		// of 3036 meets the facade's default, which nothing names.
		if def := Defaults().Facade.Port; c.Facade.Port == def {
			bad("server.port", fmt.Sprint(c.Server.Port), fmt.Sprintf("must differ from facade.port, whose default is %d: give one of them another port", def))
		} else {
			bad("facade.port", fmt.Sprint(c.Facade.Port), "must differ from server.port")
		}
	}
	switch c.Embedding.Provider {
	case ProviderBuiltin:
	case ProviderOpenAI:
		if c.Embedding.Endpoint == "" {
			bad("embedding.endpoint", "", "is required for the openai provider (e.g. http://127.0.0.1:11434/v1)")
		} else if err := checkEndpoint(c.Embedding.Endpoint, c.Embedding.AllowRemoteEndpoint); err != nil {
			// Never echo user information: http://user:secret@host would
			// put the secret in logs and doctor output.
			bad("embedding.endpoint", endpointForError(c.Embedding.Endpoint), err.Error())
		}
		if c.Embedding.Model == "" {
			bad("embedding.model", "", "is required for the openai provider")
		}
	default:
		bad("embedding.provider", c.Embedding.Provider, "must be builtin or openai")
	}
	if k := c.Embedding.APIKeyEnv; k != "" && !envName().MatchString(k) {
		// Not shown: what is there instead of a name is most likely the
		// key itself.
		bad("embedding.apiKeyEnv", "", "must be the name of an environment variable (letters, digits and _, not first a digit) that holds the API key, not the key itself: export the key as, say, OPENAI_API_KEY and write that name here")
	}
	within("embedding.dimension", c.Embedding.Dimension, 8, 4096, "must be between 8 and 4096")
	within("embedding.batchSize", c.Embedding.BatchSize, 1, 512, "must be between 1 and 512")
	within("embedding.timeoutSeconds", c.Embedding.TimeoutSeconds, 1, 600, "must be between 1 and 600")
	within("retrieval.topK", c.Retrieval.TopK, 1, 20, "must be between 1 and 20")
	within("retrieval.latencyBudgetSeconds", c.Retrieval.LatencyBudgetSeconds, 1, 120, "must be at least 1 and at most 120 seconds")
	within("retrieval.maxConcurrentSearches", c.Retrieval.MaxConcurrentSearches, 1, 64, "must be between 1 and 64")
	// Written as what is accepted, so that NaN (.nan in YAML, NaN in the
	// environment), which fails every comparison, is refused too.
	if !(c.Retrieval.RecencyHalfLifeDays > 0 && c.Retrieval.RecencyHalfLifeDays <= 3650) {
		bad("retrieval.recencyHalfLifeDays", fmt.Sprint(c.Retrieval.RecencyHalfLifeDays), "must be more than 0 and at most 3650 days")
	}
	if c.Retrieval.DenseChannel != "on" && c.Retrieval.DenseChannel != "off" {
		bad("retrieval.denseChannel", c.Retrieval.DenseChannel, "must be on or off")
	}
	within("index.keepGenerations", c.Index.KeepGenerations, 2, 50, "must be between 2 and 50 (rollback needs an older generation)")
	within("index.chunkMaxChars", c.Index.ChunkMaxChars, 200, 20000, "must be between 200 and 20000")
	if overlap := c.Index.ChunkOverlapChars; overlap < 0 || overlap >= c.Index.ChunkMaxChars/2 {
		// Often the overlap is the default, which the file does not
		// name, judged against a chunkMaxChars the file lowered.
		reason := fmt.Sprintf("must be at least 0 and less than half of index.chunkMaxChars, %d", c.Index.ChunkMaxChars)
		if def := Defaults().Index.ChunkOverlapChars; overlap == def {
			reason += fmt.Sprintf(" (its default is %d)", def)
		}
		if overlap >= 0 {
			reason += ": lower it, or raise chunkMaxChars"
		}
		bad("index.chunkOverlapChars", fmt.Sprint(overlap), reason)
	}
	if c.Index.ANNMinChunks < 0 {
		bad("index.annMinChunks", fmt.Sprint(c.Index.ANNMinChunks), "must be 0 (never) or a chunk count")
	}
	within("index.contextWords", c.Index.ContextWords, 0, 200, "must be between 0 and 200")
	within("index.contextTurns", c.Index.ContextTurns, 0, 10, "must be between 0 and 10")
	names := map[string]bool{}
	// read maps what a source reads (kind, path and globs) to the first
	// source that reads it.
	read := map[string]int{}
	for i, s := range c.Sources {
		field := func(name string) string { return fmt.Sprintf("sources[%d].%s", i, name) }
		switch {
		case s.Name == "":
			bad(field("name"), "", "is required")
		case names[s.Name]:
			bad(field("name"), s.Name, "is used by another source")
		case strings.ContainsAny(s.Name, "/\\:") || strings.TrimSpace(s.Name) != s.Name:
			bad(field("name"), s.Name, "must not contain '/', '\\', ':' or surrounding spaces")
		}
		names[s.Name] = true
		if !slices.Contains(Kinds, s.Kind) {
			bad(field("kind"), s.Kind, "must be one of "+strings.Join(Kinds, ", "))
		}
		if s.Path == "" {
			// "path: ~" is YAML's null, so empty here.
			bad(field("path"), "", `is required (for your home folder write "~" in quotes: YAML reads ~ alone as empty)`)
		} else {
			// The same files read twice are indexed, and found, twice;
			// a link to a folder reads the folder's files.
			real := filepath.Clean(s.Path)
			if p, err := filepath.EvalSymlinks(s.Path); err == nil {
				real = p
			}
			what := strings.Join([]string{s.Kind, real, strings.Join(s.Include, "\x00"), strings.Join(s.Exclude, "\x00")}, "\x00\x01")
			if j, ok := read[what]; ok {
				bad(field("path"), s.Path, fmt.Sprintf("reads the same files as sources[%d] (%q), whose memory would be indexed twice: remove one, or tell them apart with include/exclude", j, c.Sources[j].Name))
			} else {
				read[what] = i
			}
		}
		if s.AuthorityRank < 0 || s.AuthorityRank > 100 {
			bad(field("authorityRank"), fmt.Sprint(s.AuthorityRank), "must be between 0 and 100")
		}
		if !(s.RetrievalWeight >= 0 && s.RetrievalWeight <= 2) { // NaN too
			bad(field("retrievalWeight"), fmt.Sprint(s.RetrievalWeight), "must be between 0 and 2")
		}
		// Each glob is named by its own list and index, so that the
		// error finds its line.
		for _, list := range []struct {
			name  string
			globs []string
		}{{"include", s.Include}, {"exclude", s.Exclude}} {
			for j, g := range list.globs {
				if !doublestar.ValidatePattern(g) || g == "" || strings.HasPrefix(g, "/") || slices.Contains(strings.Split(g, "/"), "..") {
					bad(field(fmt.Sprintf("%s[%d]", list.name, j)), g, "must be a relative glob (doublestar syntax: *, **, ?, [a-z], {a,b}) without '..'")
				}
			}
		}
	}
	return errors.Join(errs...)
}

// envName matches the name of an environment variable, as a shell
// writes one.
var envName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })

// IsLoopbackHost reports whether host names the loopback interface:
// "localhost" (any case), an IPv4 literal in 127.0.0.0/8, or ::1 (bracketed
// or not). Shorthand forms such as 127.1 or 2130706433, IPv4-mapped IPv6
// and every other name are refused: Nova never resolves a bind host.
func IsLoopbackHost(host string) bool {
	if IsLocalhost(host) {
		return true
	}
	host, ok := unbracket(host)
	addr, err := netip.ParseAddr(host)
	if !ok || err != nil || addr.Zone() != "" || addr.Is4In6() {
		return false
	}
	return addr.IsLoopback()
}

// IsLocalhost reports whether h is "localhost" in any ASCII case. Not
// strings.EqualFold: its Unicode folding takes "localhoſt" (U+017F) for
// localhost, which a resolver and net/http do not (net/http refuses it in
// a Host header but passes it through from an absolute-form request URI,
// GET http://localhoſt:3036/ HTTP/1.1, which novad's Host check sees).
func IsLocalhost(h string) bool {
	const want = "localhost"
	if len(h) != len(want) {
		return false
	}
	for i := range len(want) {
		c := h[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != want[i] {
			return false
		}
	}
	return true
}

// BindHost returns the address to listen on for host: localhost maps to
// 127.0.0.1 without a lookup, because /etc/hosts can point it elsewhere.
func BindHost(host string) string {
	if IsLocalhost(host) {
		return "127.0.0.1"
	}
	host, _ = unbracket(host)
	// An address in another spelling ("0:0:0:0:0:0:0:1") is written as
	// clients send it in Host ("[::1]"), which novad's DNS-rebinding
	// check compares with the address it listens on, as written.
	if a, err := netip.ParseAddr(host); err == nil {
		return a.String()
	}
	return host
}

// unbracket returns host without the brackets of an IPv6 literal ("[::1]"
// is "::1"); ok is false for a bracket without its pair ("0::1]"), which
// no address is written with.
func unbracket(host string) (_ string, ok bool) {
	if len(host) >= 2 && host[0] == '[' && host[len(host)-1] == ']' {
		return host[1 : len(host)-1], true
	}
	return host, !strings.ContainsAny(host, "[]")
}

// endpointForError returns endpoint as an error may show it: user
// information can hold a password or token, so it is replaced, and an
// unparseable endpoint containing '@' is not shown at all ("").
func endpointForError(endpoint string) string {
	if i := strings.IndexAny(endpoint, "?#"); i >= 0 {
		endpoint = endpoint[:i] + "?…" // the query can hold a key
	}
	if !strings.Contains(endpoint, "@") {
		return endpoint
	}
	if u, err := url.Parse(endpoint); err == nil && u.User != nil {
		u.User = url.User("xxxxx")
		return u.String()
	}
	return ""
}

func checkEndpoint(endpoint string, allowRemote bool) error {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return errors.New("must be an http:// or https:// URL with a host")
	}
	// user@host would let "http://127.0.0.1:80@evil.example" pass a naive
	// host check while the request goes to evil.example.
	if u.User != nil {
		return errors.New("must not contain user information (user@host)")
	}
	// A key in the query string (?api-key=...) would be shown wherever
	// the endpoint is: config show, errors, novad's log.
	if u.RawQuery != "" || u.Fragment != "" || strings.HasSuffix(endpoint, "?") {
		return errors.New("must not have a query string or fragment; put an API key in the environment variable embedding.apiKeyEnv names")
	}
	if !allowRemote && !IsLoopbackHost(u.Hostname()) {
		return errors.New("must be a loopback address (memory text would leave the machine); set embedding.allowRemoteEndpoint: true to permit it")
	}
	return nil
}
