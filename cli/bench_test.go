package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/nova-recall/nova/bench"
)

func benchCLI(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	inv := &Invocation{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Environ: []string{"HOME=/nonexistent"}}
	code := Run(context.Background(), append([]string{"bench"}, args...), inv)
	return code, out.String(), errb.String()
}

func TestBenchHelpAndUsage(t *testing.T) {
	code, help, stderr := benchCLI("--help")
	if code != ExitOK || stderr != "" || !strings.Contains(help, "SQLite FTS5") || !strings.Contains(help, "--load") {
		t.Fatalf("help: code %d, stderr %q\n%s", code, stderr, help)
	}
	for _, args := range [][]string{{"--sizes", "ten"}, {"--sizes", "0"}, {"--sizes", "9999999999999M"}, {"--queries", "0"}, {"--chinese", "2"}, {"--bogus"},
		{"fresh", "--chinese", "5"}, {"fresh", "--chinese", "-0.5"}, {"fresh", "--sizes", "200M"}} {
		if code, _, stderr := benchCLI(args...); code != ExitUsage {
			t.Errorf("%v: code %d, want %d\n%s", args, code, ExitUsage, stderr)
		}
	}
	// The load test needs novad.
	if code, _, stderr := benchCLI("load", "--novad", filepath.Join(t.TempDir(), "missing")); code != ExitUsage || !strings.Contains(stderr, "no novad") {
		t.Errorf("load without novad: code %d\n%s", code, stderr)
	}
}

// TestBench_reportPathCheckedFirst: a --json file that cannot be written
// (its folder does not exist, or it is a folder) is refused before the
// run, which may take hours, not after it.
func TestBench_reportPathCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "none", "bench.json")
	novad := filepath.Join(dir, "no-novad")
	for _, args := range [][]string{
		{"--sizes", "10", "--queries", "1", "--systems", "none", "--no-daemon", "--json", missing},
		{"--sizes", "10", "--queries", "1", "--systems", "none", "--no-daemon", "--json", dir},
		{"fresh", "--sizes", "10", "--appends", "1", "--novad", novad, "--json", missing},
	} {
		code, stdout, stderr := benchCLI(args...)
		if code != ExitUsage || stdout != "" || !strings.Contains(stderr, "--json "+args[len(args)-1]) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 naming --json before any run", args, code, stdout, stderr)
		}
	}
}

// TestBench_topKWithinNova: Nova and novad return at most api.MaxTopK
// results, so a larger --top-k would compare them with bm25, vector and
// fts5 returning more, under a hit@k label that is not Nova's: refused.
func TestBench_topKWithinNova(t *testing.T) {
	for _, k := range []string{"21", "100", "0", "-3"} {
		code, stdout, stderr := benchCLI("--sizes", "10", "--queries", "1", "--systems", "none", "--no-daemon", "--top-k", k)
		if code != ExitUsage || stdout != "" || !strings.Contains(stderr, "--top-k") {
			t.Errorf("--top-k %s: exit %d, stdout %q, stderr %q; want exit 2 naming --top-k", k, code, stdout, stderr)
		}
	}
}

// TestBench_novadChecked: a --novad the user names must be a program: a
// missing one, a directory or a file that cannot run is refused before
// the run, not skipped with the daemon's figures missing from the report.
func TestBench_novadChecked(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, []byte("not a program"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, novad := range []string{filepath.Join(dir, "missing"), dir, plain} {
		for _, args := range [][]string{
			{"--sizes", "10", "--queries", "1", "--systems", "none", "--novad", novad},
			{"fresh", "--sizes", "10", "--appends", "1", "--novad", novad},
		} {
			code, stdout, stderr := benchCLI(args...)
			if code != ExitUsage || stdout != "" || !strings.Contains(stderr, novad) {
				t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 naming %s", args, code, stdout, stderr, novad)
			}
		}
	}
}

// TestBench_novadRelative: a relative --novad is the file it names, as
// os.Stat checked it, not a novad found on PATH (exec looks a bare name
// up there, so the run would measure another binary). The mark is not
// NOVA_-prefixed: bench leaves those out of novad's environment.
func TestBench_novadRelative(t *testing.T) {
	dir, onPath := t.TempDir(), t.TempDir()
	mark := filepath.Join(t.TempDir(), "ran")
	script := "#!/bin/sh\necho %s > \"$BENCH_TEST_MARK\"\nexit 3\n"
	for d, name := range map[string]string{dir: "named", onPath: "path"} {
		if err := os.WriteFile(filepath.Join(d, "novad"), []byte(fmt.Sprintf(script, name)), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", onPath+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("BENCH_TEST_MARK", mark)
	t.Chdir(dir)
	code, stdout, stderr := benchCLI("--sizes", "10", "--queries", "1", "--systems", "none", "--novad", "novad", "--keep", filepath.Join(t.TempDir(), "work"))
	b, err := os.ReadFile(mark)
	if err != nil || strings.TrimSpace(string(b)) != "named" {
		t.Fatalf("ran %q (%v), want ./novad; exit %d\nstdout:\n%s\nstderr:\n%s", b, err, code, stdout, stderr)
	}
}

// TestBench_badFlags: values a run cannot honour are refused before it
// starts: NaN passes every range check written as "< 0 || > 1" (and
// leaves --json - empty, as JSON has no NaN), a system named twice is
// timed twice into two rows of one name, and a load bound or watcher
// setting below zero used to be replaced by the default without a word.
func TestBench_badFlags(t *testing.T) {
	novad := filepath.Join(t.TempDir(), "novad")
	if err := os.WriteFile(novad, []byte("#!/bin/sh\nexit 3\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	run := []string{"--sizes", "10", "--queries", "1", "--no-daemon", "--json", "-"}
	fresh := []string{"fresh", "--sizes", "10", "--appends", "1", "--novad", novad}
	for _, c := range []struct {
		args []string
		flag string
	}{
		{append([]string{"--chinese", "NaN", "--systems", "none"}, run...), "--chinese"},
		{append([]string{"--systems", "bm25,bm25"}, run...), "bm25"},
		{append([]string{"--load-clients", "0", "--systems", "none"}, run...), "--load-clients"},
		{append([]string{"--load-requests", "-5", "--systems", "none"}, run...), "--load-requests"},
		{append([]string{"--load-duration", "-1s", "--systems", "none"}, run...), "--load-duration"},
		// The load test runs against novad: asked for beside --no-daemon,
		// the run used to end without it and without a word.
		{append([]string{"--load", "--systems", "none"}, run...), "--no-daemon"},
		{append([]string{"load", "--no-daemon"}, run[:len(run)-3]...), "--no-daemon"},
		// bench load times no in-process system: --systems was ignored.
		{append([]string{"load", "--systems", "nova"}, run[:len(run)-3]...), "--systems"},
		{append(fresh[:len(fresh):len(fresh)], "--chinese", "NaN"), "--chinese"},
		{append(fresh[:len(fresh):len(fresh)], "--quiet", "-1s"), "--quiet"},
		{append(fresh[:len(fresh):len(fresh)], "--max-wait", "-1s"), "--max-wait"},
		// A size written twice (1k and 1000 are one size) was run twice,
		// the whole build and every query again, into a second column of
		// one name.
		{append(append([]string{"--systems", "none"}, run...), "--sizes", "1k,1000"), "1000"},
		{append(fresh[:len(fresh):len(fresh)], "--sizes", "2k,5k,2000"), "2000"},
	} {
		code, stdout, stderr := benchCLI(c.args...)
		if code != ExitUsage || stdout != "" || !strings.Contains(stderr, c.flag) {
			t.Errorf("%v: exit %d, stdout %.200q, stderr %.300q; want exit 2 naming %s", c.args, code, stdout, stderr, c.flag)
		}
	}
}

func TestParseSizes(t *testing.T) {
	got, err := parseSizes("10000, 100k,1M,2_000")
	if err != nil || !reflect.DeepEqual(got, []int{10000, 100000, 1000000, 2000}) {
		t.Fatalf("parseSizes = %v, %v", got, err)
	}
	for _, bad := range []string{"", ",", "-5", "1.5k", "x", "9999999999999M", "100000001", "10k,10000", "1M,1_000_000"} {
		if _, err := parseSizes(bad); err == nil {
			t.Errorf("parseSizes(%q) accepted", bad)
		}
	}
	// The error quotes the size as written, suffix and all.
	for _, bad := range []string{"0k", "1.5M", "9999999999999M", "abc"} {
		if _, err := parseSizes("10k," + bad); err == nil || !strings.Contains(err.Error(), `"`+bad+`"`) {
			t.Errorf("parseSizes(10k,%s): %v, want an error quoting %q", bad, err, bad)
		}
	}
}

func TestBenchTinyRun(t *testing.T) {
	dir := t.TempDir()
	jsonPath := filepath.Join(dir, "bench.json")
	systems := "nova,fts5"
	code, stdout, stderr := benchCLI("--sizes", "100", "--queries", "3", "--systems", systems, "--no-daemon", "--json", jsonPath, "--keep", filepath.Join(dir, "work"))
	if code != ExitOK {
		t.Fatalf("code %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, want := range strings.Split("index sync:,exact-id,hit@10,"+systems, ",") {
		if !strings.Contains(stdout, want) {
			t.Errorf("table lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "generating 100 records") {
		t.Errorf("no progress on stderr:\n%s", stderr)
	}
	b, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	// What bench writes is private, as everything Nova writes is (the
	// path may be under NOVA_HOME).
	if err := filepath.WalkDir(filepath.Join(dir, "work"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if fi.Mode().Perm()&0o077 != 0 && fi.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("%s: mode %v, readable by others", p, fi.Mode().Perm())
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(jsonPath); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("report mode: %v %v", fi.Mode(), err)
	}
	var rep bench.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Sizes) != 1 || rep.Sizes[0].Records != 100 || !strings.HasPrefix(rep.Command, "novactl bench --sizes 100") {
		t.Fatalf("report %+v", rep)
	}
	for _, r := range rep.Sizes[0].Results {
		if r.System != bench.SystemNova && r.System != bench.SystemFTS5 {
			t.Errorf("unexpected system %s", r.System)
		}
	}
}

// cancelOn cancels a context once a line containing its marker is
// written: a user pressing Ctrl-C at that point of a run.
type cancelOn struct {
	bytes.Buffer
	marker string
	cancel context.CancelFunc
}

func (c *cancelOn) Write(p []byte) (int, error) {
	n, err := c.Buffer.Write(p)
	if strings.Contains(c.String(), c.marker) {
		c.cancel()
	}
	return n, err
}

func TestBenchInterrupted(t *testing.T) {
	// A run stopped while it times the searches exits 1 and says its
	// figures are incomplete, instead of reporting them as measured.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out bytes.Buffer
	errb := &cancelOn{marker: "timing nova", cancel: cancel}
	inv := &Invocation{Stdin: strings.NewReader(""), Stdout: &out, Stderr: errb, Environ: []string{"HOME=/nonexistent"}}
	code := Run(ctx, []string{"bench", "--sizes", "100", "--queries", "50", "--systems", "nova", "--no-daemon", "--keep", filepath.Join(t.TempDir(), "work")}, inv)
	if code != ExitFailure {
		t.Fatalf("code %d, want %d\nstdout:\n%s\nstderr:\n%s", code, ExitFailure, out.String(), errb.String())
	}
	if !strings.Contains(errb.String()+out.String(), "interrupted") {
		t.Errorf("no word of the interruption:\nstdout:\n%s\nstderr:\n%s", out.String(), errb.String())
	}
}

// TestBenchLoad_helpListsOnlyItsFlags: novactl bench load --help gave the
// full run's usage, "novactl bench [load] [flags]", and listed --systems,
// --no-daemon and --load, which bench load refuses (the first two) or is
// already (the third). Its help names its own command line and lists
// only the flags it takes; each of the others, named anyway, is still
// refused with why.
func TestBenchLoad_helpListsOnlyItsFlags(t *testing.T) {
	code, help, _ := benchCLI("load", "--help")
	if code != ExitOK || !strings.HasPrefix(help, "Usage: novactl bench load [flags]\n") {
		t.Fatalf("bench load --help: exit %d\n%s", code, help)
	}
	_, flagList, _ := strings.Cut(help, "\nFlags:\n")
	for _, other := range []string{"systems", "no-daemon", "load"} {
		if strings.Contains(flagList, "  -"+other+" ") || strings.Contains(flagList, "  -"+other+"\n") {
			t.Errorf("bench load --help lists --%s, which bench load does not take:\n%s", other, flagList)
		}
		args := []string{"load", "--" + other}
		if other == "systems" {
			args = append(args, "nova")
		}
		if code, _, stderr := benchCLI(args...); code != ExitUsage || !strings.Contains(stderr, "--"+other) {
			t.Errorf("bench %v: exit %d, want %d naming --%s:\n%s", args, code, ExitUsage, other, stderr)
		}
	}
	if !strings.Contains(flagList, "  -load-clients int") || !strings.Contains(flagList, `(default "100000")`) {
		t.Errorf("bench load --help lost its own flags:\n%s", flagList)
	}
	// The full run still lists them.
	if _, full, _ := benchCLI("--help"); !strings.Contains(full, "  -systems string") || !strings.Contains(full, "  -no-daemon\n") || !strings.Contains(full, "  -load\n") {
		t.Errorf("bench --help lost --systems, --no-daemon or --load:\n%s", full)
	}
}

// TestBench_reportOnFullDisk: a --json report that the disk has no room
// for fails the run, saying so. Its write error was dropped: bench
// exited 0 with the report file empty or cut short, and a script reading
// it found no report, or half of one.
func TestBench_reportOnFullDisk(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skipf("no /dev/full here to fill the disk with: %v", err)
	}
	dir := t.TempDir()
	code, stdout, stderr := benchCLI("--sizes", "100", "--queries", "3", "--systems", "nova", "--no-daemon", "--json", "/dev/full", "--keep", filepath.Join(dir, "work"))
	if code != ExitFailure {
		t.Fatalf("code %d, want %d: the report was not written\nstdout:\n%s\nstderr:\n%s", code, ExitFailure, stdout, stderr)
	}
	if !strings.Contains(stderr, "/dev/full") || !strings.Contains(stderr, "no space left on device") {
		t.Errorf("stderr does not say the report could not be written for want of space:\n%s", stderr)
	}
}
