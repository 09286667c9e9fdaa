package lexical

import "testing"

// BenchmarkReadDictionary times what the first Chinese text in a process
// waits for (novad reads it beside serving; novactl on first use):
//
//	go test -run '^$' -bench ReadDictionary -benchtime=10x ./lexical
func BenchmarkReadDictionary(b *testing.B) {
	for b.Loop() {
		readDictionary(zhDictZst, zhAddedWords(), addedWordCount)
	}
}
