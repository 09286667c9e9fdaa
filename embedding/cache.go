package embedding

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"unsafe"

	"github.com/nova-recall/nova/atomicfile"
	"github.com/nova-recall/nova/paths"
)

// Key is the cache key of a text: the SHA-256 of the exact text embedded.
type Key [32]byte

// KeyOf returns the cache key of text.
func KeyOf(text string) Key { return sha256.Sum256([]byte(text)) }

// Cache holds vectors of one embedding profile keyed by text hash, so a
// rebuild embeds only new or changed text. It lives in one append-only file
// per profile; torn or corrupt records (a crash mid-append) are skipped on
// load. A Cache is used by one build at a time (the index lock) and is not
// safe for concurrent use.
type Cache struct {
	path    string
	dim     int
	index   map[Key]int // key -> row in rows
	rows    []float32
	pending []Key
	used    map[Key]bool
	// valid is the length of the file's readable prefix (header and whole
	// records); Flush appends there, dropping a torn tail.
	valid int64
}

const cacheMagic = "NOVVEC01"

// OpenCache opens (or starts) the cache of profileHash in dir.
func OpenCache(dir, profileHash string, dim int) (*Cache, error) {
	if err := paths.MkdirPrivate(dir); err != nil {
		return nil, fmt.Errorf("create embedding cache: %w", err)
	}
	c := &Cache{path: filepath.Join(dir, profileHash+".vec"), dim: dim, index: map[Key]int{}, used: map[Key]bool{}}
	// Never through a symbolic link (see Flush): one found here is read
	// as no cache, and Flush refuses to write it.
	// Nor through a named pipe, whose open would wait for a writer and
	// hold up the build: NonBlock, and what is opened must be a file.
	f, err := os.OpenFile(c.path, os.O_RDONLY|paths.NoFollow|paths.NonBlock, 0)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ELOOP) {
		return c, nil
	}
	if err != nil {
		return nil, fmt.Errorf("open embedding cache: %w", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return c, nil // read as no cache; Flush refuses to write it
	}
	r := bufio.NewReaderSize(f, 1<<20)
	head := make([]byte, len(cacheMagic)+4)
	if _, err := io.ReadFull(r, head); err != nil || string(head[:len(cacheMagic)]) != cacheMagic ||
		int(binary.LittleEndian.Uint32(head[len(cacheMagic):])) != dim {
		// An unreadable cache is only a cache: start over.
		return c, nil
	}
	c.valid = int64(len(head))
	rec := make([]byte, 32+dim*4+4)
	for {
		if _, err := io.ReadFull(r, rec); err != nil {
			break
		}
		body := rec[:32+dim*4]
		if crc32.ChecksumIEEE(body) != binary.LittleEndian.Uint32(rec[32+dim*4:]) {
			break // a torn tail; everything after it is suspect
		}
		c.valid += int64(len(rec))
		var k Key
		copy(k[:], rec[:32])
		if _, dup := c.index[k]; dup {
			continue
		}
		row := len(c.rows) / dim
		vec := make([]float32, dim)
		copy(unsafe.Slice((*byte)(unsafe.Pointer(&vec[0])), dim*4), rec[32:32+dim*4])
		c.rows = append(c.rows, vec...)
		c.index[k] = row
	}
	return c, nil
}

// Len is the number of cached vectors.
func (c *Cache) Len() int { return len(c.index) }

// Get returns the cached vector of k (a copy).
func (c *Cache) Get(k Key) ([]float32, bool) {
	row, ok := c.index[k]
	if !ok {
		return nil, false
	}
	c.used[k] = true
	return append([]float32(nil), c.rows[row*c.dim:(row+1)*c.dim]...), true
}

// Put adds a vector; it is written by Flush.
func (c *Cache) Put(k Key, vec []float32) {
	if _, ok := c.index[k]; ok || len(vec) != c.dim {
		return
	}
	c.index[k] = len(c.rows) / c.dim
	c.rows = append(c.rows, vec...)
	c.pending = append(c.pending, k)
	c.used[k] = true
}

// Flush appends new vectors to the file. It drops none: a build that
// looks up only some texts (a sync, or a build that carries the codes of
// unchanged files) says nothing of the others, which the next build of a
// new space needs (Compact).
func (c *Cache) Flush() error {
	if len(c.pending) == 0 {
		return nil
	}
	// Never through a symbolic link: the name is the profile hash /health
	// publishes, so a link planted while the home was open to others would
	// have the file it points to truncated and overwritten with vectors.
	// Nor through a named pipe, whose open (NonBlock: it fails when no
	// reader waits) or write would wait and hold up the build.
	f, err := os.OpenFile(c.path, os.O_WRONLY|os.O_CREATE|paths.NoFollow|paths.NonBlock, paths.FileMode)
	if errors.Is(err, syscall.ELOOP) {
		return fmt.Errorf("append embedding cache: %s %w", c.path, atomicfile.ErrSymlink)
	}
	if errors.Is(err, syscall.ENXIO) {
		// What a write-only NonBlock open of a named pipe no one reads
		// fails with.
		err = &paths.NotFileError{Path: c.path, Mode: fs.ModeNamedPipe}
	}
	if err != nil {
		return fmt.Errorf("append embedding cache: %w", err)
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = &paths.NotFileError{Path: c.path, Mode: fi.Mode()}
		}
		return fmt.Errorf("append embedding cache: %w", err)
	}
	// Append after the last whole record: anything beyond it (a torn
	// record, an unreadable header) would hide what is written now from
	// every later OpenCache.
	if err := f.Truncate(c.valid); err != nil {
		f.Close()
		return fmt.Errorf("append embedding cache: %w", err)
	}
	if _, err := f.Seek(c.valid, io.SeekStart); err != nil {
		f.Close()
		return fmt.Errorf("append embedding cache: %w", err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	n := c.valid
	if n == 0 {
		c.writeHeader(w)
		n += int64(len(cacheMagic) + 4)
	}
	for _, k := range c.pending {
		c.writeRecord(w, k)
	}
	n += int64(len(c.pending) * c.recordSize())
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	c.pending = nil
	c.valid = n
	return f.Close()
}

func (c *Cache) recordSize() int { return 32 + c.dim*4 + 4 }

// Compact writes the new vectors and, when most of the file is vectors
// this build did not use (Get or Put), rewrites it with only the used
// ones. Only a build that looked up every text it holds may call it in
// place of Flush (one that embeds into a new space, carrying no codes):
// any other would drop the vectors of text it still holds, and the next
// build of a new space would embed them again.
func (c *Cache) Compact() error {
	if len(c.index) <= 1024 || len(c.used)*2 >= len(c.index) {
		return c.Flush()
	}
	err := atomicfile.WriteFunc(c.path, paths.FileMode, func(f io.Writer) error {
		w := bufio.NewWriterSize(f, 1<<20)
		c.writeHeader(w)
		for k := range c.used {
			c.writeRecord(w, k)
		}
		return w.Flush()
	})
	if err != nil {
		return err
	}
	c.pending = nil
	c.valid = int64(len(cacheMagic)+4) + int64(len(c.used)*c.recordSize())
	return nil
}

func (c *Cache) writeHeader(w io.Writer) {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], uint32(c.dim))
	// w is a bufio.Writer: a write error sticks and Flush returns it.
	_, _ = w.Write([]byte(cacheMagic))
	_, _ = w.Write(b[:])
}

func (c *Cache) writeRecord(w io.Writer, k Key) {
	row := c.index[k]
	vec := c.rows[row*c.dim : (row+1)*c.dim]
	body := make([]byte, 0, 32+c.dim*4)
	body = append(body, k[:]...)
	body = append(body, unsafe.Slice((*byte)(unsafe.Pointer(&vec[0])), c.dim*4)...)
	var crc [4]byte
	binary.LittleEndian.PutUint32(crc[:], crc32.ChecksumIEEE(body))
	// w is a bufio.Writer: a write error sticks and Flush returns it.
	_, _ = w.Write(body)
	_, _ = w.Write(crc[:])
}
