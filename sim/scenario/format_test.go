package scenario

import (
	"reflect"
	"strings"
	"testing"

	"github.com/dspalab/dspalab/sim/des"
)

// goKinds are the Go types each kind of field decodes into.
var goKinds = map[Kind][]reflect.Type{
	KindDuration:  {reflect.TypeFor[des.Time]()},
	KindRate:      {reflect.TypeFor[float64]()},
	KindSize:      {reflect.TypeFor[int64]()},
	KindBandwidth: {reflect.TypeFor[float64]()},
	KindEnum:      {reflect.TypeFor[string](), reflect.TypeFor[Capacity]()},
	KindInteger:   {reflect.TypeFor[int]()},
	KindSeed:      {reflect.TypeFor[uint64]()},
	KindRatio:     {reflect.TypeFor[float64]()},
	KindBool:      {reflect.TypeFor[bool]()},
	KindText:      {reflect.TypeFor[string]()},
	KindString:    {reflect.TypeFor[string]()},
	KindName:      {reflect.TypeFor[string]()},
}

// notInYAML are the Go fields no key fills directly: the file name, and
// the inputs that input and inputs fill (KindCustom).
var notInYAML = map[string]bool{"Scenario.File": true, "Operator.Inputs": true, "Sink.Inputs": true}

// TestDescriptionCoversTypes: every key of the description names a Go
// field of the kind it decodes, every exported Go field of the format's
// types has its key, every default and bound reads in its kind, and every
// condition names a field of its mapping.
func TestDescriptionCoversTypes(t *testing.T) {
	seen := map[string]bool{}
	var walk func(mp *Mapping, typ reflect.Type)
	walk = func(mp *Mapping, typ reflect.Type) {
		covered := map[string]bool{}
		for _, f := range mp.Fields {
			if f.Doc == "" || f.Kind == 0 {
				t.Errorf("%s.%s: no doc or kind", mp.Path, f.Name)
			}
			if f.Only != nil {
				if _, cf := condValue(mp, reflect.New(typ).Elem(), f.Only.Field); cf == nil && !strings.Contains(f.Only.Field, ".") {
					t.Errorf("%s.%s: condition on %q, not a field here", mp.Path, f.Name, f.Only.Field)
				}
			}
			if f.Go == "" {
				continue
			}
			sf, ok := typ.FieldByName(f.Go)
			if !ok {
				t.Errorf("%s.%s: %s has no field %s", mp.Path, f.Name, typ, f.Go)
				continue
			}
			covered[f.Go] = true
			ft := sf.Type
			switch f.Kind {
			case KindMapping:
				if ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				walk(f.Sub, ft)
				continue
			case KindList:
				if f.Sub != nil {
					walk(f.Sub, ft.Elem())
				} else if ft != reflect.TypeFor[[]string]() {
					t.Errorf("%s.%s: a list of names in %s", mp.Path, f.Name, ft)
				}
				continue
			case KindCustom:
				continue
			}
			if !slicesContains(goKinds[f.Kind], ft) {
				t.Errorf("%s.%s: kind %v in a Go %s", mp.Path, f.Name, kindNames[f.Kind], ft)
			}
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Errorf("%s.%s: default or bound does not read: %v", mp.Path, f.Name, r)
					}
				}()
				if f.Default != nil {
					f.goValue(ft)
				}
				f.bounds()
			}()
		}
		if seen[typ.String()] {
			return
		}
		seen[typ.String()] = true
		for i := range typ.NumField() {
			sf := typ.Field(i)
			if sf.IsExported() && !covered[sf.Name] && !notInYAML[typ.Name()+"."+sf.Name] {
				t.Errorf("%s.%s has no key in the description of %q", typ.Name(), sf.Name, mp.Path)
			}
		}
	}
	walk(topMapping, reflect.TypeFor[Scenario]())
}

func slicesContains(ts []reflect.Type, t reflect.Type) bool {
	for _, x := range ts {
		if x == t {
			return true
		}
	}
	return false
}

// job is a test-only description of a job with an engine: no Spark engine
// exists yet, so this checks the mechanism an engine will use to own its
// fields (Cond.Owner), not an engine.
type job struct {
	Engine        string
	BufferTimeout des.Time
	Trigger       des.Time
}

var jobMapping = &Mapping{
	Path: "job",
	Doc:  "A job of one engine.",
	Fields: []*Field{
		{Name: "engine", Go: "Engine", Kind: KindEnum, Default: "flink", Doc: "The engine.",
			Values: []Value{val("flink", "record at a time"), val("spark", "micro-batches")}},
		{Name: "buffer_timeout", Go: "BufferTimeout", Kind: KindDuration, Doc: "Flink's execution.buffer-timeout.",
			Only: &Cond{Field: "engine", Values: []string{"flink"}, Owner: true}},
		{Name: "trigger_interval", Go: "Trigger", Kind: KindDuration, Doc: "Spark's trigger processingTime.",
			Only: &Cond{Field: "engine", Values: []string{"spark"}, Owner: true}},
	},
}

// A field an engine owns is refused for the other engine, both ways, and
// the schema says the same.
func TestEngineOwnsItsFields(t *testing.T) {
	for _, c := range []struct{ yaml, want string }{
		{"engine: spark\nbuffer_timeout: 10ms\n", "j.yaml:2:1: buffer_timeout: this field belongs to engine: flink, not spark"},
		{"engine: flink\ntrigger_interval: 1s\n", "j.yaml:2:1: trigger_interval: this field belongs to engine: spark, not flink"},
		{"trigger_interval: 1s\n", "j.yaml:1:1: trigger_interval: this field belongs to engine: spark, not flink (the default)"},
		{"engine: spark\ntrigger_interval: 1s\n", ""},
		{"buffer_timeout: 10ms\n", ""},
	} {
		var j job
		errs := decodeMapping("j.yaml", []byte(c.yaml), jobMapping, &j)
		if got := errs.Error(); got != c.want {
			t.Errorf("%q: got %q, want %q", c.yaml, got, c.want)
		}
		if c.want == "" && j.Engine == "" {
			t.Errorf("%q: no default engine", c.yaml)
		}
	}
	sch := compileSchemaOf(t, jsMapping(jobMapping, false))
	for doc, ok := range map[string]bool{
		"engine: spark\nbuffer_timeout: 10ms\n":   false,
		"trigger_interval: 1s\n":                  false,
		"engine: spark\ntrigger_interval: 1s\n":   true,
		"engine: flink\nbuffer_timeout: 10ms\n":   true,
		"engine: storm\n":                         false,
		"engine: flink\ntrigger_interval: 10ms\n": false,
	} {
		if got := sch.Validate(instance(t, []byte(doc))) == nil; got != ok {
			t.Errorf("schema on %q: accepts = %v, want %v", doc, got, ok)
		}
	}
}
