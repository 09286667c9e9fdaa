package lexical

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// TestStemMemoHoldsWordsNotTexts: the stem memo keys the words of the
// texts it analyses. A word is a slice of its normalised text, and
// keeping the slice kept the whole text: the watcher's analyzer lives for
// weeks, and each chunk that brought a word it had not seen before stayed
// in memory until the memo filled (200 000 words), as did each query that
// did so in novad. Here 400 texts of 32 KiB, each with one new word, held
// 16 MiB.
func TestStemMemoHoldsWordsNotTexts(t *testing.T) {
	a := NewAnalyzer()
	filler := strings.Repeat("1234567 ", 4<<10) // no stemmed word of its own
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before := heap()
	const texts = 400
	for i := range texts {
		// One word the memo has not seen, made of letters only.
		word := fmt.Sprintf("zq%sx", strings.Map(func(r rune) rune { return 'a' + (r-'0')%26 }, fmt.Sprint(1000000+i)))
		_ = a.Terms(word + " " + filler)
	}
	after := heap()
	if grew := int64(after) - int64(before); grew > 2<<20 {
		t.Errorf("the stem memo of %d new words holds %d KiB: the texts they came from", texts, grew>>10)
	}
	runtime.KeepAlive(a)
}
