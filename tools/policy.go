package tools

import (
	"fmt"
	"path"
	"slices"
)

// Policy says which tools may be called: the allow and deny lists and the
// consent rules (docs/catalog.md and docs/validate.md). The
// zero Policy allows every safe tool
// that needs no approval.
type Policy struct {
	// Allow, when not empty, lists the only tools that may be called, as
	// names or path.Match globs ("git_*"). Deny wins over Allow.
	Allow, Deny []string
	// AllowUnsafe lets tools marked safe: false be called.
	AllowUnsafe bool
	// LocalOnly refuses tools tagged "network".
	LocalOnly bool
	// Approved lists tools (names or globs) a person has approved for this
	// run: they may be called even when unsafe or in human-approval mode.
	Approved []string
}

// TagNetwork marks a tool that reaches the network; --local-only leaves it out.
const TagNetwork = "network"

// permit reports why t may not be called under p, or "" when it may. The
// reason is written for the model and the person reading the transcript.
func (p *Policy) permit(t *Tool) string {
	why, _ := p.check(t)
	return why
}

// check is permit, also saying whether a person's approval at the time of
// the call would permit it: true for an unsafe tool and for human-approval
// mode, false for what the allow and deny lists or --local-only forbid.
func (p *Policy) check(t *Tool) (why string, consentable bool) {
	if matchAny(p.Deny, t.Name) {
		return fmt.Sprintf("tool %q is denied by policy (--deny)", t.Name), false
	}
	if len(p.Allow) > 0 && !matchAny(p.Allow, t.Name) {
		return fmt.Sprintf("tool %q is not in the allowed tools (--allow)", t.Name), false
	}
	if p.LocalOnly && slices.Contains(t.Tags, TagNetwork) {
		return fmt.Sprintf("tool %q uses the network, and only local tools are allowed (--local-only)", t.Name), false
	}
	// read-only mode is for tools without side effects: one marked unsafe
	// contradicts it, and no consent can settle which is right.
	if t.InputSchema == nil && t.NoSchemaMode == NoSchemaReadOnly && !t.Safe {
		return fmt.Sprintf("tool %q is registered without a schema in read-only mode but is marked \"safe\": false, so it may not run; fix its sidecar", t.Name), false
	}
	approved := matchAny(p.Approved, t.Name)
	if !t.Safe && !p.AllowUnsafe && !approved {
		return fmt.Sprintf("tool %q has side effects (safe: false) and runs only with --allow-unsafe or --approve %s", t.Name, t.Name), true
	}
	if t.InputSchema == nil && t.NoSchemaMode == NoSchemaHumanApproval && !approved {
		return fmt.Sprintf("tool %q needs a person's approval (no_schema_mode human-approval); approve it with --approve %s", t.Name, t.Name), true
	}
	return "", false
}

// Listed reports whether t passes the allow and deny lists alone: what a
// catalog shows. Unsafe and network tools are filtered separately there.
func (p *Policy) Listed(t *Tool) bool {
	return !matchAny(p.Deny, t.Name) && (len(p.Allow) == 0 || matchAny(p.Allow, t.Name))
}

// matchAny reports whether name equals or matches one of patterns.
func matchAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if p == name {
			return true
		}
		if ok, err := path.Match(p, name); err == nil && ok {
			return true
		}
	}
	return false
}

// CheckPattern reports a malformed glob, for flag checking.
func CheckPattern(pattern string) error {
	if _, err := path.Match(pattern, ""); err != nil {
		return fmt.Errorf("bad pattern %q: %w (use * ? and [...], as in a shell)", pattern, err)
	}
	return nil
}
