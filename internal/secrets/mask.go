package secrets

import (
	"bytes"
	"cmp"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"
)

// Values maps the text of each finding in content (the bytes Scan read)
// to its Redacted form, adding to into (a new map when nil). Callers that
// show that content elsewhere (a review posted to a pull request, the
// context block an agent reads) must hide what was found in it, wherever
// it appears there.
func Values(into map[string]string, content []byte, found []Finding) map[string]string {
	if into == nil {
		into = map[string]string{}
	}
	lines := strings.Split(string(content), "\n")
	for _, f := range found {
		if f.Line < 1 || f.Line > len(lines) || f.Column < 1 || f.Column > len(lines[f.Line-1]) {
			continue
		}
		// Redacted has as many characters as the secret.
		n := utf8.RuneCountInString(f.Redacted)
		v := lines[f.Line-1][f.Column-1:]
		if r := []rune(v); len(r) > n {
			v = string(r[:n])
		}
		if utf8.RuneCountInString(v) < n || n < 4 {
			continue // not where the finding says: nothing to mask by
		}
		into[v] = f.Redacted
		if f.Rule == "private-key" {
			keyMaterial(into, content, lines, f, v)
		}
	}
	return into
}

// keyMaterial adds to into the lines of the armored key whose header is
// the finding f (text v): the finding names only the BEGIN line, and the
// key is the base64 after it, up to the END line. Each run of it is masked
// by value, so it is hidden also where the lines were joined (a summary,
// a one-line listing).
func keyMaterial(into map[string]string, content []byte, lines []string, f Finding, v string) {
	at := len(v) + f.Column - 1
	for _, l := range lines[:f.Line-1] {
		at += len(l) + 1
	}
	body := content[min(at, len(content)):]
	if i := bytes.Index(body, []byte("-----")); i >= 0 {
		body = body[:i]
	}
	for _, run := range bytes.FieldsFunc(body, func(r rune) bool { return r > 0x7f || !isBase64(byte(r)) }) {
		if len(run) >= 8 { // the short tail of the last line says nothing
			into[string(run)] = redact(string(run))
		}
	}
}

// Masker replaces each secret of values (see Values) with its redacted
// form. The longest come first, so that a secret inside another is masked
// the same whatever the map's order.
func Masker(values map[string]string) *strings.Replacer {
	keys := slices.SortedFunc(maps.Keys(values), func(a, b string) int {
		return cmp.Or(len(b)-len(a), strings.Compare(a, b))
	})
	pairs := make([]string, 0, 2*len(keys))
	for _, k := range keys {
		pairs = append(pairs, k, values[k])
	}
	return strings.NewReplacer(pairs...)
}

// MayHoldSecret reports whether a word of s (split at every character
// other than an ASCII letter or digit) looks random: 16 characters or more,
// mixing letters and digits, that do not read as words. It catches what
// the rules miss for want of context, such as a token without a vendor
// prefix in a title, and is meant for text that is made into a name, such
// as the file name of a memory: "deploy-notes" passes, "deploy-7fk2p9qx3m4n8b1v"
// does not. Commit IDs and digests count as random.
func MayHoldSecret(s string) bool {
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return r > 0x7f || !isAlnum(byte(r)) }) {
		if len(w) >= 16 && hasDigit(w) && strings.ContainsFunc(w, isLetter) && !isDigits(w) &&
			(isHex(w) || !wordy(w)) && entropy(w) >= 3 {
			return true
		}
	}
	return false
}
