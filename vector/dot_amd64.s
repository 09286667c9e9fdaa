//go:build !purego

#include "textflag.h"

// func dotInt8Vector(a, b *int8, n int) int32
//
// AVX2 has no int8 multiply-add of two signed vectors, so each 16 bytes
// are widened to int16 (VPMOVSXBW) and multiplied into pairwise int32 sums
// (VPMADDWD): no product or pair overflows. Two accumulators keep two
// additions in flight.
TEXT ·dotInt8Vector(SB), NOSPLIT, $0-28
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ n+16(FP), CX
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1

loop:
	VPMOVSXBW (SI), Y2
	VPMOVSXBW (DI), Y3
	VPMADDWD  Y3, Y2, Y2
	VPADDD    Y2, Y0, Y0
	VPMOVSXBW 16(SI), Y4
	VPMOVSXBW 16(DI), Y5
	VPMADDWD  Y5, Y4, Y4
	VPADDD    Y4, Y1, Y1
	ADDQ      $32, SI
	ADDQ      $32, DI
	SUBQ      $32, CX
	JNZ       loop

	// Sum the eight int32 lanes.
	VPADDD       Y1, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0x4e, X0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0xb1, X0, X1
	VPADDD       X1, X0, X0
	VMOVD        X0, AX
	MOVL         AX, ret+24(FP)
	VZEROUPPER
	RET

// func prefetchRow(p *int8, n int)
//
// Asks for the cache lines of the n bytes at p (n > 0) ahead of their
// use: the prefiltered scan reads rows scattered over the whole file.
TEXT ·prefetchRow(SB), NOSPLIT, $0-16
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	ADDQ SI, CX

next:
	PREFETCHT0 (SI)
	ADDQ       $64, SI
	CMPQ       SI, CX
	JB         next
	RET

// func axpyKernel(a float32, x, y *float32, n int)
//
// y += a·x for n floats, n a positive multiple of 16: a product, then a
// sum, each rounded (no FMA), as the plain loop does.
TEXT ·axpyKernel(SB), NOSPLIT, $0-32
	VBROADCASTSS a+0(FP), Y0
	MOVQ         x+8(FP), SI
	MOVQ         y+16(FP), DI
	MOVQ         n+24(FP), CX

axpyLoop:
	VMULPS  (SI), Y0, Y1
	VMULPS  32(SI), Y0, Y2
	VADDPS  (DI), Y1, Y1
	VADDPS  32(DI), Y2, Y2
	VMOVUPS Y1, (DI)
	VMOVUPS Y2, 32(DI)
	ADDQ    $64, SI
	ADDQ    $64, DI
	SUBQ    $16, CX
	JNZ     axpyLoop
	VZEROUPPER
	RET
