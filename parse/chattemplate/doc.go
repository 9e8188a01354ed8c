// Package chattemplate reads a model's own chat template (a Jinja file, a
// tokenizer_config.json or the header of a GGUF file), renders
// conversations with it, and derives from it how the model writes tool
// calls, so that parse can read any model whose template says so.
//
// Nothing happens at package init: the Jinja engine is set up on first use.
package chattemplate
