module github.com/toolcall/toolcall/testdata/repairbench

go 1.26.4

require (
	github.com/kaptinlin/jsonrepair v0.4.8
	github.com/toolcall/toolcall v0.0.0
)

require (
	github.com/go-json-experiment/json v0.0.0-20260601182631-00ed12fed2a6 // indirect
	github.com/santhosh-tekuri/jsonschema/v5 v5.3.1 // indirect
	github.com/tidwall/gjson v1.20.2 // indirect
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.3.0 // indirect
)

replace github.com/toolcall/toolcall => ../..
