package run

import "github.com/tidwall/gjson"

// The JSON the model wrote, inside an event, that the view shows: not
// lines of the transcript (the view takes those as values), but values
// the model made, kept as it made them.

// eachArgument calls fn with each key of a call's arguments and its value
// as written, in order.
func eachArgument(args []byte, fn func(k, raw string)) {
	gjson.ParseBytes(args).ForEach(func(k, v gjson.Result) bool {
		fn(k.String(), v.Raw)
		return true
	})
}

// directlyAnswerTool is the "tool_name" of Command R's directly_answer
// object, the content of its text event.
func directlyAnswerTool(content []byte) string {
	return gjson.GetBytes(content, "tool_name").String()
}
