package scenario

import (
	"fmt"
	"strconv"
	"strings"
)

// SameValue reports whether two scalars written at the same key path mean
// the same value of the field there: durations, rates, sizes and
// bandwidths by what their units make of them (6ms and 6000us, 400/s and
// 24000/min, 1KiB and 1024B), numbers by their value (1 and 1.0),
// booleans as YAML reads them. path is the field's place with list items
// as [] ("operators[].service_time.mean"). It reports false for a path
// that names no scalar field, and for a value that does not parse: the
// caller's comparison of the texts stands.
func SameValue(path, a, b string) bool {
	f := lookupField(path)
	if f == nil {
		return false
	}
	x, ok1 := scalarValue(f, a)
	y, ok2 := scalarValue(f, b)
	return ok1 && ok2 && x == y
}

// IsDefault reports whether the scalar v written at path is the field's
// default (a default computed from other fields is never matched).
func IsDefault(path, v string) bool {
	f := lookupField(path)
	if f == nil || f.Default == nil || f.Inherit {
		return false
	}
	return SameValue(path, fmt.Sprint(f.Default), v)
}

// lookupField returns the field at path ("checkpoint.storage.latency",
// "sinks[].delivery"), or nil.
func lookupField(path string) *Field {
	mp := topMapping
	var f *Field
	for name := range strings.SplitSeq(strings.ReplaceAll(path, "[]", ""), ".") {
		if mp == nil {
			return nil
		}
		if f = mp.Field(name); f == nil {
			return nil
		}
		mp = f.Sub
	}
	return f
}

// scalarValue is the value of text v for field f, comparable with ==.
func scalarValue(f *Field, v string) (any, bool) {
	v = strings.TrimSpace(v)
	switch f.Kind {
	case KindDuration:
		return parsed(ParseDuration(v))
	case KindRate:
		return parsed(ParseRate(v))
	case KindSize:
		return parsed(ParseByteSize(v))
	case KindBandwidth:
		return parsed(ParseBandwidth(v))
	case KindInteger, KindSeed, KindRatio:
		return parsed(strconv.ParseFloat(strings.ReplaceAll(v, "_", ""), 64))
	case KindBool:
		return parsed(strconv.ParseBool(v))
	case KindEnum, KindText, KindName:
		return v, true
	}
	return nil, false
}

// parsed is a parser's result as scalarValue returns it.
func parsed[T comparable](v T, err error) (any, bool) { return v, err == nil }
