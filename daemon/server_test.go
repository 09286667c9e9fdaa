package daemon_test

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/nova-recall/nova/daemon"
)

// TestNew_refusesNonLoopbackHost: New refuses a configuration whose server
// host is not loopback even when it reaches New without config.Validate
// (a caller that builds its Config in code), so novad never binds one.
func TestNew_refusesNonLoopbackHost(t *testing.T) {
	for _, tc := range []struct {
		host string
		ok   bool
	}{
		{"127.0.0.1", true}, {"localhost", true}, {"::1", true}, {"127.0.0.2", true},
		{"0.0.0.0", false}, {"::", false}, {"192.0.2.7", false}, {"::ffff:127.0.0.1", false}, {"example.com", false},
	} {
		cfg := testConfig(t, filepath.Join(t.TempDir(), "home"))
		cfg.Server.Host = tc.host
		_, err := daemon.New(daemon.Options{Config: cfg})
		switch {
		case tc.ok && err != nil:
			t.Errorf("host %q: %v", tc.host, err)
		case !tc.ok && !errors.Is(err, daemon.ErrNonLoopback):
			t.Errorf("host %q: err %v, want ErrNonLoopback", tc.host, err)
		}
	}
}
