//go:build !purego

#include "textflag.h"

// func dotInt8Widen(a, b *int8, n int) int32
//
// Each 16 bytes are multiplied into int16 products (SMULL, SMULL2: no
// product of two int8s overflows int16), which are added in pairs into
// int32 accumulators (SADALP). The Go assembler has neither instruction,
// so they are written as their encodings.
TEXT ·dotInt8Widen(SB), NOSPLIT, $0-28
	MOVD a+0(FP), R0
	MOVD b+8(FP), R1
	MOVD n+16(FP), R2
	VEOR V16.B16, V16.B16, V16.B16
	VEOR V17.B16, V17.B16, V17.B16

loop:
	VLD1.P 32(R0), [V0.B16, V1.B16]
	VLD1.P 32(R1), [V2.B16, V3.B16]
	WORD   $0x0E22C004 // SMULL  V4.8H, V0.8B, V2.8B
	WORD   $0x4E22C005 // SMULL2 V5.8H, V0.16B, V2.16B
	WORD   $0x0E23C026 // SMULL  V6.8H, V1.8B, V3.8B
	WORD   $0x4E23C027 // SMULL2 V7.8H, V1.16B, V3.16B
	WORD   $0x4E606890 // SADALP V16.4S, V4.8H
	WORD   $0x4E6068B1 // SADALP V17.4S, V5.8H
	WORD   $0x4E6068D0 // SADALP V16.4S, V6.8H
	WORD   $0x4E6068F1 // SADALP V17.4S, V7.8H
	SUBS   $32, R2, R2
	BNE    loop

	// Sum the four int32 lanes of both accumulators.
	VADD  V17.S4, V16.S4, V16.S4
	VADDV V16.S4, V16
	VMOV  V16.S[0], R3
	MOVW  R3, ret+24(FP)
	RET

// func dotInt8DotProd(a, b *int8, n int) int32
//
// SDOT (the Armv8.2 dot product) adds the products of each group of four
// int8s into one int32 lane: one instruction for what dotInt8Widen does in
// four. Written as its encoding, as the Go assembler lacks it.
TEXT ·dotInt8DotProd(SB), NOSPLIT, $0-28
	MOVD a+0(FP), R0
	MOVD b+8(FP), R1
	MOVD n+16(FP), R2
	VEOR V16.B16, V16.B16, V16.B16
	VEOR V17.B16, V17.B16, V17.B16

dploop:
	VLD1.P 32(R0), [V0.B16, V1.B16]
	VLD1.P 32(R1), [V2.B16, V3.B16]
	WORD   $0x4E829410 // SDOT V16.4S, V0.16B, V2.16B
	WORD   $0x4E839431 // SDOT V17.4S, V1.16B, V3.16B
	SUBS   $32, R2, R2
	BNE    dploop

	VADD  V17.S4, V16.S4, V16.S4
	VADDV V16.S4, V16
	VMOV  V16.S[0], R3
	MOVW  R3, ret+24(FP)
	RET

// func prefetchRow(p *int8, n int): see dot_amd64.s.
TEXT ·prefetchRow(SB), NOSPLIT, $0-16
	MOVD p+0(FP), R0
	MOVD n+8(FP), R1
	ADD  R0, R1, R1

next:
	PRFM (R0), PLDL1KEEP
	ADD  $64, R0, R0
	CMP  R1, R0
	BLO  next
	RET

// func axpyKernel(a float32, x, y *float32, n int)
//
// y += a·x for n floats, n a positive multiple of 16: a product, then a
// sum, each rounded (FMUL, FADD; never FMLA, which rounds once), as the
// plain loop does. The Go assembler has neither vector instruction, so
// they are written as their encodings.
TEXT ·axpyKernel(SB), NOSPLIT, $0-32
	MOVD  $a+0(FP), R3
	VLD1R (R3), [V0.S4]
	MOVD  x+8(FP), R0
	MOVD  y+16(FP), R1
	MOVD  n+24(FP), R2

axpyLoop:
	VLD1.P 64(R0), [V1.S4, V2.S4, V3.S4, V4.S4]
	VLD1   (R1), [V5.S4, V6.S4, V7.S4, V8.S4]
	WORD   $0x6E20DC21 // FMUL V1.4S, V1.4S, V0.4S
	WORD   $0x6E20DC42 // FMUL V2.4S, V2.4S, V0.4S
	WORD   $0x6E20DC63 // FMUL V3.4S, V3.4S, V0.4S
	WORD   $0x6E20DC84 // FMUL V4.4S, V4.4S, V0.4S
	WORD   $0x4E21D4A5 // FADD V5.4S, V5.4S, V1.4S
	WORD   $0x4E22D4C6 // FADD V6.4S, V6.4S, V2.4S
	WORD   $0x4E23D4E7 // FADD V7.4S, V7.4S, V3.4S
	WORD   $0x4E24D508 // FADD V8.4S, V8.4S, V4.4S
	VST1.P [V5.S4, V6.S4, V7.S4, V8.S4], 64(R1)
	SUBS   $16, R2, R2
	BNE    axpyLoop
	RET

// func mulTileKernel(p *float64, pr, pc int, q *float64, qr, n int, out *[32]float64)
//
// A 4 x 8 tile of P·Q (see MulTile), n > 0: row i of the tile is four
// accumulators (V4i to V4i+3), to which each step t adds P(i,t) times the
// eight values of Q's row t. A product, then a sum, each rounded (FMUL,
// FADD; never FMLA), in order of t, as the plain loop does. The Go
// assembler has neither vector instruction, so they are written as their
// encodings.
TEXT ·mulTileKernel(SB), NOSPLIT, $0-56
	MOVD p+0(FP), R0
	MOVD pr+8(FP), R1
	LSL  $3, R1, R1
	MOVD pc+16(FP), R2
	LSL  $3, R2, R2
	MOVD q+24(FP), R3
	MOVD qr+32(FP), R4
	LSL  $3, R4, R4
	MOVD n+40(FP), R5
	MOVD out+48(FP), R6

	// R0, R7, R8, R9: the four rows of P.
	ADD  R1, R0, R7
	ADD  R1, R7, R8
	ADD  R1, R8, R9
	VEOR V0.B16, V0.B16, V0.B16
	VEOR V1.B16, V1.B16, V1.B16
	VEOR V2.B16, V2.B16, V2.B16
	VEOR V3.B16, V3.B16, V3.B16
	VEOR V4.B16, V4.B16, V4.B16
	VEOR V5.B16, V5.B16, V5.B16
	VEOR V6.B16, V6.B16, V6.B16
	VEOR V7.B16, V7.B16, V7.B16
	VEOR V8.B16, V8.B16, V8.B16
	VEOR V9.B16, V9.B16, V9.B16
	VEOR V10.B16, V10.B16, V10.B16
	VEOR V11.B16, V11.B16, V11.B16
	VEOR V12.B16, V12.B16, V12.B16
	VEOR V13.B16, V13.B16, V13.B16
	VEOR V14.B16, V14.B16, V14.B16
	VEOR V15.B16, V15.B16, V15.B16

tileLoop:
	VLD1  (R3), [V16.D2, V17.D2, V18.D2, V19.D2]
	VLD1R (R0), [V20.D2]
	VLD1R (R7), [V21.D2]
	VLD1R (R8), [V22.D2]
	VLD1R (R9), [V23.D2]
	WORD   $0x6E74DE18 // FMUL V24.2D, V16.2D, V20.2D
	WORD   $0x6E74DE39 // FMUL V25.2D, V17.2D, V20.2D
	WORD   $0x6E74DE5A // FMUL V26.2D, V18.2D, V20.2D
	WORD   $0x6E74DE7B // FMUL V27.2D, V19.2D, V20.2D
	WORD   $0x4E78D400 // FADD V0.2D, V0.2D, V24.2D
	WORD   $0x4E79D421 // FADD V1.2D, V1.2D, V25.2D
	WORD   $0x4E7AD442 // FADD V2.2D, V2.2D, V26.2D
	WORD   $0x4E7BD463 // FADD V3.2D, V3.2D, V27.2D
	WORD   $0x6E75DE1C // FMUL V28.2D, V16.2D, V21.2D
	WORD   $0x6E75DE3D // FMUL V29.2D, V17.2D, V21.2D
	WORD   $0x6E75DE5E // FMUL V30.2D, V18.2D, V21.2D
	WORD   $0x6E75DE7F // FMUL V31.2D, V19.2D, V21.2D
	WORD   $0x4E7CD484 // FADD V4.2D, V4.2D, V28.2D
	WORD   $0x4E7DD4A5 // FADD V5.2D, V5.2D, V29.2D
	WORD   $0x4E7ED4C6 // FADD V6.2D, V6.2D, V30.2D
	WORD   $0x4E7FD4E7 // FADD V7.2D, V7.2D, V31.2D
	WORD   $0x6E76DE18 // FMUL V24.2D, V16.2D, V22.2D
	WORD   $0x6E76DE39 // FMUL V25.2D, V17.2D, V22.2D
	WORD   $0x6E76DE5A // FMUL V26.2D, V18.2D, V22.2D
	WORD   $0x6E76DE7B // FMUL V27.2D, V19.2D, V22.2D
	WORD   $0x4E78D508 // FADD V8.2D, V8.2D, V24.2D
	WORD   $0x4E79D529 // FADD V9.2D, V9.2D, V25.2D
	WORD   $0x4E7AD54A // FADD V10.2D, V10.2D, V26.2D
	WORD   $0x4E7BD56B // FADD V11.2D, V11.2D, V27.2D
	WORD   $0x6E77DE1C // FMUL V28.2D, V16.2D, V23.2D
	WORD   $0x6E77DE3D // FMUL V29.2D, V17.2D, V23.2D
	WORD   $0x6E77DE5E // FMUL V30.2D, V18.2D, V23.2D
	WORD   $0x6E77DE7F // FMUL V31.2D, V19.2D, V23.2D
	WORD   $0x4E7CD58C // FADD V12.2D, V12.2D, V28.2D
	WORD   $0x4E7DD5AD // FADD V13.2D, V13.2D, V29.2D
	WORD   $0x4E7ED5CE // FADD V14.2D, V14.2D, V30.2D
	WORD   $0x4E7FD5EF // FADD V15.2D, V15.2D, V31.2D
	ADD   R2, R0, R0
	ADD   R2, R7, R7
	ADD   R2, R8, R8
	ADD   R2, R9, R9
	ADD   R4, R3, R3
	SUBS  $1, R5, R5
	BNE   tileLoop

	VST1.P [V0.D2, V1.D2, V2.D2, V3.D2], 64(R6)
	VST1.P [V4.D2, V5.D2, V6.D2, V7.D2], 64(R6)
	VST1.P [V8.D2, V9.D2, V10.D2, V11.D2], 64(R6)
	VST1   [V12.D2, V13.D2, V14.D2, V15.D2], (R6)
	RET
