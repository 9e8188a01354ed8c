//go:build !purego

#include "textflag.h"

DATA nibble<>+0(SB)/1, $0x0f
GLOBL nibble<>(SB), RODATA|NOPTR, $1

// IN_SET turns the 32 bytes in y into their entries in the set: each
// byte's low nibble looked up in lo (Y8), its high nibble in hi (Y9)
// (VPSHUFB), the two ANDed; a byte is in the set where the result is not
// zero. t is scratch; Y10 holds 0x0f in every byte.
#define IN_SET(y, t) \
	VPSRLW  $4, y, t; \
	VPAND   Y10, y, y; \
	VPAND   Y10, t, t; \
	VPSHUFB y, Y8, y; \
	VPSHUFB t, Y9, t; \
	VPAND   t, y, y

// FOUND_MASK sets AX to the mask of the bytes IN_SET left not zero in y,
// and ZF when there are none. Y11 is zero.
#define FOUND_MASK(y) \
	VPCMPEQB  Y11, y, y; \
	VPMOVMSKB y, AX; \
	NOTL      AX; \
	TESTL     AX, AX

// func indexBlocks(b []byte, lo, hi *[32]byte) int
//
// See index_amd64.go. Two 32-byte blocks of b at a time go through IN_SET,
// and one VPTEST of the two results ORed says whether either holds a byte
// of the set: prose holds few, so the loop seldom stops. At a stop, the
// first block with one gives the index of its first such byte. A last odd
// block is tested alone.
TEXT ·indexBlocks(SB), NOSPLIT, $0-48
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), CX
	MOVQ lo+24(FP), DX
	MOVQ hi+32(FP), BX
	MOVQ SI, R8
	MOVQ CX, R9
	ANDQ $~31, CX
	ADDQ SI, CX
	ANDQ $~63, R9
	ADDQ SI, R9
	VMOVDQU      (DX), Y8
	VMOVDQU      (BX), Y9
	VPBROADCASTB nibble<>(SB), Y10
	VPXOR        Y11, Y11, Y11

pairs:
	CMPQ    SI, R9
	JEQ     single
	VMOVDQU (SI), Y0
	VMOVDQU 32(SI), Y2
	IN_SET(Y0, Y1)
	IN_SET(Y2, Y3)
	VPOR    Y0, Y2, Y4
	VPTEST  Y4, Y4
	JNZ     pairfound
	ADDQ    $64, SI
	JMP     pairs

pairfound:
	FOUND_MASK(Y0)
	JNZ  found
	ADDQ $32, SI
	FOUND_MASK(Y2)
	JMP  found

single:
	CMPQ    SI, CX
	JEQ     none
	VMOVDQU (SI), Y0
	IN_SET(Y0, Y1)
	FOUND_MASK(Y0)
	JNZ     found
	ADDQ    $32, SI

none:
	SUBQ R8, SI
	VZEROUPPER
	MOVQ SI, ret+40(FP)
	RET

found:
	BSFL AX, AX
	SUBQ R8, SI
	ADDQ AX, SI
	VZEROUPPER
	MOVQ SI, ret+40(FP)
	RET
