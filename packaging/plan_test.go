package packaging

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/nova-recall/nova/internal/golden"
)

func samplePlan() Plan {
	return Plan{Operation: "install", Manager: "systemd", Steps: []Step{
		{Kind: StepMkdir, Path: "/home/ada/.config/systemd/user", Mode: 0o755},
		{Kind: StepRun, Argv: []string{"systemctl", "--user", "stop", "dev.nova.novad.service"}, When: "if a unit file exists"},
		{Kind: StepWrite, Path: "/home/ada/.config/systemd/user/dev.nova.novad.service", Mode: 0o644,
			Content: "[Service]\nExecStart=/opt/nova bin/novad\n"},
		{Kind: StepWrite, Path: "/home/ada/.nova/note", Mode: 0o600, Content: "no final newline"},
		{Kind: StepRun, Argv: []string{"systemctl", "--user", "enable", "--now", "dev.nova.novad.service"}},
		{Kind: StepRemove, Path: "/home/ada/.nova/state/internal-token"},
	}}
}

// TestPrint compares the dry-run text, every step and the whole of every
// file, with testdata/TestPrint.golden (go test -update rewrites it).
func TestPrint(t *testing.T) {
	var b bytes.Buffer
	samplePlan().Print(&b)
	golden.Check(t, filepath.Join("testdata", t.Name()+".golden"), b.Bytes())
}

func TestCommandsAndFiles(t *testing.T) {
	p := samplePlan()
	cmds := p.Commands()
	if len(cmds) != 2 || !slices.Equal(cmds[1], []string{"systemctl", "--user", "enable", "--now", "dev.nova.novad.service"}) {
		t.Errorf("Commands() = %v", cmds)
	}
	files := p.Files()
	if len(files) != 2 || files[0].Mode != 0o644 || files[1].Path != "/home/ada/.nova/note" {
		t.Errorf("Files() = %+v", files)
	}
	if (Plan{}).Commands() != nil || (Plan{}).Files() != nil {
		t.Error("an empty plan has commands or files")
	}
}

// TestCommandLine: the printed line, run by a shell, passes exactly the
// original arguments.
func TestCommandLine(t *testing.T) {
	argv := []string{"printf", "%s|", "plain", "with space", "it's", "", "$HOME", "a;b", "ü", `back\slash`, "-x=1:2@h/p.q,r+s%"}
	line := CommandLine(argv)
	if want := `printf '%s|' plain 'with space' 'it'\''s' '' '$HOME' 'a;b' 'ü' 'back\slash' -x=1:2@h/p.q,r+s%`; line != want {
		t.Errorf("CommandLine = %s\nwant           %s", line, want)
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh to run the line")
	}
	out, err := exec.Command(sh, "-c", line).Output()
	if err != nil {
		t.Fatal(err)
	}
	want := ""
	for _, a := range argv[2:] {
		want += a + "|"
	}
	if string(out) != want {
		t.Errorf("the shell received %q, want %q", out, want)
	}
}
