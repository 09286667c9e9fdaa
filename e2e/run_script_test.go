package e2e

import (
	"archive/zip"
	"bytes"
	"database/sql"
	"errors"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "modernc.org/sqlite" // to write the Hermes database the test reads

	"github.com/nova-recall/nova/internal/novatest"
)

// runScript is scripts/run.sh (what make run runs) in a copy of the
// repository's layout: the script, and bin/ holding the built novad and
// novactl. It never binds the default ports: every run gets free ones.
type runScript struct {
	t *testing.T
	// repo is the copy's root; user the HOME; home the NOVA_HOME.
	repo, user, home string
	// ports are the free ports the script is given through the
	// environment, as NOVA_SERVER_PORT and NOVA_FACADE_PORT.
	serverPort, facadePort int
	// extra is more of the script's environment (RESET_CONFIG=1, say).
	extra []string
}

func newRunScript(t *testing.T) *runScript {
	t.Helper()
	root := t.TempDir()
	r := &runScript{t: t, repo: filepath.Join(root, "repo"), user: filepath.Join(root, "user"), home: filepath.Join(root, "nova home"),
		serverPort: novatest.ClosedPort(t)}
	r.facadePort = novatest.ClosedPort(t, r.serverPort)
	for _, d := range []string{filepath.Join(r.repo, "scripts"), filepath.Join(r.repo, "bin"), r.user} {
		novatest.Must(t, os.MkdirAll(d, 0o755))
	}
	script, err := os.ReadFile(filepath.Join("..", "scripts", "run.sh"))
	novatest.Must(t, err)
	novatest.Must(t, os.WriteFile(filepath.Join(r.repo, "scripts", "run.sh"), script, 0o755))
	for _, name := range []string{"novad", "novactl"} {
		novatest.Must(t, os.Symlink(novatest.Binary(t, name), filepath.Join(r.repo, "bin", name)))
	}
	return r
}

// env is the test's environment without NOVA_*, DIR and RESET_CONFIG, with HOME the
// scratch user's, plus extra.
func (r *runScript) env(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "NOVA_") && !strings.HasPrefix(kv, "DIR=") && !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "RESET_CONFIG=") {
			env = append(env, kv)
		}
	}
	return append(env, append([]string{"HOME=" + r.user}, extra...)...)
}

// start runs the script on dir with the free ports in the environment and
// waits until the novad it execs serves; the test's cleanup stops it.
func (r *runScript) start(dir string) (stdout *novatest.LogBuffer) {
	r.t.Helper()
	// A free port is closed again before the script binds it, and
	// another test's listener on 127.0.0.1:0 can be given it in between
	// (seen once under load: "(server.port) is in use"): the run is then
	// tried again on two other free ports, a few times. Any other failure
	// fails the test at once.
	for attempt := 1; ; attempt++ {
		out, err := r.startOnce(dir)
		if err == nil {
			return out
		}
		if attempt == 3 || !portTaken(out.String()) {
			r.t.Fatalf("make run on %q: %v:\n%s", dir, err, out.String())
		}
		r.t.Logf("make run on %q, attempt %d: a port was taken by another program; again on others:\n%s", dir, attempt, out.String())
		r.serverPort = novatest.ClosedPort(r.t)
		r.facadePort = novatest.ClosedPort(r.t, r.serverPort)
	}
}

// portTaken reports whether a run's output says that one of its ports was
// in use: the script's check before it indexes, or novad's bind.
func portTaken(out string) bool {
	return strings.Contains(out, ".port) is in use") || strings.Contains(out, "port in use")
}

// startOnce is one run of start: the script started, and an error when
// it exits or does not serve within a minute.
func (r *runScript) startOnce(dir string) (*novatest.LogBuffer, error) {
	// Under umask 022, a login shell's usual one, whatever the test
	// runner's: what the script writes must be private all the same.
	cmd := exec.Command("bash", "-c", `umask 022 && exec bash "$0"`, filepath.Join(r.repo, "scripts", "run.sh"))
	cmd.Dir = r.user
	cmd.Env = r.env(append([]string{"DIR=" + dir, "NOVA_HOME=" + r.home,
		"NOVA_SERVER_PORT=" + strconv.Itoa(r.serverPort), "NOVA_FACADE_PORT=" + strconv.Itoa(r.facadePort)}, r.extra...)...)
	out := &novatest.LogBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	novatest.Must(r.t, cmd.Start())
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }() // its exit is seen through done
	r.t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM) // it may have exited already
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	// The script execs novad: its pid is novad's.
	_, err := novatest.WaitServing(r.home, cmd.Process.Pid, done, 60*time.Second)
	return out, err
}

// fail runs the script on dir and returns its exit code and output,
// failing the test if it does not exit within a minute.
func (r *runScript) fail(dir string) (int, string) {
	r.t.Helper()
	cmd := exec.Command("bash", filepath.Join(r.repo, "scripts", "run.sh"))
	cmd.Dir = r.user
	cmd.Env = r.env(append([]string{"DIR=" + dir, "NOVA_HOME=" + r.home,
		"NOVA_SERVER_PORT=" + strconv.Itoa(r.serverPort), "NOVA_FACADE_PORT=" + strconv.Itoa(r.facadePort)}, r.extra...)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	novatest.Must(r.t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			r.t.Fatalf("make run on %q did not fail (%v):\n%s", dir, err, out.String())
		}
		return ee.ExitCode(), out.String()
	case <-time.After(time.Minute):
		_ = cmd.Process.Kill()
		r.t.Fatalf("make run on %q still ran after a minute (killed: %v):\n%s", dir, <-done, out.String())
	}
	return 0, ""
}

// search runs novactl search --json in the script's home the way its
// printed hint does: NOVA_HOME alone, no port in the environment.
func (r *runScript) search(query string) string {
	r.t.Helper()
	// Never the default ports, where a user's own novad may serve.
	if cfg, err := os.ReadFile(filepath.Join(r.home, "config.yaml")); err != nil || !strings.Contains(string(cfg), "port: "+strconv.Itoa(r.facadePort)) {
		r.t.Fatalf("config.yaml does not name the facade port %d: novactl would search the default one (%v):\n%s", r.facadePort, err, cfg)
	}
	cmd := exec.Command(filepath.Join(r.repo, "bin", "novactl"), "search", query, "--json")
	cmd.Env = r.env("NOVA_HOME=" + r.home)
	out, err := cmd.Output()
	if err != nil {
		r.t.Fatalf("novactl search %q: %v\n%s", query, err, out)
	}
	return string(out)
}

// TestRunScriptPorts: make run with NOVA_SERVER_PORT and NOVA_FACADE_PORT
// (the default ports taken, say by an installed novad) writes them into
// the scratch config.yaml, so that the novactl commands it prints,
// NOVA_HOME alone, reach this novad; they went to the default ports, to
// nothing or to another novad serving other memory.
func TestRunScriptPorts(t *testing.T) {
	t.Parallel()
	r := newRunScript(t)
	dir := filepath.Join(r.user, "notes")
	novatest.Must(t, os.MkdirAll(dir, 0o755))
	novatest.Must(t, os.WriteFile(filepath.Join(dir, "k8s.md"), []byte(runNote), 0o644))
	r.start(dir)
	cfg, err := os.ReadFile(filepath.Join(r.home, "config.yaml"))
	novatest.Must(t, err)
	for _, port := range []int{r.serverPort, r.facadePort} {
		if !strings.Contains(string(cfg), "port: "+strconv.Itoa(port)) {
			t.Errorf("config.yaml does not keep port %d from the environment:\n%s", port, cfg)
		}
	}
	if res := r.search("ingress controller upgrade"); !strings.Contains(res, "annotation was renamed") {
		t.Errorf("the search did not reach this novad:\n%.2000s", res)
	}
}

// TestRunScriptHomePrivate: the config.yaml make run writes (which names
// the folder it reads) is 0600 in a 0700 home, as README promises of
// everything under NOVA_HOME; it was written under the shell's umask, 0644,
// and one an earlier make run left open stayed open.
func TestRunScriptHomePrivate(t *testing.T) {
	t.Parallel()
	r := newRunScript(t)
	// An earlier make run's home, written under umask 022: its
	// config.yaml has the header run.sh writes (a file without it is the
	// user's, which run.sh refuses to replace: TestRunScriptKeepsUsersConfig).
	novatest.Must(t, os.MkdirAll(r.home, 0o755))
	novatest.Must(t, os.WriteFile(filepath.Join(r.home, "config.yaml"), []byte("# Written by scripts/run.sh for DIR=/gone\nsources: []\n"), 0o644))
	dir := filepath.Join(r.user, "notes")
	novatest.Must(t, os.MkdirAll(dir, 0o755))
	novatest.Must(t, os.WriteFile(filepath.Join(dir, "k8s.md"), []byte(runNote), 0o644))
	r.start(dir)
	for path, want := range map[string]fs.FileMode{r.home: 0o700, filepath.Join(r.home, "config.yaml"): 0o600} {
		fi, err := os.Stat(path)
		novatest.Must(t, err)
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s: mode %04o, want %04o", path, got, want)
		}
	}
}

// TestRunScriptKeepsUsersConfig: make run with NOVA_HOME set in the
// shell to a home whose config.yaml run.sh did not write (the user's
// ~/.nova, say) stops with exit 2 before touching it, and says what it
// would have replaced and how to go on; it rewrote the file silently, and
// the user's sources were lost. RESET_CONFIG=1 replaces it knowingly, and
// a config.yaml of an earlier make run is rewritten as before.
func TestRunScriptKeepsUsersConfig(t *testing.T) {
	t.Parallel()
	r := newRunScript(t)
	novatest.Must(t, os.MkdirAll(r.home, 0o700))
	cfgPath := filepath.Join(r.home, "config.yaml")
	users := "# My sources\nsources:\n  - {name: vault, kind: markdown, path: '/home/me/vault'}\n"
	novatest.Must(t, os.WriteFile(cfgPath, []byte(users), 0o600))
	dir := filepath.Join(r.user, "notes")
	novatest.Must(t, os.MkdirAll(dir, 0o755))
	novatest.Must(t, os.WriteFile(filepath.Join(dir, "k8s.md"), []byte(runNote), 0o644))

	code, out := r.fail(dir)
	for _, want := range []string{cfgPath, "unset NOVA_HOME", "RESET_CONFIG=1"} {
		if !strings.Contains(out, want) {
			t.Errorf("exit %d without %q:\n%s", code, want, out)
		}
	}
	if code != 2 {
		t.Errorf("exit %d, want 2:\n%s", code, out)
	}
	if b, err := os.ReadFile(cfgPath); err != nil || string(b) != users {
		t.Fatalf("the user's config.yaml was changed (%v):\n%s", err, b)
	}
	if strings.Contains(out, "Built ") {
		t.Errorf("it indexed into the user's home:\n%s", out)
	}

	// Knowingly: replaced by run.sh's, which the next run rewrites.
	r.extra = []string{"RESET_CONFIG=1"}
	r.start(dir)
	b, err := os.ReadFile(cfgPath)
	novatest.Must(t, err)
	if !strings.HasPrefix(string(b), "# Written by scripts/run.sh") || strings.Contains(string(b), "vault") {
		t.Errorf("RESET_CONFIG=1 did not replace config.yaml:\n%s", b)
	}
}

// runNote is a note for make run to index.
const runNote = "# Kubernetes upgrade\n\nThe ingress controller broke after the cluster upgrade: an annotation was renamed.\n"

// TestRunScriptTilde: make run DIR=~/notes, as README shows it, indexes
// ~/notes when the shell leaves the "~" alone (zsh, the macOS default,
// does in a make argument): it said "DIR=~/notes is not a directory".
func TestRunScriptTilde(t *testing.T) {
	t.Parallel()
	r := newRunScript(t)
	novatest.Must(t, os.MkdirAll(filepath.Join(r.user, "notes"), 0o755))
	novatest.Must(t, os.WriteFile(filepath.Join(r.user, "notes", "k8s.md"), []byte(runNote), 0o644))
	r.start("~/notes")
	if res := r.search("ingress controller upgrade"); !strings.Contains(res, "annotation was renamed") {
		t.Errorf("~/notes was not indexed:\n%.2000s", res)
	}
}

// TestRunScriptQuotes: a DIR with spaces, quotes and a backslash is
// indexed: run.sh wrote it into config.yaml between double quotes, and a
// double quote or a backslash made the file invalid YAML.
func TestRunScriptQuotes(t *testing.T) {
	t.Parallel()
	r := newRunScript(t)
	dir := filepath.Join(r.user, `it's my "notes" \ here`)
	novatest.Must(t, os.MkdirAll(dir, 0o755))
	novatest.Must(t, os.WriteFile(filepath.Join(dir, "k8s.md"), []byte(runNote), 0o644))
	r.start(dir)
	if res := r.search("ingress controller upgrade"); !strings.Contains(res, "annotation was renamed") {
		t.Errorf("%s was not indexed:\n%.2000s", dir, res)
	}
}

// copyTree copies the files under src into dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	novatest.Must(t, filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	}))
}

// TestRunScriptTranscriptFolders: make run DIR= a Claude Code projects
// folder, a Codex day folder, an OpenClaw state directory, a Gemini CLI
// home, Cursor's projects folder or a folder of repositories Aider ran in
// indexes the transcripts
// with their own readers. Read as JSONL records, every line was refused and the sync
// failed with "the sources produced no memory to index: check the paths".
func TestRunScriptTranscriptFolders(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, fixture, dir, kind, query string
		// without is a source kind that must not be configured: an
		// OpenClaw directory's Markdown is its own source's notes, a Gemini
		// home's recordings are not Claude Code transcripts, a folder of
		// repositories' Markdown is not notes.
		without string
	}{
		{"claude-code", "claude-code/projects", "claude/projects", "kind: claude-code", "regression test for the rounding bug", ""},
		{"codex", "codex/sessions/2026/03/02", "codex/sessions/2026/11/30", "kind: codex", "rounding regression test", ""},
		{"openclaw", "shapes/drift/openclaw/layout", ".openclaw", "kind: openclaw", "archived session after reset", "kind: markdown"},
		{"gemini", "gemini/home", ".gemini", "kind: gemini", "integration test times out waiting for Postgres", "kind: claude-code"},
		{"aider", "aider/src", "src", "kind: aider", "banker's rounding invoice lines", "kind: markdown"},
		{"cursor", "cursor/projects", ".cursor/projects", "kind: cursor", "invoice export time out on large accounts", "kind: jsonl"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newRunScript(t)
			dir := filepath.Join(r.user, filepath.FromSlash(tc.dir))
			copyTree(t, filepath.Join("..", "index", "ingest", "testdata", filepath.FromSlash(tc.fixture)), dir)
			out := r.start(dir)
			cfg, err := os.ReadFile(filepath.Join(r.home, "config.yaml"))
			novatest.Must(t, err)
			if !strings.Contains(string(cfg), tc.kind) {
				t.Errorf("config.yaml has no %s source:\n%s", tc.kind, cfg)
			}
			if tc.without != "" && strings.Contains(string(cfg), tc.without) {
				t.Errorf("config.yaml has a %s source:\n%s", tc.without, cfg)
			}
			res := r.search(tc.query)
			if want := `"sourceType": "` + tc.name + `"`; !strings.Contains(res, `"available": true`) || !strings.Contains(res, want) {
				t.Errorf("search %q found no %s memory:\n%.2000s\nmake run said:\n%s", tc.query, tc.name, res, out.String())
			}
		})
	}
}

// TestRunScriptNothingToIndex: make run on an empty folder, or on a path
// that does not exist, stops at once with exit 2 and says which. An empty
// folder went on to a sync that failed with "check the paths in
// config.yaml", a file run.sh had written itself.
func TestRunScriptNothingToIndex(t *testing.T) {
	t.Parallel()
	r := newRunScript(t)
	empty := filepath.Join(r.user, "empty")
	novatest.Must(t, os.MkdirAll(filepath.Join(empty, "sub"), 0o755))
	novatest.Must(t, os.WriteFile(filepath.Join(empty, "sub", "notes.txt"), []byte("not Markdown"), 0o644))
	// Each refusal says what to do next as well as what is wrong: "does
	// not exist" and "holds nothing to index" stopped there, and a new
	// user who mistyped the folder was left to guess.
	const next = "leave DIR out to index the sample"
	for _, tc := range []struct{ dir, want string }{
		{empty, "holds nothing to index"},
		{filepath.Join(r.user, "nope"), "does not exist"},
		{filepath.Join(empty, "sub", "notes.txt"), "is not a directory"},
	} {
		if code, out := r.fail(tc.dir); code != 2 || !strings.Contains(out, tc.want) || !strings.Contains(out, next) {
			t.Errorf("DIR=%s: exit %d, want 2, %q and %q:\n%s", tc.dir, code, tc.want, next, out)
		}
	}
}

// TestRunScriptPortTaken: make run where a port is taken (an installed
// novad on the default ones, or another make run) stops before indexing
// and says which variables give it others; it indexed, then novad retried
// for seconds and ended on a JSON log line that named neither
// NOVA_SERVER_PORT nor NOVA_FACADE_PORT, which README gives for this case.
func TestRunScriptPortTaken(t *testing.T) {
	t.Parallel()
	r := newRunScript(t)
	held, err := net.Listen("tcp", "127.0.0.1:0")
	novatest.Must(t, err)
	defer held.Close()
	r.serverPort = held.Addr().(*net.TCPAddr).Port
	dir := filepath.Join(r.user, "notes")
	novatest.Must(t, os.MkdirAll(dir, 0o755))
	novatest.Must(t, os.WriteFile(filepath.Join(dir, "k8s.md"), []byte(runNote), 0o644))
	code, out := r.fail(dir)
	taken := "127.0.0.1:" + strconv.Itoa(r.serverPort)
	for _, want := range []string{taken, "NOVA_SERVER_PORT=", "NOVA_FACADE_PORT=", "make run"} {
		if !strings.Contains(out, want) {
			t.Errorf("exit %d without %q:\n%s", code, want, out)
		}
	}
	if strings.Contains(out, "Built ") {
		t.Errorf("it indexed before finding the port taken:\n%s", out)
	}
	if strings.Contains(out, "127.0.0.1:"+strconv.Itoa(r.facadePort)) {
		t.Errorf("it calls the free facade port %d taken:\n%s", r.facadePort, out)
	}
}

// TestRunScriptPrintsPastableCommands: the commands make run prints for
// another terminal work when pasted, with a NOVA_HOME holding a space (a
// clone under "My Projects"): it was printed as it is, and the shell cut
// it at the space.
func TestRunScriptPrintsPastableCommands(t *testing.T) {
	t.Parallel()
	r := newRunScript(t) // its NOVA_HOME is ".../nova home"
	dir := filepath.Join(r.user, "notes")
	novatest.Must(t, os.MkdirAll(dir, 0o755))
	novatest.Must(t, os.WriteFile(filepath.Join(dir, "k8s.md"), []byte(runNote), 0o644))
	out := r.start(dir).String()
	var line string
	for l := range strings.Lines(out) {
		if strings.Contains(l, "novactl search") {
			line = strings.TrimSpace(l)
			break
		}
	}
	if line == "" {
		t.Fatalf("make run printed no search command:\n%s", out)
	}
	// Run the line as printed, in a shell, from the repository.
	line = strings.Replace(line, `"a question your memory answers"`, `"ingress controller upgrade" --json`, 1)
	cmd := exec.Command("bash", "-c", line)
	cmd.Dir = r.repo
	// The ports too: a command that lost its NOVA_HOME must not reach the
	// default ones.
	cmd.Env = r.env("NOVA_SERVER_PORT="+strconv.Itoa(r.serverPort), "NOVA_FACADE_PORT="+strconv.Itoa(r.facadePort))
	res, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(res), "annotation was renamed") {
		t.Errorf("the printed command %q did not search this memory (%v):\n%.2000s", line, err, res)
	}
}

// TestRunScriptHermesHome: make run DIR= a Hermes home indexes its
// database and its memory file as one hermes source; read as a folder of
// notes, the database was skipped and its memory file indexed as one
// Markdown note with the entries run together.
func TestRunScriptHermesHome(t *testing.T) {
	t.Parallel()
	r := newRunScript(t)
	dir := filepath.Join(r.user, ".hermes")
	novatest.Must(t, os.MkdirAll(filepath.Join(dir, "memories"), 0o700))
	novatest.Must(t, os.WriteFile(filepath.Join(dir, "memories", "MEMORY.md"),
		[]byte("The staging certificate renews every May.\n§\nBilling deploys wait for the finance sign-off.\n"), 0o600))
	db, err := sql.Open("sqlite", filepath.Join(dir, "state.db"))
	novatest.Must(t, err)
	for _, stmt := range []string{
		`CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT NOT NULL, started_at REAL NOT NULL, cwd TEXT)`,
		`CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, role TEXT NOT NULL, content TEXT, tool_calls TEXT, timestamp REAL NOT NULL)`,
		`INSERT INTO sessions VALUES ('20260302_080000_ab12', 'cli', 1772438400.0, '/home/dev/src/billing')`,
		`INSERT INTO messages (session_id, role, content, timestamp) VALUES ('20260302_080000_ab12', 'user', 'Why do invoice totals drift by a cent?', 1772438401.0)`,
		`INSERT INTO messages (session_id, role, content, timestamp) VALUES ('20260302_080000_ab12', 'assistant', 'Each line item was rounded before summing; banker''s rounding at the invoice level fixes the drift.', 1772438422.7)`,
	} {
		_, err := db.Exec(stmt)
		novatest.Must(t, err)
	}
	novatest.Must(t, db.Close())
	out := r.start(dir)
	cfg, err := os.ReadFile(filepath.Join(r.home, "config.yaml"))
	novatest.Must(t, err)
	if !strings.Contains(string(cfg), "kind: hermes") || strings.Contains(string(cfg), "kind: markdown") {
		t.Errorf("config.yaml does not read the home as one hermes source:\n%s", cfg)
	}
	for _, q := range []string{"invoice totals drift rounding", "finance sign-off for billing deploys"} {
		res := r.search(q)
		if !strings.Contains(res, `"available": true`) || !strings.Contains(res, `"sourceType": "hermes"`) {
			t.Errorf("search %q found no hermes memory:\n%.2000s\nmake run said:\n%s", q, res, out.String())
		}
	}
}

// TestRunScriptChatExports: make run DIR= a folder holding unzipped
// ChatGPT or Claude.ai exports (a conversations.json beside user.json and
// chat.html, at any depth) indexes them as a chat-export source and says
// so; it wrote a Markdown source that held nothing, and stopped on
// "holds nothing to index". Beside notes, the exports are a source of
// their own and the notes are still read.
func TestRunScriptChatExports(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		// notes puts a Markdown note in the folder, beside the exports.
		notes bool
		// kinds are the source kinds config.yaml must name, without the
		// one it must not.
		kinds   []string
		without string
	}{
		{"exports", false, []string{"kind: chat-export"}, "kind: markdown"},
		{"notes and exports", true, []string{"kind: chat-export", "kind: markdown"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newRunScript(t)
			dir := filepath.Join(r.user, "Downloads", "chatgpt-export")
			fixtures := filepath.Join("..", "index", "ingest", "testdata", "chatexport")
			// The ChatGPT export unzipped as the folder itself, a Claude.ai
			// one in a folder of its own below it.
			copyTree(t, filepath.Join(fixtures, "chatgpt-2026-03"), dir)
			novatest.Must(t, os.WriteFile(filepath.Join(dir, "chat.html"), []byte("<html></html>"), 0o644))
			copyTree(t, filepath.Join(fixtures, "claude-2026-03"), filepath.Join(dir, "older", "claude-data"))
			if tc.notes {
				novatest.Must(t, os.WriteFile(filepath.Join(dir, "k8s.md"), []byte(runNote), 0o644))
			}
			out := r.start(dir)
			cfg, err := os.ReadFile(filepath.Join(r.home, "config.yaml"))
			novatest.Must(t, err)
			for _, k := range tc.kinds {
				if !strings.Contains(string(cfg), k) {
					t.Errorf("config.yaml has no %s source:\n%s", k, cfg)
				}
			}
			if tc.without != "" && strings.Contains(string(cfg), tc.without) {
				t.Errorf("config.yaml has a %s source:\n%s", tc.without, cfg)
			}
			if !strings.Contains(out.String(), "ChatGPT/Claude.ai exports") {
				t.Errorf("make run does not say it reads the exports:\n%s", out.String())
			}
			for _, c := range []struct{ query, want string }{
				{"why does the invoice export time out on large accounts", `"agent": "chatgpt"`},
				{"which port does the staging API listen on", `"agent": "claude.ai"`},
			} {
				res := r.search(c.query)
				if !strings.Contains(res, `"available": true`) || !strings.Contains(res, c.want) {
					t.Errorf("search %q found no %s turn:\n%.2000s\nmake run said:\n%s", c.query, c.want, res, out.String())
				}
			}
		})
	}
}

// TestRunScriptZippedExport: make run DIR= a folder holding only a
// downloaded ChatGPT or Claude.ai export, still a zip, stops with exit 2
// and says to unzip it: it said the folder held nothing to index, and
// named no way on for the export the user meant.
func TestRunScriptZippedExport(t *testing.T) {
	t.Parallel()
	r := newRunScript(t)
	dir := filepath.Join(r.user, "Downloads")
	novatest.Must(t, os.MkdirAll(dir, 0o755))
	zipped := filepath.Join(dir, "data-2026-03-03-10-00-00.zip")
	f, err := os.Create(zipped)
	novatest.Must(t, err)
	zw := zip.NewWriter(f)
	for _, name := range []string{"user.json", "conversations.json", "chat.html"} {
		w, err := zw.Create(name)
		novatest.Must(t, err)
		_, err = w.Write([]byte("[]"))
		novatest.Must(t, err)
	}
	novatest.Must(t, zw.Close())
	novatest.Must(t, f.Close())
	code, out := r.fail(dir)
	if code != 2 || !strings.Contains(out, zipped) || !strings.Contains(out, "unzip it there") {
		t.Errorf("exit %d, want 2, naming %s and saying to unzip it:\n%s", code, zipped, out)
	}
}

// TestRunScriptSecondRunOnAServedHome: a second make run while the first
// still serves its home stops before it touches anything. It rewrote the
// home's config.yaml (dropping the first run's ports, so the commands the
// first run printed went to the default ones) and synced under the
// serving novad, and only then its own novad refused the home.
func TestRunScriptSecondRunOnAServedHome(t *testing.T) {
	t.Parallel()
	r := newRunScript(t)
	dir := filepath.Join(r.user, "notes")
	novatest.Must(t, os.MkdirAll(dir, 0o755))
	novatest.Must(t, os.WriteFile(filepath.Join(dir, "k8s.md"), []byte(runNote), 0o644))
	r.start(dir)
	before, err := os.ReadFile(filepath.Join(r.home, "config.yaml"))
	novatest.Must(t, err)
	// Other free ports: the port check must not be what stops it.
	r.serverPort = novatest.ClosedPort(t, r.serverPort, r.facadePort)
	r.facadePort = novatest.ClosedPort(t, r.serverPort, r.facadePort)
	code, out := r.fail(dir)
	if code != 75 || !strings.Contains(out, "already serves") || !strings.Contains(out, r.home) {
		t.Errorf("exit %d, want 75 saying a novad already serves %s:\n%s", code, r.home, out)
	}
	if strings.Contains(out, "Built ") || strings.Contains(out, "Nova home:") {
		t.Errorf("it went on before refusing:\n%s", out)
	}
	after, err := os.ReadFile(filepath.Join(r.home, "config.yaml"))
	novatest.Must(t, err)
	if !bytes.Equal(before, after) {
		t.Errorf("config.yaml rewritten under the serving novad:\n%s\nnow:\n%s", before, after)
	}
}
