package datasets

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"
	"unicode/utf8"
)

// WriteList writes the data sets of reg, one a line: name, number of
// parts, how many are in the cache c, the offline sample, where the data
// set is defined, and its description.
func WriteList(w io.Writer, reg *Registry, c Cache) error {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tPARTS\tCACHED\tSAMPLE\tFROM\tDESCRIPTION")
	for _, ds := range reg.Datasets() {
		cached := 0
		for n := range ds.Parts {
			if c.Has(ds, n) {
				cached++
			}
		}
		sample := "-"
		if ds.Sample != nil {
			sample = "part " + strconv.Itoa(ds.Sample.Part)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\n", ds.Name, ds.Parts, cached, sample, ds.Origin, ds.Description)
	}
	return tw.Flush()
}

// WriteInfo writes what the registry says of ds and which parts are in
// the cache c.
func WriteInfo(w io.Writer, ds *Dataset, c Cache) error {
	var b strings.Builder
	line := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, "%-14s %s\n", k+":", v)
		}
	}
	line("name", ds.Name)
	line("description", ds.Description)
	line("objects", fmt.Sprintf("%s ... %s (%d parts)", ds.URI(0), ds.ObjectName(ds.Parts-1), ds.Parts))
	line("default parts", ds.DefaultParts)
	line("format", ds.Format+", no header row")
	line("columns", strings.Join(ds.Columns, ", "))
	line("time", fmt.Sprintf("%s, in %s", ds.TimeColumn, ds.TimeUnit))
	if ds.BeforeWindow != nil || ds.AfterWindow != nil {
		var m []string
		if ds.BeforeWindow != nil {
			m = append(m, fmt.Sprintf("%d marks an event before the trace window", *ds.BeforeWindow))
		}
		if ds.AfterWindow != nil {
			m = append(m, fmt.Sprintf("%d one after its end", *ds.AfterWindow))
		}
		fmt.Fprintf(&b, "%-14s %s (such rows are skipped and counted)\n", "", strings.Join(m, ", "))
	}
	line("key", ds.KeyColumn)
	for _, col := range slices.Sorted(mapKeys(ds.Codes)) {
		codes := ds.Codes[col]
		names := slices.SortedFunc(mapKeys(codes), func(a, b string) int {
			x, _ := strconv.Atoi(codes[a])
			y, _ := strconv.Atoi(codes[b])
			return x - y
		})
		var pairs []string
		for _, n := range names {
			pairs = append(pairs, codes[n]+" "+n)
		}
		line("codes", col+": "+strings.Join(pairs, ", "))
	}
	line("licence", ds.Licence)
	line("attribution", ds.Attribution)
	line("url", ds.URL)
	line("registry", ds.Origin)
	if ds.Sample != nil {
		line("sample", fmt.Sprintf("part %d, %d rows: %s (for offline runs)", ds.Sample.Part, ds.Sample.Rows, ds.Sample.Description))
	}
	tw := tabwriter.NewWriter(&b, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "\nPART\tBYTES\tROWS\tSPAN\tCRC32C\tCACHED")
	shown := map[int]bool{}
	var parts []int
	for _, k := range ds.Known {
		parts = append(parts, k.Part)
		shown[k.Part] = true
	}
	if c.Dir != "" {
		for n := range ds.Parts {
			if !shown[n] && c.Has(ds, n) {
				parts = append(parts, n)
			}
		}
	}
	slices.Sort(parts)
	for _, n := range parts {
		k := ds.Info(n)
		dash := func(v int64, s string) string {
			if v == 0 {
				return "-"
			}
			return s
		}
		span := "-"
		if k.Last > k.First && k.First > 0 {
			span = time.Duration(spanOf(k.Last-k.First, ds.TimeUnit, 1)).Round(time.Second).String()
		}
		cached := "no"
		if c.Has(ds, n) {
			cached = c.Path(ds, n)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\n", n, dash(k.Size, strconv.FormatInt(k.Size, 10)), dash(k.Rows, strconv.FormatInt(k.Rows, 10)),
			span, cmpOr(k.CRC32C, "-"), cached)
	}
	if len(parts) == 0 {
		fmt.Fprintln(tw, "(nothing known of the parts, and none cached)")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteObjects writes a bucket listing: name, size and CRC32C.
func WriteObjects(w io.Writer, bucket string, objs []ObjectInfo) error {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "OBJECT\tBYTES\tCRC32C")
	for _, o := range objs {
		fmt.Fprintf(tw, "%s\t%d\t%s\n", printable("gs://"+bucket+"/"+o.Name), o.Size, o.CRC32C)
	}
	return tw.Flush()
}

// printable returns s, or s quoted as a Go string when it holds a
// character that is not printable (a control character, such as the ESC
// of an escape sequence, or a byte that is not UTF-8): the names of a
// listing come from the server, and a terminal obeys what it does not
// show. A tab would also break the columns.
func printable(s string) string {
	if !utf8.ValidString(s) || strings.ContainsFunc(s, func(r rune) bool { return !unicode.IsPrint(r) && r != ' ' }) {
		return strconv.Quote(s)
	}
	return s
}
