package leaktest

import "math/rand/v2"

// FakeKey returns n characters that look like a random key, the same on
// every run. Keys are made up here rather than written out, so that no
// secret scanner mistakes the tests for a leak.
func FakeKey(seed uint64, n int) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	r := rand.New(rand.NewPCG(seed, 7))
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	// Random keys of this length have all three kinds; make sure.
	copy(b, "a7Q")
	return string(b)
}

// FakeUpper is FakeKey in upper case letters and digits 2-7, as AWS key
// ids are written.
func FakeUpper(seed uint64, n int) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	r := rand.New(rand.NewPCG(seed, 9))
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	b[3] = '7'
	return string(b)
}
