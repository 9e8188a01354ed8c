package parse

import "testing"

func TestRepairJSON(t *testing.T) {
	got, err := RepairJSON([]byte("x"), []byte(" {a: 'b',} // done\n "))
	if err != nil || string(got) != `x{"a":"b"}` {
		t.Errorf("RepairJSON = %s, %v", got, err)
	}
	got, err = RepairJSON(nil, []byte(`{"a": [1, 2`+"]"))
	if err != nil || string(got) != `{"a":[1,2]}` {
		t.Errorf("RepairJSON(truncated envelope) = %s, %v", got, err)
	}
	got, err = RepairJSON(nil, []byte(`{"a": 1}}] `))
	if err != nil || string(got) != `{"a":1}` {
		t.Errorf("RepairJSON(extra closers) = %s, %v", got, err)
	}
	for _, in := range []string{`{"a": "b`, `{"a":1} x`, `[1,,2]`, ``, `{"a":1}} x`} {
		if got, err := RepairJSON([]byte("x"), []byte(in)); err == nil || string(got) != "x" {
			t.Errorf("RepairJSON(%q) = %s, %v; want an error and dst unchanged", in, got, err)
		}
	}
}
