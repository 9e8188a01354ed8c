package catalog

// aliasProblems lists what is wrong with the tool's argument aliases
// (tools.Tool.AliasProblems), for Check.
func (e *entry) aliasProblems() []Problem {
	var ps []Problem
	for _, msg := range e.tool.AliasProblems() {
		ps = append(ps, Problem{File: e.file, Tool: e.tool.Name, Message: msg})
	}
	return ps
}
