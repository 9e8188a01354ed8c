package main

import (
	"context"
	"io"
	"strings"
	"testing"
)

func BenchmarkZZCatalog(b *testing.B) {
	for b.Loop() {
		if code := execute(context.Background(), []string{"catalog", "--tools", "/tmp/schemas_perf/t10000"}, strings.NewReader(""), io.Discard, io.Discard); code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
}
