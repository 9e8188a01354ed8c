package repairbench

import (
	"testing"
	"time"

	"github.com/kaptinlin/jsonrepair"
	"github.com/toolcall/toolcall/parse"
)

func TestProbe(t *testing.T) {
	for name, src := range map[string][]byte{
		"valid-1MB": benchValid(1 << 20), "heavy-1MB": benchRepairHeavy(1 << 20),
		"deep-64KB": benchTruncatedDeep(1<<16, 1000), "deep-256KB-2500": benchTruncatedDeep(1<<18, 2500), "deep-1MB": benchTruncatedDeep(1<<20, 10000),
	} {
		t0 := time.Now()
		out, err := jsonrepair.Repair(string(src))
		d := time.Since(t0)
		t1 := time.Now()
		our, err2 := parse.RepairJSON(nil, src)
		t.Logf("%s: kaptinlin %v err=%v len=%d | ours %v err=%v len=%d same=%v", name, d, err, len(out), time.Since(t1), err2, len(our), out == string(our))
	}
}
