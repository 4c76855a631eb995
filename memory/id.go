package memory

import (
	"crypto/rand"
	"fmt"
	"strings"
)

// idAlphabet is Crockford's base32 in lower case: no i, l, o or u, so an ID
// read aloud or typed by hand is hard to get wrong.
const idAlphabet = "0123456789abcdefghjkmnpqrstvwxyz"

// IDLength is the number of characters in a new ID: 50 random bits, so two
// branches adding memories independently practically never collide (about
// one chance in 200,000 across 100,000 memories), while a unique prefix of a
// few characters is enough to type.
const IDLength = 10

// NewID returns a fresh random ID. IDs are random rather than sequential so
// that two branches that each add memories never conflict.
func NewID() string {
	var b [IDLength]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(fmt.Sprintf("crypto/rand: %v", err)) // the OS RNG never fails on supported platforms
	}
	for i := range b {
		b[i] = idAlphabet[b[i]&31]
	}
	return string(b[:])
}

// ValidID reports whether s is a well-formed ID: 4 to 64 characters of
// lower-case letters, digits, '-' or '_'. Hand-written IDs are allowed as long
// as they are unique; NewID's are just one shape of them.
func ValidID(s string) bool {
	if len(s) < 4 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// Slug turns a title into a short, readable file-name stem: lower case ASCII
// words joined by '-', at most 48 bytes, cut at a word boundary.
func Slug(title string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(title) {
		switch {
		case 'a' <= r && r <= 'z', '0' <= r && r <= '9':
			b.WriteRune(r)
			dash = false
		default:
			if r > 127 {
				if f := fold(r); f != 0 {
					b.WriteByte(f)
					dash = false
					continue
				}
			}
			if !dash && b.Len() > 0 {
				b.WriteByte('-')
				dash = true
			}
		}
	}
	s := strings.TrimRight(b.String(), "-")
	if len(s) > 48 {
		s = s[:48]
		if i := strings.LastIndexByte(s, '-'); i > 16 {
			s = s[:i]
		}
		s = strings.TrimRight(s, "-")
	}
	if s == "" {
		s = "memory"
	}
	return s
}

// fold maps common accented Latin letters to their ASCII base letter.
func fold(r rune) byte {
	switch {
	case strings.ContainsRune("àáâãäåā", r):
		return 'a'
	case strings.ContainsRune("çćč", r):
		return 'c'
	case strings.ContainsRune("èéêëēę", r):
		return 'e'
	case strings.ContainsRune("ìíîïī", r):
		return 'i'
	case strings.ContainsRune("ñń", r):
		return 'n'
	case strings.ContainsRune("òóôõöøō", r):
		return 'o'
	case strings.ContainsRune("ùúûüū", r):
		return 'u'
	case strings.ContainsRune("ýÿ", r):
		return 'y'
	case strings.ContainsRune("ßśš", r):
		return 's'
	case strings.ContainsRune("źżž", r):
		return 'z'
	}
	return 0
}
