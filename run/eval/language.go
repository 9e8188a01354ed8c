package eval

import (
	"encoding/json"
	"regexp"
	"strings"
	"sync"
)

// Language is the type convention a case's definitions are written in.
type Language int

const (
	Python Language = iota
	Java
	JavaScript
)

func (l Language) String() string {
	return [...]string{"python", "java", "javascript"}[l]
}

// languageOf follows BFCL: the java and javascript categories are those
// languages', every other is Python's.
func languageOf(category string) Language {
	switch {
	case strings.Contains(category, "javascript"):
		return JavaScript
	case strings.Contains(category, "java"):
		return Java
	}
	return Python
}

// The Python type each language's type names are checked as (BFCL's
// PYTHON_TYPE_MAPPING, JAVA_TYPE_CONVERSION, JS_TYPE_CONVERSION), with
// JSON Schema's own names added for cases written in it. "" is any type.
var (
	pythonTypes = map[string]string{
		"string": "str", "integer": "int", "float": "float", "boolean": "bool",
		"array": "list", "tuple": "list", "dict": "dict", "any": "str",
		// JSON Schema's, for the JSONL form of cases.
		"number": "float", "object": "dict", "null": "NoneType", "": "",
	}
	javaTypes = map[string]string{
		"byte": "int", "short": "int", "integer": "int", "long": "int",
		"float": "float", "double": "float", "boolean": "bool", "char": "str",
		"Array": "list", "ArrayList": "list", "Set": "list", "Queue": "list", "Stack": "list",
		"HashMap": "dict", "Hashtable": "dict", "String": "str", "any": "str",
	}
	jsTypes = map[string]string{
		"String": "str", "integer": "int", "float": "float", "Bigint": "int",
		"Boolean": "bool", "dict": "dict", "array": "list", "any": "str", "": "",
	}
)

// types returns the Python types a parameter's value and, for a list its
// items, are checked against ("" for no check).
func (l Language) types(p Param) (typ, nested string) {
	m := pythonTypes
	switch l {
	case Java:
		m = javaTypes
	case JavaScript:
		m = jsTypes
	}
	lookup := func(t string) string {
		if py, ok := m[t]; ok {
			return py
		}
		if py, ok := pythonTypes[t]; ok {
			return py
		}
		return "" // a type no convention names: any value
	}
	typ = lookup(p.Type)
	if typ == "list" && (l == Python && (p.Type == "array" || p.Type == "tuple") ||
		l != Python && (p.Type == "Array" || p.Type == "ArrayList" || p.Type == "array")) && p.ItemsType != "" {
		nested = lookup(p.ItemsType)
	}
	return typ, nested
}

// convert reads a Java or JavaScript literal written as a string, as
// BFCL's converters do: what does not read as the type stays the string.
func (l Language) convert(s, typ, items string) any {
	if l == Java {
		return javaValue(s, typ, items)
	}
	return jsValue(s, typ, items)
}

var (
	javaInt    = lazyRegexp(`^-?\d+$`)
	javaFloat  = lazyRegexp(`^-?\d+(\.\d+)?([eE][+-]?\d+)?[fF]$`)
	javaDouble = lazyRegexp(`^-?\d+(\.\d+)?([eE][+-]?\d+)?$`)
	javaLong   = lazyRegexp(`^-?\d+[lL]$`)
	asList     = lazyRegexp(`new\s+ArrayList<\w*>\(Arrays\.asList\((.+?)\)\)`)
	listAdds   = lazyRegexp(`(?s)new\s+ArrayList<\w*>\(\)\s*\{\{\s*(.+?)\s*\}\}`)
	oneAdd     = lazyRegexp(`add\((.+?)\)`)
	emptyList  = lazyRegexp(`new\s+ArrayList<\w*>\(\)`)
	javaArray  = lazyRegexp(`new\s+\w+\[\]\s*\{(.*?)\}`)
	hashMap    = lazyRegexp(`(?s)new\s+HashMap<.*?>\s*\(\)\s*\{\s*\{?\s*(.*?)\s*\}?\s*\}`)
	onePut     = lazyRegexp(`put\("(.*?)",\s*(.*?)\)`)
	emptyMap   = lazyRegexp(`new\s+HashMap<.*?>\s*\(\)`)
)

func number(s string) json.Number { return json.Number(s) }

// asFloat writes a number as a float (Python's float()).
func asFloat(s string) json.Number {
	if isIntText(s) {
		return json.Number(s + ".0")
	}
	return json.Number(s)
}

func javaValue(s, typ, items string) any {
	switch typ {
	case "byte", "short", "integer":
		if javaInt().MatchString(s) {
			return number(s)
		}
	case "float":
		if javaFloat().MatchString(s) {
			return asFloat(s[:len(s)-1])
		}
	case "double":
		if javaDouble().MatchString(s) {
			return asFloat(s)
		}
	case "long":
		if javaLong().MatchString(s) {
			return number(s[:len(s)-1])
		}
	case "boolean":
		if s == "true" || s == "false" {
			return s == "true"
		}
	case "ArrayList":
		return javaArrayList(s, items)
	case "Array":
		if m := javaArray().FindStringSubmatch(s); m != nil {
			out := []any{}
			for _, x := range strings.Split(m[1], ",") {
				if x = strings.TrimSpace(x); x != "" {
					out = append(out, javaItem(x, items))
				}
			}
			return out
		}
	case "HashMap":
		if m := hashMap().FindStringSubmatch(s); m != nil {
			out := map[string]any{}
			for _, put := range onePut().FindAllStringSubmatch(m[1], -1) {
				out[put[1]] = javaLiteral(strings.TrimSpace(put[2]))
			}
			return out
		}
		if emptyMap().MatchString(s) {
			return map[string]any{}
		}
	}
	return s
}

func javaArrayList(s, items string) any {
	if m := asList().FindStringSubmatch(s); m != nil {
		var out []any
		for _, x := range strings.Split(m[1], ",") {
			out = append(out, javaElement(strings.TrimSpace(x), items))
		}
		return out
	}
	if m := listAdds().FindStringSubmatch(s); m != nil {
		var out []any
		for _, add := range oneAdd().FindAllStringSubmatch(m[1], -1) {
			out = append(out, javaElement(strings.TrimSpace(add[1]), items))
		}
		return out
	}
	if emptyList().MatchString(s) {
		return []any{}
	}
	return s
}

// javaElement is an ArrayList's item: quotes taken off a char or String.
func javaElement(x, items string) any {
	if items == "char" || items == "String" {
		if len(x) >= 2 {
			return x[1 : len(x)-1]
		}
		return ""
	}
	return javaItem(x, items)
}

func javaItem(x, items string) any {
	if items != "" {
		return javaValue(x, items, "")
	}
	return javaLiteral(x)
}

// javaLiteral reads a literal of unknown type (BFCL's parse_java_value).
func javaLiteral(x string) any {
	switch {
	case x == "true" || x == "false":
		return x == "true"
	case len(x) >= 2 && strings.HasPrefix(x, `"`) && strings.HasSuffix(x, `"`):
		return x[1 : len(x)-1]
	case javaLong().MatchString(x):
		return number(x[:len(x)-1])
	case javaFloat().MatchString(x):
		return asFloat(x[:len(x)-1])
	case javaInt().MatchString(x):
		return number(x)
	case javaDouble().MatchString(x):
		return asFloat(x)
	}
	return x
}

var (
	jsInt    = lazyRegexp(`^-?\d+$`)
	jsFloat  = lazyRegexp(`^-?\d+(\.\d+)?$`)
	jsBigint = lazyRegexp(`^-?\d+n$`)
	jsArray  = lazyRegexp(`^(?:\[(.*?)\]|\bnew\s+Array\((.*?)\))`)
)

func jsValue(s, typ, items string) any {
	switch typ {
	case "String":
		if len(s) >= 2 && (s[0] == '"' && s[len(s)-1] == '"' || s[0] == '\'' && s[len(s)-1] == '\'') {
			return s[1 : len(s)-1]
		}
	case "integer":
		if jsInt().MatchString(s) {
			return number(s)
		}
	case "float":
		if jsFloat().MatchString(s) {
			return asFloat(s)
		}
	case "Bigint":
		if jsBigint().MatchString(s) {
			return number(s[:len(s)-1])
		}
	case "Boolean":
		if s == "true" || s == "false" {
			return s == "true"
		}
	case "array":
		return jsCollection(strings.TrimSpace(s), "array", items)
	case "dict":
		return jsCollection(strings.TrimSpace(s), "dict", items)
	}
	return s
}

// jsCollection reads an array or object literal. JSON (with single quotes
// for strings) is read whole; otherwise items are split at commas, as
// BFCL's parse_js_collection does.
func jsCollection(code, kind, items string) any {
	if v, ok := jsonish(code); ok {
		switch v.(type) {
		case []any:
			if kind == "array" {
				return v
			}
		case map[string]any:
			if kind == "dict" {
				return v
			}
		}
	}
	if kind == "dict" {
		if code == "{}" {
			return map[string]any{}
		}
		return code
	}
	m := jsArray().FindStringSubmatch(code)
	if m == nil {
		return code
	}
	body := strings.TrimSpace(m[1] + m[2])
	out := []any{}
	if body == "" {
		return out
	}
	for _, e := range strings.Split(body, ",") {
		e = strings.TrimSpace(e)
		if items != "" {
			out = append(out, jsValue(e, items, ""))
		} else {
			out = append(out, jsLiteral(e))
		}
	}
	return out
}

func jsLiteral(x string) any {
	switch {
	case x == "true" || x == "false":
		return x == "true"
	case len(x) >= 2 && (x[0] == '"' && x[len(x)-1] == '"' || x[0] == '\'' && x[len(x)-1] == '\''):
		return x[1 : len(x)-1]
	case jsInt().MatchString(x):
		return number(x)
	case javaDouble().MatchString(x):
		return asFloat(x)
	}
	return x
}

// jsonish decodes JSON, trying again with single quotes made double.
func jsonish(code string) (any, bool) {
	for _, text := range []string{code, strings.ReplaceAll(code, "'", `"`)} {
		d := json.NewDecoder(strings.NewReader(text))
		d.UseNumber()
		var v any
		if d.Decode(&v) == nil && !d.More() {
			return v, true
		}
	}
	return nil, false
}

// lazyRegexp compiles expr on first use, so that a toolcall command
// other than eval pays nothing for the converters' patterns at start-up.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
