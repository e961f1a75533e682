package datasets

import (
	"bytes"
	"testing"
)

// The names of a listing come from the server: one with a control
// character (an escape sequence, a tab) or bytes that are not UTF-8 is
// quoted, not passed to the terminal; others print as they are.
func TestWriteObjectsQuotesNames(t *testing.T) {
	var b bytes.Buffer
	err := WriteObjects(&b, "bkt", []ObjectInfo{
		{Name: "d/ünï cödé ✓.csv", Size: 1, CRC32C: "AAAAAA=="},
		{Name: "d/a\x1b]52;c;cHduZWQ=\x07\tb", Size: 2, CRC32C: "AAAAAQ=="},
		{Name: "d/\xff.csv", Size: 3, CRC32C: "AAAAAg=="},
	})
	want := `OBJECT                                 BYTES  CRC32C
gs://bkt/d/ünï cödé ✓.csv              1      AAAAAA==
"gs://bkt/d/a\x1b]52;c;cHduZWQ=\a\tb"  2      AAAAAQ==
"gs://bkt/d/\xff.csv"                  3      AAAAAg==
`
	if err != nil || b.String() != want {
		t.Errorf("got (%v)\n%s\nwant\n%s", err, b.String(), want)
	}
}
