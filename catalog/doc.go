// Package catalog reads directories of tools (executables with sidecar JSON
// schemas), checks them, selects and ranks them for a request, and renders
// them for a prompt or for the tool APIs of OpenAI, Anthropic, Ollama and
// MCP.
package catalog
