package generation

// CacheEntries is how many segments c keeps an entry for, live or not.
func CacheEntries(c *Cache) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.segs)
}
