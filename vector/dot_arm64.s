//go:build !purego

#include "textflag.h"

// func dotInt8Vector(a, b *int8, n int) int32
//
// Each 16 bytes are multiplied into int16 products (SMULL, SMULL2: no
// product of two int8s overflows int16), which are added in pairs into
// int32 accumulators (SADALP). The Go assembler has neither instruction,
// so they are written as their encodings.
TEXT ·dotInt8Vector(SB), NOSPLIT, $0-28
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
