package doctor

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index/ingest"
)

// TestCheckSource_iCloudStubsSayHowToDownload: an Obsidian vault in
// iCloud Drive whose notes were evicted before macOS Sonoma holds hidden
// stubs (.Note.md.icloud) in their place; no sync reads them, so doctor
// says how many of the source's files are not downloaded, which, and how
// to download them, even when every note of the vault is evicted.
func TestCheckSource_iCloudStubsSayHowToDownload(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files []string
	}{
		{"some evicted", []string{"Kept.md", ".Trip plan.md.icloud", "travel/.Visa.md.icloud"}},
		{"all evicted", []string{".Trip plan.md.icloud", "travel/.Visa.md.icloud"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range append(tc.files, ".photo.jpg.icloud") {
				p := filepath.Join(dir, filepath.FromSlash(f))
				if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte("bplist00"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			c, _ := checkSource(config.Source{Name: "vault", Kind: config.KindMarkdown, Path: dir}, runtime.GOOS, nil, nil)
			if c.State != Degraded || c.Code != CodeSourceNotDownloaded {
				t.Fatalf("check %s %s (%s), want degraded %s", c.State, c.Code, c.Message, CodeSourceNotDownloaded)
			}
			for _, want := range []string{"2 files", "not downloaded", filepath.Join(dir, "Trip plan.md")} {
				if !strings.Contains(c.Message, want) {
					t.Errorf("message %q does not say %q", c.Message, want)
				}
			}
			for _, want := range []string{"Download Now", "Keep Downloaded", "brctl download '" + filepath.Join(dir, "Trip plan.md") + "'"} {
				if !strings.Contains(c.Advice, want) {
					t.Errorf("advice %q does not say %q", c.Advice, want)
				}
			}
		})
	}
}

// TestCheckSource_datalessFilesAreNotOpenedAndAreCounted: a file a File
// Provider keeps only in the cloud (dataless, macOS Sonoma on) is not
// opened by doctor, which must not start downloads, and the source's
// message says how many there are and what a sync does with them.
func TestCheckSource_datalessFilesAreNotOpenedAndAreCounted(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"a.md", "b.md", "c.md"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("# A note\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// Unreadable, as an open would find it: doctor must not try.
	if err := os.Chmod(filepath.Join(dir, "b.md"), 0); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		t.Log("as root the unreadable file opens anyway; the count is still checked")
	}
	prev := listSource
	listSource = func(s config.Source) (ingest.Listing, error) {
		l, err := ingest.List(s)
		for i := range l.Files {
			l.Files[i].Dataless = l.Files[i].Rel != "a.md"
		}
		return l, err
	}
	t.Cleanup(func() { listSource = prev })
	c, scan := checkSource(config.Source{Name: "vault", Kind: config.KindMarkdown, Path: dir}, runtime.GOOS, nil, nil)
	if c.State != Ready || !strings.Contains(c.Message, "2 files are kept only in the cloud") {
		t.Errorf("check %s %s %q, want ready, saying 2 files are kept only in the cloud", c.State, c.Code, c.Message)
	}
	if scan.files != 3 {
		t.Errorf("scan counted %d files, want 3", scan.files)
	}
}

// TestCheckSource_evictedFileSourceIsNotMissing: a source that is one
// note iCloud Drive evicted is not "missing" (fix the path): doctor says
// it is not downloaded and how to download it.
func TestCheckSource_evictedFileSourceIsNotMissing(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ".Journal.md.icloud"), []byte("bplist00"), 0o600); err != nil {
		t.Fatal(err)
	}
	note := filepath.Join(dir, "Journal.md")
	c, _ := checkSource(config.Source{Name: "journal", Kind: config.KindMarkdown, Path: note}, runtime.GOOS, nil, nil)
	if c.State != Degraded || c.Code != CodeSourceNotDownloaded || !strings.Contains(c.Message, note) || !strings.Contains(c.Advice, "brctl download "+note) {
		t.Errorf("check %s %s %q (%s), want degraded %s naming %s", c.State, c.Code, c.Message, c.Advice, CodeSourceNotDownloaded, note)
	}
}
