package scenario

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"strings"
)

// The JSON Schema is built from the description of the format (fields.go)
// by the small builder below, not reflected from the Go types with a
// library such as github.com/invopop/jsonschema: the Go types hold
// des.Time, bytes and records per second where the YAML holds "250ms",
// "32KiB" and "100/s", Go names are not YAML names, and the variants
// (fields that apply only to process bursty, or to mode unaligned) are
// if/then rules that reflection cannot see. Reflection would need a tag or
// a JSONSchema method on nearly every field, a second description; the
// builder reads the one there is.

// Patterns of the unit strings, as the parsers in units.go read them
// (non-negative values only; the checks say which need to be > 0).
const (
	patNumber    = `([0-9]+(\.[0-9]*)?|\.[0-9]+)`
	patNumberExp = patNumber + `([eE][+-]?[0-9]+)?`

	patSize      = `^\s*\+?` + patNumberExp + `\s*(B|kB|KB|MB|GB|TB|KiB|MiB|GiB|TiB)\s*$|^\s*\+?0+(\.0*)?\s*$`
	patBandwidth = `^\s*\+?` + patNumberExp + `\s*((bit|kbit|Kbit|Mbit|Gbit|Tbit|B|kB|KB|MB|GB|TB|KiB|MiB|GiB|TiB)\s*/\s*s|bps|kbps|Kbps|Mbps|Gbps|Tbps)\s*$`
	patName      = `^[A-Za-z0-9_][A-Za-z0-9_.-]*$`
	// patZero is a zero quantity in any unit (0s, 0ms, 0/s, 0B, 0Gbit/s),
	// refused where a field must be greater than 0.
	patZero = `^\s*\+?0*(\.0*)?\s*[^0-9]*$`
	// patText is one line without control characters (C0, DEL and C1), in
	// the subset of regular expressions that ECMA 262 and Go share; Parse
	// also rejects line separators and bidirectional controls.
	patText = `^[^\x00-\x1F\x7F-\x9F]*$`
)

// Patterns of durations and rates, from the one table of time units.
var (
	patDuration = `^\s*\+?(` + patNumber + `\s*(` + timeUnitPattern() + `)\s*)+$|^\s*\+?0+(\.0*)?\s*$`
	patRate     = `^\s*\+?` + patNumberExp + `\s*/\s*(` + timeUnitPattern() + `)\s*$|^\s*\+?0+(\.0*)?\s*$`
)

// obj is a JSON object of the schema.
type obj = map[string]any

// JSONSchema returns a JSON Schema (draft-07) of the scenario YAML format,
// for editors: VS Code's YAML extension (yaml-language-server) completes
// and checks a scenario that starts with
//
//	# yaml-language-server: $schema=scenario.schema.json
//
// Every field has a description with its unit and default, enum fields list
// their values, unit strings have patterns, and unknown fields are
// rejected. The schema checks shape; Parse remains the authority (ranges
// such as "greater than 0", graph checks). The result is indented JSON
// and the same on every call.
func JSONSchema() []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // keep "<=" readable in descriptions
	enc.SetIndent("", "  ")
	if err := enc.Encode(jsSchema()); err != nil {
		panic("scenario: marshal JSON Schema: " + err.Error()) // static data: cannot happen
	}
	return b.Bytes()
}

func jsSchema() obj {
	o := jsMapping(topMapping, false)
	o["$schema"] = "http://json-schema.org/draft-07/schema#"
	o["$id"] = "https://github.com/dspalab/dspalab/scenario.schema.json"
	o["title"] = "dspalab scenario"
	o["description"] = topMapping.Doc + " Units are in strings: durations such as 250ms, rates such as 100/s, sizes such as 32KiB, bandwidths such as 1Gbit/s."
	o["patternProperties"] = obj{"^x-": obj{"description": "Ignored: a place for YAML anchors (&name) to reuse with aliases (*name)."}}
	return o
}

// jsMapping is the schema of a mapping: its fields, the rules of its
// variants, and the rules between fields that schemaRules adds. inherit
// leaves the defaults out (a vertex's network inherits the scenario's).
func jsMapping(mp *Mapping, inherit bool) obj {
	props := obj{}
	var required []string
	for _, f := range mp.Fields {
		props[f.Name] = jsField(f, inherit)
		if f.Required {
			required = append(required, f.Name)
		}
	}
	o := obj{"description": mp.Doc, "type": "object", "properties": props, "additionalProperties": false}
	rules := jsVariants(mp)
	for k, v := range schemaRules(mp, o) {
		if k == "allOf" {
			rules = append(rules, v.([]any)...)
		} else {
			o[k] = v
		}
	}
	if r, ok := o["required"].([]string); ok {
		required = append(required, r...)
	}
	if len(required) > 0 {
		o["required"] = required
	}
	if len(rules) > 0 {
		o["allOf"] = rules
	}
	return o
}

// jsField is the schema of one field.
func jsField(f *Field, inherit bool) obj {
	b := f.bounds()
	var o obj
	unit := func(pattern string, zero bool) obj {
		alts := []any{obj{"type": "string", "pattern": pattern}}
		if zero {
			alts = append(alts, obj{"const": 0})
		}
		return obj{"anyOf": alts}
	}
	switch f.Kind {
	case KindDuration:
		o = unit(patDuration, true)
	case KindRate:
		o = unit(patRate, true)
	case KindSize:
		o = unit(patSize, true)
	case KindBandwidth:
		o = unit(patBandwidth, false)
	}
	if b.Positive && (f.Kind == KindDuration || f.Kind == KindRate || f.Kind == KindSize || f.Kind == KindBandwidth) {
		o["not"] = obj{"anyOf": []any{obj{"const": 0}, obj{"type": "string", "pattern": patZero}}}
	}
	switch f.Kind {
	case KindEnum:
		o = obj{"type": "string", "enum": f.values()}
	case KindInteger, KindSeed, KindRatio:
		o = obj{"type": "number"}
		if f.Kind != KindRatio {
			o["type"] = "integer"
		}
		switch {
		case b.Positive:
			o["exclusiveMinimum"] = 0
		case b.hasMin && b.MinExclusive:
			o["exclusiveMinimum"] = b.min
		case b.hasMin:
			o["minimum"] = b.min
		case f.Kind == KindSeed:
			o["minimum"] = 0
		}
		if b.hasMax && b.MaxExclusive {
			o["exclusiveMaximum"] = b.max
		} else if b.hasMax {
			o["maximum"] = b.max
		}
	case KindBool:
		o = obj{"type": "boolean"}
	case KindText:
		o = obj{"type": "string", "pattern": patText}
		if b.hasMax {
			o["maxLength"] = b.max
		}
	case KindName:
		o = obj{"type": "string", "pattern": patName, "maxLength": MaxNameLength}
	case KindString:
		o = obj{"type": "string", "minLength": 1}
	case KindMapping:
		o = jsMapping(f.Sub, f.Inherit)
		o["description"] = f.Sub.Doc
	case KindList:
		items := obj{"type": "string", "minLength": 1}
		if f.Sub != nil {
			items = jsMapping(f.Sub, false)
		}
		o = obj{"type": "array", "items": items}
		if b.hasMin {
			o["minItems"] = b.min
		}
		if f.Sub == nil {
			o["minItems"], o["uniqueItems"] = 1, true
		}
	}
	if f.Schema != nil {
		o = maps.Clone(f.Schema)
	}
	if f.Kind != KindMapping {
		o["description"] = fieldText(f, inherit)
	}
	if f.Default != nil && !inherit {
		o["default"] = f.Default
	}
	return o
}

// fieldText is the description of a field in the schema: its meaning
// (as in the docs) and its default.
func fieldText(f *Field, inherit bool) string {
	d := defaultCell(f)
	switch {
	case inherit:
		d = "the scenario's network setting"
	case strings.HasPrefix(d, "required"):
		return meaning(f) + " R" + d[1:] + "."
	case d == "":
		return meaning(f)
	}
	return meaning(f) + " Default " + d + "."
}

// boundsText says f's bounds in words: "greater than 0, at most 1GiB".
func boundsText(f *Field) string {
	b := f.bounds()
	if f.Kind == KindText || f.Kind == KindList {
		return ""
	}
	var ws []string
	switch {
	case b.Positive:
		ws = append(ws, "greater than 0")
	case b.hasMin && b.ZeroOff:
		ws = append(ws, "0 (off) or at least "+f.format(b.min))
	case b.hasMin && b.MinExclusive:
		ws = append(ws, "greater than "+f.format(b.min))
	case b.hasMin && (b.min != 0 || f.Kind == KindInteger):
		ws = append(ws, "at least "+f.format(b.min))
	}
	if b.Positive && b.hasMin {
		ws = append(ws, "at least "+f.format(b.min))
	}
	if b.hasMax && b.MaxExclusive {
		ws = append(ws, "less than "+f.format(b.max))
	} else if b.hasMax {
		ws = append(ws, "at most "+f.format(b.max))
	}
	if len(ws) == 0 {
		return ""
	}
	s := strings.Join(ws, ", ")
	return strings.ToUpper(s[:1]) + s[1:]
}

// jsVariants builds the if/then rules of the fields that apply only to a
// variant, or are required by one.
func jsVariants(mp *Mapping) []any {
	var rules []any
	for _, f := range mp.Fields {
		if f.Only != nil {
			rules = append(rules, obj{"if": jsCond(mp, f.Only, false), "then": obj{"properties": obj{f.Name: false}}})
		}
		if f.RequiredWhen != nil {
			rules = append(rules, obj{"if": jsCond(mp, f.RequiredWhen, true), "then": obj{"required": []string{f.Name}}})
		}
	}
	return rules
}

// jsCond is a schema that matches where c holds (holds) or does not: the
// field c names has one of c.Values, or none of them; absent, it has its
// default.
func jsCond(mp *Mapping, c *Cond, holds bool) obj {
	name, rest, nested := strings.Cut(c.Field, ".")
	f := mp.Field(name)
	if nested {
		return obj{"properties": obj{name: jsCond(f.Sub, &Cond{Field: rest, Values: c.Values, Not: c.Not}, holds)}, "required": []string{name}}
	}
	var vals []any
	for _, v := range c.Values {
		if f.Kind == KindBool {
			vals = append(vals, v == "true")
		} else {
			vals = append(vals, v)
		}
	}
	leaf := obj{"enum": vals}
	if holds == c.Not {
		leaf = obj{"not": leaf}
	}
	o := obj{"properties": obj{name: leaf}}
	if f.Default == nil || c.holds(fmt.Sprint(f.Default)) != holds {
		o["required"] = []string{name}
	}
	return o
}

// schemaRules returns the rules between fields of mp that the schema can
// say (the cross-field rules of validate.go that are about shape).
func schemaRules(mp *Mapping, _ obj) obj {
	switch mp {
	case topMapping:
		return obj{"required": []string{kSources}, "allOf": []any{
			// a job needs a sink, unless consumer groups read its topics
			obj{"anyOf": []any{obj{"required": []string{kSinks}}, obj{"required": []string{kConsumerGroups}}}},
			obj{
				"description": "Incremental checkpoints need the rocksdb state backend.",
				"if": obj{"properties": obj{kCheckpoint: obj{"properties": obj{kIncremental: obj{"const": true}}, "required": []string{kIncremental}}},
					"required": []string{kCheckpoint}},
				"then": obj{"properties": obj{kStateBackend: obj{"properties": obj{kType: obj{"const": BackendRocksDB}}, "required": []string{kType}}},
					"required": []string{kStateBackend}},
			},
			obj{
				"description": "A transactional sink needs checkpoints: its output becomes visible when a checkpoint completes.",
				"if": obj{"properties": obj{kSinks: obj{"contains": obj{"properties": obj{kDelivery: obj{"const": DeliveryTransactional}},
					"required": []string{kDelivery}}}}, "required": []string{kSinks}},
				"then": obj{"properties": obj{kCheckpoint: obj{"properties": obj{kMode: obj{"not": obj{"const": CheckpointNone}}}, "required": []string{kMode}}},
					"required": []string{kCheckpoint}},
			},
		}}
	case operatorMapping, sinkMapping:
		o := obj{"oneOf": []any{obj{"required": []string{kInput}}, obj{"required": []string{kInputs}}}}
		if mp == operatorMapping {
			o["if"] = obj{"required": []string{kState}}
			o["then"] = obj{"properties": obj{kPartitioning: obj{"const": PartitionHash}}, "required": []string{kPartitioning}}
		}
		return o
	case backendMapping:
		return obj{"dependencies": obj{kGCPausePerGiB: []string{kGCInterval}}}
	case failureMapping:
		return obj{"dependencies": obj{kSubtask: []string{kVertex}}, "allOf": []any{
			obj{"oneOf": []any{obj{"required": []string{kAt}}, obj{"required": []string{kMTBF}}}},
			obj{"if": obj{"required": []string{kMTBF}}, "then": obj{"properties": obj{kVertex: false, kSubtask: false, kWorker: false}}},
			obj{"if": obj{"properties": obj{kKind: obj{"const": FailureTask}}, "required": []string{kKind, kAt}}, "then": obj{"required": []string{kVertex}}},
			obj{"not": obj{"required": []string{kVertex, kWorker}}},
		}}
	case traceMapping:
		return obj{"oneOf": []any{
			obj{"required": []string{kDataset}, "properties": obj{kFile: false, kColumns: false}},
			obj{"required": []string{kFile, kColumns, kTimeColumn, kTimeUnit}, "properties": obj{kDataset: false, kParts: false}},
		}}
	}
	return nil
}
