package tools

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolcall/toolcall/tools/schema"
)

// The modes under which a tool registered without a schema may be called
// (sidecar "no_schema_mode"; docs/tools.md).
const (
	NoSchemaReadOnly      = "read-only"      // runs; meant for tools without side effects
	NoSchemaHumanApproval = "human-approval" // runs only once a person approves it
	NoSchemaFull          = "full"           // runs unchecked
)

// Sidecar dialects: the shapes of definition a sidecar may be written in.
const (
	DialectToolcall  = "toolcall"  // ours: input_schema (or the parameters/inputSchema aliases)
	DialectOpenAI    = "openai"    // {"type":"function","function":{name, description, parameters}}
	DialectAnthropic = "anthropic" // {name, description, input_schema}
	DialectMCP       = "mcp"       // {name, description, inputSchema, outputSchema, annotations}
	DialectBFCL      = "bfcl"      // Gorilla/BFCL: "type": "dict", "float", Java and JS type names
)

// RawField is one key of a JSON object and its value, compact.
type RawField struct {
	Key   string
	Value []byte
}

// mcpPassThrough are the fields of MCP's Tool that are kept as they are
// (MCPFields): the others toolcall reads.
var mcpPassThrough = []string{"execution", "icons", "_meta"}

// Tool is one tool: its definition, read from a sidecar, and the executable
// that runs it. A Tool is safe for concurrent use once loaded.
type Tool struct {
	Name        string
	Title       string // MCP title, when the sidecar has one
	Description string
	// InputSchema is the canonical JSON Schema of the arguments, kept as the
	// sidecar wrote it apart from the documented dialect mapping. It is nil
	// for a tool registered without a schema (AllowNoSchema).
	InputSchema  []byte
	OutputSchema []byte // MCP outputSchema, verbatim; nil when absent
	Annotations  []byte // MCP annotations, verbatim; nil when absent
	// MCPFields are the fields of an MCP tool definition that toolcall
	// does not read ("execution", "icons", "_meta"), kept as the sidecar
	// had them so that an MCP listing passes them on.
	MCPFields []RawField

	// Command is the path of the executable that runs the tool.
	Command string
	// Safe is false for a tool with side effects, which runs only with
	// consent (--allow-unsafe, or a yes at the terminal).
	Safe    bool
	Tags    []string
	Timeout time.Duration // 0: the caller's default
	// Retries is how often a safe tool is run again after a timeout or a
	// failed exit (retry.go), when RetriesSet; else the caller's default.
	Retries    int
	RetriesSet bool
	// Examples are argument objects that show how to call the tool; each
	// must validate against InputSchema.
	Examples [][]byte
	// ExampleRequests are the requests a person might make that the
	// examples answer ("request" beside "arguments"), one per example,
	// "" for one without; nil when none has one. Ranking reads them.
	ExampleRequests []string
	// Aliases is the sidecar's argument normalisation ("aliases",
	// "value_aliases"); nil when it has none.
	Aliases *Aliases
	// MaxCalls is how many calls of the tool run in one run or exec
	// stream (the sidecar's "max_calls"); 0: no bound of its own.
	MaxCalls int
	// Strict is OpenAI's strict mode, passed through when StrictSet.
	Strict, StrictSet bool

	AllowNoSchema bool
	NoSchemaMode  string // one of the NoSchema constants when AllowNoSchema

	Requires  []string // commands that must be on PATH
	Platforms []string // GOOS or GOOS/GOARCH values the tool runs on; empty: all
	Env       []string // names of environment variables passed through to the tool

	// Server, when set, is the MCP server that runs the tool, under the
	// name ServerTool; Command is then empty.
	Server     Server
	ServerTool string

	// File is the sidecar's path, for messages; Dialect the shape it was
	// written in.
	File    string
	Dialect string
	// Definition is set for a tool read from a list of definitions
	// (ParseToolList): it has a schema and no executable, so it is listed,
	// parsed for and validated, and its calls are answered as not
	// available by exec.
	Definition bool
	// StrayKeys says, one message each, which keys of the sidecar mean
	// nothing where they stand and so were ignored (sidecarkeys.go): a
	// warning at load, a problem for catalog --check. The messages do
	// not name the file.
	StrayKeys []string
	// Unavailable says why the tool is not advertised on this machine (a
	// required command missing, another platform, no executable); empty
	// when it is available.
	Unavailable string

	compileOnce sync.Once
	schema      *schema.Schema
	schemaErr   error

	// Whether InputSchema compiles (CheckSchema).
	verdictOnce sync.Once
	verdict     error

	// loaded is the executable as RecordExecutable saw it.
	loaded atomic.Pointer[executableStamp]

	// The compiled OutputSchema (CompileOutput).
	outOnce   sync.Once
	outSchema *schema.Schema
	outErr    error
}
