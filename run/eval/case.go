package eval

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/toolcall/toolcall/tools"
)

// Case is one request with a known right answer.
type Case struct {
	ID       string
	Category string // BFCL's: simple_python, multiple, parallel, irrelevance, …
	Language Language
	// Messages are the request: the first turn of BFCL's "question".
	Messages []Message
	// Functions are the definitions offered, as the case gives them
	// (BFCL's dialect: "dict", "float", Java and JavaScript type names).
	Functions []Function
	// Answer is the ground truth: the calls expected, each argument with
	// its accepted values. Empty for irrelevance: no call is right.
	Answer []Expected

	offered []*tools.Tool // the Functions as tools, read with the case
}

// Message is one message of a request.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Function is one function definition of a case.
type Function struct {
	Name     string
	Raw      json.RawMessage // the definition as written
	Params   map[string]Param
	Required []string
}

// Param is what the checker needs of one parameter's definition.
type Param struct {
	Type      string // as written: "float", "String", "HashMap", …
	ItemsType string // for arrays: the items' type
}

// Expected is one expected call: the function and, for each argument in
// the answer's order, its accepted values ("" among them: it may be left
// out).
type Expected struct {
	Name   string
	Params acceptedArgs
}

// Kind is how a category is checked.
type Kind int

const (
	KindSimple     Kind = iota // one call
	KindMultiple               // one call, chosen among several functions
	KindParallel               // several calls, in any order (parallel and parallel_multiple)
	KindIrrelevant             // no call
)

// Kind follows BFCL: a category with "parallel" in its name is checked
// as parallel, else one with "multiple" as multiple, else as simple;
// irrelevance is right when no call is made.
func (c *Case) Kind() Kind {
	switch {
	case strings.Contains(c.Category, "irrelevance"):
		return KindIrrelevant
	case strings.Contains(c.Category, "parallel"):
		return KindParallel
	case strings.Contains(c.Category, "multiple"):
		return KindMultiple
	}
	return KindSimple
}

// Irrelevant says no call is the right answer.
func (c *Case) Irrelevant() bool { return c.Kind() == KindIrrelevant || len(c.Answer) == 0 }

func (c *Case) function(name string) *Function {
	for i := range c.Functions {
		if c.Functions[i].Name == name {
			return &c.Functions[i]
		}
	}
	return nil
}

func (c *Case) expectedNames() string {
	names := make([]string, len(c.Answer))
	for i, a := range c.Answer {
		names[i] = a.Name
	}
	return strings.Join(names, ", ")
}

// categoryOf takes the category from an id: "simple_java_12" is simple_java.
var trailingNumber = lazyRegexp(`_\d+$`)

func categoryOf(id string) string {
	return trailingNumber().ReplaceAllString(id, "")
}

// bfclCase is a line of BFCL's data files, and of the JSONL form of a
// case, which adds "category" and "ground_truth" on the same line and
// "prompt" for a one-message request.
type bfclCase struct {
	ID          string            `json:"id"`
	Category    string            `json:"category"`
	Question    [][]Message       `json:"question"`
	Messages    []Message         `json:"messages"`
	Prompt      string            `json:"prompt"`
	Function    []json.RawMessage `json:"function"`
	GroundTruth []json.RawMessage `json:"ground_truth"`
}

type bfclAnswer struct {
	ID          string            `json:"id"`
	GroundTruth []json.RawMessage `json:"ground_truth"`
}

// Load reads cases from path: a BFCL data file (its answers, when it has
// any, in possible_answer/ beside it under the same name), a directory of
// them, or a JSONL file of cases in the same form with "ground_truth" on
// each line.
func Load(path string) ([]*Case, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return loadFile(os.DirFS(filepath.Dir(path)), filepath.Base(path), path)
	}
	return loadDir(os.DirFS(path), ".", path)
}

// loadDir reads every case file of dir in fsys; shown names the
// directory in messages, as the user gave it.
func loadDir(fsys fs.FS, dir, shown string) ([]*Case, error) {
	files, err := fs.Glob(fsys, path.Join(dir, "*.json*"))
	if err != nil {
		return nil, err
	}
	var all []*Case
	for _, f := range files {
		cs, err := loadFile(fsys, f, filepath.Join(shown, path.Base(f)))
		if err != nil {
			return nil, err
		}
		all = append(all, cs...)
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("%s: no case files (*.json, *.jsonl) in it", shown)
	}
	return all, nil
}

// loadFile reads the case file name of fsys; shown is its name in
// messages.
func loadFile(fsys fs.FS, name, shown string) ([]*Case, error) {
	answerFile := path.Join(path.Dir(name), "possible_answer", path.Base(name))
	answers, err := loadAnswers(fsys, answerFile, filepath.Join(filepath.Dir(shown), "possible_answer", filepath.Base(shown)))
	if err != nil {
		return nil, err
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var cases []*Case
	err = eachLine(f, func(n int, line []byte) error {
		var bc bfclCase
		if err := json.Unmarshal(line, &bc); err != nil {
			return fmt.Errorf("%s:%d: not a case: %w", shown, n, err)
		}
		if gt, ok := answers[bc.ID]; ok && bc.GroundTruth == nil {
			bc.GroundTruth = gt
		}
		c, err := bc.toCase()
		if err != nil {
			return fmt.Errorf("%s:%d: case %q: %w", shown, n, bc.ID, err)
		}
		cases = append(cases, c)
		return nil
	})
	return cases, err
}

func loadAnswers(fsys fs.FS, name, shown string) (map[string][]json.RawMessage, error) {
	f, err := fsys.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string][]json.RawMessage{}
	err = eachLine(f, func(n int, line []byte) error {
		var a bfclAnswer
		if err := json.Unmarshal(line, &a); err != nil {
			return fmt.Errorf("%s:%d: not an answer: %w", shown, n, err)
		}
		out[a.ID] = a.GroundTruth
		return nil
	})
	return out, err
}

func eachLine(r io.Reader, f func(n int, line []byte) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if err := f(n, line); err != nil {
			return err
		}
	}
	return sc.Err()
}

func (bc *bfclCase) toCase() (*Case, error) {
	if bc.ID == "" {
		return nil, errors.New(`no "id"`)
	}
	c := &Case{ID: bc.ID, Category: bc.Category}
	if c.Category == "" {
		c.Category = categoryOf(bc.ID)
	}
	c.Language = languageOf(c.Category)
	switch {
	case len(bc.Question) > 0:
		c.Messages = bc.Question[0]
	case len(bc.Messages) > 0:
		c.Messages = bc.Messages
	case bc.Prompt != "":
		c.Messages = []Message{{Role: "user", Content: bc.Prompt}}
	default:
		return nil, errors.New(`no request: give "question" (BFCL's), "messages" or "prompt"`)
	}
	for i, raw := range bc.Function {
		fn, err := parseFunction(raw)
		if err != nil {
			return nil, fmt.Errorf("function %d: %w", i+1, err)
		}
		c.Functions = append(c.Functions, fn)
	}
	if len(c.Functions) == 0 {
		return nil, errors.New(`no "function" definitions`)
	}
	for i, raw := range bc.GroundTruth {
		e, err := parseExpected(raw)
		if err != nil {
			return nil, fmt.Errorf("ground_truth %d: %w", i+1, err)
		}
		if c.function(e.Name) == nil {
			return nil, fmt.Errorf("ground_truth %d calls %q, which is not among the functions", i+1, e.Name)
		}
		c.Answer = append(c.Answer, e)
	}
	if len(c.Answer) == 0 && c.Kind() != KindIrrelevant {
		return nil, fmt.Errorf(`no "ground_truth" (nor a possible_answer/ line for it), and category %q is not irrelevance`, c.Category)
	}
	// The functions as tools, once: a definition toolcall cannot read is
	// the case file's error, found before anything runs, and each tool's
	// schema is compiled once however many settings run the case.
	offered, err := c.tools()
	if err != nil {
		return nil, err
	}
	c.offered = offered
	return c, nil
}

func parseFunction(raw json.RawMessage) (Function, error) {
	var def struct {
		Name       string `json:"name"`
		Parameters struct {
			Properties map[string]struct {
				Type  any `json:"type"`
				Items struct {
					Type any `json:"type"`
				} `json:"items"`
			} `json:"properties"`
			Required []string `json:"required"`
		} `json:"parameters"`
	}
	if err := json.Unmarshal(raw, &def); err != nil {
		return Function{}, err
	}
	if def.Name == "" {
		return Function{}, errors.New(`no "name"`)
	}
	fn := Function{Name: def.Name, Raw: raw, Params: map[string]Param{}, Required: def.Parameters.Required}
	for name, p := range def.Parameters.Properties {
		fn.Params[name] = Param{Type: typeName(p.Type), ItemsType: typeName(p.Items.Type)}
	}
	return fn, nil
}

// typeName is a "type" as one name: the first of a list.
func typeName(t any) string {
	switch t := t.(type) {
	case string:
		return t
	case []any:
		if len(t) > 0 {
			s, _ := t[0].(string)
			return s
		}
	}
	return ""
}

// parseExpected reads one ground-truth call, {"name": {"param": [values…]}},
// keeping the parameters' order.
func parseExpected(raw json.RawMessage) (Expected, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var outer map[string]json.RawMessage
	if err := d.Decode(&outer); err != nil {
		return Expected{}, err
	}
	if len(outer) != 1 {
		return Expected{}, fmt.Errorf("want one function name as the only key, found %d keys", len(outer))
	}
	var e Expected
	var body json.RawMessage
	for name, b := range outer {
		e.Name, body = name, b
	}
	if err := decodeOrdered(body, func(param string, v any) error {
		list, ok := v.([]any)
		if !ok {
			return fmt.Errorf("%s.%s: the accepted values are not a list", e.Name, param)
		}
		e.Params = append(e.Params, acceptedArg{param, list})
		return nil
	}); err != nil {
		return Expected{}, err
	}
	return e, nil
}

// acceptedArgs are an expected call's arguments in the answer's order.
type acceptedArgs []acceptedArg

type acceptedArg struct {
	name     string
	accepted []any
}

func (a acceptedArgs) get(name string) ([]any, bool) {
	for _, x := range a {
		if x.name == name {
			return x.accepted, true
		}
	}
	return nil, false
}

// orderedArgs are a call's arguments in the order the model wrote them.
type orderedArgs []namedValue

type namedValue struct {
	name  string
	value any
}

func (a orderedArgs) get(name string) (any, bool) {
	for _, x := range a {
		if x.name == name {
			return x.value, true
		}
	}
	return nil, false
}

func decodeArguments(raw json.RawMessage, out *orderedArgs) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return decodeOrdered(raw, func(name string, v any) error {
		*out = append(*out, namedValue{name, v})
		return nil
	})
}

// decodeOrdered calls f for each member of a JSON object, in order, its
// value decoded with json.Number.
func decodeOrdered(raw []byte, f func(name string, v any) error) error {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	tok, err := d.Token()
	if err != nil {
		return err
	}
	if tok != json.Delim('{') {
		return errors.New("not a JSON object")
	}
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return err
		}
		name, _ := tok.(string)
		var v any
		if err := d.Decode(&v); err != nil {
			return err
		}
		if err := f(name, v); err != nil {
			return err
		}
	}
	_, err = d.Token()
	return err
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
