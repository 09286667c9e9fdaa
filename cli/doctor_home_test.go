package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/nova-recall/nova/doctor"
	"github.com/nova-recall/nova/internal/novatest"
)

// TestDoctor_homeInADirectoryOthersCanWrite: novad and every index
// command refuse a home reached through a directory others can write
// without the sticky bit (any of them could rename the home away while
// novad runs), and doctor said only that novad was not running, the
// reason being in novad's log alone. Doctor names the refusal, Blocked
// with its code in --json, says what to do, and creates or changes
// nothing on the way.
func TestDoctor_homeInADirectoryOthersCanWrite(t *testing.T) {
	root := t.TempDir()
	shared := filepath.Join(root, "shared")
	home := filepath.Join(shared, "nova")
	novatest.Must(t, os.MkdirAll(home, 0o700))
	// Ports 0: nothing of this machine's own novad is asked.
	novatest.Must(t, os.WriteFile(filepath.Join(home, "config.yaml"), []byte("server: {host: 127.0.0.1, port: 0}\nfacade: {port: 0}\n"), 0o600))
	novatest.Must(t, os.Chmod(shared, 0o777))
	env := []string{"HOME=" + root, "NOVA_HOME=" + home}
	before := snapshot(t, root)

	code, out, errOut := runCLI(context.Background(), env, "doctor", "--json")
	var rep doctor.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("doctor --json: %v\n%s\n%s", err, out, errOut)
	}
	var privacy, daemon doctor.Check
	for _, c := range rep.Checks {
		switch c.ID {
		case "privacy":
			privacy = c
		case "daemon":
			daemon = c
		}
	}
	if code != ExitFailure || privacy.State != doctor.Blocked || privacy.Code != doctor.CodeHomePathUnsafe ||
		!strings.Contains(privacy.Advice, shared+" can be written by other users") || !strings.Contains(privacy.Advice, "chmod go-w "+shared) {
		t.Errorf("doctor --json: exit %d, privacy check %+v, want Blocked: %s naming %s and the chmod that fixes it", code, privacy, doctor.CodeHomePathUnsafe, shared)
	}
	if strings.HasPrefix(daemon.Advice, "start it") || !strings.Contains(daemon.Advice, "refuses to start with this home") {
		t.Errorf("daemon check %+v: advises starting a novad that refuses this home", daemon)
	}

	_, out, _ = runCLI(context.Background(), env, "doctor")
	if !strings.Contains(out, "Blocked: "+doctor.CodeHomePathUnsafe) {
		t.Errorf("doctor does not name %s:\n%s", doctor.CodeHomePathUnsafe, out)
	}
	if after := snapshot(t, root); !reflect.DeepEqual(before, after) {
		t.Errorf("doctor changed the home:\nbefore %v\nafter  %v", before, after)
	}
}
