package client

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/nova-recall/nova/api"
)

// FuzzDecodeResponse: the client decodes whatever answers on novad's
// ports with goccy/go-json. On any bytes it must neither panic nor accept
// what encoding/json refuses, and what both accept must decode to the
// same envelope.
func FuzzDecodeResponse(f *testing.F) {
	for _, s := range []string{
		`{"schemaVersion":2,"available":true,"results":[{"id":"a","score":0.5,"scoreComponents":{"bm25":1}}]}`,
		`{"schemaVersion":2,"query":"q","topK":10,"queryPlan":{"keyTerms":["x"]},"ragStatus":{"ready":true}}`,
		`{"schemaVersion":2,"results":[{"text":"a\u2028b","tags":["x",null]}],"reason":null}`,
		`{"schemaVersion":2,"results":[}`, `[1,2]`, `"s"`, `{"schemaVersion":2} {}`, `{"a":1e999}`,
		`{"schemaVersion":"2"}`, `{"results":{"0":1}}`, "{\"query\":\"\xff\"}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var got, want api.SearchResponse
		gotErr := decodeResponse(b, &got)
		wantErr := json.Unmarshal(b, &want)
		if wantErr != nil && gotErr == nil {
			t.Fatalf("accepted what encoding/json refuses (%v): %q", wantErr, b)
		}
		if gotErr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("decoded differently: %q\n got %+v\nwant %+v", b, got, want)
		}
	})
}
