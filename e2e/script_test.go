package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/nova-recall/nova/internal/novatest"
)

// TestScripts runs testdata/script/*.txtar against the built novactl and a
// real novad. Each script gets its own NOVA_HOME ($WORK/home) and HOME
// ($WORK/user). Extra commands:
//
//	novad start   start novad in the background and wait until it serves
//	novad stop    stop it with an interrupt (SIGINT)
func TestScripts(t *testing.T) {
	t.Parallel()
	binDir := novatest.BinDir(t)
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("PATH", binDir+string(os.PathListSeparator)+env.Getenv("PATH"))
			env.Setenv("NOVA_HOME", filepath.Join(env.WorkDir, "home"))
			env.Setenv("HOME", filepath.Join(env.WorkDir, "user"))
			return os.MkdirAll(filepath.Join(env.WorkDir, "user"), 0o755)
		},
		Condition: func(cond string) (bool, error) {
			if cond == "root" {
				return os.Getuid() == 0, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"novad": func(ts *testscript.TestScript, _ bool, args []string) {
				cmdNovad(filepath.Join(binDir, "novad"), ts, args)
			},
		},
	})
}

// cmdNovad is the scripts' novad command, running the binary at novad.
func cmdNovad(novad string, ts *testscript.TestScript, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: novad start|stop")
	}
	home := ts.Getenv("NOVA_HOME")
	switch args[0] {
	case "start":
		os.Remove(filepath.Join(home, "state", "server-state.json"))
		cmd := exec.Command(novad)
		cmd.Env = []string{"NOVA_HOME=" + home, "HOME=" + ts.Getenv("HOME"), "PATH=" + ts.Getenv("PATH")}
		logs, err := os.Create(ts.MkAbs("novad.log"))
		ts.Check(err)
		cmd.Stdout, cmd.Stderr = logs, logs
		ts.Check(cmd.Start())
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }() // killed below: its error says nothing
		ts.Defer(func() {
			_ = cmd.Process.Kill() // it may have exited already
			<-done
			logs.Close()
		})
		runningMu.Lock()
		running[ts] = &proc{cmd: cmd, done: done}
		runningMu.Unlock()
		if _, err := novatest.WaitServing(home, cmd.Process.Pid, done, 30*time.Second); err != nil {
			ts.Fatalf("%v:\n%s", err, ts.ReadFile("novad.log"))
		}
	case "stop":
		runningMu.Lock()
		p, ok := running[ts]
		delete(running, ts)
		runningMu.Unlock()
		if !ok {
			ts.Fatalf("novad is not running")
		}
		ts.Check(p.cmd.Process.Signal(os.Interrupt))
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
			ts.Fatalf("novad did not stop")
		}
	default:
		ts.Fatalf("usage: novad start|stop")
	}
}

// proc is a novad started by a script.
type proc struct {
	cmd  *exec.Cmd
	done chan struct{}
}

// running maps each script to its novad; scripts run in parallel.
var (
	runningMu sync.Mutex
	running   = map[*testscript.TestScript]*proc{}
)
