package run

import (
	"errors"
	"io"
	"net/url"

	"github.com/toolcall/toolcall/catalog"
	"github.com/toolcall/toolcall/internal/urlcred"
	"github.com/toolcall/toolcall/tools"
)

// DisplayURL is raw as messages show it: without the userinfo
// ("user:password@"), which is a credential.
func DisplayURL(raw string) string { return urlcred.Strip(raw) }

// withoutURL is err without the URL a *url.Error quotes, which may hold
// a password: the message names the URL itself, as DisplayURL shows it.
func withoutURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// Secrets are the credentials of opts that no output may show: the API
// key, and the password of the base URL as written and decoded. Give them
// to the redactor (tools.ExecOptions.Secrets), which Loop applies to the
// whole transcript.
func Secrets(opts HTTPOptions) []string {
	var out []string
	if opts.APIKey != "" {
		out = append(out, opts.APIKey)
	}
	return append(out, urlcred.Passwords(opts.BaseURL)...)
}

// catalogSecrets are the credentials in the catalog's MCP server URLs
// (tools.ServerSecrets); none without a catalog.
func catalogSecrets(c *catalog.Catalog) []string {
	if c == nil {
		return nil
	}
	return tools.ServerSecrets(c)
}

// redactingWriter redacts each write of the transcript: whole event
// lines, whose strings are read as JSON and redacted (raw, and escaped
// within, as tools.Redactor.JSON does).
type redactingWriter struct {
	w io.Writer
	r *tools.Redactor
}

func (rw redactingWriter) Write(p []byte) (int, error) {
	if _, err := rw.w.Write(rw.r.JSON(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}
