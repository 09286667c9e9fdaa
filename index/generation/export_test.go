package generation

// IDLess is the order ties in score are broken by (idLess), for tests.
func (g *Generation) IDLess(a, b int) bool { return g.idLess(a, b) }
