package scenario

import (
	"fmt"
	"strings"
)

// The reference tables of the docs, generated from the description of the
// format (fields.go); TestReferenceDocs fails when docs/authoring.md or
// README.md hold stale copies, and rewrites them with -update.

// ReferenceMarkdown returns the field reference of the format in
// Markdown: one table per mapping, each key with its kind, default and
// meaning (unit, values, the variant it applies to, bounds, the Flink
// setting).
func ReferenceMarkdown() string {
	var b strings.Builder
	for _, mp := range mappings() {
		title := "the top level"
		if mp.Path != "" {
			title = "`" + mp.Path + "`"
		}
		fmt.Fprintf(&b, "#### %s\n\n%s\n\n| field | kind | default | meaning |\n| --- | --- | --- | --- |\n", title, mdText(mp.Doc))
		for _, f := range mp.Fields {
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", f.Name, kindText(f), mdText(defaultCell(f)), mdText(meaning(f)))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// FaultToleranceMarkdown returns the README's table of the fault-tolerance
// fields and the table of failure kinds, from the same description.
func FaultToleranceMarkdown() string {
	var b strings.Builder
	b.WriteString("| field | meaning |\n| --- | --- |\n")
	for _, path := range []string{kOperators + "[]." + kState + "." + kBytesPerKey, kStateBackend + "." + kType, kStateBackend + "." + kAccessTime, kStateBackend + "." + kGCInterval,
		kCheckpoint + "." + kMode, kCheckpoint + "." + kInterval, kCheckpoint + "." + kTimeout, kCheckpoint + "." + kMinPause, kCheckpoint + "." + kMaxConcurrent, kCheckpoint + "." + kTolerableFailures,
		kCheckpoint + "." + kIncremental, kCheckpoint + "." + kAlignedTimeout, kCheckpoint + "." + kStorage + "." + kBandwidth, kCheckpoint + "." + kStorage + "." + kLatency, kSinks + "[]." + kDelivery,
		kRestart + "." + kType, kHighAvailability + "." + kType, kHighAvailability + "." + kLeaderElection, kWorkers + "." + kMemory, kWorkers + "." + kHeartbeatTimeout} {
		fmt.Fprintf(&b, "| `%s` | %s |\n", path, mdText(fieldText(fieldAt(path), false)))
	}
	b.WriteString("\n| failure `kind` | its fields | what happens |\n| --- | --- | --- |\n")
	for _, v := range failureMapping.Field(kKind).Values {
		var fields []string
		for _, f := range failureMapping.Fields {
			if f.Only != nil && f.Only.Field == kKind && f.Only.holds(v.Name) && f.Name != kMTBF {
				fields = append(fields, "`"+f.Name+"`")
			}
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", v.Name, strings.Join(fields, ", "), mdText(v.Doc))
	}
	return b.String()
}

// fieldAt returns the field at a path of the docs ("checkpoint.storage.latency",
// "sinks[].delivery").
func fieldAt(path string) *Field {
	f := lookupField(path)
	if f == nil {
		panic("scenario: no field " + path) // static paths: TestReferenceDocs
	}
	return f
}

func kindText(f *Field) string {
	switch {
	case f.Kind == KindList && f.Sub != nil:
		return "list of mappings"
	case f.Kind == KindList:
		return "list of names"
	case f.Kind == KindCustom && f.Schema["type"] == "array":
		return "list of names"
	case f.Kind == KindCustom && f.Schema["type"] == "object":
		return "mapping"
	case f.Kind == KindCustom:
		return kName
	}
	return kindNames[f.Kind]
}

// defaultCell is the default column: the default as written, "required",
// or "" when the field is optional without one.
func defaultCell(f *Field) string {
	switch {
	case f.Required:
		return "required"
	case f.RequiredWhen != nil:
		return "required for " + f.RequiredWhen.onlyText()
	case f.DefaultDoc != "":
		return f.DefaultDoc
	case f.Default != nil:
		return "`" + fmt.Sprint(f.Default) + "`"
	}
	return ""
}

// meaning is the meaning column: doc, values, variant, bounds, former
// spellings.
func meaning(f *Field) string {
	parts := []string{f.Doc}
	if len(f.Values) > 0 {
		var vs []string
		for _, v := range f.Values {
			vs = append(vs, "`"+v.Name+"`: "+v.Doc)
		}
		parts = append(parts, strings.Join(vs, "; ")+".")
	}
	if c := f.Only; c != nil {
		switch {
		case c.Owner:
			parts = append(parts, "Belongs to "+c.last()+": "+orList(c.Values)+".")
		case c.Not:
			parts = append(parts, "Not for "+c.onlyText()+".")
		default:
			parts = append(parts, "Only for "+c.onlyText()+".")
		}
	}
	if t := boundsText(f); t != "" {
		parts = append(parts, t+".")
	}
	if len(f.Former) > 0 {
		parts = append(parts, "Suggested for "+strings.Join(f.Former, ", ")+".")
	}
	return strings.Join(parts, " ")
}

// mdText escapes a table cell.
func mdText(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
