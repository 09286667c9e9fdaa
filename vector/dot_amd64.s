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

// func mulTileKernel(p *float64, pr, pc int, q *float64, qr, n int, out *[32]float64)
//
// A 4 x 8 tile of P·Q (see MulTile), n > 0: row i of the tile is two
// accumulators (Y2i, Y2i+1), to which each step t adds P(i,t) times the
// eight values of Q's row t. A product, then a sum, each rounded (no FMA),
// in order of t, as the plain loop does.
TEXT ·mulTileKernel(SB), NOSPLIT, $0-56
	MOVQ p+0(FP), SI
	MOVQ pr+8(FP), AX
	SHLQ $3, AX
	MOVQ pc+16(FP), BX
	SHLQ $3, BX
	MOVQ q+24(FP), DI
	MOVQ qr+32(FP), DX
	SHLQ $3, DX
	MOVQ n+40(FP), CX
	MOVQ out+48(FP), R8

	// SI, R9, R10, R11: the four rows of P.
	LEAQ   (SI)(AX*1), R9
	LEAQ   (R9)(AX*1), R10
	LEAQ   (R10)(AX*1), R11
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7

tileLoop:
	VMOVUPD      (DI), Y8
	VMOVUPD      32(DI), Y9
	VBROADCASTSD (SI), Y10
	VBROADCASTSD (R9), Y11
	VMULPD       Y8, Y10, Y12
	VMULPD       Y9, Y10, Y13
	VMULPD       Y8, Y11, Y14
	VMULPD       Y9, Y11, Y15
	VADDPD       Y12, Y0, Y0
	VADDPD       Y13, Y1, Y1
	VADDPD       Y14, Y2, Y2
	VADDPD       Y15, Y3, Y3
	VBROADCASTSD (R10), Y10
	VBROADCASTSD (R11), Y11
	VMULPD       Y8, Y10, Y12
	VMULPD       Y9, Y10, Y13
	VMULPD       Y8, Y11, Y14
	VMULPD       Y9, Y11, Y15
	VADDPD       Y12, Y4, Y4
	VADDPD       Y13, Y5, Y5
	VADDPD       Y14, Y6, Y6
	VADDPD       Y15, Y7, Y7
	ADDQ         BX, SI
	ADDQ         BX, R9
	ADDQ         BX, R10
	ADDQ         BX, R11
	ADDQ         DX, DI
	DECQ         CX
	JNZ          tileLoop

	VMOVUPD Y0, (R8)
	VMOVUPD Y1, 32(R8)
	VMOVUPD Y2, 64(R8)
	VMOVUPD Y3, 96(R8)
	VMOVUPD Y4, 128(R8)
	VMOVUPD Y5, 160(R8)
	VMOVUPD Y6, 192(R8)
	VMOVUPD Y7, 224(R8)
	VZEROUPPER
	RET
