package render

import (
	"bytes"
	"strings"
	"testing"
)

// TestMarkdown: plain output is the Markdown unchanged; styled output is
// glamour's (the heading kept, the emphasis markers gone).
func TestMarkdown(t *testing.T) {
	md := []byte("# Title\n\nSome *text* and `code`.\n")
	var plain bytes.Buffer
	if err := Markdown(&plain, md, Options{}); err != nil || !bytes.Equal(plain.Bytes(), md) {
		t.Errorf("plain: %q %v", plain.String(), err)
	}
	var styled bytes.Buffer
	if err := Markdown(&styled, md, Options{Styled: true, Width: 40}); err != nil {
		t.Fatal(err)
	}
	if s := styled.String(); !strings.Contains(s, "Title") || strings.Contains(s, "*text*") {
		t.Errorf("styled: %q", s)
	}
}
