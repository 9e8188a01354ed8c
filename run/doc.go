// Package run is the loop of toolcall run: it builds the prompt from the
// catalog, asks a model, parses what it says as it arrives, validates and
// executes the calls with the code of toolcall exec, gives the
// observations back, and writes the whole exchange as a JSONL transcript.
package run
