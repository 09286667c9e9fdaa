package daemon

import (
	"bytes"
	"strings"
	"testing"
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
