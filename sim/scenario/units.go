package scenario

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/dspalab/dspalab/sim/des"
)

// What each unit parser expects, with examples; the first words of every
// unit error.
const (
	expectDuration  = "expected a duration such as 250ms or 2s"
	expectRate      = "expected a rate such as 100/s or 6000/min"
	expectSize      = "expected a size such as 100B or 32KiB"
	expectBandwidth = "expected a bandwidth such as 1Gbit/s or 125MB/s"
)

// unitError builds "expected ..., got "s"" with an optional hint in
// parentheses; a long s is shortened.
func unitError(expect, got, hint string) error {
	if hint != "" {
		return fmt.Errorf("%s, got %s (%s)", expect, quote(got), hint)
	}
	return fmt.Errorf("%s, got %s", expect, quote(got))
}

// number is a decimal number with an optional fraction; numberExp also
// takes an exponent (1e6).
const (
	number    = `(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)`
	numberExp = number + `(?:[eE][+-]?[0-9]+)?`
)

var (
	reBareNumber = regexp.MustCompile(`^[+-]?` + numberExp + `$`)
	reZero       = regexp.MustCompile(`^[+-]?(?:0+(?:\.0*)?|\.0+)$`)
	reRate       = regexp.MustCompile(`^([+-]?` + numberExp + `)\s*/\s*(\S*)$`)
	reSize       = regexp.MustCompile(`^([+-]?` + numberExp + `)\s*([^\s0-9.+-]*)$`)
	reBandwidth  = regexp.MustCompile(`^([+-]?` + numberExp + `)\s*([^\s/0-9.+-]+)\s*(?:/\s*(\S*))?$`)
)

// timeUnits are the units of simulated time, shared by durations ("2min")
// and rates ("100/min"), each with its other spellings: one vocabulary, so
// a unit accepted in one is accepted in the other, and in the JSON Schema's
// patterns, which are built from this table.
var timeUnits = []struct {
	name string
	alt  []string
	ns   des.Time
}{
	{"ns", nil, des.Nanosecond},
	{"us", []string{"µs", "μs"}, des.Microsecond}, // micro sign U+00B5, Greek mu U+03BC
	{"ms", nil, des.Millisecond},
	{"s", []string{"sec"}, des.Second},
	{"m", []string{"min"}, des.Minute},
	{"h", nil, des.Hour},
}

// timeUnit maps every spelling of timeUnits to its canonical name and
// length.
var timeUnit = func() map[string]struct {
	name string
	ns   des.Time
} {
	m := map[string]struct {
		name string
		ns   des.Time
	}{}
	for _, u := range timeUnits {
		for _, sp := range append([]string{u.name}, u.alt...) {
			m[sp] = struct {
				name string
				ns   des.Time
			}{u.name, u.ns}
		}
	}
	return m
}()

// timeUnitText lists the spellings of timeUnits for messages, each
// prefixed by prefix ("" for durations, "/" for rates): "ns, us (or µs),
// ms, s (or sec), m (or min) and h".
func timeUnitText(prefix string) string {
	var parts []string
	for _, u := range timeUnits {
		p := prefix + u.name
		if len(u.alt) > 0 {
			p += " (or " + prefix + u.alt[0] + ")"
		}
		parts = append(parts, p)
	}
	return "units are " + strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// timeUnitPattern is the regular-expression alternation of every spelling
// of timeUnits, longest first.
func timeUnitPattern() string {
	var all []string
	for _, u := range timeUnits {
		all = append(all, u.name)
		all = append(all, u.alt...)
	}
	sort.SliceStable(all, func(i, j int) bool { return utf8.RuneCountInString(all[i]) > utf8.RuneCountInString(all[j]) })
	return strings.Join(all, "|")
}

// ParseDuration parses a span of simulated time: a sequence of decimal
// numbers, each with a unit, such as "250ms", "1.5s", "2m", "1h30m",
// "500us" (or "500µs"), "100ns" and "2min"; units are those of timeUnits:
// ns, us (µs), ms, s (sec), m (min) and h. Spaces between a number and its unit are allowed ("250 ms"). A bare
// "0" means zero. A leading sign is accepted; callers check the range.
// It returns nanoseconds of simulated time, or an error such as
// `expected a duration such as 250ms or 2s, got "5" (a number needs a unit)`.
func ParseDuration(s string) (des.Time, error) {
	in := strings.TrimSpace(s)
	if in == "" {
		return 0, unitError(expectDuration, s, "")
	}
	if reZero.MatchString(in) {
		return 0, nil
	}
	body := in
	neg := false
	if body[0] == '+' || body[0] == '-' {
		neg = body[0] == '-'
		body = strings.TrimLeft(body[1:], " \t")
		if body == "" {
			return 0, unitError(expectDuration, s, "")
		}
	}
	var norm strings.Builder
	for body != "" {
		num := leadingNumber(body)
		if num == "" {
			return 0, unitError(expectDuration, s, "")
		}
		rest := strings.TrimLeft(body[len(num):], " \t")
		unit := leadingUnit(rest)
		if (unit == "e" || unit == "E") && len(rest) > 1 && strings.ContainsRune("0123456789+-", rune(rest[1])) {
			return 0, unitError(expectDuration, s, "a duration takes no exponent; use a unit such as ms, s, m or h")
		}
		if unit == "" {
			if rest == "" && reBareNumber.MatchString(in) {
				return 0, unitError(expectDuration, s, "a number needs a unit")
			}
			return 0, unitError(expectDuration, s, "")
		}
		u, ok := timeUnit[unit]
		if !ok {
			return 0, unitError(expectDuration, s, fmt.Sprintf("unknown unit %q; %s", unit, timeUnitText("")))
		}
		norm.WriteString(num)
		norm.WriteString(u.name)
		body = strings.TrimLeft(rest[len(unit):], " \t")
	}
	d, err := time.ParseDuration(norm.String())
	if err != nil {
		return 0, unitError(expectDuration, s, "too large; at most 2562047h")
	}
	if neg {
		d = -d
	}
	return des.Time(d), nil
}

// leadingNumber returns the longest prefix of s made of digits with at most
// one decimal point, or "" if it has no digit.
func leadingNumber(s string) string {
	i, dot, digits := 0, false, false
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			digits = true
		case c == '.' && !dot:
			dot = true
		default:
			if !digits {
				return ""
			}
			return s[:i]
		}
	}
	if !digits {
		return ""
	}
	return s
}

// leadingUnit returns the letters (including µ and μ) that start s.
func leadingUnit(s string) string {
	for i, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == 'µ' || r == 'μ') {
			return s[:i]
		}
	}
	return s
}

// ParseRate parses a rate in records per unit of simulated time: a decimal
// number, "/" and a unit, such as "100/s", "6000/min", "2.5/ms", "3600/h"
// or "1e6/s"; spaces around "/" are allowed. Units are those of
// durations (timeUnits). A bare "0" means zero. A leading sign is accepted;
// callers check the range. It returns records per simulated second.
func ParseRate(s string) (float64, error) {
	in := strings.TrimSpace(s)
	if reZero.MatchString(in) {
		return 0, nil
	}
	m := reRate.FindStringSubmatch(in)
	if m == nil {
		switch {
		case reBareNumber.MatchString(in):
			return 0, unitError(expectRate, s, "a number needs a unit")
		case strings.Contains(in, "/"):
			return 0, unitError(expectRate, s, "")
		}
		if num := leadingNumber(strings.TrimLeft(in, "+-")); num != "" {
			return 0, unitError(expectRate, s, "a rate is a number, \"/\" and a unit")
		}
		return 0, unitError(expectRate, s, "")
	}
	u, ok := timeUnit[m[2]]
	if !ok {
		return 0, unitError(expectRate, s, fmt.Sprintf("unknown unit %q; %s", m[2], timeUnitText("/")))
	}
	// A multiplier under a second, a divisor from it up, so that common
	// values stay exact (6000/min is 100/s).
	mul, div := 1.0, 1.0
	if u.ns < des.Second {
		mul = float64(des.Second / u.ns)
	} else {
		div = float64(u.ns / des.Second)
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil || math.IsInf(v*mul/div, 0) {
		return 0, unitError(expectRate, s, "too large")
	}
	return v * mul / div, nil
}

// sizeUnits maps a byte-size unit to bytes: decimal (SI) and binary (IEC).
var sizeUnits = map[string]float64{
	"B":  1,
	"kB": 1e3, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12,
	"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40,
}

const sizeUnitList = "units are B, KB, MB, GB, TB (powers of 1000) and KiB, MiB, GiB, TiB (powers of 1024)"

// ParseByteSize parses a size in bytes: a decimal number with an optional
// unit, such as "100B", "32KiB", "1MiB", "1GiB", "1KB" (1000 bytes) or
// "1MB" (10^6 bytes). A number needs a unit, as durations, rates and
// bandwidths do ("512" is refused with "512B" and "512MiB" as examples);
// only a bare "0" means zero.
// Units are B, kB or KB, MB, GB, TB, KiB, MiB, GiB and TiB; a space before
// the unit is allowed. Fractions are rounded to the nearest byte
// ("1.5KiB" is 1536). A leading sign is accepted; callers check the range.
func ParseByteSize(s string) (int64, error) {
	in := strings.TrimSpace(s)
	m := reSize.FindStringSubmatch(in)
	if m == nil {
		return 0, unitError(expectSize, s, "")
	}
	mul := 1.0
	if m[2] == "" {
		if reZero.MatchString(m[1]) {
			return 0, nil
		}
		n := strings.TrimPrefix(m[1], "+")
		return 0, unitError(expectSize, s, fmt.Sprintf("a number needs a unit, such as %sB or %sMiB", n, n))
	} else {
		f, ok := sizeUnits[m[2]]
		if !ok {
			return 0, unitError(expectSize, s, fmt.Sprintf("unknown unit %q; %s", m[2], sizeUnitList))
		}
		mul = f
	}
	v, err := strconv.ParseFloat(m[1], 64)
	v = math.Round(v * mul)
	if err != nil || math.Abs(v) >= 1<<63 {
		return 0, unitError(expectSize, s, "too large")
	}
	return int64(v), nil
}

// bandwidthUnits maps a unit (before "/s") to bytes per second.
var bandwidthUnits = map[string]float64{
	"bit": 1.0 / 8, "kbit": 1e3 / 8, "Kbit": 1e3 / 8, "Mbit": 1e6 / 8, "Gbit": 1e9 / 8, "Tbit": 1e12 / 8,
	"B": 1, "kB": 1e3, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12,
	"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40,
}

// bpsUnits are the "bits per second" spellings that need no "/s".
var bpsUnits = map[string]float64{
	"bps": 1.0 / 8, "kbps": 1e3 / 8, "Kbps": 1e3 / 8, "Mbps": 1e6 / 8, "Gbps": 1e9 / 8, "Tbps": 1e12 / 8,
}

const bandwidthUnitList = "units are bit/s, kbit/s, Mbit/s, Gbit/s (or Mbps, Gbps), B/s, KB/s, MB/s, GB/s, KiB/s, MiB/s and GiB/s"

// ParseBandwidth parses a bandwidth: a decimal number and a unit per
// second, such as "1Gbit/s", "100Mbit/s", "10kbit/s", "10MB/s", "125MB/s"
// or "1GiB/s"; "Gbps"-style units need no "/s". Bit units (bit, kbit,
// Mbit, Gbit, Tbit) are powers of 1000 bits; byte units are those of
// ParseByteSize. A bare "0" means zero. A leading sign is accepted; callers
// check the range. It returns bytes per simulated second.
func ParseBandwidth(s string) (float64, error) {
	in := strings.TrimSpace(s)
	if reZero.MatchString(in) {
		return 0, nil
	}
	m := reBandwidth.FindStringSubmatch(in)
	if m == nil {
		if reBareNumber.MatchString(in) {
			return 0, unitError(expectBandwidth, s, "a number needs a unit")
		}
		return 0, unitError(expectBandwidth, s, "")
	}
	unit, per, hasPer := m[2], m[3], strings.Contains(in, "/")
	var mul float64
	if f, ok := bpsUnits[unit]; ok && !hasPer {
		mul = f
	} else if f, ok := bandwidthUnits[unit]; ok {
		if !hasPer {
			return 0, unitError(expectBandwidth, s, fmt.Sprintf("missing \"/s\" after %q", unit))
		}
		if per != "s" {
			return 0, unitError(expectBandwidth, s, "a bandwidth is per second (/s)")
		}
		mul = f
	} else {
		return 0, unitError(expectBandwidth, s, fmt.Sprintf("unknown unit %q; %s", unit, bandwidthUnitList))
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil || math.IsInf(v*mul, 0) {
		return 0, unitError(expectBandwidth, s, "too large")
	}
	return v * mul, nil
}

// FormatDuration formats simulated time exactly, so that ParseDuration
// reads it back, and readably: nanoseconds below a microsecond, "999µs"
// below a millisecond, "20ms" / "0.25ms" below a second, seconds below
// 1000s ("120s", "13.8815s"), hours, minutes and seconds above ("200h",
// "4h4m19.735s", "16m40s"). sim.FormatTime rounds before calling it.
func FormatDuration(t des.Time) string {
	if t < 0 {
		if t == math.MinInt64 {
			return "-" + FormatDuration(des.Never) + "1ns" // never reached in practice
		}
		return "-" + FormatDuration(-t)
	}
	switch {
	case t == 0:
		return "0s"
	case t < des.Microsecond:
		return strconv.FormatInt(int64(t), 10) + "ns"
	case t < des.Millisecond:
		return strconv.FormatFloat(float64(t)/1e3, 'f', -1, 64) + "µs"
	case t < des.Second:
		return strconv.FormatFloat(float64(t)/1e6, 'f', -1, 64) + "ms"
	case t < 1000*des.Second:
		return strconv.FormatFloat(float64(t)/1e9, 'f', -1, 64) + "s"
	}
	h, rest := t/des.Hour, t%des.Hour
	m, rest := rest/des.Minute, rest%des.Minute
	var b strings.Builder
	if h > 0 {
		b.WriteString(strconv.FormatInt(int64(h), 10) + "h")
	}
	if m > 0 {
		b.WriteString(strconv.FormatInt(int64(m), 10) + "m")
	}
	if rest > 0 {
		b.WriteString(strconv.FormatFloat(float64(rest)/1e9, 'f', -1, 64) + "s")
	}
	return b.String()
}

// FormatRate formats a rate in records per simulated second as ParseRate
// reads it: "100/s", "0.5/s"; a rate under 1/s that is a whole number per
// minute or per hour uses that unit ("30/min", "2/h").
func FormatRate(perSecond float64) string {
	if perSecond != 0 && math.Abs(perSecond) < 1 && !isWhole(perSecond) {
		if isWhole(perSecond * 60) {
			return formatFloat(math.Round(perSecond*60)) + "/min"
		}
		if isWhole(perSecond * 3600) {
			return formatFloat(math.Round(perSecond*3600)) + "/h"
		}
	}
	return formatFloat(perSecond) + "/s"
}

// isWhole reports whether x is an integer up to float rounding.
func isWhole(x float64) bool {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return false
	}
	return math.Abs(x-math.Round(x)) <= 1e-9*math.Max(1, math.Abs(x))
}

// formatFloat prints x in the shortest form that reads back exactly: as a
// plain decimal ("100", "0.25") from 0.0001 up to a million, else the
// shorter of that and scientific notation without "+" or leading zeros in
// the exponent ("1e6", "2.5e9", "1e300", "1e-300"), so absurd values make
// short messages.
func formatFloat(x float64) string {
	plain := strconv.FormatFloat(x, 'f', -1, 64)
	if a := math.Abs(x); a == 0 || a >= 1e-4 && a < 1e6 || math.IsNaN(x) || math.IsInf(x, 0) {
		return plain
	}
	if sci := formatSci(x, -1); len(sci) < len(plain) {
		return sci
	}
	return plain
}

// formatSci prints x in scientific notation with prec significant digits
// (-1: as many as needed to read back exactly) and without "+", leading
// zeros of the exponent or trailing zeros of the mantissa: "1e300",
// "-2.5e-7".
func formatSci(x float64, prec int) string {
	if prec > 0 {
		prec--
	}
	mant, exp, _ := strings.Cut(strconv.FormatFloat(x, 'e', prec, 64), "e")
	if strings.Contains(mant, ".") {
		mant = strings.TrimSuffix(strings.TrimRight(mant, "0"), ".")
	}
	e, _ := strconv.Atoi(exp)
	return mant + "e" + strconv.Itoa(e)
}

type namedUnit struct {
	name string
	size float64
}

var (
	binaryUnits  = []namedUnit{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}}
	decimalUnits = []namedUnit{{"TB", 1e12}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}}
	bitUnits     = []namedUnit{{"Tbit", 1e12}, {"Gbit", 1e9}, {"Mbit", 1e6}, {"kbit", 1e3}}
)

// maxExactDigits bounds the number of a size written exactly in a unit: a
// size that is a whole number of KiB only with 12 digits (1e15 bytes is
// 976562500000KiB) reads better as 1000TB, or rounded.
const maxExactDigits = 10000

// FormatByteSize formats a size in bytes as ParseByteSize reads it: exact
// when it is a whole number of some unit with at most four digits
// ("32KiB", "1MiB", "1KB", "1000TB"), otherwise rounded to two decimals of the largest binary unit it exceeds
// ("1.18MiB"); from 1000TiB up, in bytes in scientific notation, rounded
// to three significant digits ("1e18B", "9.22e18B").
func FormatByteSize(n int64) string {
	if n == 0 {
		return "0B"
	}
	if math.Abs(float64(n)) >= 1000*(1<<40) {
		return formatSci(float64(n), 3) + "B"
	}
	for _, list := range [][]namedUnit{binaryUnits, decimalUnits} {
		for _, u := range list {
			if q := n / int64(u.size); n%int64(u.size) == 0 && q > -maxExactDigits && q < maxExactDigits {
				return strconv.FormatInt(q, 10) + u.name
			}
		}
	}
	abs := math.Abs(float64(n))
	for _, u := range binaryUnits {
		if abs >= u.size {
			return trimDecimals(float64(n)/u.size) + u.name
		}
	}
	return strconv.FormatInt(n, 10) + "B"
}

// trimDecimals prints x with at most two decimals, without trailing zeros.
func trimDecimals(x float64) string {
	s := strconv.FormatFloat(x, 'f', 2, 64)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// FormatBandwidth formats a bandwidth in bytes per simulated second as
// ParseBandwidth reads it: in bits when it is a whole number of kbit, Mbit,
// Gbit or Tbit ("1Gbit/s", "80Mbit/s"), else in a byte unit when whole
// ("1GiB/s", "1500B/s"), else rounded to two decimals ("1.18MiB/s"); under
// 0.01B/s or from 1000TiB/s up, in bytes in scientific notation
// ("1e-300B/s", "1.25e308B/s").
func FormatBandwidth(bytesPerSecond float64) string {
	if a := math.Abs(bytesPerSecond); a == 0 || a < 0.01 || a >= 1000*(1<<40) || math.IsNaN(a) {
		return formatFloat(bytesPerSecond) + "B/s"
	}
	bits := bytesPerSecond * 8
	abs := math.Abs(bytesPerSecond)
	for _, u := range bitUnits {
		if math.Abs(bits) >= u.size && isWhole(bits/u.size) {
			return formatFloat(math.Round(bits/u.size)) + u.name + "/s"
		}
	}
	for _, list := range [][]namedUnit{binaryUnits, decimalUnits} {
		for _, u := range list {
			if abs >= u.size && isWhole(bytesPerSecond/u.size) {
				return formatFloat(math.Round(bytesPerSecond/u.size)) + u.name + "/s"
			}
		}
	}
	if isWhole(bytesPerSecond) {
		return formatFloat(math.Round(bytesPerSecond)) + "B/s"
	}
	for _, u := range binaryUnits {
		if abs >= u.size {
			return trimDecimals(bytesPerSecond/u.size) + u.name + "/s"
		}
	}
	return trimDecimals(bytesPerSecond) + "B/s"
}
