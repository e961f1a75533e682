package scenario

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/dspalab/dspalab/sim/des"
)

// The scenario format is described once, field by field, in fields.go: a
// Mapping per YAML mapping, a Field per key. Everything else is derived
// from that description: the strict decoder (allowed keys, did-you-mean
// with former spellings, "it belongs in ..." for a key at the wrong level,
// wrong types, fields that apply only to a variant or belong to another
// engine), the defaults (Parse and WithDefaults), the range and enum checks
// (also of a Scenario built in Go), the JSON Schema and the reference
// tables of docs/authoring.md. validate.go keeps only the rules that
// relate fields to each other and the job graph.
//
// The description is a table next to the types rather than struct tags: a
// field's one line of documentation, its variants and its bounds would
// make tags longer than the code they annotate, a default or bound written
// as a typed Go value ("10ms" as MinCheckpointInterval) is checked by the
// compiler, and a YAML key that is not one Go field (input and inputs,
// on_time for Arrival.On) needs no tag syntax of its own. The Go field a
// key fills is named in the row (Go), checked by TestDescriptionCoversTypes.

// Kind is what a field's value is, as written in YAML and as held in Go.
type Kind int

// Kinds of field.
const (
	KindDuration  Kind = iota + 1 // "250ms" in YAML; des.Time
	KindRate                      // "100/s"; float64 records per simulated second
	KindSize                      // "32KiB"; int64 bytes
	KindBandwidth                 // "1Gbit/s"; float64 bytes per simulated second
	KindEnum                      // one of Values; string (or a string type)
	KindInteger                   // a whole number within 32 bits; int
	KindSeed                      // a whole number within 64 bits, unsigned; uint64
	KindRatio                     // a finite number; float64
	KindBool                      // true or false
	KindText                      // one line of printable text; string
	KindString                    // any text, checked elsewhere (a vertex to fail); string
	KindName                      // a vertex name (reName); string
	KindMapping                   // a nested mapping (Sub); a struct or a pointer to one
	KindList                      // a list of mappings (Sub) or of strings; a slice
	KindCustom                    // decoded by its mapping's Decode (input, filter)
)

var kindNames = map[Kind]string{
	KindDuration: "duration", KindRate: "rate", KindSize: "size", KindBandwidth: "bandwidth",
	KindEnum: "enum", KindInteger: "integer", KindSeed: "integer", KindRatio: "number", KindBool: "boolean",
	KindText: "text", KindString: "text", KindName: "name", KindMapping: "mapping", KindList: "list", KindCustom: "",
}

// Value is one allowed value of an enum field. Former lists spellings
// people use for it (compared in lower case with - for _ and spaces),
// suggested with FormerWhy.
type Value struct {
	Name      string
	Doc       string
	Former    []string
	FormerWhy string
}

// Cond says where a field applies: when the enum or boolean field Field
// (a key of the same mapping, or a dotted path into a nested one, such as
// "arrival.process") has one of Values. Owner marks an owning field such
// as an engine or a vertex kind: a key given for another one is refused
// with "this field belongs to engine: flink".
type Cond struct {
	Field  string
	Values []string
	Owner  bool
	// Not turns the condition around: the field applies unless Field
	// has one of Values.
	Not bool
	// Text, if set, replaces "FIELD V1 or V2" in messages; Why is added
	// in parentheses.
	Text, Why string
}

// Bounds limit a number, duration, rate, size or bandwidth (in its Go
// unit: des.Time, bytes, records or bytes per second). Min and Max are
// nil when unbounded; Positive asks for > 0 (checked before Min); ZeroOff
// allows 0 as "off" besides [Min, Max]. The Why texts say in parentheses
// what the bound means.
type Bounds struct {
	Min, Max                   any
	Positive                   bool
	MinExclusive, MaxExclusive bool
	ZeroOff                    bool
	MinWhy, MaxWhy             string
	PositiveWhy                string
	Per                        string // after the bound: "1e9/s per subtask"
	min, max                   float64
	hasMin, hasMax             bool
	normalizedBounds           bool
}

// Field describes one key of a mapping.
type Field struct {
	Name string // YAML key
	Go   string // struct field it fills ("" when the mapping's Decode fills it)
	Kind Kind
	// Doc is one line: what it is, its unit, and the Flink, Spark or Kafka
	// setting it corresponds to.
	Doc string
	// Default is the value when the key is absent, as written in YAML for
	// units ("100ms"), else a Go value (2, true, "heap"); nil for none.
	// DefaultDoc says in words what a computed default is.
	Default    any
	DefaultDoc string
	Required   bool
	// RequiredWhen makes the key required where Only's variant holds.
	RequiredWhen *Cond
	Values       []Value // KindEnum
	Noun         string  // what an enum value or a list item is called in messages ("time unit", "step"); default: the key, without a plural s
	Example      string  // a value, for messages and the docs
	Sub          *Mapping
	Bounds       Bounds
	// Former lists other spellings (renamed keys, Flink's names) that
	// the did-you-mean of an unknown key suggests this field for.
	Former []string
	Only   *Cond
	// ZeroDefault: in a Scenario built in Go, a zero value stands for the
	// default (WithDefaults fills it, validation accepts it).
	ZeroDefault bool
	// FillZero: WithDefaults fills a zero value, but validation checks it
	// (metrics.interval).
	FillZero bool
	// Schema, if set, is the field's JSON Schema (without description
	// and default), where its kind does not say enough.
	Schema map[string]any
	// EmptyOK: an enum, text or name left "" means unset (the data
	// set's default, or none), not an unknown or empty value.
	EmptyOK bool
	// Inherit: the mapping's defaults are the scenario's values of the
	// same field (a vertex's network), so checks skip the fields that
	// equal them (reported there).
	Inherit bool
}

// Mapping describes one YAML mapping of the format.
type Mapping struct {
	// Path is where the mapping is ("checkpoint", "sources[]",
	// "sources[].arrival"), for the docs and "it belongs in ...".
	Path   string
	Doc    string
	Fields []*Field
	// Special gives the message of a known mistake, by key.
	Special map[string]string
	// Extensions allows keys starting with x- (a place for anchors).
	Extensions bool
	// ZeroDefault: in a Scenario built in Go, a zero value of the whole
	// mapping stands for all its defaults.
	ZeroDefault bool
	// Custom decodes a key of KindCustom, in its turn; After, if set,
	// decodes the rules between keys once the keys are decoded; Prefill
	// sets what a new item holds beyond its defaults. v is the struct.
	Custom  func(d *decoder, m *mapping, f *Field, v reflect.Value)
	After   func(d *decoder, m *mapping, v reflect.Value)
	Prefill func(d *decoder, v reflect.Value)
}

// Field returns the field of the given key, or nil.
func (mp *Mapping) Field(name string) *Field {
	for _, f := range mp.Fields {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// names returns the keys of the mapping in order.
func (mp *Mapping) names() []string {
	out := make([]string, len(mp.Fields))
	for i, f := range mp.Fields {
		out[i] = f.Name
	}
	return out
}

// values returns the names of an enum field's values.
func (f *Field) values() []string {
	out := make([]string, len(f.Values))
	for i, v := range f.Values {
		out[i] = v.Name
	}
	return out
}

// noun is what an enum value of f is called in messages.
func (f *Field) noun() string {
	if f.Noun != "" {
		return f.Noun
	}
	return f.Name
}

// itemNoun is what an item of a list field is called: "step".
func (f *Field) itemNoun() string {
	if f.Noun != "" {
		return f.Noun
	}
	return strings.TrimSuffix(f.Name, "s")
}

// number converts a bound or default given as a Go value or a YAML unit
// string to f's Go unit as a float64.
func (f *Field) number(v any) float64 {
	switch x := v.(type) {
	case des.Time:
		return float64(x)
	case int:
		return float64(x)
	case int64:
		return float64(x)
	case float64:
		return x
	case string:
		g, err := f.parse(x)
		if err != nil {
			panic(fmt.Sprintf("scenario: field %s: %v", f.Name, err)) // the table is static: TestDescription
		}
		return toFloat(reflect.ValueOf(g))
	}
	panic(fmt.Sprintf("scenario: field %s: bound or default of type %T", f.Name, v))
}

// parse reads YAML text of a unit kind into its Go value.
func (f *Field) parse(s string) (any, error) {
	switch f.Kind {
	case KindDuration:
		return ParseDuration(s)
	case KindRate:
		return ParseRate(s)
	case KindSize:
		return ParseByteSize(s)
	case KindBandwidth:
		return ParseBandwidth(s)
	}
	return s, nil
}

// format writes a number of f's Go unit as the user would.
func (f *Field) format(x float64) string {
	switch f.Kind {
	case KindDuration:
		return FormatDuration(des.Time(x))
	case KindRate:
		return FormatRate(x)
	case KindSize:
		return FormatByteSize(int64(x))
	case KindBandwidth:
		return FormatBandwidth(x)
	}
	return formatFloat(x)
}

func toFloat(v reflect.Value) float64 {
	switch v.Kind() {
	case reflect.Int, reflect.Int64, reflect.Int32:
		return float64(v.Int())
	case reflect.Uint64:
		return float64(v.Uint())
	case reflect.Float64:
		return v.Float()
	}
	return math.NaN()
}

// bounds returns f's bounds with Min and Max as numbers.
func (f *Field) bounds() *Bounds {
	b := &f.Bounds
	if !b.normalizedBounds {
		if b.Min != nil {
			b.min, b.hasMin = f.number(b.Min), true
		}
		if b.Max != nil {
			b.max, b.hasMax = f.number(b.Max), true
		}
		b.normalizedBounds = true
	}
	return b
}

// goValue returns the Go value of f's default.
func (f *Field) goValue(t reflect.Type) reflect.Value {
	v := reflect.New(t).Elem()
	switch x := f.Default.(type) {
	case bool:
		v.SetBool(x)
	case string:
		if f.Kind == KindEnum || f.Kind == KindText || f.Kind == KindName {
			v.SetString(x)
			break
		}
		setNumber(v, f.number(x))
	default:
		setNumber(v, f.number(x))
	}
	return v
}

func setNumber(v reflect.Value, x float64) {
	switch v.Kind() {
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(int64(x))
	case reflect.Uint64:
		v.SetUint(uint64(x))
	case reflect.Float64:
		v.SetFloat(x)
	}
}

// defaultText is f's default as the docs and the schema show it ("" for
// none).
func (f *Field) defaultText() string {
	switch {
	case f.DefaultDoc != "":
		return f.DefaultDoc
	case f.Default == nil:
		return ""
	}
	return fmt.Sprint(f.Default)
}

// onlyText says where a condition holds, or with Not where it does not:
// "process bursty", "mode stop-the-world, aligned or unaligned".
func (c *Cond) onlyText() string {
	if c.Text != "" {
		return c.Text
	}
	return c.last() + " " + orList(c.Values)
}

func (c *Cond) last() string { return c.Field[strings.LastIndex(c.Field, ".")+1:] }

// holds reports whether value satisfies c.
func (c *Cond) holds(value string) bool { return slices.Contains(c.Values, value) != c.Not }

// notApplies is the message of a key given where c does not hold (value,
// shown as label).
func (c *Cond) notApplies(key, label string) string {
	switch {
	case c.Owner:
		return fmt.Sprintf("this field belongs to %s: %s, not %s", c.last(), orList(c.Values), label)
	case c.Not:
		return fmt.Sprintf("%q does not apply to %s: %s", key, c.onlyText(), c.Why)
	}
	msg := fmt.Sprintf("%q applies only to %s", key, c.onlyText())
	if label != "" {
		msg += ", not " + label
	}
	if c.Why != "" {
		msg += " (" + c.Why + ")"
	}
	return msg
}

// orList joins words as "a", "a or b", "a, b or c".
func orList(words []string) string {
	switch len(words) {
	case 0:
		return ""
	case 1:
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// condValue returns the value of the field at the dotted path (in YAML
// names) under the struct v of mp, as text ("" when unknown), and the
// field's description.
func condValue(mp *Mapping, v reflect.Value, path string) (string, *Field) {
	name, rest, nested := strings.Cut(path, ".")
	f := mp.Field(name)
	if f == nil || f.Go == "" {
		return "", nil
	}
	fv := v.FieldByName(f.Go)
	if nested {
		if fv.Kind() == reflect.Pointer {
			if fv.IsNil() {
				return "", nil
			}
			fv = fv.Elem()
		}
		return condValue(f.Sub, fv, rest)
	}
	switch fv.Kind() {
	case reflect.Bool:
		return fmt.Sprint(fv.Bool()), f
	case reflect.String:
		return fv.String(), f
	}
	return "", f
}

// homes indexes every key of the format by name: the paths of the
// mappings that have it, for "it belongs in ...".
var homes = func() map[string][]string {
	h := map[string][]string{}
	var walk func(mp *Mapping)
	seen := map[*Mapping]bool{}
	walk = func(mp *Mapping) {
		if seen[mp] {
			return
		}
		seen[mp] = true
		for _, f := range mp.Fields {
			h[f.Name] = append(h[f.Name], mp.Path)
			if f.Sub != nil {
				walk(f.Sub)
			}
		}
	}
	walk(topMapping)
	return h
}()

// home says where a key that is unknown in mp belongs, when exactly one
// other mapping has it: "at the top level of the scenario", "in
// workers.heartbeat_timeout".
func home(mp *Mapping, name string) (string, bool) {
	paths := homes[name]
	if len(paths) != 1 || paths[0] == mp.Path {
		return "", false
	}
	if paths[0] == "" {
		return "at the top level of the scenario", true
	}
	return "in " + paths[0] + "." + name, true
}

// mappings returns every mapping of the format, the top level first, each
// once, in the order of the docs.
func mappings() []*Mapping {
	var out []*Mapping
	seen := map[*Mapping]bool{}
	var walk func(mp *Mapping)
	walk = func(mp *Mapping) {
		if seen[mp] {
			return
		}
		seen[mp] = true
		out = append(out, mp)
		for _, f := range mp.Fields {
			if f.Sub != nil {
				walk(f.Sub)
			}
		}
	}
	walk(topMapping)
	return out
}
