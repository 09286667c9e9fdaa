package ingest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/memory"
)

// BenchmarkReadMarkdown_bigNote reads a note of every shape (bigNote: a
// daily log of front matter, dated days, headings, tasks, code fences,
// quotes, and now and then a token to redact), the kind of note a user
// appends to for years, whole and as the same text cut into one note a
// day: the reader's cost is per byte, not per note or per section.
func BenchmarkReadMarkdown_bigNote(b *testing.B) {
	for _, size := range []int{1 << 20, 4 << 20} {
		note := bigNote(size, false)
		whole := b.TempDir()
		if err := os.WriteFile(filepath.Join(whole, "log.md"), []byte(note), 0o600); err != nil {
			b.Fatal(err)
		}
		days := b.TempDir()
		for i, day := range strings.SplitAfter(note, "\n## ") {
			if err := os.WriteFile(filepath.Join(days, fmt.Sprintf("day%05d.md", i)), []byte(day), 0o600); err != nil {
				b.Fatal(err)
			}
		}
		for _, c := range []struct{ name, dir string }{{"whole", whole}, {"days", days}} {
			b.Run(fmt.Sprintf("%s/%dMiB", c.name, size>>20), func(b *testing.B) {
				src := config.Source{Name: "notes", Kind: config.KindMarkdown, Path: c.dir}
				b.SetBytes(int64(len(note)))
				for b.Loop() {
					records := 0
					sink := Sink{Record: func(memory.Record) error { records++; return nil }, Problem: func(p Problem) { b.Errorf("problem %+v", p) }}
					if err := Read(context.Background(), src, sink); err != nil || records == 0 {
						b.Fatalf("%d records, %v", records, err)
					}
				}
			})
		}
	}
}

// FuzzInlineTagIndex: inlineTagIndex finds what inlineTag finds, at the
// same offsets: tags at the start, after every kind of blank, Logseq's
// of several words, accents, marks, numbers, and invalid UTF-8.
func FuzzInlineTagIndex(f *testing.F) {
	for _, s := range []string{"", "#a", "x #a", "#a #b", "#a#b", "a\t#b\n#c\f#d\r#e\v#f", "see\u3000#タグ and\u00a0#nbsp",
		"#[[machine learning]] #[[a|b]] #[[]]", "#café #cafe\u0301 #1 issue #123 #a/b-c_d", "\xff#a \xe3\x80#b", "## heading #", "# #"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := inlineTagIndex(s), inlineTag().FindAllStringSubmatchIndex(s, -1); !reflect.DeepEqual(got, want) {
			t.Errorf("inlineTagIndex(%q) = %v, want %v", s, got, want)
		}
	})
}

// TestInlineTagIndex_random compares inlineTagIndex with inlineTag on
// random strings of the characters that matter to a tag.
func TestInlineTagIndex_random(t *testing.T) {
	alphabet := []string{" ", "\t", "\n", "\f", "\r", "\v", "\u3000", "\u00a0", "#", "#", "#", "[", "[[", "]]", "]", "|", "a", "é", "\u0301", "1", "_", "/", "-", ".", "\xff", "\xe3\x80", "タ", "🚀", "🏽", "‼"}
	rnd := rand.New(rand.NewPCG(1, 2))
	for range 50000 {
		var b strings.Builder
		for range rnd.IntN(16) {
			b.WriteString(alphabet[rnd.IntN(len(alphabet))])
		}
		s := b.String()
		if got, want := inlineTagIndex(s), inlineTag().FindAllStringSubmatchIndex(s, -1); !reflect.DeepEqual(got, want) {
			t.Fatalf("inlineTagIndex(%q) = %v, want %v", s, got, want)
		}
	}
}

// BenchmarkReadMarkdown_manyTags reads a log of 40 000 days, each with a
// tag of its own (#issue-1234): the note's tags are gathered once each,
// not compared with all those found before.
func BenchmarkReadMarkdown_manyTags(b *testing.B) {
	dir := b.TempDir()
	var note strings.Builder
	for i := range 40000 {
		fmt.Fprintf(&note, "## Day %d\n\nFixed #issue-%d today.\n\n", i, i)
	}
	if err := os.WriteFile(filepath.Join(dir, "log.md"), []byte(note.String()), 0o600); err != nil {
		b.Fatal(err)
	}
	src := config.Source{Name: "notes", Kind: config.KindMarkdown, Path: dir}
	b.SetBytes(int64(note.Len()))
	for b.Loop() {
		records := 0
		sink := Sink{Record: func(memory.Record) error { records++; return nil }, Problem: func(p Problem) { b.Errorf("problem %+v", p) }}
		if err := Read(context.Background(), src, sink); err != nil || records != 40000 {
			b.Fatalf("%d records, %v", records, err)
		}
	}
}

// TestFoldKey: two strings have the same foldKey exactly when
// strings.EqualFold holds of them.
func TestFoldKey(t *testing.T) {
	alphabet := []string{"k", "K", "\u212a", "s", "S", "ſ", "ß", "ẞ", "σ", "ς", "Σ", "i", "I", "İ", "ı", "é", "É", "e\u0301", "\xff", "\ufffd", "-", "1"}
	rnd := rand.New(rand.NewPCG(3, 4))
	word := func() string {
		var b strings.Builder
		for range rnd.IntN(4) {
			b.WriteString(alphabet[rnd.IntN(len(alphabet))])
		}
		return b.String()
	}
	for range 50000 {
		a, b := word(), word()
		if got, want := foldKey(a) == foldKey(b), strings.EqualFold(a, b); got != want {
			t.Fatalf("foldKey(%q) == foldKey(%q) is %v, EqualFold %v", a, b, got, want)
		}
	}
}

// TestRead_secretInTag: a note's tags, on each of its records, are
// redacted on each, and each counts their redactions, however the
// reader shares the list between them; a section's own tag is redacted
// and counted on that section's record.
func TestRead_secretInTag(t *testing.T) {
	note := "---\ntags: [ghp_q8Rz3kWm5Tn0Vb7Yc2Xl9Pd4Hf6Js1Ga8Ke3, work]\n---\n\n## One\n\nFirst.\n\n## Two\n\nSecond #ghp_Zq8Rz3kWm5Tn0Vb7Yc2Xl9Pd4Hf6Js1Ga8Ke #deploy\n"
	dir := writeTree(t, map[string]string{"log.md": note})
	recs, problems := collect(t, config.Source{Name: "notes", Kind: config.KindMarkdown, Path: dir})
	if len(recs) != 2 || len(problems) != 0 {
		t.Fatalf("%d records, problems %v", len(recs), problems)
	}
	// The second's text holds a secret too.
	want := []struct {
		tags       string
		redactions int
	}{{"[redacted],work", 1}, {"[redacted],work,[redacted],deploy", 3}}
	for i, r := range recs {
		if got := strings.Join(r.Tags, ","); got != want[i].tags || r.Redactions != want[i].redactions {
			t.Errorf("record %s: tags %q, %d redactions; want %q, %d", r.ID, got, r.Redactions, want[i].tags, want[i].redactions)
		}
	}
}
