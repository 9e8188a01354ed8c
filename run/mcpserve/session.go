package mcpserve

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tidwall/gjson"
)

// sessionless is the first protocol version whose requests need no
// session (no Mcp-Session-Id: every POST stands alone).
const sessionless = "2026-07-28"

// needSession answers 400 to a POST without Mcp-Session-Id that is not an
// initialize request, as the transport says a server that hands out
// session ids should: the SDK would otherwise start a session for it
// that was never initialized. Clients of the sessionless protocol (the
// Mcp-Protocol-Version header at 2026-07-28 or later) are let through.
func needSession(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Header.Get("Mcp-Session-Id") != "" || r.Header.Get("Mcp-Protocol-Version") >= sessionless || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, mcp.DefaultMaxRequestBodyBytes))
		r.Body.Close()
		if err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				http.Error(w, fmt.Sprintf("Request Entity Too Large: a request body is at most %d bytes", tooBig.Limit), http.StatusRequestEntityTooLarge)
				return
			}
			http.Error(w, fmt.Sprintf("Bad Request: cannot read the body: %v", err), http.StatusBadRequest)
			return
		}
		if !initializes(body) {
			http.Error(w, "Bad Request: no Mcp-Session-Id header: send initialize first, then the Mcp-Session-Id of its answer with every request", http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		next.ServeHTTP(w, r)
	})
}

// initializes reports whether a JSON-RPC body is an initialize request,
// alone or in a batch; a body that is not JSON is left to the SDK to
// refuse in its words.
func initializes(body []byte) bool {
	if !gjson.ValidBytes(body) {
		return true
	}
	msg := gjson.ParseBytes(body)
	if msg.IsArray() {
		found := false
		msg.ForEach(func(_, m gjson.Result) bool {
			found = m.Get("method").Str == "initialize"
			return !found
		})
		return found
	}
	return msg.Get("method").Str == "initialize"
}
