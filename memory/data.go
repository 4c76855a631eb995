package memory

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode"
)

// PatchData returns data with patch merged in, as a JSON merge patch
// merges an object's top level: a key of patch replaces the key of data,
// and a key whose value is nil deletes it. data is not changed; the result
// is nil when no key is left.
func PatchData(data, patch map[string]any) map[string]any {
	out := make(map[string]any, len(data)+len(patch))
	for k, v := range data {
		out[k] = v
	}
	for k, v := range patch {
		if v == nil {
			delete(out, k)
		} else {
			out[k] = v
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// StaleData names the keys of data whose text restates a figure of the
// old body that the new body no longer has, while the new body states a
// figure of its own: data a new version carries unchanged would then
// contradict its text ("40 connections" in the body, "20 per instance"
// in data.decision). Only top-level strings are read, and only numbers
// compared: they are what a rewrite changes, and what a reader trusts.
func StaleData(data map[string]any, oldBody, newBody string) []string {
	oldNums, newNums := numbers(oldBody), numbers(newBody)
	fresh := false
	for n := range newNums {
		if !oldNums[n] {
			fresh = true
		}
	}
	if !fresh {
		return nil
	}
	var stale []string
	for k, v := range data {
		s, ok := v.(string)
		if !ok {
			continue
		}
		for n := range numbers(s) {
			if oldNums[n] && !newNums[n] {
				stale = append(stale, k)
				break
			}
		}
	}
	sort.Strings(stale)
	return stale
}

// numbers are the digit runs of s, and the numbers written out in words
// from one to twenty, as digits.
func numbers(s string) map[string]bool {
	out := map[string]bool{}
	for _, f := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if strings.IndexFunc(f, func(r rune) bool { return !unicode.IsDigit(r) }) < 0 {
			out[strings.TrimLeft(f, "0")] = true
		} else if i := slices.Index(numberWords, f); i >= 0 {
			out[fmt.Sprint(i+1)] = true
		}
	}
	return out
}

var numberWords = []string{"one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
	"eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"}
