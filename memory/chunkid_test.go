package memory

import (
	"strings"
	"testing"
)

// TestChunkID_distinct: ids that look like a piece of another record
// ("x#2", "x#", "x#2#") and the pieces of "x" all get ids of their own;
// ordinary ids are the record's as written.
func TestChunkID_distinct(t *testing.T) {
	seen := map[string]string{}
	add := func(rid string, parts int) {
		for part := 1; part <= parts; part++ {
			id := ChunkID("notes", rid, part, parts)
			what := rid
			if parts > 1 {
				what += " piece " + string(rune('0'+part))
			}
			if other, dup := seen[id]; dup {
				t.Errorf("%s and %s are both %q", other, what, id)
			}
			seen[id] = what
		}
	}
	add("x", 3)
	add("x#2", 1)
	add("x#", 1)
	add("x#2#", 1)
	add("x#2", 3)
	add("x#1#2", 1)
	add("x#1", 2)
	for rid, want := range map[string]string{"mem-001": "notes:mem-001", "a.md#setup": "notes:a.md#setup", "a.md#key~2": "notes:a.md#key~2", "x#2": "notes:x#2#"} {
		if got := ChunkID("notes", rid, 1, 1); got != want {
			t.Errorf("ChunkID(%q) = %q, want %q", rid, got, want)
		}
	}
	if got := ChunkID("notes", "mem-001", 2, 3); got != "notes:mem-001#2" {
		t.Errorf("a piece: %q", got)
	}
}

// TestIsChunkID: IsChunkID says yes to exactly the id ChunkID gives,
// longer than its buffer too, and no to the ids one byte or one piece
// away.
func TestIsChunkID(t *testing.T) {
	long := strings.Repeat("r", 200)
	for _, c := range []struct {
		source, rid string
		part, parts int
	}{
		{"notes", "r1", 0, 1}, {"notes", "r1", 2, 3}, {"notes", "x#2", 1, 1}, {"notes", "x#", 1, 2}, {"notes", "r1", -1, 2},
		{"", "", 0, 0}, {"notes", long, 7, 9}, {long, "r1", 1, 1},
	} {
		id := ChunkID(c.source, c.rid, c.part, c.parts)
		if !IsChunkID(id, c.source, c.rid, c.part, c.parts) {
			t.Errorf("IsChunkID(%q) of its own parts = false", id)
		}
		for _, other := range []string{id + "#", id[:len(id)-1], "", ChunkID(c.source, c.rid, c.part+1, c.parts+2)} {
			if other != id && IsChunkID(other, c.source, c.rid, c.part, c.parts) {
				t.Errorf("IsChunkID(%q) = true for the parts of %q", other, id)
			}
		}
	}
}
