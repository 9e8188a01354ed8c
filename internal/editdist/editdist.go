// Package editdist is did-you-mean: the edit distance that suggestions
// rank names by, and Suggest, which picks the names a model or a person
// probably meant.
package editdist

// Levenshtein is the edit distance between a and b, in bytes: the names
// it compares (flags, shells, format-file fields) are ASCII.
func Levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
