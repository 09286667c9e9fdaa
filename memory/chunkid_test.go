package memory

import "testing"

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
