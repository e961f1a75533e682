package plural

import "testing"

func TestPlural(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{Count(0, "run"), "0 runs"},
		{Count(1, "run"), "1 run"},
		{Count(int64(2), "row"), "2 rows"},
		{Count(-1, "run"), "-1 runs"},
		{Count(3, "vertex"), "3 vertices"},
		{Count(1, "vertex"), "1 vertex"},
		{For(1, "seed"), "seed"},
		{For(2, "seed"), "seeds"},
		{Of("vertex"), "vertices"},
		{Of("operator"), "operators"},
		{Choose(1, "resumes", "resume"), "resumes"},
		{Choose(int64(0), "resumes", "resume"), "resume"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
