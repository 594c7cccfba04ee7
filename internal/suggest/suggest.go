// Package suggest finds the name a user probably meant, for "did you mean" hints in the CLI's
// flag errors and in configuration notes. It is a leaf: it imports nothing.
package suggest

// Distance is the Levenshtein distance between a and b, in bytes: the fewest single-byte
// insertions, deletions and substitutions that turn a into b.
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Nearest is the name in names closest to s by Distance, at most maxDist edits away, or ""
// when none is that close. Of equally close names the first wins.
func Nearest(s string, names []string, maxDist int) string {
	best, bestD := "", maxDist+1
	for _, n := range names {
		if d := Distance(s, n); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}
