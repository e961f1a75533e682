package strictyaml

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// SyntaxError is YAML text that does not parse: Msg (without "yaml: ")
// at the 1-based Line and Col of the offending token.
type SyntaxError struct {
	Line, Col int
	Msg       string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg) }

// ErrEmpty is returned by Document for text without a document (empty, or
// only comments or null).
var ErrEmpty = errors.New("empty YAML document")

// ErrSecond is the SyntaxError message of a second document; callers add
// what to do about it.
const ErrSecond = "found a second YAML document"

// Document decodes the single YAML document of data into its root node.
// It returns ErrEmpty for text without one, and a *SyntaxError located at
// the offending token for invalid UTF-8, a syntax error or a second
// document (Msg ErrSecond). It never panics.
//
// yaml.v3 reports a parser error at the line of the enclosing construct,
// counted from 0 (an unclosed { on line 5 reads "line 4"), and no column.
// Document locates it at the token the parser stopped at, as libyaml's
// problem mark (and PyYAML) do, and names where the enclosing construct
// started: "did not find expected ',' or '}' (in the flow mapping that
// starts at 5:4)".
func Document(data []byte) (root *yaml.Node, err error) {
	if !utf8.Valid(data) {
		line, col := badUTF8(data)
		return nil, &SyntaxError{Line: line, Col: col, Msg: "the file is not valid UTF-8 text"}
	}
	defer func() {
		// yaml.v3 turns its own failures into errors; anything else that
		// escapes it is a bug there, reported here rather than crashing.
		if r := recover(); r != nil {
			root, err = nil, &SyntaxError{Line: 1, Col: 1, Msg: fmt.Sprint(r)}
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if e := dec.Decode(&doc); e != nil {
		if errors.Is(e, io.EOF) {
			return nil, ErrEmpty
		}
		return nil, syntaxError(dec, data, e)
	}
	var extra yaml.Node
	switch e := dec.Decode(&extra); {
	case errors.Is(e, io.EOF):
	case e != nil:
		return nil, syntaxError(dec, data, e)
	default:
		return nil, &SyntaxError{Line: extra.Line, Col: extra.Column, Msg: ErrSecond}
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 || IsNull(doc.Content[0]) {
		return nil, ErrEmpty
	}
	return doc.Content[0], nil
}

var reYAMLLine = regexp.MustCompile(`^yaml: line (\d+): `)

// syntaxError locates the error err of dec: at libyaml's problem mark when
// dec's parser holds one, else at the line yaml.v3's message gives.
func syntaxError(dec *yaml.Decoder, data []byte, err error) *SyntaxError {
	msg := err.Error()
	e := &SyntaxError{Line: 1, Col: 1}
	if m := reYAMLLine.FindStringSubmatch(msg); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil && n > 0 {
			e.Line = n
		}
		msg = msg[len(m[0]):]
	} else {
		msg = strings.TrimPrefix(msg, "yaml: ")
	}
	if mk, ok := marks(dec); ok && mk.problem.ok {
		e.Line, e.Col = mk.problem.line, mk.problem.col
		if mk.context != "" && mk.ctx.ok && mk.ctx != mk.problem {
			what := strings.TrimPrefix(strings.TrimPrefix(mk.context, "while parsing "), "while scanning ")
			what = strings.TrimPrefix(strings.TrimPrefix(what, "a "), "an ")
			msg += fmt.Sprintf(" (in the %s that starts at %d:%d)", what, mk.ctx.line, mk.ctx.col)
		}
	}
	if c := tabColumn(data, e.Line); c > 0 {
		e.Col = c
		msg += " (tabs are not allowed in indentation; use spaces)"
	}
	e.Msg = strings.ReplaceAll(msg, "\n", " ")
	return e
}

type mark struct {
	line, col int
	ok        bool
}

type parserMarks struct {
	problem, ctx mark
	context      string
}

// marks reads the problem and context marks that libyaml's parser (inside
// yaml.v3's Decoder, unexported) keeps after a failure. reflect reads
// unexported fields without changing them; if a later yaml.v3 renames
// them, ok is false and the error keeps yaml.v3's own line.
func marks(dec *yaml.Decoder) (pm parserMarks, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	p := reflect.ValueOf(dec).Elem().FieldByName("parser")
	if !p.IsValid() || p.Kind() != reflect.Pointer || p.IsNil() {
		return pm, false
	}
	y := p.Elem().FieldByName("parser")
	if !y.IsValid() || y.Kind() != reflect.Struct {
		return pm, false
	}
	get := func(name string) mark {
		m := y.FieldByName(name)
		if !m.IsValid() {
			return mark{}
		}
		l, c, i := m.FieldByName("line"), m.FieldByName("column"), m.FieldByName("index")
		if !l.IsValid() || !c.IsValid() || !i.IsValid() || l.Kind() != reflect.Int || c.Kind() != reflect.Int {
			return mark{}
		}
		// A mark at the very start with nothing read is no mark.
		if l.Int() == 0 && c.Int() == 0 && i.Int() == 0 {
			return mark{}
		}
		return mark{line: int(l.Int()) + 1, col: int(c.Int()) + 1, ok: true}
	}
	pm.problem, pm.ctx = get("problem_mark"), get("context_mark")
	if c := y.FieldByName("context"); c.IsValid() && c.Kind() == reflect.String {
		pm.context = c.String()
	}
	return pm, true
}

// tabColumn returns the 1-based column of a tab in the indentation of the
// given 1-based line, or 0.
func tabColumn(data []byte, line int) int {
	lines := bytes.Split(data, []byte("\n"))
	if line < 1 || line > len(lines) {
		return 0
	}
	for i, c := range lines[line-1] {
		switch c {
		case '\t':
			return i + 1
		case ' ':
		default:
			return 0
		}
	}
	return 0
}

// badUTF8 returns the line and column of the first invalid UTF-8 byte.
func badUTF8(data []byte) (line, col int) {
	line, col = 1, 1
	for len(data) > 0 {
		r, size := utf8.DecodeRune(data)
		if r == utf8.RuneError && size <= 1 {
			return line, col
		}
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
		data = data[size:]
	}
	return line, col
}
