package chattemplate

import (
	"github.com/nikolalohinski/gonja/v2/exec"
	"github.com/nikolalohinski/gonja/v2/nodes"
	"github.com/nikolalohinski/gonja/v2/parser"
	"github.com/nikolalohinski/gonja/v2/tokens"
)

// {% generation %} … {% endgeneration %} is transformers' mark for the
// assistant's own tokens (for training masks). Rendering a prompt, it
// renders its body and nothing else.
type generationBlock struct{ body *nodes.Wrapper }

func (g *generationBlock) Position() *tokens.Token { return g.body.Position() }
func (g *generationBlock) String() string          { return "generation" }

func (g *generationBlock) Execute(r *exec.Renderer, _ *nodes.ControlStructureBlock) error {
	return r.ExecuteWrapper(g.body)
}

func parseGeneration(p *parser.Parser, args *parser.Parser) (nodes.ControlStructure, error) {
	body, _, err := p.WrapUntil("endgeneration")
	if err != nil {
		return nil, err
	}
	if !args.Stream().End() {
		return nil, args.Error("generation takes no arguments", nil)
	}
	return &generationBlock{body: body}, nil
}
