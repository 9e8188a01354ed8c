//go:build !purego

#include "textflag.h"

DATA nibble<>+0(SB)/1, $0x0f
GLOBL nibble<>(SB), RODATA|NOPTR, $1

// func indexBlocks(b []byte, lo, hi *[32]byte) int
//
// See index_amd64.go. For each 32-byte block of b: look up each byte's low
// nibble in lo and its high nibble in hi (VPSHUFB), and AND the two; a
// byte is in the set where the result is not zero. The first block with
// one gives the index of its first such byte.
TEXT ·indexBlocks(SB), NOSPLIT, $0-48
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), CX
	MOVQ lo+24(FP), DX
	MOVQ hi+32(FP), BX
	MOVQ SI, R8
	ANDQ $~31, CX
	ADDQ SI, CX
	VMOVDQU      (DX), Y8
	VMOVDQU      (BX), Y9
	VPBROADCASTB nibble<>(SB), Y10
	VPXOR        Y11, Y11, Y11

loop:
	CMPQ SI, CX
	JEQ  none
	VMOVDQU   (SI), Y0
	VPSRLW    $4, Y0, Y1
	VPAND     Y10, Y0, Y0
	VPAND     Y10, Y1, Y1
	VPSHUFB   Y0, Y8, Y0
	VPSHUFB   Y1, Y9, Y1
	VPAND     Y0, Y1, Y0
	VPCMPEQB  Y11, Y0, Y0
	VPMOVMSKB Y0, AX
	NOTL      AX
	TESTL     AX, AX
	JNZ       found
	ADDQ      $32, SI
	JMP       loop

found:
	BSFL AX, AX
	SUBQ R8, SI
	ADDQ AX, SI
	VZEROUPPER
	MOVQ SI, ret+40(FP)
	RET

none:
	SUBQ R8, SI
	VZEROUPPER
	MOVQ SI, ret+40(FP)
	RET
