package e2e

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/nova-recall/nova/api"
)

// TestScripts runs testdata/script/*.txtar against the built novactl and a
// real novad. Each script gets its own NOVA_HOME ($WORK/home) and HOME
// ($WORK/user). Extra commands:
//
//	novad start   start novad in the background and wait until it serves
//	novad stop    stop it with SIGTERM
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("PATH", binDir+string(os.PathListSeparator)+env.Getenv("PATH"))
			env.Setenv("NOVA_HOME", filepath.Join(env.WorkDir, "home"))
			env.Setenv("HOME", filepath.Join(env.WorkDir, "user"))
			return os.MkdirAll(filepath.Join(env.WorkDir, "user"), 0o755)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"novad": cmdNovad,
		},
	})
}

func cmdNovad(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: novad start|stop")
	}
	home := ts.Getenv("NOVA_HOME")
	key := "novad-process"
	switch args[0] {
	case "start":
		os.Remove(filepath.Join(home, "state", "server-state.json"))
		cmd := exec.Command(filepath.Join(binDir, "novad"))
		cmd.Env = []string{"NOVA_HOME=" + home, "HOME=" + ts.Getenv("HOME"), "PATH=" + ts.Getenv("PATH")}
		logs, err := os.Create(ts.MkAbs("novad.log"))
		ts.Check(err)
		cmd.Stdout, cmd.Stderr = logs, logs
		ts.Check(cmd.Start())
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		ts.Defer(func() {
			cmd.Process.Kill()
			<-done
			logs.Close()
		})
		runningMu.Lock()
		running[ts] = &proc{cmd: cmd, done: done}
		runningMu.Unlock()
		deadline := time.Now().Add(20 * time.Second)
		for time.Now().Before(deadline) {
			select {
			case <-done:
				ts.Fatalf("novad exited:\n%s", ts.ReadFile("novad.log"))
			default:
			}
			var st api.ServerState
			if b, err := os.ReadFile(filepath.Join(home, "state", "server-state.json")); err == nil && json.Unmarshal(b, &st) == nil && st.PID == cmd.Process.Pid {
				if resp, err := http.Get("http://127.0.0.1:" + strconv.Itoa(st.DirectPort) + api.PathHealth); err == nil {
					resp.Body.Close()
					return
				}
			}
			time.Sleep(20 * time.Millisecond)
		}
		ts.Fatalf("novad did not become ready (%s)", key)
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
