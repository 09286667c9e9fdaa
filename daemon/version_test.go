package daemon

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

// TestMain_Version checks that novad --version answers on stdout, in the
// same form as novactl version, and starts nothing.
func TestMain_Version(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := Main(t.Context(), []string{"--version"}, []string{"NOVA_HOME=" + t.TempDir()}, &stdout, &stderr)
	if code != ExitOK {
		t.Fatalf("exit %d; stderr %s", code, stderr.String())
	}
	if !strings.HasPrefix(stdout.String(), "novad ") || !strings.Contains(stdout.String(), "(commit ") || stderr.Len() != 0 {
		t.Fatalf("stdout %q, stderr %q", stdout.String(), stderr.String())
	}
}

// TestMain_badLogFormat: a --log-format novad does not know is a usage
// error naming the values, before anything starts, not a novad that
// serves and logs JSON where the person asked for something else.
func TestMain_badLogFormat(t *testing.T) {
	for _, f := range []string{"xml", "TEXT", ""} {
		var stdout, stderr bytes.Buffer
		// Ports 0 and a deadline: a novad that took the flag would serve
		// on free ports until then, never on the default ones.
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		env := []string{"NOVA_HOME=" + t.TempDir(), "HOME=" + t.TempDir(), "NOVA_SERVER_PORT=0", "NOVA_FACADE_PORT=0"}
		code := Main(ctx, []string{"--log-format", f}, env, &stdout, &stderr)
		cancel()
		if code != ExitUsage || !strings.Contains(stderr.String(), "--log-format must be auto, text or json") {
			t.Errorf("--log-format %q: exit %d, stderr %q", f, code, stderr.String())
		}
	}
}
