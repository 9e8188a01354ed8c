package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/toolcall/toolcall/tools/redact"
)

// propsTimeout bounds the request for the server's chat template.
const propsTimeout = 30 * time.Second

// maxProps bounds the /props reply: a template is tens of kilobytes.
const maxProps = 8 << 20

// ServerTemplate asks the model server for the chat template of the model
// it serves: llama-server's GET /props (chat_template), at the server's
// root, beside the /v1 API. Ollama's /api/show gives a Go template, not
// Jinja, so it is not asked; the error says so.
func ServerTemplate(ctx context.Context, opts HTTPOptions) (*PromptTemplate, error) {
	// The one client of every request to the server: its URLs carry no
	// password, so neither does any message below that names url.
	client := newModelClient(opts)
	url := client.root() + "/props"
	ctx, cancel := context.WithTimeout(ctx, propsTimeout)
	defer cancel()
	req, err := client.newRequest(ctx, http.MethodGet, url, nil, "application/json")
	if err != nil {
		return nil, fmt.Errorf("--template auto: %w", err)
	}
	resp, _, err := client.do(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("--template auto: asking for the model's chat template: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxProps+1))
	if err != nil {
		return nil, fmt.Errorf("--template auto: reading %s: %w", url, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("--template auto: %s answered %s: the server does not give its chat template "+
			"(llama-server does at /props; Ollama's /api/show template is a Go template, not Jinja, and is not used); "+
			"give the model's template file to --template instead", url, resp.Status)
	}
	if len(body) > maxProps {
		return nil, fmt.Errorf("--template auto: %s sent more than %d MiB", url, maxProps>>20)
	}
	var props struct {
		ChatTemplate string `json:"chat_template"`
	}
	if err := json.Unmarshal(body, &props); err != nil {
		return nil, fmt.Errorf("--template auto: %s did not send JSON: %w", url, err)
	}
	if props.ChatTemplate == "" {
		return nil, errors.New("--template auto: " + url + " has no chat_template; give the model's template file to --template instead")
	}
	t, err := ChatTemplate("the chat template from "+url, props.ChatTemplate, redact.New(os.Environ(), nil, Secrets(opts)...))
	if err != nil {
		return nil, fmt.Errorf("--template auto: %w", err)
	}
	return t, nil
}
