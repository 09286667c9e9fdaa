package segment

import (
	"encoding/binary"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// dictBuilder interns the repeated strings of a segment (sources, paths,
// projects, dates, tags, conversations) as small ids. Id 0 is the empty
// string.
type dictBuilder struct {
	ids  map[string]uint32
	list []string
}

func newDictBuilder() *dictBuilder {
	return &dictBuilder{ids: map[string]uint32{"": 0}, list: []string{""}}
}

func (d *dictBuilder) id(s string) uint32 {
	if id, ok := d.ids[s]; ok {
		return id
	}
	id := uint32(len(d.list))
	s = strings.Clone(s) // do not pin the caller's (possibly large) buffer
	d.ids[s] = id
	d.list = append(d.list, s)
	return id
}

// lastID is the last string looked up in a dictionary at one place and
// its id; its zero value is the empty string's.
type lastID struct {
	s  string // the dictionary's copy, not the caller's
	id uint32
}

// lookup returns s's id in d, looking it up only when s is not the last
// string this place asked for.
func (l *lastID) lookup(d *dictBuilder, s string) uint32 {
	if s != l.s {
		l.id = d.id(s)
		l.s = d.list[l.id]
	}
	return l.id
}

// The dictionary file: magic "NOVDIC02", count u32, ends (count x u32,
// end offset of each string in id order), sorted (count x u32: ids in
// string order, for lookups), then the strings.
const dictMagic = "NOVDIC02"

func (d *dictBuilder) bytes() []byte {
	le := binary.LittleEndian
	b := append([]byte(dictMagic), 0, 0, 0, 0)
	le.PutUint32(b[8:], uint32(len(d.list)))
	end := uint32(0)
	for _, s := range d.list {
		end += uint32(len(s))
		b = le.AppendUint32(b, end)
	}
	order := make([]uint32, len(d.list))
	for i := range order {
		order[i] = uint32(i)
	}
	slices.SortFunc(order, func(a, c uint32) int { return strings.Compare(d.list[a], d.list[c]) })
	for _, id := range order {
		b = le.AppendUint32(b, id)
	}
	for _, s := range d.list {
		b = append(b, s...)
	}
	return b
}

// dict is a segment's dictionary: its tables read in place, its strings
// copied once into one string that every value is a slice of. Decoding a
// chunk then shares them instead of allocating copies, and the collector
// sees one object a segment, not one a string: a []string of them held
// 55 MB of novad's heap at 1M chunks (1.1 million strings).
type dict struct {
	n      int
	ends   []byte
	sorted []byte
	all    string // the strings, end to end
}

func openDict(b []byte) (*dict, error) {
	le := binary.LittleEndian
	if len(b) < 12 || string(b[:8]) != dictMagic {
		return nil, fmt.Errorf("%w: dictionary: bad magic", ErrCorrupt)
	}
	n := int(le.Uint32(b[8:]))
	if n < 1 || 12+8*uint64(n) > uint64(len(b)) {
		return nil, fmt.Errorf("%w: dictionary: count %d out of range", ErrCorrupt, n)
	}
	data := b[12+8*n:]
	d := &dict{n: n, ends: b[12 : 12+4*n], sorted: b[12+4*n : 12+8*n]}
	prev := uint32(0)
	for i := range n {
		end := le.Uint32(d.ends[4*i:])
		if end < prev || int(end) > len(data) {
			return nil, fmt.Errorf("%w: dictionary: string %d out of range", ErrCorrupt, i)
		}
		prev = end
	}
	if int(prev) != len(data) || le.Uint32(d.ends) != 0 {
		return nil, fmt.Errorf("%w: dictionary: strings do not fill the file", ErrCorrupt)
	}
	d.all = string(data)
	seen := make([]bool, n)
	for i := range n {
		id := le.Uint32(d.sorted[4*i:])
		if int(id) >= n || seen[id] || (i > 0 && d.str(le.Uint32(d.sorted[4*(i-1):])) >= d.str(id)) {
			return nil, fmt.Errorf("%w: dictionary: order table damaged", ErrCorrupt)
		}
		seen[id] = true
	}
	return d, nil
}

// str returns string id; an id out of range reads as "" (open checked
// every id a record or column holds, so this only guards).
func (d *dict) str(id uint32) string {
	if int(id) >= d.n || id == 0 {
		return ""
	}
	le := binary.LittleEndian
	return d.all[le.Uint32(d.ends[4*(id-1):]):le.Uint32(d.ends[4*id:])]
}

// lookup returns the id of s and whether the dictionary holds it.
func (d *dict) lookup(s string) (uint32, bool) {
	le := binary.LittleEndian
	i := sort.Search(d.n, func(i int) bool { return d.str(le.Uint32(d.sorted[4*i:])) >= s })
	if i < d.n {
		if id := le.Uint32(d.sorted[4*i:]); d.str(id) == s {
			return id, true
		}
	}
	return 0, false
}
