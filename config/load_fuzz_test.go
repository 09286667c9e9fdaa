package config_test

import (
	"net"
	"strings"
	"testing"

	"github.com/nova-recall/nova/config"
)

// FuzzLoadFile: whatever config.yaml holds, and whatever one NOVA_
// variable says, loading it returns a configuration or an error and never
// panics; and a configuration it accepts binds loopback only and passes
// its own validation. The first is what "config fails fast" needs, the
// second is the security boundary no file may talk its way past.
func FuzzLoadFile(f *testing.F) {
	for _, seed := range []string{
		"server:\n  host: 127.0.0.1\n  port: 3037\nfacade:\n  port: 3036\n",
		"server: {host: \"::1\", port: 0}\nsources:\n  - {name: notes, kind: markdown, path: ./notes}\n",
		"server:\n  host: 0.0.0.0\n",
		"server:\n  host: localhost.evil.example\n",
		"embedding:\n  provider: openai\n  endpoint: http://10.0.0.5/v1\n",
		"retrieval: {topK: -1}\nindex: {contextTurns: 99}\nbogus: 1\n",
		"sources: [{name: a, kind: jsonl, path: /x}, {name: a, kind: codex, path: /y}]\n",
		"server: [1, 2]\n",
		"&a [*a]\n",
		"\xff\xfe\x00",
	} {
		f.Add(seed, "NOVA_RETRIEVAL_TOPK=12")
	}
	f.Add("", "NOVA_SERVER_HOST=192.168.1.10")
	f.Add("", "NOVA_SERVER_HOST=[::ffff:127.0.0.1]")
	f.Add("", "NOVA_SERVER_HOST=localhoſt")
	f.Fuzz(func(t *testing.T, yaml, variable string) {
		home, path := writeConfig(t, yaml) // "" writes no file: defaults and the variable
		cfg, err := config.LoadFile(home, path, []string{variable})
		if err != nil {
			return
		}
		// An IPv6 literal may come in its brackets, both of them.
		host := cfg.Server.Host
		if len(host) >= 2 && host[0] == '[' && host[len(host)-1] == ']' {
			host = host[1 : len(host)-1]
		}
		if ip := net.ParseIP(host); strings.ToLower(host) != "localhost" && (ip == nil || !ip.IsLoopback()) {
			t.Fatalf("accepted server.host %q:\n%s\n%s", cfg.Server.Host, yaml, variable)
		}
		if err := cfg.Validate(); err != nil {
			t.Fatalf("accepted a configuration that fails validation: %v\n%s\n%s", err, yaml, variable)
		}
	})
}
