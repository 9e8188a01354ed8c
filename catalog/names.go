package catalog

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"

	"github.com/toolcall/toolcall/tools"
)

// maxProviderName is the longest tool name OpenAI and Anthropic accept.
const maxProviderName = 64

// providerSafe reports whether OpenAI and Anthropic accept name as it is:
// 1 to 64 ASCII letters, digits, underscores and hyphens
// (^[a-zA-Z0-9_-]{1,64}$).
func providerSafe(name string) bool {
	if len(name) == 0 || len(name) > maxProviderName {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !providerByte(name[i]) {
			return false
		}
	}
	return true
}

func providerByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// mapNames gives every tool whose name OpenAI or Anthropic would reject a
// provider-safe alias by the rule at ProviderName, and records it both ways
// (c.alias, c.provider).
func (c *Catalog) mapNames() {
	c.alias = nil
	c.provider = nil
	for _, t := range c.all {
		if providerSafe(t.Name) {
			continue
		}
		if c.alias == nil {
			c.alias = make(map[string]*tools.Tool)
			c.provider = make(map[string]string)
		}
		base := sanitizeName(t.Name)
		name := base
		for n := 2; c.nameTaken(name); n++ {
			suffix := "_" + strconv.Itoa(n)
			if len(base)+len(suffix) > maxProviderName {
				name = base[:maxProviderName-len(suffix)] + suffix
			} else {
				name = base + suffix
			}
		}
		c.alias[name] = t
		c.provider[t.Name] = name
	}
}

// nameTaken reports whether name is a tool's real name or an alias given
// already.
func (c *Catalog) nameTaken(name string) bool {
	if _, ok := c.byName[name]; ok {
		return true
	}
	_, ok := c.alias[name]
	return ok
}

// sanitizeName applies steps 2 and 3 of the rule in mapNames.
func sanitizeName(name string) string {
	b := make([]byte, 0, len(name))
	for _, r := range name {
		if r < 0x80 && providerByte(byte(r)) {
			b = append(b, byte(r))
		} else {
			b = append(b, '_')
		}
	}
	if len(b) == 0 {
		b = append(b, '_') // an empty name still needs a provider name
	}
	if len(b) > maxProviderName {
		sum := sha256.Sum256([]byte(name))
		b = append(b[:maxProviderName-9], '_')
		b = hex.AppendEncode(b, sum[:4])
	}
	return string(b)
}

// ProviderName returns the name t (a tool of c) goes by for OpenAI and
// Anthropic, which accept only names matching ^[a-zA-Z0-9_-]{1,64}$.
//
// The rule, applied to the catalog's names in sorted (byte) order:
//
//  1. A name that matches is used as it is.
//  2. Otherwise every character outside [a-zA-Z0-9_-] (a dot, a space, a
//     non-ASCII letter: one character, whatever its UTF-8 length) becomes
//     "_": math.factorial -> math_factorial, météo -> m_t_o.
//  3. If that is longer than 64 bytes, it is cut to 55 bytes and ends with
//     "_" and the first 8 hex digits of the SHA-256 of the full original
//     name, so long names that share a beginning stay distinct.
//  4. If the result is the real name of another tool, or the alias of a
//     name earlier in the order, "_2", "_3", … is appended (cutting the
//     end off first if needed to stay within 64 bytes) until it is free.
//
// The aliases depend only on the set of names in the catalog, so the same
// tools get the same aliases on every run, and Lookup maps an alias back to
// its tool when a provider's response names it.
func (c *Catalog) ProviderName(t *tools.Tool) string {
	if p, ok := c.provider[t.Name]; ok {
		return p
	}
	return t.Name
}
