package config_test

import (
	"strings"
	"testing"

	"github.com/nova-recall/nova/config"
)

// TestSources_openclawKind: an OpenClaw state directory is a source kind
// of its own, and an unknown kind's error lists it among the valid ones.
func TestSources_openclawKind(t *testing.T) {
	cfg := mustLoad(t, "sources:\n  - {name: openclaw, kind: openclaw, path: /home/me/.openclaw}\n")
	if s := cfg.Sources[0]; s.Kind != config.KindOpenClaw || s.Path != "/home/me/.openclaw" {
		t.Errorf("source %+v, want kind openclaw at /home/me/.openclaw", s)
	}
	_, err := load(t, "sources:\n  - {name: a, kind: open-claw, path: /a}\n")
	wantFields(t, err, "sources[0].kind")
	if !strings.Contains(err.Error(), "openclaw") {
		t.Errorf("the kind error does not list openclaw: %v", err)
	}
}
