package cli

import (
	"context"
	"strings"
	"testing"
)

// usageCase is a command line and what novactl must answer: its exit
// status and a phrase that stderr must contain.
type usageCase struct {
	args   []string
	code   int
	stderr string
}

// runUsageCases runs each case against a home with an empty config, so
// that a command line that is wrongly accepted fails fast rather than
// reaching a server.
func runUsageCases(t *testing.T, cases []usageCase) {
	t.Helper()
	env := configHome(t, "server: {port: 0}\nfacade: {port: 0}\n")
	for _, tt := range cases {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, out, errOut := runCLI(context.Background(), env, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, out, errOut)
			}
			if !strings.Contains(errOut, tt.stderr) {
				t.Errorf("stderr does not say %q:\n%s", tt.stderr, errOut)
			}
		})
	}
}

// TestRag_usage: rag without its one subcommand, or with another, is a
// usage error naming what was wrong, as it is for every other command.
func TestRag_usage(t *testing.T) {
	runUsageCases(t, []usageCase{
		{[]string{"rag"}, ExitUsage, "Usage: novactl rag search-memory"},
		{[]string{"rag", "bogus"}, ExitUsage, `unknown subcommand "bogus"`},
		{[]string{"rag", "--help"}, ExitOK, "Usage: novactl rag search-memory"},
		{[]string{"rag", "search-memory"}, ExitUsage, "query is required"},
	})
}
