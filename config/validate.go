package config

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Validate checks every field and returns all problems at once.
func (c Config) Validate() error {
	var errs []error
	bad := func(field, value, reason string) {
		errs = append(errs, &FieldError{Field: field, Value: value, Reason: reason})
	}
	if !IsLoopbackHost(c.Server.Host) {
		errs = append(errs, &NonLoopbackError{Host: c.Server.Host})
	}
	if c.Server.Port < 0 || c.Server.Port > 65535 {
		bad("server.port", fmt.Sprint(c.Server.Port), "must be a TCP port 0-65535")
	}
	if c.Facade.Port < 0 || c.Facade.Port > 65535 {
		bad("facade.port", fmt.Sprint(c.Facade.Port), "must be a TCP port 0-65535")
	}
	if c.Server.Port != 0 && c.Server.Port == c.Facade.Port {
		bad("facade.port", fmt.Sprint(c.Facade.Port), "must differ from server.port")
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
	if c.Embedding.Dimension < 8 || c.Embedding.Dimension > 4096 {
		bad("embedding.dimension", fmt.Sprint(c.Embedding.Dimension), "must be between 8 and 4096")
	}
	if c.Embedding.BatchSize < 1 || c.Embedding.BatchSize > 512 {
		bad("embedding.batchSize", fmt.Sprint(c.Embedding.BatchSize), "must be between 1 and 512")
	}
	if c.Embedding.TimeoutSeconds < 1 || c.Embedding.TimeoutSeconds > 600 {
		bad("embedding.timeoutSeconds", fmt.Sprint(c.Embedding.TimeoutSeconds), "must be between 1 and 600")
	}
	if c.Retrieval.TopK < 1 || c.Retrieval.TopK > 20 {
		bad("retrieval.topK", fmt.Sprint(c.Retrieval.TopK), "must be between 1 and 20")
	}
	if c.Retrieval.LatencyBudgetSeconds < 1 || c.Retrieval.LatencyBudgetSeconds > 120 {
		bad("retrieval.latencyBudgetSeconds", fmt.Sprint(c.Retrieval.LatencyBudgetSeconds), "must be at least 1 and at most 120 seconds")
	}
	if c.Retrieval.MaxConcurrentSearches < 1 || c.Retrieval.MaxConcurrentSearches > 64 {
		bad("retrieval.maxConcurrentSearches", fmt.Sprint(c.Retrieval.MaxConcurrentSearches), "must be between 1 and 64")
	}
	if c.Retrieval.RecencyHalfLifeDays <= 0 || c.Retrieval.RecencyHalfLifeDays > 3650 {
		bad("retrieval.recencyHalfLifeDays", fmt.Sprint(c.Retrieval.RecencyHalfLifeDays), "must be more than 0 and at most 3650 days")
	}
	if c.Retrieval.DenseChannel != "on" && c.Retrieval.DenseChannel != "off" {
		bad("retrieval.denseChannel", c.Retrieval.DenseChannel, "must be on or off")
	}
	if c.Index.KeepGenerations < 2 || c.Index.KeepGenerations > 50 {
		bad("index.keepGenerations", fmt.Sprint(c.Index.KeepGenerations), "must be between 2 and 50 (rollback needs an older generation)")
	}
	if c.Index.ChunkMaxChars < 200 || c.Index.ChunkMaxChars > 20000 {
		bad("index.chunkMaxChars", fmt.Sprint(c.Index.ChunkMaxChars), "must be between 200 and 20000")
	}
	if c.Index.ChunkOverlapChars < 0 || c.Index.ChunkOverlapChars >= c.Index.ChunkMaxChars/2 {
		bad("index.chunkOverlapChars", fmt.Sprint(c.Index.ChunkOverlapChars), "must be at least 0 and less than half of chunkMaxChars")
	}
	if c.Index.ANNMinChunks < 0 {
		bad("index.annMinChunks", fmt.Sprint(c.Index.ANNMinChunks), "must be 0 (never) or a chunk count")
	}
	if c.Index.ContextWords < 0 || c.Index.ContextWords > 200 {
		bad("index.contextWords", fmt.Sprint(c.Index.ContextWords), "must be between 0 and 200")
	}
	if c.Index.ContextTurns < 0 || c.Index.ContextTurns > 10 {
		bad("index.contextTurns", fmt.Sprint(c.Index.ContextTurns), "must be between 0 and 10")
	}
	names := map[string]bool{}
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
			bad(field("path"), "", "is required")
		}
		if s.AuthorityRank < 0 || s.AuthorityRank > 100 {
			bad(field("authorityRank"), fmt.Sprint(s.AuthorityRank), "must be between 0 and 100")
		}
		if s.RetrievalWeight < 0 || s.RetrievalWeight > 2 {
			bad(field("retrievalWeight"), fmt.Sprint(s.RetrievalWeight), "must be between 0 and 2")
		}
		for j, g := range append(slices.Clone(s.Include), s.Exclude...) {
			if !doublestar.ValidatePattern(g) || g == "" || strings.HasPrefix(g, "/") || slices.Contains(strings.Split(g, "/"), "..") {
				bad(field(fmt.Sprintf("include/exclude[%d]", j)), g, "must be a relative glob (doublestar syntax: *, **, ?, [a-z], {a,b}) without '..'")
			}
		}
	}
	return errors.Join(errs...)
}

// IsLoopbackHost reports whether host names the loopback interface:
// "localhost" (any case), an IPv4 literal in 127.0.0.0/8, or ::1 (bracketed
// or not). Shorthand forms such as 127.1 or 2130706433, IPv4-mapped IPv6
// and every other name are refused: Nova never resolves a bind host.
func IsLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	addr, err := netip.ParseAddr(host)
	if err != nil || addr.Zone() != "" || addr.Is4In6() {
		return false
	}
	return addr.IsLoopback()
}

// BindHost returns the address to listen on for host: localhost maps to
// 127.0.0.1 without a lookup, because /etc/hosts can point it elsewhere.
func BindHost(host string) string {
	if strings.EqualFold(host, "localhost") {
		return "127.0.0.1"
	}
	return strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
}

// endpointForError returns endpoint as an error may show it: user
// information can hold a password or token, so it is replaced, and an
// unparseable endpoint containing '@' is not shown at all ("").
func endpointForError(endpoint string) string {
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
	if !allowRemote && !IsLoopbackHost(u.Hostname()) {
		return errors.New("must be a loopback address (memory text would leave the machine); set embedding.allowRemoteEndpoint: true to permit it")
	}
	return nil
}
