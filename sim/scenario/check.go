package scenario

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"unicode"
	"unicode/utf8"

	"github.com/dspalab/dspalab/internal/strictyaml"
)

// The checks of single fields, derived from the description: enum values,
// bounds, names and one-line texts, each only where its variant applies.
// They run on the result of Parse and on a Scenario built in Go.

// fields checks the fields of the struct v described by mp at path; base,
// if valid, holds the values inherited from the scenario (a vertex's
// network): fields equal to them are checked there.
func (c *checker) fields(mp *Mapping, v reflect.Value, path string, base reflect.Value) {
	for _, f := range mp.Fields {
		if f.Go == "" || !c.applies(mp, v, f) {
			continue
		}
		p := strictyaml.Join(path, f.Name)
		fv := v.FieldByName(f.Go)
		if base.IsValid() && fv.Equal(base.FieldByName(f.Go)) {
			continue
		}
		switch f.Kind {
		case KindEnum:
			if !(f.EmptyOK && fv.String() == "" && !c.s.given(p)) {
				c.enum(p, f, fv.String())
			}
		case KindName:
			if !(f.EmptyOK && fv.String() == "" && !c.s.given(p)) {
				c.name(p, fv.String())
			}
		case KindText:
			maxLen := 0
			if f.Bounds.Max != nil {
				maxLen = int(f.number(f.Bounds.Max))
			}
			c.text(p, fv.String(), maxLen)
		case KindMapping:
			var inherit reflect.Value
			if f.Inherit {
				inherit = reflect.ValueOf(c.s).Elem().FieldByName(f.Go)
			}
			if fv.Kind() == reflect.Pointer {
				if fv.IsNil() {
					continue
				}
				fv = fv.Elem()
			}
			c.fields(f.Sub, fv, p, inherit)
		case KindList:
			if f.Sub != nil {
				for i := range fv.Len() {
					c.fields(f.Sub, fv.Index(i), strictyaml.Index(p, i), reflect.Value{})
				}
			}
		case KindDuration, KindRate, KindSize, KindBandwidth, KindInteger, KindRatio:
			c.bounds(p, f, toFloat(fv))
		}
	}
}

// applies reports whether f applies to the variant of the struct v: its
// condition holds, or names an enum value that is invalid (reported at
// the enum; the field is then not checked either).
func (c *checker) applies(mp *Mapping, v reflect.Value, f *Field) bool {
	if f.Only == nil {
		return true
	}
	val, cf := condValue(mp, v, f.Only.Field)
	if cf != nil && cf.Kind == KindEnum && !slices.Contains(cf.values(), val) {
		return f.Only.Not
	}
	return cf != nil && f.Only.holds(val)
}

// bounds checks the number x of field f at path p against f's bounds.
func (c *checker) bounds(p string, f *Field, x float64) {
	b := f.bounds()
	if x == 0 && (b.ZeroOff || f.ZeroDefault && !c.s.given(p)) {
		return
	}
	why := func(w string) string {
		if w == "" {
			return ""
		}
		return " (" + w + ")"
	}
	var msg string
	upper := "at most "
	if b.MaxExclusive {
		upper = "less than "
	}
	switch {
	case f.Kind == KindRatio && b.hasMin && b.hasMax && b.MinWhy == "" && b.MaxWhy != "" && !(x >= b.min && (x < b.max || !b.MaxExclusive && x <= b.max)):
		// one range with one reason: "at least 0 and less than 1 (a fraction of the backoff)"
		msg = "must be at least " + f.format(b.min) + " and " + upper + f.format(b.max) + why(b.MaxWhy)
	case math.IsInf(x, 0) || math.IsNaN(x):
		msg = "must be a finite number"
	case b.Positive && !(x > 0):
		msg = "must be greater than 0" + why(b.PositiveWhy)
	case b.hasMin && b.MinExclusive && !(x > b.min):
		msg = "must be greater than " + f.format(b.min) + why(b.MinWhy)
	case b.hasMin && !(x >= b.min) && b.ZeroOff:
		msg = "must be 0 (off) or at least " + f.format(b.min) + why(b.MinWhy)
	case b.hasMin && !(x >= b.min) && b.min == 0 && f.Kind != KindInteger && f.Kind != KindRatio:
		msg = "must not be negative" + why(b.MinWhy)
	case b.hasMin && !(x >= b.min):
		msg = "must be at least " + f.format(b.min) + why(b.MinWhy)
	case b.hasMax && b.MaxExclusive && !(x < b.max):
		msg = "must be less than " + f.format(b.max) + why(b.MaxWhy)
	case b.hasMax && !(x <= b.max):
		msg = "must be at most " + f.format(b.max) + b.Per + why(b.MaxWhy)
	default:
		return
	}
	got := f.format(x)
	if f.Kind == KindInteger && x == math.Trunc(x) && math.Abs(x) < 1<<53 {
		got = strconv.FormatFloat(x, 'f', -1, 64) // a whole number is written in digits: echo it so
	}
	c.errorf(p, "%s, got %s", msg, got)
}

// enum checks that v is one of f's values, suggesting the nearest, or the
// value v is a former spelling of.
func (c *checker) enum(path string, f *Field, v string) bool {
	valid := f.values()
	if slices.Contains(valid, v) {
		return true
	}
	for _, val := range f.Values {
		if slices.ContainsFunc(val.Former, func(s string) bool { return normalize(s) == normalize(v) }) {
			c.errorf(path, "unknown %s %s; did you mean %q? (%s)", f.noun(), quote(v), val.Name, val.FormerWhy)
			return false
		}
	}
	if s := suggest(v, valid); s != "" {
		c.errorf(path, "unknown %s %s; did you mean %q?", f.noun(), quote(v), s)
	} else {
		c.errorf(path, "unknown %s %s; expected %s", f.noun(), quote(v), orList(valid))
	}
	return false
}

// name checks a vertex name.
func (c *checker) name(path, name string) {
	switch {
	case name == "":
		c.errorf(path, "must not be empty")
	case len(name) > MaxNameLength:
		c.errorf(path, "must be at most %d characters long, got %d", MaxNameLength, len(name))
	case !reName.MatchString(name) && reName.MatchString("_"+name):
		c.errorf(path, "must not start with - or . (it would read as a flag or a hidden file), got %s", quote(name))
	case !reName.MatchString(name):
		c.errorf(path, "expected a name of ASCII letters, digits, _, - and . such as parse_2, got %s", quote(name))
	}
}

// text checks a one-line label (the scenario's name or description): no
// control characters, line breaks or bidirectional controls, and at most
// maxLen characters (0: no limit).
func (c *checker) text(path, s string, maxLen int) {
	if !utf8.ValidString(s) {
		c.errorf(path, "must be one line of printable text (found bytes that are not UTF-8)")
		return
	}
	for _, r := range s {
		if what := badTextRune(r); what != "" {
			c.errorf(path, "must be one line of printable text (found %s U+%04X)", what, r)
			return
		}
	}
	if n := utf8.RuneCountInString(s); maxLen > 0 && n > maxLen {
		c.errorf(path, "must be at most %d characters long (one line of a listing), got %d", maxLen, n)
	}
}

// badTextRune says what r is if a name or description may not hold it:
// "a control character" (newline, tab, ESC, ...), "a line separator",
// "a paragraph separator" or "a bidirectional control character" (which
// reorders the text a terminal shows); "" if r is fine.
func badTextRune(r rune) string {
	switch {
	case unicode.IsControl(r):
		return "a control character"
	case r == '\u2028':
		return "a line separator"
	case r == '\u2029':
		return "a paragraph separator"
	case r == '\u061C' || r == '\u200E' || r == '\u200F' || r >= '\u202A' && r <= '\u202E' || r >= '\u2066' && r <= '\u2069':
		return "a bidirectional control character"
	}
	return ""
}

// rangeText says that an index must be in [0, n).
func rangeText(n int, why string) string {
	if n == 1 {
		return fmt.Sprintf("must be 0 (%s)", why)
	}
	return fmt.Sprintf("must be from 0 to %d (%s)", n-1, why)
}
