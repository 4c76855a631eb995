package markdown

import (
	"unicode"
	"unicode/utf8"
)

// normalizeLabel turns a link label into the key that matches it with its
// link reference definition: outer white space trimmed, inner runs of it
// collapsed to one space, and case folded fully (so "STRASSE" matches
// "Straße"), as goldmark keys its references.
func normalizeLabel(b []byte) string {
	for len(b) > 0 && isLabelTrim(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isLabelTrim(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	out := make([]byte, 0, len(b))
	inSpace := false
	for i := 0; i < len(b); {
		c := b[i]
		if isSpace(c) {
			if !inSpace {
				out = append(out, ' ')
			}
			inSpace = true
			i++
			continue
		}
		inSpace = false
		if c < utf8.RuneSelf || !runeStart(c) {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			out = append(out, c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError {
			out = append(out, c)
			i++
			continue
		}
		if f := fullFold(r); f != "" {
			out = append(out, f...)
		} else {
			out = utf8.AppendRune(out, simpleFold(r))
		}
		i += n
	}
	return string(out)
}

// isLabelTrim reports the white space trimmed from a label's ends, which
// unlike the white space collapsed inside it includes '\v' and '\f'.
func isLabelTrim(c byte) bool { return isSpace(c) || c == '\v' || c == '\f' }

// simpleFold maps a character to its case folding when that is one
// character (Unicode's CaseFolding.txt, status C): mostly its lower case.
// Cherokee folds to upper case; dotless i does not fold; and letters that
// Unicode encoded after goldmark's tables were made do not fold, since
// labels must match exactly as they did before.
func simpleFold(r rune) rune {
	switch {
	case r == 0x131, r == 0x1C89, r == 0xA7CB, r == 0xA7CC, r == 0xA7CE, r == 0xA7D2,
		r == 0xA7D4, r == 0xA7DA, r == 0xA7DC,
		0x10D50 <= r && r <= 0x10D65, 0x16EA0 <= r && r <= 0x16EB8:
		return r
	case 0x13A0 <= r && r <= 0x13FF, 0xAB70 <= r && r <= 0xABBF:
		return unicode.ToUpper(r)
	}
	return unicode.ToLower(unicode.ToUpper(r))
}

// fullFold returns the case folding of characters that fold to more than
// one (CaseFolding.txt, status F), or "".
func fullFold(r rune) string {
	switch r {
	case 0xDF:
		return "ss"
	case 0x130:
		return "i\u0307"
	case 0x149:
		return "\u02bcn"
	case 0x1F0:
		return "j\u030c"
	case 0x390:
		return "\u03b9\u0308\u0301"
	case 0x3B0:
		return "\u03c5\u0308\u0301"
	case 0x587:
		return "\u0565\u0582"
	case 0x1E96:
		return "h\u0331"
	case 0x1E97:
		return "t\u0308"
	case 0x1E98:
		return "w\u030a"
	case 0x1E99:
		return "y\u030a"
	case 0x1E9A:
		return "a\u02be"
	case 0x1E9E:
		return "ss"
	case 0x1F50:
		return "\u03c5\u0313"
	case 0x1F52:
		return "\u03c5\u0313\u0300"
	case 0x1F54:
		return "\u03c5\u0313\u0301"
	case 0x1F56:
		return "\u03c5\u0313\u0342"
	case 0x1F80:
		return "\u1f00\u03b9"
	case 0x1F81:
		return "\u1f01\u03b9"
	case 0x1F82:
		return "\u1f02\u03b9"
	case 0x1F83:
		return "\u1f03\u03b9"
	case 0x1F84:
		return "\u1f04\u03b9"
	case 0x1F85:
		return "\u1f05\u03b9"
	case 0x1F86:
		return "\u1f06\u03b9"
	case 0x1F87:
		return "\u1f07\u03b9"
	case 0x1F88:
		return "\u1f00\u03b9"
	case 0x1F89:
		return "\u1f01\u03b9"
	case 0x1F8A:
		return "\u1f02\u03b9"
	case 0x1F8B:
		return "\u1f03\u03b9"
	case 0x1F8C:
		return "\u1f04\u03b9"
	case 0x1F8D:
		return "\u1f05\u03b9"
	case 0x1F8E:
		return "\u1f06\u03b9"
	case 0x1F8F:
		return "\u1f07\u03b9"
	case 0x1F90:
		return "\u1f20\u03b9"
	case 0x1F91:
		return "\u1f21\u03b9"
	case 0x1F92:
		return "\u1f22\u03b9"
	case 0x1F93:
		return "\u1f23\u03b9"
	case 0x1F94:
		return "\u1f24\u03b9"
	case 0x1F95:
		return "\u1f25\u03b9"
	case 0x1F96:
		return "\u1f26\u03b9"
	case 0x1F97:
		return "\u1f27\u03b9"
	case 0x1F98:
		return "\u1f20\u03b9"
	case 0x1F99:
		return "\u1f21\u03b9"
	case 0x1F9A:
		return "\u1f22\u03b9"
	case 0x1F9B:
		return "\u1f23\u03b9"
	case 0x1F9C:
		return "\u1f24\u03b9"
	case 0x1F9D:
		return "\u1f25\u03b9"
	case 0x1F9E:
		return "\u1f26\u03b9"
	case 0x1F9F:
		return "\u1f27\u03b9"
	case 0x1FA0:
		return "\u1f60\u03b9"
	case 0x1FA1:
		return "\u1f61\u03b9"
	case 0x1FA2:
		return "\u1f62\u03b9"
	case 0x1FA3:
		return "\u1f63\u03b9"
	case 0x1FA4:
		return "\u1f64\u03b9"
	case 0x1FA5:
		return "\u1f65\u03b9"
	case 0x1FA6:
		return "\u1f66\u03b9"
	case 0x1FA7:
		return "\u1f67\u03b9"
	case 0x1FA8:
		return "\u1f60\u03b9"
	case 0x1FA9:
		return "\u1f61\u03b9"
	case 0x1FAA:
		return "\u1f62\u03b9"
	case 0x1FAB:
		return "\u1f63\u03b9"
	case 0x1FAC:
		return "\u1f64\u03b9"
	case 0x1FAD:
		return "\u1f65\u03b9"
	case 0x1FAE:
		return "\u1f66\u03b9"
	case 0x1FAF:
		return "\u1f67\u03b9"
	case 0x1FB2:
		return "\u1f70\u03b9"
	case 0x1FB3:
		return "\u03b1\u03b9"
	case 0x1FB4:
		return "\u03ac\u03b9"
	case 0x1FB6:
		return "\u03b1\u0342"
	case 0x1FB7:
		return "\u03b1\u0342\u03b9"
	case 0x1FBC:
		return "\u03b1\u03b9"
	case 0x1FC2:
		return "\u1f74\u03b9"
	case 0x1FC3:
		return "\u03b7\u03b9"
	case 0x1FC4:
		return "\u03ae\u03b9"
	case 0x1FC6:
		return "\u03b7\u0342"
	case 0x1FC7:
		return "\u03b7\u0342\u03b9"
	case 0x1FCC:
		return "\u03b7\u03b9"
	case 0x1FD2:
		return "\u03b9\u0308\u0300"
	case 0x1FD3:
		return "\u03b9\u0308\u0301"
	case 0x1FD6:
		return "\u03b9\u0342"
	case 0x1FD7:
		return "\u03b9\u0308\u0342"
	case 0x1FE2:
		return "\u03c5\u0308\u0300"
	case 0x1FE3:
		return "\u03c5\u0308\u0301"
	case 0x1FE4:
		return "\u03c1\u0313"
	case 0x1FE6:
		return "\u03c5\u0342"
	case 0x1FE7:
		return "\u03c5\u0308\u0342"
	case 0x1FF2:
		return "\u1f7c\u03b9"
	case 0x1FF3:
		return "\u03c9\u03b9"
	case 0x1FF4:
		return "\u03ce\u03b9"
	case 0x1FF6:
		return "\u03c9\u0342"
	case 0x1FF7:
		return "\u03c9\u0342\u03b9"
	case 0x1FFC:
		return "\u03c9\u03b9"
	case 0xFB00:
		return "ff"
	case 0xFB01:
		return "fi"
	case 0xFB02:
		return "fl"
	case 0xFB03:
		return "ffi"
	case 0xFB04:
		return "ffl"
	case 0xFB05:
		return "st"
	case 0xFB06:
		return "st"
	case 0xFB13:
		return "\u0574\u0576"
	case 0xFB14:
		return "\u0574\u0565"
	case 0xFB15:
		return "\u0574\u056b"
	case 0xFB16:
		return "\u057e\u0576"
	case 0xFB17:
		return "\u0574\u056d"
	}
	return ""
}
