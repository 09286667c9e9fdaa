package release

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/nova-recall/nova/logfile"
	"github.com/nova-recall/nova/packaging"
	"github.com/nova-recall/nova/packaging/macos"
	"github.com/nova-recall/nova/packaging/systemd"
)

// root is the repository root, where .goreleaser.yaml and dist/ live.
const root = "../.."

// versionPkg is where the build identity is stamped (internal/version).
const versionPkg = "github.com/nova-recall/nova/internal/version"

func load(t *testing.T) *Config {
	t.Helper()
	c, err := Load(filepath.Join(root, ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var (
	novactlOnce sync.Once
	novactlBin  string
	novactlErr  error
)

// novactl builds this checkout's novactl once (it runs nothing of goreleaser).
func novactl(t *testing.T) string {
	t.Helper()
	novactlOnce.Do(func() {
		dir, err := os.MkdirTemp("", "nova-release-test-")
		if err != nil {
			novactlErr = err
			return
		}
		novactlBin = filepath.Join(dir, "novactl")
		cmd := exec.Command("go", "build", "-o", novactlBin, "./cmd/novactl")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			novactlErr = errors.New(string(out))
		}
	})
	if novactlErr != nil {
		t.Fatalf("build novactl: %v", novactlErr)
	}
	return novactlBin
}

func TestMain(m *testing.M) {
	code := m.Run()
	if novactlBin != "" {
		os.RemoveAll(filepath.Dir(novactlBin))
	}
	os.Exit(code)
}

// TestConfig holds .goreleaser.yaml to what the README and the issue
// promise: the three binaries for darwin and linux on amd64 and arm64, stamped
// with version, commit and date; one archive per platform with README,
// LICENSE and the completions; checksums; a nova formula whose service
// runs novad and a nova-watch formula whose service runs the watcher.
func TestConfig(t *testing.T) {
	c := load(t)
	if c.Version != 2 || c.ProjectName != "nova" {
		t.Fatalf("version %d, project %q: want a goreleaser v2 configuration of project nova", c.Version, c.ProjectName)
	}
	stamped := stampableVars(t)
	for _, bin := range []string{"novad", "novactl", "novactl-tui"} {
		b, ok := c.Build(bin)
		if !ok {
			t.Fatalf("no build %q", bin)
		}
		if b.Binary != bin || filepath.Clean(b.Main) != filepath.Join("cmd", bin) {
			t.Errorf("build %s: binary %q from %q", bin, b.Binary, b.Main)
		}
		if _, err := os.Stat(filepath.Join(root, b.Main, "main.go")); err != nil {
			t.Errorf("build %s: %v", bin, err)
		}
		for _, goos := range []string{"darwin", "linux"} {
			if !slices.Contains(b.Goos, goos) {
				t.Errorf("build %s lacks %s", bin, goos)
			}
		}
		for _, arch := range []string{"amd64", "arm64"} {
			if !slices.Contains(b.Goarch, arch) {
				t.Errorf("build %s lacks %s", bin, arch)
			}
		}
		flags := strings.Join(b.Ldflags, " ")
		for _, v := range []string{"Version", "Commit", "Date"} {
			if !strings.Contains(flags, "-X "+versionPkg+"."+v+"=") {
				t.Errorf("build %s does not stamp %s.%s", bin, versionPkg, v)
			}
			if !stamped[v] {
				t.Errorf("%s has no string variable %s for the linker to set", versionPkg, v)
			}
		}
	}

	if len(c.Archives) != 1 {
		t.Fatalf("%d archives configured, want 1", len(c.Archives))
	}
	a := c.Archives[0]
	if got := c.Platforms(a); !slices.Equal(got, []Platform{{"darwin", "amd64"}, {"darwin", "arm64"}, {"linux", "amd64"}, {"linux", "arm64"}}) {
		t.Errorf("archive platforms %v", got)
	}
	completions := generateCompletions(t)
	contents, err := c.ArchiveContents(a, "x", completions.expand)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"x/LICENSE", "x/README.md", "x/completions/_novactl", "x/completions/novactl.bash", "x/completions/novactl.fish", "x/novactl", "x/novactl-tui", "x/novad"}
	if !slices.Equal(contents, want) {
		t.Errorf("archive contents %q, want %q", contents, want)
	}
	if c.Checksum.NameTemplate == "" || c.Checksum.Algorithm != "sha256" {
		t.Errorf("checksum %+v: want a sha256 checksums file", c.Checksum)
	}

	nova, ok := c.Brew("nova")
	if !ok {
		t.Fatal("no nova formula")
	}
	for _, line := range []string{
		`bin.install "novad", "novactl", "novactl-tui"`,
		`bash_completion.install "completions/novactl.bash" => "novactl"`,
		`zsh_completion.install "completions/_novactl"`,
		`fish_completion.install "completions/novactl.fish"`,
	} {
		if !slices.Contains(Lines(nova.Install), line) {
			t.Errorf("nova formula's install lacks %q", line)
		}
	}
	// Every file the formula installs is one the hook generates.
	for _, l := range Lines(nova.Install) {
		if f, ok := strings.CutPrefix(strings.Fields(l)[1], `"completions/`); ok {
			if f = strings.Trim(f, `",`); !slices.Contains(completions.names, f) {
				t.Errorf("nova formula installs completions/%s, which scripts/completions.sh does not write (%v)", f, completions.names)
			}
		}
	}
	// The restart policy is TestFormulaRestartPolicy's.
	service := Lines(nova.Service)
	if prog, args, err := brewRun(service); err != nil || prog != `opt_bin/"novad"` || !slices.Equal(withoutLogFile(args), packaging.NovadServiceArgs()) {
		t.Errorf("nova service runs %s %q (%v); want novad %q, as novactl service install's job", prog, args, err, packaging.NovadServiceArgs())
	}
	for _, key := range []string{"log_path", "error_log_path"} {
		if !slices.ContainsFunc(service, func(l string) bool { return strings.HasPrefix(l, key+` var/"log/`) }) {
			t.Errorf("nova service has no %s under Homebrew's var/log: %q", key, service)
		}
	}
	for _, s := range []string{"~/.nova/config.yaml", "novactl config init", "novactl index sync", "brew services start nova", "nova-watch", "novactl service install", "novactl doctor"} {
		if !strings.Contains(nova.Caveats, s) {
			t.Errorf("nova caveats do not mention %q", s)
		}
	}
	if !strings.Contains(nova.Test, "novad --version") {
		t.Errorf("nova formula's test does not run novad --version")
	}

	watch, ok := c.Brew("nova-watch")
	if !ok {
		t.Fatal("no nova-watch formula")
	}
	if len(watch.Dependencies) != 1 || watch.Dependencies[0].Name != "nova" {
		t.Errorf("nova-watch must depend on nova (it runs nova's novactl): %+v", watch.Dependencies)
	}
	// bin/nova-watch is novactl with WatchArgs (TestWatcherCommand); the
	// service adds the rest of novactl service install's command line.
	wantWatch, _ := strings.CutPrefix(strings.Join(packaging.WatchServiceArgs(), " "), strings.Join(packaging.WatchArgs(), " ")+" ")
	if prog, args, err := brewRun(Lines(watch.Service)); err != nil || prog != `opt_bin/"nova-watch"` || strings.Join(withoutLogFile(args), " ") != wantWatch {
		t.Errorf("nova-watch service runs %s %q (%v); want nova-watch %s, as novactl service install's job", prog, args, err, wantWatch)
	}
}

// brewRun reads the one run line of a service block, run [prog, "arg",
// ...]: prog as written (opt_bin/"novad") and the arguments unquoted,
// except a path under Homebrew's var (var/"log/novad.log"), as written.
func brewRun(service []string) (prog string, args []string, err error) {
	var found []string
	for _, l := range service {
		if rest, ok := strings.CutPrefix(l, "run ["); ok {
			found = append(found, strings.TrimSuffix(rest, "]"))
		}
	}
	if len(found) != 1 || !strings.HasSuffix(service[slices.IndexFunc(service, func(l string) bool { return strings.HasPrefix(l, "run [") })], "]") {
		return "", nil, fmt.Errorf("want one run [...] line, got %q", service)
	}
	words := strings.Split(found[0], ", ")
	for _, w := range words[1:] {
		if strings.HasPrefix(w, `var/"`) && strings.HasSuffix(w, `"`) && !strings.ContainsAny(w[5:len(w)-1], `"\#`) {
			args = append(args, w) // a path under Homebrew's var, as written
			continue
		}
		if len(w) < 2 || w[0] != '"' || w[len(w)-1] != '"' || strings.ContainsAny(w[1:len(w)-1], `"\#`) {
			return "", nil, fmt.Errorf("argument %s is not a plain string literal", w)
		}
		args = append(args, w[1:len(w)-1])
	}
	return words[0], args, nil
}

// TestFormulaRestartPolicy holds each formula's service block to the
// restart policy of the job novactl service install writes for the same
// program: launchd's KeepAlive as Homebrew renders the block's keep_alive
// equals the LaunchAgent's (restart after a failure, not after a clean
// stop: novad and the watcher exit 0 only when asked to stop), and on
// Linux the Restart= Homebrew renders equals the unit's.
//
// How Homebrew renders keep_alive (Homebrew/brew, Library/Homebrew/
// service.rb, to_plist and to_systemd_unit, read in 2026): "keep_alive
// true" is KeepAlive true (a clean exit restarts too); with a hash,
// KeepAlive is {SuccessfulExit: v} if it has successful_exit, else
// {Crashed: v} if it has crashed. On Linux, always or crashed true give
// Restart=on-failure, else successful_exit true gives Restart=on-success,
// and anything else no Restart= at all (so successful_exit: false alone
// would never restart there).
func TestFormulaRestartPolicy(t *testing.T) {
	c := load(t)
	for _, tc := range []struct {
		formula string
		job     macos.Job
		unit    systemd.Unit
	}{
		{"nova", macos.Job{Label: packaging.ServiceName, Program: "/n/novad", NovaHome: "/h", LogDir: "/l"},
			systemd.Unit{Name: packaging.ServiceName, Description: "d", Program: "/n/novad", NovaHome: "/h"}},
		{"nova-watch", macos.Job{Label: packaging.WatchServiceName, Program: "/n/novactl", Args: packaging.WatchArgs(), NovaHome: "/h", LogDir: "/l", Background: true},
			systemd.Unit{Name: packaging.WatchServiceName, Description: "d", Program: "/n/novactl", Args: packaging.WatchArgs(), NovaHome: "/h"}},
	} {
		t.Run(tc.formula, func(t *testing.T) {
			b := mustBrew(t, c, tc.formula)
			keepAlive, err := brewKeepAlive(Lines(b.Service))
			if err != nil {
				t.Fatal(err)
			}
			launchd, restart := brewRendersKeepAlive(keepAlive)

			text, err := macos.RenderPlist(tc.job)
			if err != nil {
				t.Fatal(err)
			}
			plist, err := macos.DecodePlist(text)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(launchd, plist["KeepAlive"]) {
				t.Errorf("brew services gives launchd KeepAlive %#v (from %v); novactl service install's LaunchAgent has %#v", launchd, keepAlive, plist["KeepAlive"])
			}

			unit, err := systemd.RenderUnit(tc.unit)
			if err != nil {
				t.Fatal(err)
			}
			want := ""
			for _, l := range Lines(string(unit)) {
				if v, ok := strings.CutPrefix(l, "Restart="); ok {
					want = v
				}
			}
			if restart != want {
				t.Errorf("brew services gives systemd Restart=%q (from %v); novactl service install's unit has Restart=%q", restart, keepAlive, want)
			}
		})
	}
}

// brewKeepAlive reads the one keep_alive line of a service block: "true"
// or "false", or "key: bool" pairs, as the Homebrew DSL takes them.
func brewKeepAlive(service []string) (map[string]bool, error) {
	var found []string
	for _, l := range service {
		if rest, ok := strings.CutPrefix(l, "keep_alive "); ok {
			found = append(found, rest)
		}
	}
	if len(found) != 1 {
		return nil, fmt.Errorf("the service block has %d keep_alive lines, want 1: %q", len(found), service)
	}
	switch found[0] {
	case "true", "false":
		return map[string]bool{"always": found[0] == "true"}, nil
	}
	out := map[string]bool{}
	for pair := range strings.SplitSeq(found[0], ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(pair), ": ")
		if !ok || (v != "true" && v != "false") || !slices.Contains([]string{"always", "successful_exit", "crashed"}, k) {
			return nil, fmt.Errorf("keep_alive %s: %q is not a key: bool pair this test knows", found[0], pair)
		}
		out[k] = v == "true"
	}
	return out, nil
}

// brewRendersKeepAlive is what Homebrew writes for keep_alive: the
// launchd KeepAlive value (bool or dict, nil for none) and the systemd
// Restart= value ("" for none). See TestFormulaRestartPolicy.
func brewRendersKeepAlive(ka map[string]bool) (launchd any, restart string) {
	if always, ok := ka["always"]; ok {
		if always {
			return true, "on-failure"
		}
		return nil, ""
	}
	switch se, ok := ka["successful_exit"]; {
	case ok:
		launchd = map[string]any{"SuccessfulExit": se}
	default:
		if cr, ok := ka["crashed"]; ok {
			launchd = map[string]any{"Crashed": cr}
		}
	}
	switch {
	case ka["crashed"]:
		restart = "on-failure"
	case ka["successful_exit"]:
		restart = "on-success"
	}
	return launchd, restart
}

// stampableVars lists the package-level string variables of internal/version.
func stampableVars(t *testing.T) map[string]bool {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(root, "internal/version/version.go"), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.VAR {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			for i, n := range vs.Names {
				if i < len(vs.Values) {
					if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
						out[n.Name] = true
					}
				}
			}
		}
	}
	return out
}

// TestWatcherCommand checks that the nova-watch formula runs a command
// novactl has: the one place the watcher's command line is written.
func TestWatcherCommand(t *testing.T) {
	watch, ok := load(t).Brew("nova-watch")
	if !ok {
		t.Fatal("no nova-watch formula")
	}
	var args []string
	for _, l := range Lines(watch.Install) {
		if rest, ok := strings.CutPrefix(l, `exec "#{Formula["nova"].opt_bin}/novactl" `); ok {
			args = strings.Fields(strings.TrimSuffix(rest, `"$@"`))
		}
	}
	if len(args) == 0 {
		t.Fatalf("the nova-watch wrapper does not exec nova's novactl: %q", Lines(watch.Install))
	}
	var stderr bytes.Buffer
	cmd := exec.Command(novactl(t), append(args, "--help")...)
	cmd.Env = []string{"HOME=" + t.TempDir(), "NOVA_HOME=" + t.TempDir()}
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		if strings.Contains(stderr.String(), `unknown subcommand "watch"`) {
			t.Skipf("novactl %s does not exist yet (the watcher lands with its own branch); the nova-watch formula is ready for it", strings.Join(args, " "))
		}
		t.Fatalf("novactl %s --help: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
}

type generated struct {
	dir   string
	names []string
}

func (g generated) expand(glob string) ([]string, error) {
	rest, ok := strings.CutPrefix(glob, "completions/")
	if !ok {
		return nil, errors.New("unexpected glob " + glob)
	}
	var out []string
	for _, n := range g.names {
		if ok, _ := filepath.Match(rest, n); ok {
			out = append(out, "completions/"+n)
		}
	}
	return out, nil
}

// generateCompletions runs the before-hook that make dist runs, into a
// temporary directory, and checks that each script is novactl's own.
func generateCompletions(t *testing.T) generated {
	t.Helper()
	c := load(t)
	if len(c.Before.Hooks) != 1 || !strings.HasPrefix(c.Before.Hooks[0], "./scripts/completions.sh ") {
		t.Fatalf("before hooks %q: want ./scripts/completions.sh DIR", c.Before.Hooks)
	}
	dir := t.TempDir()
	cmd := exec.Command("./scripts/completions.sh", dir)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("scripts/completions.sh: %v\n%s", err, out)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	g := generated{dir: dir}
	shellOf := map[string]string{"novactl.bash": "bash", "_novactl": "zsh", "novactl.fish": "fish"}
	for _, e := range entries {
		g.names = append(g.names, e.Name())
		sh, ok := shellOf[e.Name()]
		if !ok {
			t.Errorf("completions.sh wrote an unexpected %s", e.Name())
			continue
		}
		got, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		want, err := exec.Command(novactl(t), "completion", sh).Output()
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s is not novactl completion %s (err %v)", e.Name(), sh, err)
		}
	}
	if len(g.names) != len(shellOf) {
		t.Errorf("completions.sh wrote %v, want the three of %v", g.names, shellOf)
	}
	return g
}

// metadata is what goreleaser writes to dist/metadata.json.
type metadata struct {
	ProjectName string `json:"project_name"`
	Version     string `json:"version"`
	Commit      string `json:"commit"`
}

// TestDist checks what make dist produced, when dist/ exists (make dist
// runs it; make test does not build a release): the four archives with
// exactly the configured contents, the checksums, and both formulae.
func TestDist(t *testing.T) {
	dist := filepath.Join(root, "dist")
	raw, err := os.ReadFile(filepath.Join(dist, "metadata.json"))
	if errors.Is(err, os.ErrNotExist) {
		t.Skip("no dist/: run make dist")
	}
	if err != nil {
		t.Fatal(err)
	}
	var md metadata
	if err := json.Unmarshal(raw, &md); err != nil {
		t.Fatal(err)
	}
	c := load(t)
	a := c.Archives[0]
	sums := readChecksums(t, filepath.Join(dist, c.Checksum.NameTemplate))
	formula, err := os.ReadFile(filepath.Join(dist, "homebrew/Formula/nova.rb"))
	if err != nil {
		t.Fatal(err)
	}
	license, _ := os.ReadFile(filepath.Join(root, "LICENSE"))
	var archives []string
	for _, p := range c.Platforms(a) {
		name, err := c.ArchiveName(a, p, md.Version)
		if err != nil {
			t.Fatal(err)
		}
		file := name + ".tar.gz"
		archives = append(archives, file)
		body, err := os.ReadFile(filepath.Join(dist, file))
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		sum := sha256.Sum256(body)
		if sums[file] != hex.EncodeToString(sum[:]) {
			t.Errorf("%s: checksums file says %q, the file hashes to %x", file, sums[file], sum)
		}
		// The formula downloads this archive and pins its hash.
		if !strings.Contains(string(formula), "/"+file+"\"\n") || !strings.Contains(string(formula), `sha256 "`+hex.EncodeToString(sum[:])+`"`) {
			t.Errorf("nova.rb does not pin %s at its sha256", file)
		}
		files := readTarGz(t, body)
		var got []string
		for n := range files {
			got = append(got, n)
		}
		slices.Sort(got)
		want, err := c.ArchiveContents(a, name, func(glob string) ([]string, error) {
			var out []string
			for _, n := range got {
				if ok, _ := filepath.Match(name+"/"+glob, n); ok {
					out = append(out, strings.TrimPrefix(n, name+"/"))
				}
			}
			return out, nil
		})
		if err != nil {
			t.Errorf("%s: %v", file, err)
			continue
		}
		// The completions glob must have matched exactly the three scripts.
		want = append(want, name+"/completions/_novactl", name+"/completions/novactl.bash", name+"/completions/novactl.fish")
		slices.Sort(want)
		want = slices.Compact(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s holds %q, want %q", file, got, want)
		}
		for _, bin := range []string{"novad", "novactl", "novactl-tui"} {
			if f := files[name+"/"+bin]; f.mode&0o111 == 0 {
				t.Errorf("%s: %s is not executable (mode %o)", file, bin, f.mode)
			}
		}
		if !bytes.Equal(files[name+"/LICENSE"].body, license) {
			t.Errorf("%s: LICENSE differs from the repository's", file)
		}
		if p.OS == runtime.GOOS && p.Arch == runtime.GOARCH {
			checkBinaries(t, name, files, md)
		}
	}
	if len(sums) != len(archives) {
		t.Errorf("checksums list %d files, want the %d archives", len(sums), len(archives))
	}

	// Ruby's own parser, where it is installed, for the formulae's syntax.
	if ruby, err := exec.LookPath("ruby"); err == nil {
		for _, f := range []string{"nova.rb", "nova-watch.rb"} {
			if out, err := exec.Command(ruby, "-c", filepath.Join(dist, "homebrew/Formula", f)).CombinedOutput(); err != nil {
				t.Errorf("ruby -c %s: %v\n%s", f, err, out)
			}
		}
	}
	checkFormula(t, string(formula), mustBrew(t, c, "nova"), md.Version)
	watch, err := os.ReadFile(filepath.Join(dist, "homebrew/Formula/nova-watch.rb"))
	if err != nil {
		t.Fatal(err)
	}
	checkFormula(t, string(watch), mustBrew(t, c, "nova-watch"), md.Version)
	if !strings.Contains(string(watch), "\n  depends_on \"nova\"\n") {
		t.Errorf("nova-watch.rb does not depend on nova")
	}
}

func mustBrew(t *testing.T, c *Config, name string) Brew {
	t.Helper()
	b, ok := c.Brew(name)
	if !ok {
		t.Fatalf("no formula %s", name)
	}
	return b
}

// checkFormula checks a generated formula against its configuration: the
// version, every configured line, and a service block that is the
// configured one.
func checkFormula(t *testing.T, rb string, b Brew, version string) {
	t.Helper()
	if !strings.Contains(rb, "\n  version \""+version+"\"\n") {
		t.Errorf("%s.rb does not carry version %s", b.Name, version)
	}
	lines := map[string]bool{}
	for _, l := range Lines(rb) {
		lines[l] = true
	}
	for field, text := range map[string]string{"install": b.Install, "service": b.Service, "caveats": b.Caveats, "test": b.Test} {
		for _, l := range Lines(text) {
			if !lines[l] {
				t.Errorf("%s.rb lacks the configured %s line %q", b.Name, field, l)
			}
		}
	}
	_, block, ok := strings.Cut(rb, "\n  service do\n")
	block, _, ok2 := strings.Cut(block, "\n  end\n")
	if !ok || !ok2 || !slices.Equal(Lines(block), Lines(b.Service)) {
		t.Errorf("%s.rb's service block is %q, want %q", b.Name, Lines(block), Lines(b.Service))
	}
}

type tarFile struct {
	mode int64
	body []byte
}

func readTarGz(t *testing.T, body []byte) map[string]tarFile {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	out := map[string]tarFile{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeDir {
			continue
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		out[h.Name] = tarFile{mode: h.Mode, body: b}
	}
}

func readChecksums(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			t.Fatalf("%s: bad line %q", path, sc.Text())
		}
		out[name] = sum
	}
	return out
}

// checkBinaries runs the archive's binaries for this platform: each carries
// the release's version and commit, and the archive's completion scripts
// are what its own novactl prints.
func checkBinaries(t *testing.T, name string, files map[string]tarFile, md metadata) {
	t.Helper()
	dir := t.TempDir()
	for _, bin := range []string{"novad", "novactl", "novactl-tui"} {
		if err := os.WriteFile(filepath.Join(dir, bin), files[name+"/"+bin].body, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"HOME=" + dir, "NOVA_HOME=" + filepath.Join(dir, "nova")}
	run := func(bin string, args ...string) string {
		cmd := exec.Command(filepath.Join(dir, bin), args...)
		cmd.Env = env
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s %v: %v", bin, args, err)
		}
		return string(out)
	}
	for bin, args := range map[string][]string{"novad": {"--version"}, "novactl": {"version"}, "novactl-tui": {"--version"}} {
		out := run(bin, args...)
		if !strings.HasPrefix(out, bin+" "+md.Version+" (commit ") {
			t.Errorf("%s %v = %q, want version %s", bin, args, out, md.Version)
		}
		if md.Commit != "none" && !strings.Contains(out, "(commit "+md.Commit[:min(12, len(md.Commit))]) {
			t.Errorf("%s %v = %q, want commit %s", bin, args, out, md.Commit)
		}
		// goreleaser's own git state is "none" in a clone without a remote;
		// make dist stamps the commit from git then.
		if strings.Contains(out, "commit unknown") || strings.Contains(out, "built unknown") {
			t.Errorf("%s %v = %q: the release binary is not stamped", bin, args, out)
		}
	}
	for file, sh := range map[string]string{"_novactl": "zsh", "novactl.bash": "bash", "novactl.fish": "fish"} {
		if got := string(files[name+"/completions/"+file].body); got != run("novactl", "completion", sh) {
			t.Errorf("%s/completions/%s is not what its novactl prints for %s", name, file, sh)
		}
	}
}

// TestFormulaProcessType holds each formula's service to the ProcessType
// of the LaunchAgent novactl service install writes for the same program:
// Standard for novad, which people wait on, Background for the watcher's
// bulk indexing. Homebrew writes ProcessType only for a process_type line
// (the symbol, capitalized); without one launchd applies its default,
// which launchd.plist(5) says Standard is equivalent to.
func TestFormulaProcessType(t *testing.T) {
	c := load(t)
	for formula, job := range map[string]macos.Job{
		"nova":       {Label: packaging.ServiceName, Program: "/n/novad", NovaHome: "/h", LogDir: "/l"},
		"nova-watch": {Label: packaging.WatchServiceName, Program: "/n/novactl", Args: packaging.WatchArgs(), NovaHome: "/h", LogDir: "/l", Background: true},
	} {
		got := "Standard"
		for _, l := range Lines(mustBrew(t, c, formula).Service) {
			if v, ok := strings.CutPrefix(l, "process_type :"); ok {
				got = strings.ToUpper(v[:1]) + v[1:]
			}
		}
		text, err := macos.RenderPlist(job)
		if err != nil {
			t.Fatal(err)
		}
		plist, err := macos.DecodePlist(text)
		if err != nil {
			t.Fatal(err)
		}
		if got != plist["ProcessType"] {
			t.Errorf("%s: brew services gives ProcessType %s; novactl service install's LaunchAgent has %v", formula, got, plist["ProcessType"])
		}
	}
}

// TestMakeDistStamp runs make dist's recipe with goreleaser replaced by
// env, in a repository whose last commit was made east of UTC: what the
// recipe hands goreleaser to stamp (internal/version) is that commit, and
// its date in UTC, as make build stamps it and as Date documents.
func TestMakeDistStamp(t *testing.T) {
	for _, tool := range []string{"make", "git"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	makefile, err := filepath.Abs(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	env := []string{"HOME=" + dir, "PATH=" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
		"GIT_AUTHOR_DATE=2026-05-01T12:00:00+02:00", "GIT_COMMITTER_DATE=2026-05-01T12:00:00+02:00"}
	run := func(name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
		return string(out)
	}
	run("git", "init", "-q")
	run("git", "commit", "-q", "--allow-empty", "-m", "x")
	head := strings.TrimSpace(run("git", "rev-parse", "HEAD"))
	// "sh -c env sh release --snapshot --clean" prints the environment
	// goreleaser would get; GO=true skips the recipe's go test.
	got := map[string]string{}
	for l := range strings.SplitSeq(run("make", "-s", "-f", makefile, "dist", "GORELEASER=sh -c env sh", "GO=true"), "\n") {
		if k, v, ok := strings.Cut(l, "="); ok && strings.HasPrefix(k, "NOVA_") {
			got[k] = v
		}
	}
	want := map[string]string{
		"NOVA_COMMIT":           head,
		"NOVA_SHORT_COMMIT":     head[:len(got["NOVA_SHORT_COMMIT"])],
		"NOVA_COMMIT_DATE":      "2026-05-01T10:00:00Z",
		"NOVA_COMMIT_TIMESTAMP": "1777629600",
	}
	if len(got["NOVA_SHORT_COMMIT"]) < 7 || !reflect.DeepEqual(got, want) {
		t.Errorf("make dist hands goreleaser %v, want %v", got, want)
	}
}

// TestFormulaCaveatsRestartAfterUpgrade: brew upgrade replaces a formula's
// files but leaves its running service alone, so the old novad (and the
// watcher's old novactl) runs on, from a keg brew cleanup then removes,
// until someone restarts it. Homebrew prints the caveats after each
// upgrade, so that is where each formula says so; and the README must not
// promise that Homebrew's job follows an upgrade by itself.
func TestFormulaCaveatsRestartAfterUpgrade(t *testing.T) {
	c := load(t)
	for _, name := range []string{packaging.HomebrewFormula, packaging.HomebrewWatchFormula} {
		b, ok := c.Brew(name)
		if !ok {
			t.Fatalf("no %s formula", name)
		}
		caveats := strings.Join(strings.Fields(b.Caveats), " ")
		if !strings.Contains(caveats, "brew upgrade") || !strings.Contains(caveats, "brew services restart "+name) {
			t.Errorf("%s caveats do not say to run brew services restart %s after brew upgrade:\n%s", name, name, b.Caveats)
		}
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(string(readme)), " ")
	if strings.Contains(text, "its job follows `brew upgrade`") {
		t.Error("README says Homebrew's job follows brew upgrade; it keeps running the old binary until restarted")
	}
	if !strings.Contains(text, "brew services restart nova") || !strings.Contains(text, "brew services restart nova-watch") {
		t.Error("README does not say to restart Homebrew's services after brew upgrade")
	}
}

// TestFormulaCaveatsNameTheHome: Homebrew's services run with no NOVA_HOME
// (brew services writes only what the service block says, and brew
// filters its own environment), so they serve ~/.nova whatever the
// person's shell sets. Someone with another NOVA_HOME would get a novad
// for the wrong home, on the ports their own would need; the caveats say
// so, and what to use instead.
func TestFormulaCaveatsNameTheHome(t *testing.T) {
	c := load(t)
	for _, name := range []string{packaging.HomebrewFormula, packaging.HomebrewWatchFormula} {
		b, ok := c.Brew(name)
		if !ok {
			t.Fatalf("no %s formula", name)
		}
		if strings.Contains(b.Service, "NOVA_HOME") {
			continue // the service names its home itself
		}
		caveats := strings.Join(strings.Fields(b.Caveats), " ")
		if !strings.Contains(caveats, "NOVA_HOME") || !strings.Contains(caveats, "novactl service install") {
			t.Errorf("%s caveats do not say that its service serves ~/.nova whatever NOVA_HOME is, and that novactl service install is for another home:\n%s", name, b.Caveats)
		}
	}
}

// withoutLogFile is a service's arguments without the --log-file pair
// TestFormulaLogFile checks, which novactl service install's definitions
// add only on macOS.
func withoutLogFile(args []string) []string {
	if i := slices.Index(args, "--"+logfile.Flag); i >= 0 && i+1 < len(args) {
		return slices.Delete(slices.Clone(args), i, i+2)
	}
	return args
}

// TestFormulaLogFile: each service tells its program the file launchd
// sends its stderr to (--log-file, error_log_path), which the program
// keeps private and rotates: launchd creates var/log/novad.log readable
// by every user, and nothing rotated it. stdout goes to the same file,
// so that one file is the whole log.
func TestFormulaLogFile(t *testing.T) {
	c := load(t)
	for formula, log := range map[string]string{"nova": `var/"log/novad.log"`, "nova-watch": `var/"log/nova-watch.log"`} {
		service := Lines(mustBrew(t, c, formula).Service)
		_, args, err := brewRun(service)
		if err != nil {
			t.Fatal(err)
		}
		if i := slices.Index(args, "--"+logfile.Flag); i < 0 || i+1 >= len(args) || args[i+1] != log {
			t.Errorf("%s service runs %q, want --%s %s", formula, args, logfile.Flag, log)
		}
		for _, key := range []string{"log_path", "error_log_path"} {
			if !slices.Contains(service, key+" "+log) {
				t.Errorf("%s service's %s is not %s: %q", formula, key, log, service)
			}
		}
	}
}
