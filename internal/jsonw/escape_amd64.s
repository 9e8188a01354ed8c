//go:build !purego

#include "textflag.h"

DATA escspace<>+0(SB)/1, $0x20
GLOBL escspace<>(SB), RODATA|NOPTR, $1
DATA escquote<>+0(SB)/1, $0x22
GLOBL escquote<>(SB), RODATA|NOPTR, $1
DATA escbslash<>+0(SB)/1, $0x5c
GLOBL escbslash<>(SB), RODATA|NOPTR, $1

// func escapeASCII(dst []byte, src string) (nsrc, ndst int)
//
// See escape_amd64.go. Thirty-two bytes at a time: load them, store them
// to dst whatever they are, and flag the bytes below 0x20 or from 0x80 on
// (one signed compare with 0x20), the quotes and the backslashes. Unless a
// byte is flagged, the store stands and both sides move on by 32. At the
// first flagged byte, the bytes before it stand; a quote, backslash,
// newline, carriage return or tab there is written as its two-byte escape
// and the loop goes on after it; any other byte ends the call, as does
// having fewer than 32 bytes left.
TEXT ·escapeASCII(SB), NOSPLIT, $0-56
	MOVQ dst_base+0(FP), DI
	MOVQ src_base+24(FP), SI
	MOVQ src_len+32(FP), CX
	MOVQ DI, R8
	MOVQ SI, R9
	VPBROADCASTB escspace<>(SB), Y1
	VPBROADCASTB escquote<>(SB), Y2
	VPBROADCASTB escbslash<>(SB), Y3

loop:
	CMPQ CX, $32
	JB   done
	VMOVDQU   (SI), Y0
	VPCMPGTB  Y0, Y1, Y4
	VPCMPEQB  Y0, Y2, Y5
	VPCMPEQB  Y0, Y3, Y6
	VPOR      Y4, Y5, Y4
	VPOR      Y4, Y6, Y4
	VMOVDQU   Y0, (DI)
	VPMOVMSKB Y4, AX
	TESTL     AX, AX
	JNZ       flagged
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $32, CX
	JMP  loop

flagged:
	BSFL    AX, AX
	ADDQ    AX, SI
	ADDQ    AX, DI
	SUBQ    AX, CX
	MOVBLZX (SI), BX
	CMPQ    BX, $0x0a
	JEQ     newline
	CMPQ    BX, $0x22
	JEQ     escape
	CMPQ    BX, $0x5c
	JEQ     escape
	CMPQ    BX, $0x0d
	JEQ     cr
	CMPQ    BX, $0x09
	JEQ     tab
	JMP     done

newline:
	MOVL $0x6e, BX
	JMP  escape

cr:
	MOVL $0x72, BX
	JMP  escape

tab:
	MOVL $0x74, BX

escape:
	MOVB $0x5c, (DI)
	MOVB BX, 1(DI)
	ADDQ $2, DI
	INCQ SI
	DECQ CX
	JMP  loop

done:
	VZEROUPPER
	SUBQ R9, SI
	SUBQ R8, DI
	MOVQ SI, nsrc+40(FP)
	MOVQ DI, ndst+48(FP)
	RET
