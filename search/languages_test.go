package search_test

import (
	"slices"
	"testing"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/search"
)

// languagesSnapshot indexes a few memories in each of Japanese, Korean,
// German, French, Spanish, Russian, Vietnamese, Thai, Lao, Khmer and
// Myanmar, and some mixing
// scripts in one identifier.
func languagesSnapshot(t *testing.T) *search.Snapshot {
	return build(t, config.Source{Name: "notes", Kind: config.KindJSONL, Path: "languages/records"})
}

// TestLanguages_questionFindsItsMemory: a question as a user types it, in
// the memory's language, finds the memory among the first three: with or
// without the accents and tone marks, a Korean noun with or without its
// particle, a word inside a Japanese run without spaces, a Russian noun
// in another case than the memory's (база for базы, встреча for
// Встречу), an identifier that mixes scripts.
func TestLanguages_questionFindsItsMemory(t *testing.T) {
	snap := languagesSnapshot(t)
	e := engineWith()
	for _, c := range []struct{ q, want string }{
		{"データベースの移行はいつ", "ja-1"},
		{"移行", "ja-1"},
		{"プリンターはどこ", "ja-2"},
		{"会議室", "ja-2"},
		{"猫の餌", "ja-3"},
		{"証明書の更新", "ja-4"},
		{"회의가 언제야", "ko-1"},
		{"프린터가 어디", "ko-2"},
		{"데이터베이스 이전", "ko-3"},
		{"고양이 사료", "ko-4"},
		{"사료가", "ko-4"},
		{"Wo steht der Drucker", "de-2"},
		{"Schluessel Serverraum", "de-3"},
		{"Schlüssel", "de-3"},
		{"Festplatten", "de-4"},
		{"ou est la reunion", "fr-1"},
		{"cafe", "fr-1"},
		{"réunions", "fr-1"},
		{"sauvegarde base de donnees", "fr-2"},
		{"ecran", "fr-3"},
		{"contrasena del router", "es-1"},
		{"contraseñas", "es-1"},
		{"manana migracion base de datos", "es-2"},
		{"llave almacen", "es-3"},
		{"резервная копия базы", "ru-1"},
		{"база", "ru-1"},
		{"копия", "ru-1"},
		{"сервер", "ru-1"},
		{"встреча с клиентом", "ru-2"},
		{"встреча", "ru-2"},
		{"пароли", "ru-3"},
		{"менеджер", "ru-3"},
		{"ключ от склада", "ru-4"},
		{"ящик", "ru-4"},
		{"cuoc hop", "vi-1"},
		{"mat khau wifi", "vi-2"},
		{"chìa khóa kho", "vi-3"},
		{"parseKonfiguration", "mx-1"},
		{"config_uber.yaml", "mx-1"},
		{"srv-東京-01", "mx-2"},
		// Thai, Lao, Khmer and Myanmar write no spaces between words:
		// a word inside a run (a Thai sentence was one term).
		{"ฐานข้อมูล", "th-1"},
		{"ฐานข้อมูลล่มเพราะอะไร", "th-1"},
		{"เครื่องพิมพ์อยู่ที่ไหน", "th-2"},
		{"อาหารแมว", "th-3"},
		{"ກອງປະຊຸມ", "lo-1"},
		{"ម៉ាស៊ីនបោះពុម្ព", "km-1"},
		{"အစည်းအဝေး", "my-1"},
	} {
		resp := ask(t, e, snap, api.SearchRequest{Query: c.q, TopK: 5})
		if r := rank(resp, c.want); r < 0 || r > 2 {
			t.Errorf("%q: %s at rank %d, want 1 to 3: %v", c.q, c.want, r+1, ids(resp))
		}
	}
}

// TestLanguages_russianFormsCoverTheTerm: a memory that wrote a Russian
// word in another case than the question covers the question's word, as
// retrieval matched it: the quality report called база missing from the
// memory that wrote базы, and the search that found it weak.
func TestLanguages_russianFormsCoverTheTerm(t *testing.T) {
	snap := languagesSnapshot(t)
	e := engineWith()
	for _, c := range []struct{ q, want string }{
		{"база", "ru-1"},
		{"встреча", "ru-2"},
		{"пароли", "ru-3"},
		{"ключ от склада", "ru-4"},
	} {
		resp := ask(t, e, snap, api.SearchRequest{Query: c.q, TopK: 5})
		if rank(resp, c.want) != 0 {
			t.Errorf("%q: want %s first, got %v", c.q, c.want, ids(resp))
			continue
		}
		if q := resp.Quality; len(q.MissingTerms) > 0 || q.Status != "strong" {
			t.Errorf("%q: quality %s, key terms %q missing %q; want strong, none missing", c.q, q.Status, q.KeyTerms, q.MissingTerms)
		}
		// Russian's function words are no key terms, as English's are not.
		if slices.Contains(resp.Quality.KeyTerms, "от") {
			t.Errorf("%q: the preposition от is a key term: %q", c.q, resp.Quality.KeyTerms)
		}
	}
}

// TestLanguages_koreanParticleCoversTheNoun: Korean writes its particles
// onto the noun (프린터가, 프린터는), so a question's word with one
// particle is covered by the memory's word with another: the quality
// report called 프린터가 missing from the memory that wrote 프린터는, and
// the search weak, for the usual way to ask in Korean.
func TestLanguages_koreanParticleCoversTheNoun(t *testing.T) {
	snap := languagesSnapshot(t)
	e := engineWith()
	for _, c := range []struct{ q, want, term string }{
		{"프린터가", "ko-2", "프린터"},
		{"고양이 사료가", "ko-4", "사료"},
		{"데이터베이스는 이전", "ko-3", "데이터베이스"},
		{"데이터베이스", "ko-3", "데이터베이스"},
	} {
		resp := ask(t, e, snap, api.SearchRequest{Query: c.q, TopK: 5})
		if r := rank(resp, c.want); r < 0 || r > 2 {
			t.Errorf("%q: %s at rank %d, want 1 to 3: %v", c.q, c.want, r+1, ids(resp))
			continue
		}
		if q := resp.Quality; len(q.MissingTerms) > 0 || !slices.Contains(q.KeyTerms, c.term) {
			t.Errorf("%q: key terms %q missing %q; want %s among them, none missing", c.q, q.KeyTerms, q.MissingTerms, c.term)
		}
	}
}

// TestLanguages_thaiKeyTerms: a Thai question's terms are the pieces
// between its question and function words (Nova has no Thai dictionary),
// checked against the memories as Chinese terms are. It had none, and
// every Thai question was called strong, one that nothing answers too.
func TestLanguages_thaiKeyTerms(t *testing.T) {
	snap := languagesSnapshot(t)
	e := engineWith()
	resp := ask(t, e, snap, api.SearchRequest{Query: "ฐานข้อมูลล่มเพราะอะไร", TopK: 3})
	if !slices.Equal(resp.QueryPlan.KeyTerms, []string{"ฐานข้อมูลล่ม"}) || resp.Quality.Status != "strong" {
		t.Errorf("why did the database crash: key terms %q, quality %s", resp.QueryPlan.KeyTerms, resp.Quality.Status)
	}
	// "The skytrain broke down": nothing here says so.
	resp = ask(t, e, snap, api.SearchRequest{Query: "รถไฟฟ้าเสีย", TopK: 3})
	if resp.Quality.Status == "strong" || !slices.Contains(resp.Quality.MissingTerms, "รถไฟฟ้าเสีย") {
		t.Errorf("an unanswered Thai question: quality %s, missing %q", resp.Quality.Status, resp.Quality.MissingTerms)
	}
}
