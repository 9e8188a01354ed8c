package tools

import "github.com/toolcall/toolcall/internal/golden"

var update = golden.Update
