package tools

import (
	"fmt"
	"strconv"
)

// AliasProblems lists what is wrong with the tool's aliases, for catalog
// --check: an alias must rename a property the input schema defines in
// that object, and must not be a property of it itself (the model could
// never give that property); a value alias must stand for a value the
// schema's enum (or const) at that pointer allows, and must not be one
// itself. Nil when the tool has no aliases or they are fine; a schema
// that does not compile is reported elsewhere.
func (t *Tool) AliasProblems() []string {
	a := t.Aliases
	if a == nil {
		return nil
	}
	if t.InputSchema == nil {
		return []string{`"aliases" and "value_aliases" need an input schema to say what they stand for; remove them, or add the schema`}
	}
	root, err := t.compile()
	if err != nil {
		return nil
	}
	var out []string
	for _, n := range a.Names {
		at := root.At(n.parentPointers)
		where := "the arguments"
		if n.Parent != "" {
			where = n.Parent
		}
		switch {
		case at.Empty():
			out = append(out, fmt.Sprintf(`aliases: %q: the input schema has nothing at %s; write the pointer with the schema's property names`, n.Key, where))
		case !at.HasProperty(n.To):
			out = append(out, fmt.Sprintf(`aliases: %q -> %q: %q is not a property of %s in the input schema; point each alias at a property the schema defines`, n.Key, n.To, n.To, where))
		case at.HasProperty(n.From):
			out = append(out, fmt.Sprintf(`aliases: %q is itself a property of %s in the input schema, so calls that give it could not be told apart; remove the alias`, n.From, where))
		}
	}
	for _, v := range a.Values {
		at := root.At(v.tokens)
		if !at.HasValues() {
			out = append(out, fmt.Sprintf(`value_aliases: %q: the input schema has no "enum" or "const" at %s; value aliases stand for enum values`, v.Pointer, v.Pointer))
			continue
		}
		if !at.Allows(v.To) {
			out = append(out, fmt.Sprintf(`value_aliases: %q: %q -> %s: %s is not one of the schema's values there; map each alias to a value of the enum`, v.Pointer, v.From, v.To, v.To))
		}
		if at.Allows([]byte(strconv.Quote(v.From))) {
			out = append(out, fmt.Sprintf(`value_aliases: %q: %q is itself one of the schema's values there, so the alias would change a valid call; remove it`, v.Pointer, v.From))
		}
	}
	return out
}
