package segment

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestOpenLeavesFilesNotResident: opening a segment reads every page of
// its postings and columns to validate them; those pages must not stay
// resident in the process (novad's memory), only in the page cache.
// Linux only: /proc/self/smaps is what tells a mapping's resident pages.
func TestOpenLeavesFilesNotResident(t *testing.T) {
	seg, files := writeSegment(t, t.TempDir(), sampleChunks(4000), nil)
	var size int64
	for _, f := range files {
		size += f.Size
	}
	r, err := Open(t.Context(), seg, files, 0, true)
	if err != nil {
		t.Fatal(err)
	}
	rss := residentKiB(t, seg)
	t.Logf("%d KiB mapped, %d KiB resident after Open", size/1024, rss)
	if size < 256<<10 {
		t.Fatalf("segment of %d bytes is too small to tell", size)
	}
	if rss*1024 > size/4 {
		t.Errorf("%d KiB of the segment's %d KiB resident after Open", rss, size/1024)
	}
	if _, err := r.Chunk(0); err != nil { // the mapping still reads
		t.Fatal(err)
	}
}

// residentKiB sums the resident pages of this process's mappings of
// files under dir.
func residentKiB(t *testing.T, dir string) int64 {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	var total int64
	inDir := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		switch {
		case len(fields) >= 5 && strings.Contains(fields[0], "-"):
			inDir = len(fields) >= 6 && strings.HasPrefix(fields[5], dir)
		case inDir && fields[0] == "Rss:":
			n, _ := strconv.ParseInt(fields[1], 10, 64)
			total += n
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return total
}
