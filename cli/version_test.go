package cli

import (
	"context"
	"encoding/json"
	"runtime"
	"strings"
	"testing"
)

// TestVersionJSON: a bug report or a script reads the build identity as
// JSON, the same fields the text line prints.
func TestVersionJSON(t *testing.T) {
	code, out, errOut := runCLI(context.Background(), nil, "version", "--json")
	if code != ExitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if got["program"] != "novactl" || got["platform"] != runtime.GOOS+"/"+runtime.GOARCH || got["goVersion"] != runtime.Version() {
		t.Errorf("identity = %v", got)
	}
	for _, k := range []string{"version", "commit", "date"} {
		if s, _ := got[k].(string); s == "" {
			t.Errorf("%s is empty: %v", k, got)
		}
	}
	_, text, _ := runCLI(context.Background(), nil, "version")
	if v, _ := got["version"].(string); !strings.Contains(text, v) {
		t.Errorf("text %q does not name the JSON's version %q", text, v)
	}
}
