package secrets

import (
	"bytes"
	"encoding/base64"
	"math"
	"strings"
	"sync"
)

// RuleInfo describes one rule, for documentation and --help output.
type RuleInfo struct {
	ID          string `json:"id"`
	Description string `json:"description"`
}

// Rules returns the ID and description of every rule, in a fixed order. The
// slice is the caller's to keep or change.
func Rules() []RuleInfo {
	rs := rules()
	out := make([]RuleInfo, len(rs))
	for i, r := range rs {
		out[i] = RuleInfo{ID: r.id, Description: r.desc}
	}
	return out
}

// rule is one kind of secret.
type rule struct {
	id, desc string
	// anchors are literals of which every match contains at least one. The
	// rule runs only on lines holding an anchor, which keeps the cost of
	// scanning ordinary text close to that of a few bytes.IndexByte calls.
	anchors []anchor
	// find returns the candidates in one line.
	find func(line []byte) []span
	// check, if not nil, rejects candidates that have the shape of the
	// secret but are not one (placeholders, code, prose) and returns the text
	// the fingerprint is computed over, normally the secret itself.
	check func(c candidate) (ident string, ok bool)
	// rank orders rules by specificity: where matches overlap, only those
	// of the highest rank are reported.
	rank int
}

// span locates a candidate in a line: the whole match, and the secret
// within it.
type span struct {
	start, end             int
	secretStart, secretEnd int
}

// candidate is what a rule's finder found, for its check.
type candidate struct {
	prefix []byte // the part of the match before the secret, such as a key name
	secret string
	rest   []byte // the content after the secret, to the end of the file
	before []byte // up to 8 KiB of the content before the secret
}

// Ranks of rules, from the least specific: a vendor's key format says more
// than "a password in a URL", which says more than "a random value assigned
// to something called key".
const (
	rankBare = iota
	rankGeneric
	rankURL
	rankVendor
)

// rules returns the immutable table of rules, in the order Rules lists
// them. It is built on first use: building it (anchor tables for every
// vendor format) cost every process a quarter of a millisecond at start,
// also those that never scan.
var rules = sync.OnceValue(func() []rule { return append(builtinRules(), vendorRules()...) })

// builtinRules are the rules other than the vendor formats.
func builtinRules() []rule {
	return []rule{
		{
			id:      "aws-access-key-id",
			desc:    "AWS access key ID",
			anchors: anchors("AKIA", "ASIA", "ABIA", "ACCA"),
			find:    findRegexp(`\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b`),
			check:   tokenBody(4),
			rank:    rankVendor,
		},
		{
			id:   "aws-secret-access-key",
			desc: "AWS secret access key",
			// The name must mention AWS; the usual spellings of its first
			// letters are anchors enough.
			anchors: anchors("aws", "AWS", "Aws"),
			find:    findAssignments("aws"),
			check:   awsSecret,
			rank:    rankVendor,
		},
		{
			id:      "github-token",
			desc:    "GitHub token",
			anchors: anchors("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
			find:    findRegexp(`\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{82,})`),
			check:   tokenBody(4),
			rank:    rankVendor,
		},
		{
			id:      "gitlab-token",
			desc:    "GitLab personal access token",
			anchors: anchors("glpat-"),
			find:    findRegexp(`\bglpat-[A-Za-z0-9_-]{20,}`),
			check:   tokenBody(len("glpat-")),
			rank:    rankVendor,
		},
		{
			id:      "slack-token",
			desc:    "Slack token",
			anchors: anchors("xox"),
			find:    findRegexp(`\bxox[baprs]-(?:[0-9A-Za-z]+-)+[0-9A-Za-z]+`),
			check:   slackToken,
			rank:    rankVendor,
		},
		{
			id:      "slack-webhook",
			desc:    "Slack incoming webhook URL",
			anchors: anchors("hooks.slack.com"),
			find:    findRegexp(`\bhooks\.slack\.com/services/(T[A-Z0-9]{6,}/B[A-Z0-9]{6,}/[A-Za-z0-9]{20,})`),
			check:   tokenBody(0),
			rank:    rankVendor,
		},
		{
			id:      "stripe-key",
			desc:    "Stripe live secret or restricted key",
			anchors: anchors("_live_"),
			find:    findRegexp(`\b[rs]k_live_[A-Za-z0-9]{24,}`),
			check:   tokenBody(len("sk_live_")),
			rank:    rankVendor,
		},
		{
			id:      "google-api-key",
			desc:    "Google API key",
			anchors: anchors("AIza"),
			find:    findRegexp(`\bAIza[0-9A-Za-z_-]{35}`),
			check:   tokenBody(4),
			rank:    rankVendor,
		},
		{
			id:      "openai-key",
			desc:    "OpenAI API key",
			anchors: anchors("sk-"),
			find:    findRegexp(`\bsk-[A-Za-z0-9_-]{20,}`),
			check:   openAIKey,
			rank:    rankVendor,
		},
		{
			id:      "anthropic-key",
			desc:    "Anthropic API key",
			anchors: anchors("sk-ant-"),
			find:    findRegexp(`\bsk-ant-[A-Za-z0-9_-]{20,}`),
			check:   anthropicKey,
			rank:    rankVendor,
		},
		{
			id:      "private-key",
			desc:    "private key",
			anchors: anchors("PRIVATE KEY"),
			find:    findRegexp(`-----BEGIN (?:RSA |EC |DSA |OPENSSH |PGP |ENCRYPTED )?PRIVATE KEY(?: BLOCK)?-----`),
			check:   privateKey,
			rank:    rankVendor,
		},
		{
			id:      "jwt",
			desc:    "JSON Web Token",
			anchors: anchors("eyJ"),
			find:    findRegexp(`\beyJ[A-Za-z0-9_-]{8,}\.ey[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}`),
			check:   jwt,
			rank:    rankVendor,
		},
		{
			id:      "password-in-url",
			desc:    "password in URL",
			anchors: anchors("://"),
			find:    findURLPasswords,
			check:   urlPassword,
			rank:    rankURL,
		},
		{
			id:      "generic-secret-assignment",
			desc:    "high-entropy value assigned to a secret-sounding name",
			anchors: anchors(":", "="),
			find:    findAssignments(secretWords...),
			check:   genericSecret,
			rank:    rankGeneric,
		},
	}
}

// secretWords are the words that make a name secret-sounding for the
// generic rule, in lower case. They are matched anywhere in a name, so "key"
// covers apiKey, API_KEY and signing-key, and "pass" covers password,
// passwd and DB_PASS.
var secretWords = []string{"key", "token", "secret", "pass", "pwd", "auth", "credential"}

// anchor is a literal that a rule's matches contain, searched for through
// its rarest byte.
type anchor struct {
	lit   []byte
	pivot int // index in lit of the byte least frequent in text
}

// commonBytes lists bytes in roughly falling frequency in English prose,
// Markdown and code; bytes not listed are rarer still.
const commonBytes = " etaoinsrhldcumfpgwybv\n.,-k/:TAISCE=\"_MBPRWHNDFOLG`x()'"

// anchors returns the anchors for the literals s.
func anchors(s ...string) []anchor {
	as := make([]anchor, len(s))
	for i, lit := range s {
		a := anchor{lit: []byte(lit)}
		rank := -1
		for j := range len(lit) {
			r := strings.IndexByte(commonBytes, lit[j])
			if r < 0 {
				r = len(commonBytes)
			}
			if r > rank {
				a.pivot, rank = j, r
			}
		}
		as[i] = a
	}
	return as
}

// tokenBody returns a check for a token made of a fixed prefix of n bytes
// followed by random characters, which rejects placeholders such as
// "ghp_xxxx…" in the random part.
func tokenBody(n int) func(candidate) (string, bool) {
	return func(c candidate) (string, bool) {
		return c.secret, !placeholder(c.secret[n:])
	}
}

// awsSecret accepts a random-looking 40-character value assigned to a name
// mentioning both AWS and a secret.
func awsSecret(c candidate) (string, bool) {
	s := c.secret
	name := bytes.ToLower(c.prefix)
	return s, bytes.Contains(name, []byte("secret")) && len(s) == 40 &&
		strings.Trim(s, alnumChars+"+/") == "" &&
		!placeholder(s) && hasDigit(s) && entropy(s) >= 3.5
}

// slackToken accepts a Slack token, whose dash-separated parts include
// numeric IDs, and not prose such as "xoxb-your-bot-token".
func slackToken(c candidate) (string, bool) {
	s := c.secret
	if bytes.HasSuffix(c.before, []byte("xoxe.")) {
		return s, false // a configuration token: the slack-config-token rule's
	}
	return s, len(s) >= 24 && hasDigit(s[5:]) && !placeholder(s[5:])
}

// openAIKey accepts an OpenAI key: one carrying the marker every generated
// key has ("T3BlbkFJ", base64 for "OpenAI"), or else a long string of mixed
// letters and digits that cannot be a kebab-case word list, or 32 hex
// digits (the keys of OpenAI-compatible APIs such as DeepSeek). Anthropic keys,
// which share the sk- prefix, are left to their own rule.
func openAIKey(c candidate) (string, bool) {
	s := c.secret
	if strings.HasPrefix(s, "sk-ant-") {
		return s, false
	}
	body := s[len("sk-"):]
	for _, p := range []string{"proj-", "svcacct-", "admin-"} {
		body = strings.TrimPrefix(body, p)
	}
	if placeholder(body) {
		return s, false
	}
	if strings.Contains(body, "T3BlbkFJ") {
		return s, true
	}
	if len(body) == 32 && isHex(body) && hasDigit(body) && strings.ContainsAny(body, "abcdef") {
		return s, entropy(body) >= 3 // the keys of OpenAI-compatible APIs such as DeepSeek's
	}
	return s, len(body) >= 32 && hasDigit(body) && hasUpper(body) && hasLower(body) && entropy(body) >= 4
}

// anthropicKey accepts an Anthropic key, whose random part mixes cases and
// digits, and not a placeholder such as "sk-ant-api03-your-key-here".
func anthropicKey(c candidate) (string, bool) {
	s := c.secret
	body := s[len("sk-ant-"):]
	return s, !placeholder(body) && hasDigit(body) && hasUpper(body) && hasLower(body)
}

// privateKey accepts a private key header followed by key material, and not
// a header quoted in prose or a key elided as "...". The fingerprint covers
// the key material, so that allowing one key does not allow every key of the
// same type.
func privateKey(c candidate) (string, bool) {
	// The key material ends where the END line (or another armor) starts.
	// Stopping there, and at a window larger than any armored key, keeps a
	// file of many headers linear to scan.
	const window = 64 << 10
	body := c.rest[:min(len(c.rest), window)]
	if i := bytes.Index(body, []byte("-----")); i >= 0 {
		body = body[:i]
	}
	var ident strings.Builder
	ident.WriteString(c.secret)
	run, longest := 0, 0
	for _, b := range body {
		if isBase64(b) {
			ident.WriteByte(b)
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return ident.String(), longest >= 32
}

// jwt accepts a token whose first segment decodes to a JOSE header, which
// every JWT has and random text starting with "eyJ" does not.
func jwt(c candidate) (string, bool) {
	seg, _, _ := strings.Cut(c.secret, ".")
	hdr, err := base64.RawURLEncoding.DecodeString(seg)
	return c.secret, err == nil && bytes.HasPrefix(hdr, []byte("{")) && bytes.Contains(hdr, []byte(`"alg"`))
}

// urlPassword accepts the password of a URL's user information unless it is
// a placeholder, a variable, the user name repeated (as in the
// postgres:postgres of development setups), one character repeated (xxx),
// a port number misplaced, or the password of a host in a domain reserved
// for documentation, such as example.com.
func urlPassword(c candidate) (string, bool) {
	pw := c.secret
	_, user, _ := bytes.Cut(c.prefix, []byte("://"))
	user = bytes.TrimSuffix(user, []byte(":"))
	if string(user) == pw || placeholder(pw) || strings.Trim(pw, pw[:1]) == "" ||
		(len(pw) <= 5 && isDigits(pw)) || documentationHost(c.rest[1:]) {
		return pw, false
	}
	switch {
	case strings.IndexByte("${<[(", pw[0]) >= 0:
		return pw, false // ${VAR}, $VAR, {{.Password}}, <password>, [password]
	case pw[0] == '%' && len(pw) > 1 && strings.IndexByte("sdvq(", pw[1]) >= 0:
		return pw, false // %s, %(password)s; not %40 and other escapes
	}
	switch strings.ToLower(strings.Trim(pw, "_-")) {
	case "password", "passwd", "pass", "pwd", "pw", "secret", "changeme",
		"example", "test", "user", "username", "token", "apikey", "api_key", "key":
		return pw, false
	}
	return pw, true
}

// documentationHost reports whether the URL host at the start of b is in a
// domain reserved for documentation and tests by RFC 2606.
func documentationHost(b []byte) bool {
	n := 0
	for n < len(b) && (isAlnum(b[n]) || b[n] == '.' || b[n] == '-') {
		n++
	}
	host := strings.ToLower(string(b[:n]))
	for _, d := range []string{"example.com", "example.net", "example.org", "example", "test", "invalid"} {
		if host == d || strings.HasSuffix(host, "."+d) {
			return true
		}
	}
	return false
}

// genericSecret accepts a value assigned to a secret-sounding name if it
// looks random: long, high in entropy, with digits or symbols, and not a
// placeholder, variable, path, URL, identifier or piece of code.
func genericSecret(c candidate) (string, bool) {
	v := c.secret
	if len(v) < 16 || strings.ContainsAny(v, " \t()[]{}<>\\") || placeholder(v) {
		return v, false
	}
	key := strings.ToLower(string(c.prefix))
	for _, w := range []string{"public", "pubkey", "keyid", "key_id", "key-id", "fingerprint"} {
		if strings.Contains(key, w) {
			return v, false // names of things that are not secret
		}
	}
	switch {
	case v[0] == '$' || v[0] == '%' || v[0] == '@' || v[0] == '!':
		return v, false // $VAR, %(x)s, @file, !vault
	case strings.Contains(v, "://"):
		return v, false // URLs; passwords in them have their own rule
	case wordy(v):
		return v, false // names, code, file paths
	}
	if !hasDigit(v) && !(hasSymbol(v) && hasUpper(v) && hasLower(v)) {
		return v, false
	}
	threshold := 3.5
	if isHex(strings.ReplaceAll(v, "-", "")) {
		threshold = 3 // hex has only 16 symbols, so random hex scores lower
	}
	return v, entropy(v) >= threshold
}

// wordy reports whether s reads as words rather than random characters: as
// names, code or file paths such as c.CredentialSource.IMDSv2SessionTokenURL,
// SECRET_KEY_V2 or /etc/ssl/private/server.key. Random characters change
// class (lower case, upper case, digit) at about every other character, and
// only one letter in five of them is a vowel; words change class only where
// one word ends and the next starts, and two letters in five are vowels.
// Tuned on random tokens of 16 to 40 characters, of which it takes between
// 0.1% (long mixed-case ones) and 10% (short ones of a single case) for
// words.
func wordy(s string) bool {
	pairs, changes, letters, vowels := 0, 0, 0, 0
	var prev byte // class of the previous byte: 0 for none, 'a', 'A' or '0'
	for i := 0; i < len(s); i++ {
		b := s[i]
		var class byte
		switch {
		case isLower(b):
			class = 'a'
		case isUpper(b):
			class = 'A'
		case '0' <= b && b <= '9':
			class = '0'
		}
		if class == 'a' || class == 'A' {
			letters++
			if strings.IndexByte("aeiouAEIOU", b) >= 0 {
				vowels++
			}
		}
		if prev != 0 && class != 0 {
			pairs++
			if class != prev && !(prev == 'A' && class == 'a') { // a capital starts a word
				changes++
			}
		}
		prev = class
	}
	return changes*100 < pairs*15 || changes*100 < pairs*30 && vowels*10 >= letters*3
}

// placeholderWords are found in placeholders and in documentation examples
// and, being long or unusual, almost never by chance in a random string.
var placeholderWords = []string{"example", "your", "placeholder", "redacted", "changeme", "dummy", "sample", "fake", "***", "..."}

// placeholder reports whether s is a stand-in for a secret: one containing a
// word such as "example" or "your", a run of five equal characters (xxxxx,
// 00000) or a run of six consecutive ones (123456, abcdef).
func placeholder(s string) bool {
	l := strings.ToLower(s)
	for _, w := range placeholderWords {
		if strings.Contains(l, w) {
			return true
		}
	}
	same, next := 1, 1
	for i := 1; i < len(l); i++ {
		if l[i] == l[i-1] {
			same++
		} else {
			same = 1
		}
		if l[i] == l[i-1]+1 && isAlnum(l[i]) {
			next++
		} else {
			next = 1
		}
		if same >= 5 || next >= 6 {
			return true
		}
	}
	return false
}

// entropy returns the Shannon entropy of s in bits per byte. It is at most
// log2 of the size of the alphabet (4 for hex, 6 for base64) and of the
// length of s: random tokens of 20 to 40 characters score 3.5 to 5, repeated
// or patterned text less.
func entropy(s string) float64 {
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	var h float64
	n := float64(len(s))
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

func isUpper(b byte) bool { return 'A' <= b && b <= 'Z' }

func isLower(b byte) bool { return 'a' <= b && b <= 'z' }

func isLetter(r rune) bool { return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' }

const alnumChars = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

func isAlnum(b byte) bool {
	return '0' <= b && b <= '9' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'
}

func isBase64(b byte) bool { return isAlnum(b) || b == '+' || b == '/' || b == '=' }

func isDigits(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }

func isHex(s string) bool { return s != "" && strings.Trim(s, "0123456789abcdefABCDEF") == "" }

func hasDigit(s string) bool { return strings.ContainsAny(s, "0123456789") }

func hasUpper(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return 'A' <= r && r <= 'Z' })
}

func hasLower(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return 'a' <= r && r <= 'z' })
}

// hasSymbol reports whether s has a character other than a letter, a digit
// or the punctuation of identifiers.
func hasSymbol(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool {
		return !(r < 128 && isAlnum(byte(r))) && r != '_' && r != '-' && r != '.'
	})
}
