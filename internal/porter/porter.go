// Package porter is Martin Porter's English stemmer. The built-in embedder
// stems words with it, and the cache stems query words with it to look up
// their document frequency in SQLite's porter-tokenized full-text index.
//
// It is a port of Martin Porter's reference implementation of his
// 1980 suffix-stripping algorithm ("An algorithm for suffix stripping",
// Program 14(3)), with one addition from its successor, the Snowball English
// stemmer: "-ly" adverbs lose their suffix ("quickly" -> "quick"), which the
// original leaves as "quickli" and so never meets the adjective (SQLite's
// porter tokenizer does not have this addition). It works in place on
// lower-case ASCII so that stemming a token allocates nothing.
package porter

// Stem returns the stem of the lower-case ASCII word w, reusing w's storage.
// Words of one or two letters are returned unchanged, as in the original.
func Stem(w []byte) []byte {
	if len(w) <= 2 {
		return w
	}
	// Snowball's exceptions: words the rules would mangle or merge with
	// unrelated ones ("early" would become "ear").
	switch string(w) {
	case "early", "only", "ugly", "idly", "gently", "singly", "news", "atlas", "cosmos", "bias":
		return w
	case "skis":
		return append(w[:0], "ski"...)
	case "skies":
		return append(w[:0], "sky"...)
	case "dying":
		return append(w[:0], "die"...)
	case "lying":
		return append(w[:0], "lie"...)
	case "tying":
		return append(w[:0], "tie"...)
	}
	s := stemmer{b: w, k: len(w) - 1}
	s.step1ab()
	if s.k > 0 {
		s.step1c()
		s.step2()
		s.step3()
		s.step4()
		s.step5()
	}
	return s.b[:s.k+1]
}

// stemmer holds the word being stemmed: b[0..k] is the current word and j
// marks the end of the stem once ends has matched a suffix.
type stemmer struct {
	b    []byte
	k, j int
}

// cons reports whether b[i] is a consonant; y is one unless it follows a
// consonant.
func (s *stemmer) cons(i int) bool {
	switch s.b[i] {
	case 'a', 'e', 'i', 'o', 'u':
		return false
	case 'y':
		return i == 0 || !s.cons(i-1)
	}
	return true
}

// m is the number of vowel-consonant sequences in b[0..j], Porter's measure
// of how much stem is left.
func (s *stemmer) m() int {
	n, i := 0, 0
	for ; i <= s.j && s.cons(i); i++ {
	}
	for {
		for ; i <= s.j && !s.cons(i); i++ {
		}
		if i > s.j {
			return n
		}
		for ; i <= s.j && s.cons(i); i++ {
		}
		n++
		if i > s.j {
			return n
		}
	}
}

// vowelInStem reports whether b[0..j] contains a vowel.
func (s *stemmer) vowelInStem() bool {
	for i := 0; i <= s.j; i++ {
		if !s.cons(i) {
			return true
		}
	}
	return false
}

// doubleC reports whether b[i-1..i] is a double consonant.
func (s *stemmer) doubleC(i int) bool {
	return i >= 1 && s.b[i] == s.b[i-1] && s.cons(i)
}

// cvc reports whether b[i-2..i] is consonant-vowel-consonant with the last
// consonant not w, x or y: the shape of short words such as "hop" or "cut"
// whose final e was removed ("hoping" -> "hop" -> "hope").
func (s *stemmer) cvc(i int) bool {
	if i < 2 || !s.cons(i) || s.cons(i-1) || !s.cons(i-2) {
		return false
	}
	switch s.b[i] {
	case 'w', 'x', 'y':
		return false
	}
	return true
}

// ends reports whether b[0..k] ends with suffix, setting j before it.
func (s *stemmer) ends(suffix string) bool {
	n := len(suffix)
	if n > s.k+1 || string(s.b[s.k-n+1:s.k+1]) != suffix {
		return false
	}
	s.j = s.k - n
	return true
}

// setTo replaces b[j+1..k] with repl. Replacements are never longer than
// the suffixes they replace, so b's storage suffices.
func (s *stemmer) setTo(repl string) {
	copy(s.b[s.j+1:], repl)
	s.k = s.j + len(repl)
}

// r replaces the matched suffix if the remaining stem is long enough.
func (s *stemmer) r(repl string) {
	if s.m() > 0 {
		s.setTo(repl)
	}
}

// step1ab removes plurals and -ed or -ing.
func (s *stemmer) step1ab() {
	if s.b[s.k] == 's' {
		switch {
		case s.ends("sses"):
			s.k -= 2
		case s.ends("ies"):
			s.setTo("i")
		case s.b[s.k-1] != 's':
			s.k--
		}
	}
	if s.ends("eed") {
		if s.m() > 0 {
			s.k--
		}
		return
	}
	if (s.ends("ed") || s.ends("ing")) && s.vowelInStem() {
		s.k = s.j
		switch {
		case s.ends("at"):
			s.setTo("ate")
		case s.ends("bl"):
			s.setTo("ble")
		case s.ends("iz"):
			s.setTo("ize")
		case s.doubleC(s.k):
			s.k--
			switch s.b[s.k] {
			case 'l', 's', 'z':
				s.k++
			}
		default:
			s.j = s.k
			if s.m() == 1 && s.cvc(s.k) {
				s.setTo("e")
			}
		}
	}
}

// step1c turns a final y into i when there is another vowel in the stem, so
// "happy" and "happiness" meet.
func (s *stemmer) step1c() {
	if s.ends("y") && s.vowelInStem() {
		s.b[s.k] = 'i'
	}
}

// step2 maps double suffixes to single ones: -ization -> -ize, and so on.
func (s *stemmer) step2() {
	if s.k < 1 {
		return
	}
	switch s.b[s.k-1] {
	case 'a':
		if s.ends("ational") {
			s.r("ate")
		} else if s.ends("tional") {
			s.r("tion")
		}
	case 'c':
		if s.ends("enci") {
			s.r("ence")
		} else if s.ends("anci") {
			s.r("ance")
		}
	case 'e':
		if s.ends("izer") {
			s.r("ize")
		}
	case 'l':
		switch {
		case s.ends("bli"):
			s.r("ble")
		case s.ends("alli"):
			s.r("al")
		case s.ends("entli"):
			s.r("ent")
		case s.ends("eli"):
			s.r("e")
		case s.ends("ousli"):
			s.r("ous")
		case s.ends("li") && s.j >= 0 && validLiEnding(s.b[s.j]):
			// Snowball's rule: "quickli" -> "quick", "brightli" -> "bright".
			s.r("")
		}
	case 'o':
		if s.ends("ization") {
			s.r("ize")
		} else if s.ends("ation") {
			s.r("ate")
		} else if s.ends("ator") {
			s.r("ate")
		}
	case 's':
		switch {
		case s.ends("alism"):
			s.r("al")
		case s.ends("iveness"):
			s.r("ive")
		case s.ends("fulness"):
			s.r("ful")
		case s.ends("ousness"):
			s.r("ous")
		}
	case 't':
		switch {
		case s.ends("aliti"):
			s.r("al")
		case s.ends("iviti"):
			s.r("ive")
		case s.ends("biliti"):
			s.r("ble")
		}
	case 'g':
		if s.ends("logi") {
			s.r("log")
		}
	}
}

func validLiEnding(c byte) bool {
	switch c {
	case 'c', 'd', 'e', 'g', 'h', 'k', 'm', 'n', 'r', 't':
		return true
	}
	return false
}

// step3 removes -ful, -ness and similar, and maps -icate, -alize to shorter
// forms.
func (s *stemmer) step3() {
	switch s.b[s.k] {
	case 'e':
		switch {
		case s.ends("icate"):
			s.r("ic")
		case s.ends("ative"):
			s.r("")
		case s.ends("alize"):
			s.r("al")
		}
	case 'i':
		if s.ends("iciti") {
			s.r("ic")
		}
	case 'l':
		if s.ends("ical") {
			s.r("ic")
		} else if s.ends("ful") {
			s.r("")
		}
	case 's':
		if s.ends("ness") {
			s.r("")
		}
	}
}

// step4 removes -ant, -ence, -ment and the like from stems long enough
// (measure > 1) that what remains is still a word stem.
func (s *stemmer) step4() {
	if s.k < 1 {
		return
	}
	var ok bool
	switch s.b[s.k-1] {
	case 'a':
		ok = s.ends("al")
	case 'c':
		ok = s.ends("ance") || s.ends("ence")
	case 'e':
		ok = s.ends("er")
	case 'i':
		ok = s.ends("ic")
	case 'l':
		ok = s.ends("able") || s.ends("ible")
	case 'n':
		ok = s.ends("ant") || s.ends("ement") || s.ends("ment") || s.ends("ent")
	case 'o':
		ok = s.ends("ion") && s.j >= 0 && (s.b[s.j] == 's' || s.b[s.j] == 't') || s.ends("ou")
	case 's':
		ok = s.ends("ism")
	case 't':
		ok = s.ends("ate") || s.ends("iti")
	case 'u':
		ok = s.ends("ous")
	case 'v':
		ok = s.ends("ive")
	case 'z':
		ok = s.ends("ize")
	}
	if ok && s.m() > 1 {
		s.k = s.j
	}
}

// step5 removes a final -e and reduces a final -ll on long stems.
func (s *stemmer) step5() {
	s.j = s.k
	if s.b[s.k] == 'e' {
		if a := s.m(); a > 1 || a == 1 && !s.cvc(s.k-1) {
			s.k--
		}
	}
	if s.b[s.k] == 'l' && s.doubleC(s.k) && s.m() > 1 {
		s.k--
	}
}
