package e2e

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/internal/novatest"
)

// plantVictim writes a file of the user's that a symbolic link planted in
// the home points at, and returns a check that it is unchanged.
func plantVictim(t *testing.T, dir, link string) func() {
	t.Helper()
	novatest.Must(t, os.MkdirAll(dir, 0o700))
	victim := filepath.Join(dir, "authorized_keys")
	const content = "ssh-ed25519 AAAA the user's key\n"
	novatest.Must(t, os.WriteFile(victim, []byte(content), 0o600))
	novatest.Must(t, os.MkdirAll(filepath.Dir(link), 0o700))
	novatest.Must(t, os.Symlink(victim, link))
	return func() {
		t.Helper()
		if b, err := os.ReadFile(victim); err != nil || string(b) != content {
			t.Errorf("the file a planted link at %s points to was written through: %q (%v)", link, b, err)
		}
	}
}

// TestPlantedLinksAreNotWrittenThrough: a symbolic link planted at a
// lock file's or the index history's path (while the home was open to
// others) must not make novad or novactl truncate, rewrite or append to
// the file it points to; they refuse, and say which file.
func TestPlantedLinksAreNotWrittenThrough(t *testing.T) {
	t.Parallel()
	h := novatest.NewHome(t, "")
	outside := t.TempDir()

	indexLock := filepath.Join(h.Dir, "index", "lock")
	unchanged := plantVictim(t, filepath.Join(outside, "sync"), indexLock)
	out, errs, code := h.Novactl("index", "sync")
	unchanged()
	if code == 0 || !strings.Contains(out+errs, indexLock) {
		t.Errorf("index sync with a link at its lock: exit %d, want a refusal naming %s:\n%s%s", code, indexLock, out, errs)
	}
	novatest.Must(t, os.Remove(indexLock))

	// The index history is appended to, not replaced: a link there would
	// have every sync append a line to the file it points to.
	history := filepath.Join(h.Dir, "index", "history.jsonl")
	unchanged = plantVictim(t, filepath.Join(outside, "history"), history)
	out, errs, code = h.Novactl("index", "sync")
	unchanged()
	if code == 0 || !strings.Contains(out+errs, history) {
		t.Errorf("index sync with a link at its history: exit %d, want a refusal naming %s:\n%s%s", code, history, out, errs)
	}
	novatest.Must(t, os.Remove(history))
	h.Sync()

	daemonLock := filepath.Join(h.Dir, "state", "novad.lock")
	unchanged = plantVictim(t, filepath.Join(outside, "novad"), daemonLock)
	d := h.Launch()
	exit := d.WaitExit(30 * time.Second)
	unchanged()
	if exit == 0 || !strings.Contains(d.Logs.String(), daemonLock) {
		t.Errorf("novad with a link at its lock: exit %d, want a refusal naming %s:\n%s", exit, daemonLock, d.Logs.String())
	}
}

// TestLinkedTreesAreHeldToTheHomesPrivacy: a private tree of the home
// (index/, state/, cache/, logs/) that is a symbolic link is held to the
// same rules as one that is not. A link to a directory of the user's that
// others can write to is narrowed like the home; one to a directory of
// another user's (planted while the home was open to others, to read the
// memory sync writes there or to serve the attacker's own) is refused,
// and left as it is.
func TestLinkedTreesAreHeldToTheHomesPrivacy(t *testing.T) {
	t.Parallel()
	h := novatest.NewHome(t, "")
	shared := filepath.Join(t.TempDir(), "index")
	novatest.Must(t, os.Mkdir(shared, 0o700))
	novatest.Must(t, os.Chmod(shared, 0o777))
	novatest.Must(t, os.WriteFile(filepath.Join(shared, "notes.txt"), []byte("x"), 0o644))
	novatest.Must(t, os.Symlink(shared, filepath.Join(h.Dir, "index")))
	h.Sync()
	for p, want := range map[string]os.FileMode{shared: 0o700, filepath.Join(shared, "notes.txt"): 0o600} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s behind the home's index link: mode %v (%v), want %v", p, fi.Mode().Perm(), err, want)
		}
	}

	if os.Getuid() != 0 {
		t.Skip("giving a directory to another user needs root")
	}
	h2 := novatest.NewHome(t, "")
	theirs := anotherUsersDir(t, "cache")
	novatest.Must(t, os.Symlink(theirs, filepath.Join(h2.Dir, "cache")))
	d := h2.Launch()
	exit := d.WaitExit(30 * time.Second)
	link := filepath.Join(h2.Dir, "cache")
	if exit == 0 || !strings.Contains(d.Logs.String(), link+" is owned by another user") {
		t.Errorf("novad with cache/ linked to another user's directory: exit %d, want a refusal naming %s:\n%s", exit, link, d.Logs.String())
	}
	fi, err := os.Stat(theirs)
	novatest.Must(t, err)
	if fi.Mode().Perm() != 0o777 {
		t.Errorf("another user's directory was changed: mode %v", fi.Mode().Perm())
	}
	if entries, _ := os.ReadDir(theirs); len(entries) != 0 {
		t.Errorf("Nova wrote into another user's directory: %v", entries)
	}
}

// TestLinksToAnotherUsersDirectoryInsideTheHomeAreRefused: a link inside
// a private tree (state/backups, planted while the home was open to
// others) to another user's directory makes novactl refuse, not write the
// user's files there.
func TestLinksToAnotherUsersDirectoryInsideTheHomeAreRefused(t *testing.T) {
	t.Parallel()
	if os.Getuid() != 0 {
		t.Skip("giving a directory to another user needs root")
	}
	h := novatest.NewHome(t, "")
	theirs := anotherUsersDir(t, "backups")
	link := filepath.Join(h.Dir, "state", "backups")
	novatest.Must(t, os.MkdirAll(filepath.Dir(link), 0o700))
	novatest.Must(t, os.Symlink(theirs, link))
	out, errs, code := h.Novactl("config", "init", "--force")
	if code == 0 || !strings.Contains(out+errs, link+" is a link to a directory owned by another user") {
		t.Errorf("config init --force with state/backups linked to another user's directory: exit %d:\n%s%s", code, out, errs)
	}
	if entries, _ := os.ReadDir(theirs); len(entries) != 0 {
		t.Errorf("Nova wrote into another user's directory: %v", entries)
	}
}

// TestHomeOfAnotherUserIsRefused: a NOVA_HOME that is another user's is
// not served, even where its mode keeps others out and Nova could write
// there (root): its owner can rename what Nova writes in it and put their
// own index in its place.
func TestHomeOfAnotherUserIsRefused(t *testing.T) {
	t.Parallel()
	if os.Getuid() != 0 {
		t.Skip("giving a directory to another user needs root")
	}
	h := novatest.NewHome(t, "")
	h.Sync()
	novatest.Must(t, os.Chmod(h.Dir, 0o700))
	novatest.Must(t, os.Chown(h.Dir, nobody, nobody))
	d := h.Launch()
	exit := d.WaitExit(30 * time.Second)
	if exit == 0 || !strings.Contains(d.Logs.String(), h.Dir+" is owned by another user") {
		t.Errorf("novad in another user's home: exit %d:\n%s", exit, d.Logs.String())
	}
}

// TestPlantedEmbeddingCacheLinkIsNotWrittenThrough: the embedding cache
// (an openai profile's, named by the profile hash /health publishes) is
// never truncated and rewritten through a link planted at its path.
func TestPlantedEmbeddingCacheLinkIsNotWrittenThrough(t *testing.T) {
	t.Parallel()
	h := novatest.NewHome(t, fmt.Sprintf("embedding: {provider: openai, endpoint: %q, model: fake, dimension: 8}\n", novatest.FakeEmbeddings(t)))
	h.Sync()
	caches, err := filepath.Glob(filepath.Join(h.Dir, "cache", "embeddings", "*.vec"))
	novatest.Must(t, err)
	if len(caches) != 1 {
		t.Fatalf("embedding caches after the first sync: %v", caches)
	}
	novatest.Must(t, os.Remove(caches[0]))
	unchanged := plantVictim(t, t.TempDir(), caches[0])
	out, errs, code := h.Novactl("index", "sync", "--full", "--in-process")
	unchanged()
	if code != 0 || !strings.Contains(out+errs, caches[0]) {
		t.Errorf("sync with a link at the embedding cache: exit %d, want the sync done and the cache named as not saved:\n%s%s", code, out, errs)
	}
}

// TestConfigOthersCouldWriteIsRefused: config.yaml says what is read into
// memory and where its text is sent to be embedded (embedding.endpoint);
// one that any local user can write, or that another user owns, could
// send the memory anywhere. novad and novactl refuse it, naming the file.
func TestConfigOthersCouldWriteIsRefused(t *testing.T) {
	t.Parallel()
	h := novatest.NewHome(t, "")
	cfg := filepath.Join(h.Dir, "config.yaml")
	novatest.Must(t, os.Chmod(cfg, 0o666))
	out, errs, code := h.Novactl("index", "sync")
	if code == 0 || !strings.Contains(out+errs, cfg) {
		t.Errorf("index sync with a config.yaml any user can write: exit %d:\n%s%s", code, out, errs)
	}
	d := h.Launch()
	if exit := d.WaitExit(30 * time.Second); exit != 78 || !strings.Contains(d.Logs.String(), cfg) {
		t.Errorf("novad with a config.yaml any user can write: exit %d, want 78:\n%s", exit, d.Logs.String())
	}
	novatest.Must(t, os.Chmod(cfg, 0o644))
	h.Sync()

	if os.Getuid() != 0 {
		t.Skip("giving a file to another user needs root")
	}
	novatest.Must(t, os.Chown(cfg, nobody, nobody))
	out, errs, code = h.Novactl("index", "sync")
	if code == 0 || !strings.Contains(out+errs, cfg+" is owned by another user") {
		t.Errorf("index sync with another user's config.yaml: exit %d:\n%s%s", code, out, errs)
	}
}

// squatter is another local user's program on this home's ports: it
// answers like a novad (the contract is public) and records what it is
// sent.
type squatter struct {
	mu    sync.Mutex
	paths []string
}

func (s *squatter) sent() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.paths)
}

// listen serves the squatter on a free loopback port and returns it.
func (s *squatter) listen(t *testing.T, health any) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	novatest.Must(t, err)
	srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.paths = append(s.paths, r.URL.Path)
		s.mu.Unlock()
		_ = json.NewEncoder(w).Encode(health)
	})}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { srv.Close() })
	return l.Addr().(*net.TCPAddr).Port
}

// TestSquattedPortsAreSentNothing: while this home's novad holds its lock
// but waits for its ports (--wait-for-config, as the service jobs run
// it), another program holds them: novactl sends it neither a query nor,
// through a crashed novad's state file, the memory to embed and the token.
func TestSquattedPortsAreSentNothing(t *testing.T) {
	t.Parallel()
	h := novatest.NewHome(t, fmt.Sprintf("embedding: {provider: openai, endpoint: %q, model: fake, dimension: 8}\n", novatest.FakeEmbeddings(t)))
	h.Sync()
	caches, err := filepath.Glob(filepath.Join(h.Dir, "cache", "embeddings", "*.vec"))
	novatest.Must(t, err)
	if len(caches) != 1 {
		t.Fatalf("embedding caches after the first sync: %v", caches)
	}
	profileHash := strings.TrimSuffix(filepath.Base(caches[0]), ".vec")
	sq := &squatter{}
	health := api.Health{Status: "ok", EmbeddingProfileHash: profileHash, ProviderLoaded: true}
	direct, facade := sq.listen(t, health), sq.listen(t, health)
	cfgPath := filepath.Join(h.Dir, "config.yaml")
	b, err := os.ReadFile(cfgPath)
	novatest.Must(t, err)
	cfg := strings.Replace(string(b), "port: 0}\nfacade: {port: 0}", fmt.Sprintf("port: %d}\nfacade: {port: %d}", direct, facade), 1)
	novatest.Must(t, os.WriteFile(cfgPath, []byte(cfg), 0o600))
	// What a novad killed with -9 leaves: its state file and its token.
	st, _ := json.Marshal(api.ServerState{PID: 999999, Host: "127.0.0.1", DirectPort: direct, FacadePort: facade,
		TokenFile: filepath.Join(h.Dir, "state", "internal-token")})
	novatest.Must(t, os.WriteFile(filepath.Join(h.Dir, "state", "server-state.json"), st, 0o600))
	novatest.Must(t, os.WriteFile(filepath.Join(h.Dir, "state", "internal-token"), []byte(strings.Repeat("ab", 32)+"\n"), 0o600))

	d := h.Launch("--wait-for-config")
	waitFor(t, 30*time.Second, "novad to wait for its ports", func() bool {
		return strings.Contains(d.Logs.String(), "a port of this home is in use")
	})
	out, errs, code := h.Novactl("search", "my private question")
	if code == 0 {
		t.Errorf("search while another program holds the ports: exit 0:\n%s%s", out, errs)
	}
	f, err := os.OpenFile(filepath.Join(h.Data, "records.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	novatest.Must(t, err)
	_, err = f.WriteString(`{"id":"new-1","text":"A private note that must be embedded here.","date":"2026-11-21"}` + "\n")
	novatest.Must(t, err)
	novatest.Must(t, f.Close())
	out, errs, code = h.Novactl("index", "sync")
	if code != 0 {
		t.Errorf("sync while another program holds the ports (exit %d):\n%s%s", code, out, errs)
	}
	for _, p := range sq.sent() {
		if p != api.PathHealth {
			t.Errorf("the program on this home's ports was sent %s", p)
		}
	}
}

// TestSkillBackupThroughALinkToAnotherUsersDirectoryIsRefused: skill
// install --force keeps a copy of the skill it replaces under
// state/backups; a link planted there to another user's directory makes
// it refuse, and the user's edited skill stays as it is.
func TestSkillBackupThroughALinkToAnotherUsersDirectoryIsRefused(t *testing.T) {
	t.Parallel()
	if os.Getuid() != 0 {
		t.Skip("giving a directory to another user needs root")
	}
	h := novatest.NewHome(t, "")
	novatest.Must(t, os.MkdirAll(filepath.Join(h.User, ".claude"), 0o700))
	if out, errs, code := h.Novactl("skill", "install", "--agent", "claude-code"); code != 0 {
		t.Fatalf("skill install (exit %d):\n%s%s", code, out, errs)
	}
	skillFile := filepath.Join(h.User, ".claude", "skills", "nova-recall", "SKILL.md")
	edited := []byte("# Nova recall, my way\n")
	novatest.Must(t, os.WriteFile(skillFile, edited, 0o644))
	theirs := anotherUsersDir(t, "backups")
	link := filepath.Join(h.Dir, "state", "backups")
	novatest.Must(t, os.MkdirAll(filepath.Dir(link), 0o700))
	novatest.Must(t, os.Symlink(theirs, link))
	out, errs, code := h.Novactl("skill", "install", "--agent", "claude-code", "--force")
	if code == 0 || !strings.Contains(out+errs, link+" is a link to a directory owned by another user") {
		t.Errorf("skill install --force with state/backups linked to another user's directory: exit %d:\n%s%s", code, out, errs)
	}
	if entries, _ := os.ReadDir(theirs); len(entries) != 0 {
		t.Errorf("Nova wrote into another user's directory: %v", entries)
	}
	if b, _ := os.ReadFile(skillFile); string(b) != string(edited) {
		t.Errorf("the edited skill was replaced without its copy kept: %q", b)
	}
}

// nobody is the user and group another user's files get: nobody's.
const nobody = 65534

// anotherUsersDir makes a directory named name that any user can write
// (0777) and that another user owns, as one planted by someone else.
func anotherUsersDir(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	novatest.Must(t, os.Mkdir(dir, 0o700))
	novatest.Must(t, os.Chmod(dir, 0o777))
	novatest.Must(t, os.Chown(dir, nobody, nobody))
	return dir
}
