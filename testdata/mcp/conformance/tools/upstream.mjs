// An MCP server (the official TypeScript SDK, over stdio) with the two
// conformance tools a local toolcall tool cannot be: one that logs and
// one that reports progress while it runs. upstream.json declares it as
// an mcp_server, so the conformance suite checks that toolcall mcp serve
// passes both on from a server it fronts.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";

const server = new McpServer({ name: "conformance-upstream", version: "1.0.0" }, { capabilities: { logging: {} } });
const pause = (ms) => new Promise((done) => setTimeout(done, ms));

// The scenarios ask for a pause between notifications; the last pause,
// before the result, is there because the Go SDK (toolcall's client) may
// hand a result over ahead of notifications read just before it.
server.registerTool("test_tool_with_logging", { description: "Logs three messages while it runs.", annotations: { readOnlyHint: true } }, async () => {
  for (const data of ["Tool execution started", "Tool processing data", "Tool execution completed"]) {
    await server.sendLoggingMessage({ level: "info", data });
    await pause(50);
  }
  return { content: [{ type: "text", text: "Tool with logging executed successfully" }] };
});

server.registerTool("test_tool_with_progress", { description: "Reports progress while it runs.", annotations: { readOnlyHint: true } }, async (extra) => {
  const token = extra._meta?.progressToken;
  for (const progress of [0, 50, 100]) {
    if (token !== undefined) {
      await extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress, total: 100 } });
    }
    await pause(50);
  }
  return { content: [{ type: "text", text: "Tool with progress executed successfully" }] };
});

await server.connect(new StdioServerTransport());
