package daemon_test

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

// TestRetiredGenerationsUnmapped: the segments of a generation novad no
// longer serves are unmapped once no search uses them, not whenever the
// Go runtime next collects garbage. A sync that rewrites a record retires
// the segments that held it; retention deletes them, and a daemon whose
// heap barely grows between promotions (an idle novad, or one with a
// large heap) kept every deleted file mapped, its disk space held, until
// the next collection: with collection left to the runtime here, this
// process's mappings of deleted files grew by about 58 at every sync
// (novad's, and those of the syncs the test runs in process), and 9 were
// left at the end. /proc/self/maps shows them; Linux only.
func TestRetiredGenerationsUnmapped(t *testing.T) {
	if _, err := os.Stat("/proc/self/maps"); err != nil {
		t.Skip("needs /proc/self/maps")
	}
	// No collection but the ones novad asks for: the test's own syncs
	// would otherwise collect at times of their own.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	n := startLogged(t)
	segments := filepath.Join(filepath.Dir(n.src), "home", "index", "segments")
	for i := range 12 {
		// A rewrite of the one record retires its document: the
		// generation is rewritten and the old segments deleted.
		if err := os.WriteFile(n.src, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		n.appendAndServe(fmt.Sprintf(`{"id":"a","text":"Rewrite %d: the deploy queue stalls when runner pool %d is empty."}`, i, 7100+i))
	}
	// Unmapping follows the collection novad asks for, on the runtime's
	// cleanup goroutine: give it its turn, without collecting here.
	var deleted []string
	for range 200 {
		if deleted = deletedMappings(t, segments); len(deleted) == 0 {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Errorf("after 12 promotions novad still maps %d deleted segment files, e.g. %s", len(deleted), deleted[0])
}

// deletedMappings lists this process's mappings of files under dir that
// were deleted.
func deletedMappings(t *testing.T, dir string) []string {
	t.Helper()
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if i := strings.Index(line, dir+string(filepath.Separator)); i >= 0 && strings.HasSuffix(line, " (deleted)") {
			out = append(out, line[i:])
		}
	}
	return out
}
