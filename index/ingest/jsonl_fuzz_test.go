package ingest

import (
	"encoding/json"
	"reflect"
	"testing"

	gojson "github.com/goccy/go-json"
)

// FuzzDecodeJSONLRecord: decodeJSONLRecord reads a line with goccy/go-json
// first; on any bytes that decoder must not accept what encoding/json
// refuses, nor read a line differently, nor panic.
func FuzzDecodeJSONLRecord(f *testing.F) {
	for _, s := range []string{
		`{"id":"a","text":"The deploy failed.","date":"2026-11-03","tags":["x","y"],"session":"s1"}`,
		`{"id":42,"text":"t","tags":"a, b","subject":"board"}`,
		`{"id":"a","text":null,"tags":{"k":1}}`, `{"id":"a","text":"\u00e9\ud83d\ude00"}`,
		`{"id":"a","text":"x"} trailing`, `{"id":"a","text":"x"`, `[1]`, `"s"`, `{"ID":"a","TEXT":"case"}`,
		`{"id":"a","id":"b","text":"dup"}`, `{"id":1e400,"text":"x"}`, "{\"id\":\"a\",\"text\":\"\xff\"}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var fast, std jsonlRecord
		fastErr := gojson.Unmarshal(line, &fast)
		stdErr := json.Unmarshal(line, &std)
		if stdErr != nil && fastErr == nil {
			t.Fatalf("goccy accepts what encoding/json refuses (%v): %q", stdErr, line)
		}
		if fastErr == nil && !reflect.DeepEqual(fast, std) {
			t.Fatalf("read differently: %q\n goccy %+v\n  std %+v", line, fast, std)
		}
		got, err := decodeJSONLRecord(line)
		if (err == nil) != (stdErr == nil) || err == nil && !reflect.DeepEqual(got, std) {
			t.Fatalf("decodeJSONLRecord(%q) = %+v, %v; encoding/json: %+v, %v", line, got, err, std, stdErr)
		}
	})
}
