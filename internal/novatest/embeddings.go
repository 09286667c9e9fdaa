package novatest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
)

// FakeEmbeddings serves an OpenAI-compatible /v1/embeddings on loopback
// until the test ends and returns its base URL (ending in /v1): each
// text's vector, of 8 dimensions, is derived from its bytes, so the same
// text has the same vector.
func FakeEmbeddings(t testing.TB) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		out := struct {
			Data []item `json:"data"`
		}{}
		for i, text := range req.Input {
			v := make([]float32, 8)
			for j, b := range []byte(text) {
				v[j%8] += float32(b%17) - 8
			}
			out.Data = append(out.Data, item{Index: i, Embedding: v})
		}
		_ = json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}
