//go:build !purego

package vector

import "golang.org/x/sys/cpu"

// dotVector says whether dotInt8Vector may run: AVX2, which every x86 Mac
// since 2013 has.
var dotVector = cpu.X86.HasAVX2

// dotInt8Vector is the dot product of the n int8s at a and b, n a
// positive multiple of dotBlock (dot_amd64.s).
//
//go:noescape
func dotInt8Vector(a, b *int8, n int) int32

// prefetchRow asks for the cache lines of the n bytes at p, n > 0.
//
//go:noescape
func prefetchRow(p *int8, n int)
