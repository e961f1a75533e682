// Package plural writes counted nouns for messages: "1 run", "2 runs",
// "0 vertices". It is the one owner of English plurals in dspalab, used
// by the simulator (sim may import it: it is in this module and imports
// only the standard library) and by everything around it.
package plural

import "strconv"

// irregular holds the nouns whose plural is not noun + "s".
var irregular = map[string]string{"vertex": "vertices", "batch": "batches"}

// Count returns n and the noun in the number n asks for: "1 run",
// "2 runs", "0 vertices".
func Count[N ~int | ~int64](n N, noun string) string {
	return strconv.FormatInt(int64(n), 10) + " " + For(n, noun)
}

// For returns noun in the number n asks for, without n: "seed" for 1,
// "seeds" for any other n.
func For[N ~int | ~int64](n N, noun string) string {
	if n == 1 {
		return noun
	}
	return Of(noun)
}

// Of returns the plural of noun: "runs", "vertices".
func Of(noun string) string {
	if p, ok := irregular[noun]; ok {
		return p
	}
	return noun + "s"
}

// Choose returns one when n is 1 and many otherwise: the words that
// agree with a count, such as a verb ("resumes", "resume") or a pronoun.
func Choose[N ~int | ~int64](n N, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
