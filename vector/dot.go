package vector

// dotInt8 is the dot product of two int8 vectors of the same length (b is
// cut to a's): the inner loop of the dense scan. Where the CPU has vector
// instructions for it (dot_amd64.s, dot_arm64.s), the largest multiple of
// dotBlock dimensions goes through them and the rest through dotInt8Go.
func dotInt8(a, b []int8) int32 {
	b = b[:len(a)]
	if !kernels || len(a) < dotBlock {
		return dotInt8Go(a, b)
	}
	n := len(a) &^ (dotBlock - 1)
	s := dotInt8Vector(&a[0], &b[0], n)
	if n < len(a) {
		// Only then: the scan calls this for every vector, and the call
		// for no dimensions cost a twentieth of it.
		s += dotInt8Go(a[n:], b[n:])
	}
	return s
}

// dotBlock is how many dimensions one step of the vector kernels takes.
const dotBlock = 32

// dotInt8Go is dotInt8 in Go, for CPUs without the vector kernel and for
// the dimensions after its last full block.
func dotInt8Go(a, b []int8) int32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 int32
	i := 0
	for ; i+8 <= len(a); i += 8 {
		x, y := a[i:i+8:i+8], b[i:i+8:i+8]
		s0 += int32(x[0])*int32(y[0]) + int32(x[4])*int32(y[4])
		s1 += int32(x[1])*int32(y[1]) + int32(x[5])*int32(y[5])
		s2 += int32(x[2])*int32(y[2]) + int32(x[6])*int32(y[6])
		s3 += int32(x[3])*int32(y[3]) + int32(x[7])*int32(y[7])
	}
	for ; i < len(a); i++ {
		s0 += int32(a[i]) * int32(b[i])
	}
	return s0 + s1 + s2 + s3
}
