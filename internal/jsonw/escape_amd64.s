//go:build !purego

#include "textflag.h"

DATA escspace<>+0(SB)/1, $0x20
GLOBL escspace<>(SB), RODATA|NOPTR, $1
DATA escquote<>+0(SB)/1, $0x22
GLOBL escquote<>(SB), RODATA|NOPTR, $1
DATA escbslash<>+0(SB)/1, $0x5c
GLOBL escbslash<>(SB), RODATA|NOPTR, $1

// escletter maps a byte to the letter of its two-byte escape: n, r, t,
// " and \ for newline, carriage return, tab, quote and backslash; 0 for
// every other byte.
DATA escletter<>+0x08(SB)/8, $0x00007200006e7400
DATA escletter<>+0x20(SB)/8, $0x0000000000220000
DATA escletter<>+0x58(SB)/8, $0x0000005c00000000
GLOBL escletter<>(SB), RODATA|NOPTR, $256

// FLAG sets m to 0xff in each byte of y below 0x20 or from 0x80 on (one
// signed compare with 0x20, Y1), each quote (Y2) and each backslash
// (Y3). t is scratch.
#define FLAG(y, m, t) \
	VPCMPGTB y, Y1, m; \
	VPCMPEQB y, Y2, t; \
	VPOR     m, t, m; \
	VPCMPEQB y, Y3, t; \
	VPOR     m, t, m

// func escapeASCII(dst []byte, src string) (nsrc, ndst int)
//
// See escape_amd64.go. Sixty-four bytes a step while at least 129 are
// left: store them to dst whatever they are, and flag the bytes below 0x20
// or from 0x80 on, the quotes and the backslashes. A step with no flagged
// byte, or one that is a quote, backslash, newline, carriage return or tab,
// takes no branch: the bytes after the first flagged one (past the step
// when there is none) are stored again one to the right, and the two-byte
// escape over the flagged byte, so that prose, a newline every line, runs
// without mispredicted branches. A step with more flagged bytes, or
// another kind, goes to the 32-byte step below for its first flagged byte.
//
// The 32-byte step: store the bytes, flag them; unless one is flagged both
// sides move on by 32, back to the 64-byte step. At the first flagged
// byte, the bytes before it stand; a quote, backslash, newline, carriage
// return or tab there is written as its two-byte escape and the 32-byte
// step goes on after it, for as long as escapes come that often; any
// other byte ends the call, as does having fewer than 32 bytes left.
TEXT ·escapeASCII(SB), NOSPLIT, $0-56
	MOVQ dst_base+0(FP), DI
	MOVQ src_base+24(FP), SI
	MOVQ src_len+32(FP), CX
	MOVQ DI, R8
	MOVQ SI, R9
	VPBROADCASTB escspace<>(SB), Y1
	VPBROADCASTB escquote<>(SB), Y2
	VPBROADCASTB escbslash<>(SB), Y3
	LEAQ         escletter<>(SB), R11
	MOVQ         $64, R14

loop64:
	// The stores below reach 66 bytes past the step, the loads 65.
	CMPQ      CX, $129
	JB        loop32
	VMOVDQU   (SI), Y0
	VMOVDQU   32(SI), Y5
	FLAG(Y0, Y4, Y6)
	FLAG(Y5, Y7, Y6)
	VMOVDQU   Y0, (DI)
	VMOVDQU   Y5, 32(DI)
	VPMOVMSKB Y4, AX
	VPMOVMSKB Y7, DX
	SHLQ      $32, DX
	ORQ       DX, AX

	// A second flagged byte: the 32-byte step takes the first.
	LEAQ -1(AX), R12
	TESTQ AX, R12
	JNZ  loop32

	// BX: the flagged byte's index, 64 when there is none; R10 its
	// escape letter, 64 when there is none, 0 when it is of another kind.
	BSFQ    AX, BX
	CMOVQEQ R14, BX
	MOVBLZX (SI)(BX*1), R10
	MOVBLZX (R11)(R10*1), R10
	TESTQ   AX, AX
	CMOVQEQ R14, R10
	TESTQ   R10, R10
	JZ      loop32

	VMOVDQU 1(SI)(BX*1), Y8
	VMOVDQU 33(SI)(BX*1), Y9
	VMOVDQU Y8, 2(DI)(BX*1)
	VMOVDQU Y9, 34(DI)(BX*1)
	MOVB    $0x5c, (DI)(BX*1)
	MOVB    R10, 1(DI)(BX*1)

	// dst moves on by 65 with an escape, 64 without.
	CMPQ BX, $64
	ADCQ $64, DI
	ADDQ $64, SI
	SUBQ $64, CX
	JMP  loop64

loop32:
	CMPQ CX, $32
	JB   done
	VMOVDQU   (SI), Y0
	FLAG(Y0, Y4, Y6)
	VMOVDQU   Y0, (DI)
	VPMOVMSKB Y4, AX
	TESTL     AX, AX
	JNZ       flagged
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $32, CX
	JMP  loop64

flagged:
	BSFL    AX, AX
	ADDQ    AX, SI
	ADDQ    AX, DI
	SUBQ    AX, CX
	MOVBLZX (SI), BX
	MOVBLZX (R11)(BX*1), BX
	TESTQ   BX, BX
	JZ      done
	MOVB    $0x5c, (DI)
	MOVB    BX, 1(DI)
	ADDQ    $2, DI
	INCQ    SI
	DECQ    CX
	JMP     loop32

done:
	VZEROUPPER
	SUBQ R9, SI
	SUBQ R8, DI
	MOVQ SI, nsrc+40(FP)
	MOVQ DI, ndst+48(FP)
	RET
