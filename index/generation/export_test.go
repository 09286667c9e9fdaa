package generation

// CacheEntries is how many segments c keeps an entry for, live or not.
func CacheEntries(c *Cache) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.segs)
}

// Opened is how many of g's segments its Prepare releases: those it
// opened itself.
func Opened(g *Generation) int { return len(g.opened()) }

// FencesRead reports whether g's id fences of segment s are the very ones
// other holds (read once, not read again).
func FencesRead(g, other *Generation, s int) bool {
	a, b := g.idFences()[s], other.idFences()[s]
	return len(a) > 0 && len(a) == len(b) && &a[0] == &b[0]
}
