package boundary

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/nova-recall/nova"

// goPackage is what go list -json says of one package.
type goPackage struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Imports    []string
	Standard   bool
}

// goList runs go list -deps -json with args from the module root.
func goList(t *testing.T, args ...string) []goPackage {
	t.Helper()
	// go test puts the go command that runs it first on PATH.
	cmd := exec.Command("go", append([]string{"list", "-deps", "-json"}, args...)...)
	cmd.Dir = "../.."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %v: %v\n%s", args, err, stderr.String())
	}
	var pkgs []goPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p goPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// forbiddenInBinaries are modules a shipped binary must not link: test
// libraries.
var forbiddenInBinaries = []string{
	"github.com/charmbracelet/x/exp/teatest",
	"github.com/charmbracelet/x/exp/golden",
	"github.com/stretchr/testify",
	"github.com/rogpeppe/go-internal/testscript",
}

// testingImporters may import the standard testing package although they
// are linked into the binaries. Each is a third-party package that does.
var testingImporters = map[string]string{
	// romance/testing_helpers.go exports test helpers (RunStepTest) in
	// non-test code; the English stemmer imports the package.
	"github.com/kljensen/snowball/romance": "upstream exports test helpers from a non-test file",
}

// sqlite is the SQLite driver. novactl links it to read Hermes' state.db
// and for the bench's FTS5 baseline (index/ingest and bench go through
// database/sql and link no driver); novad, which serves the index and
// never reads a source, and novactl-tui, which links cli only for the
// TUI, must not carry it.
const sqlite = "modernc.org/sqlite"

// TestShippedBinaries walks every package novad, novactl and novactl-tui
// link: no test library, none of our test-support packages (contracttest,
// novatest, golden, systemdtest), the testing package only where a
// dependency we cannot change brings it, and SQLite in novactl alone.
func TestShippedBinaries(t *testing.T) {
	for _, bin := range []string{"./cmd/novad", "./cmd/novactl", "./cmd/novactl-tui"} {
		pkgs := goList(t, bin)
		linksSQLite := slices.ContainsFunc(pkgs, func(p goPackage) bool { return p.ImportPath == sqlite })
		if want := bin == "./cmd/novactl"; linksSQLite != want {
			t.Errorf("%s links %s: %v, want %v", bin, sqlite, linksSQLite, want)
		}
		for _, p := range pkgs {
			if bin != "./cmd/novactl" && strings.HasPrefix(p.ImportPath, sqlite+"/") {
				t.Errorf("%s links %s", bin, p.ImportPath)
			}
			for _, f := range forbiddenInBinaries {
				if p.ImportPath == f || strings.HasPrefix(p.ImportPath, f+"/") {
					t.Errorf("%s links %s", bin, p.ImportPath)
				}
			}
			if last := filepath.Base(p.ImportPath); strings.HasPrefix(p.ImportPath, module+"/") && (strings.HasSuffix(last, "test") || last == "golden") {
				t.Errorf("%s links the test-support package %s", bin, p.ImportPath)
			}
			if slices.Contains(p.Imports, "testing") && !p.Standard {
				if _, ok := testingImporters[p.ImportPath]; !ok {
					t.Errorf("%s links %s, which imports testing", bin, p.ImportPath)
				}
			}
		}
	}
}

// storage are the packages that own data on disk and in memory. They use
// the wire package api only through the identifiers listed in apiUses.
var storage = []string{
	"atomicfile", "embedding", "index", "index/chunk", "index/generation", "index/ingest",
	"index/segment", "lexical", "manifest", "memory", "parallel", "paths", "secrets", "topk", "vector",
}

// apiUses are the conversion points between storage and the wire: each
// identifier of package api a storage package may name, and why.
var apiUses = map[string]map[string]string{
	"*": {
		// The profile is recorded in the manifest and reported by /health
		// in the same three fields; it is the one wire type storage keeps.
		"EmbeddingProfile": "the embedding profile, one shape on disk and on the wire",
		// A chunk's governance is the response's governance block
		// (memory.Chunk carries it), so whoever builds a chunk names it.
		"Governance": "a chunk's governance block",
	},
	"embedding": {
		// The remote embedder is a client of novad's /encode.
		"EncodeRequest": "/encode client", "PathEncode": "/encode client",
		"HeaderInternalToken": "/encode client", "Error": "/encode client",
		"MaxEncodeBodyBytes": "/encode client: requests stay under novad's body limit",
	},
	"index": {
		// index sync embeds through a running novad when there is one.
		"Health": "finding a running novad", "PathHealth": "finding a running novad",
		"ServerState": "finding a running novad", "CodeAuthUnavailable": "finding a running novad",
	},
	"index/generation": {
		"Filters": "a search's hard filters, applied beside the data they read",
	},
}

// TestStorageUsesOfAPI: the storage packages name package api only at the
// conversion points in apiUses. A new use means converting at one of
// them, or adding the identifier above with its reason.
func TestStorageUsesOfAPI(t *testing.T) {
	for _, p := range goList(t, "./...") {
		rel, ok := strings.CutPrefix(p.ImportPath, module+"/")
		if !ok || !slices.Contains(storage, rel) {
			continue
		}
		used := map[string][]string{}
		fset := token.NewFileSet()
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			local := ""
			for _, imp := range f.Imports {
				if imp.Path.Value == `"`+module+`/api"` {
					local = "api"
					if imp.Name != nil {
						local = imp.Name.Name
					}
				}
			}
			if local == "" {
				continue
			}
			ast.Inspect(f, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok {
					if id, ok := sel.X.(*ast.Ident); ok && id.Name == local {
						used[sel.Sel.Name] = append(used[sel.Sel.Name], fset.Position(sel.Pos()).String())
					}
				}
				return true
			})
		}
		names := make([]string, 0, len(used))
		for n := range used {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			if _, ok := apiUses["*"][n]; ok {
				continue
			}
			if _, ok := apiUses[rel][n]; !ok {
				t.Errorf("%s names api.%s (at %s), which is not one of its conversion points", rel, n, used[n][0])
			}
		}
	}
}

// TestSearchLinksNoReader: the recall engine redacts the paths it serves
// through package redact and links none of the transcript readers
// (index/ingest), which it has no use for.
func TestSearchLinksNoReader(t *testing.T) {
	for _, p := range goList(t, "./search") {
		if p.ImportPath == module+"/index/ingest" {
			t.Errorf("./search links %s", p.ImportPath)
		}
	}
}
