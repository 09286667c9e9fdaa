package ingest_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/text/unicode/norm"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/search"
)

// TestSearch_unicodeForms: notes written in one Unicode form are found by
// a query typed in the other, through a real build and search: a file
// name and body in the decomposed form macOS and some apps give (Latin
// and Vietnamese accents, Hangul as conjoining jamo, kana with a
// combining voiced mark) by a composed query, and a composed note by a
// decomposed query, quoted phrases too. The result's source path is the file's own name, so
// a citation still opens the file.
func TestSearch_unicodeForms(t *testing.T) {
	files := map[string]string{
		norm.NFD.String("Café réunion.md"): norm.NFD.String("# Réunion au café\n\nLa réunion à Hà Nội a choisi le port 7411 pour le proxy.\n"),
		norm.NFD.String("회의록.md"):          norm.NFD.String("# 회의록\n\n배포 서버의 포트는 7412 입니다.\n"),
		norm.NFD.String("ガラス工房.md"):        norm.NFD.String("# ガラス工房\n\nグラフの描画ポートは 7413 です。\n"),
		"Quán phở.md":                      "# Quán phở\n\nQuán phở gần văn phòng đóng cửa lúc 21 giờ.\n",
	}
	cfg, now := syncSource(t, config.Source{Kind: config.KindMarkdown}, files)
	_, g, err := index.OpenActive(context.Background(), cfg.Home, lexical.NewAnalyzer())
	if err != nil {
		t.Fatal(err)
	}
	engine := search.New(search.Config{Now: now}, lexical.NewAnalyzer())
	for _, tt := range []struct{ query, file string }{
		{"réunion Hà Nội", "Café réunion.md"},
		{"café", "Café réunion.md"},
		{"회의록 포트", "회의록.md"},
		{"ガラス工房", "ガラス工房.md"},
		{"グラフ", "ガラス工房.md"},
		{norm.NFD.String("Quán phở văn phòng"), "Quán phở.md"},
		{`"la réunion à Hà Nội"`, "Café réunion.md"},
		{norm.NFD.String(`"quán phở gần văn phòng"`), "Quán phở.md"},
		{"ガラス工房.md 7413", "ガラス工房.md"},
	} {
		r, err := engine.Search(context.Background(), &search.Snapshot{Gen: g, Query: g.Model}, api.SearchRequest{Query: tt.query, TopK: 5})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Results) == 0 {
			t.Errorf("%q found nothing", tt.query)
			continue
		}
		top := r.Results[0]
		p := top.Provenance.SourcePath
		if p == nil || norm.NFC.String(filepath.Base(*p)) != norm.NFC.String(tt.file) {
			t.Errorf("%q: top result %s from %q, want %q", tt.query, top.ID, deref(p), tt.file)
			continue
		}
		if _, err := os.Stat(*p); err != nil {
			t.Errorf("%q: the cited path does not open: %v", tt.query, err)
		}
	}
}

func deref(p *string) string {
	if p == nil {
		return "<nil>"
	}
	return *p
}
