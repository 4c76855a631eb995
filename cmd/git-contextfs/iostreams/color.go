package iostreams

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"
)

// ColorMode is what --color asks for.
type ColorMode int

// The values of --color.
const (
	// ColorAuto colours a stream that is a terminal, unless NO_COLOR or
	// git's color.ui says not to (the default).
	ColorAuto ColorMode = iota
	// ColorAlways colours, a pipe too.
	ColorAlways
	// ColorNever never colours.
	ColorNever
)

// ColorModes are the values --color accepts, in the order help lists them.
var ColorModes = []string{"auto", "always", "never"}

// ParseColorMode reads a --color value: auto, always or never (git's
// synonyms true and false too).
func ParseColorMode(s string) (ColorMode, error) {
	switch strings.ToLower(s) {
	case "auto", "":
		return ColorAuto, nil
	case "always", "true":
		return ColorAlways, nil
	case "never", "false":
		return ColorNever, nil
	}
	return ColorAuto, fmt.Errorf("%q: want auto, always or never", s)
}

// colorEnv is what the environment says about colour, read once.
type colorEnv struct {
	noColor bool // NO_COLOR set and not empty: never (no-color.org)
	force   bool // CLICOLOR_FORCE set, not empty and not "0": always
	dumb    bool // TERM=dumb: a terminal that shows escapes as text
}

func readColorEnv() colorEnv {
	f := os.Getenv("CLICOLOR_FORCE")
	return colorEnv{noColor: os.Getenv("NO_COLOR") != "", force: f != "" && f != "0", dumb: os.Getenv("TERM") == "dumb"}
}

// SetColorMode applies --color to both output streams.
func (s *IOStreams) SetColorMode(m ColorMode) { s.outMode, s.errMode = m, m }

// SetColor fixes whether standard output and standard error are coloured,
// decided elsewhere: by the command a watcher answers for, whose streams
// are buffers.
func (s *IOStreams) SetColor(out, errOut bool) {
	mode := func(b bool) ColorMode {
		if b {
			return ColorAlways
		}
		return ColorNever
	}
	s.outMode, s.errMode = mode(out), mode(errOut)
}

// DisableColor turns colour off whatever --color or the environment asks:
// for output read by programs (hooks, --json).
func (s *IOStreams) DisableColor() { s.noColor = true }

// SetColorConfig sets how git's colour setting is read (git config
// color.contextfs, else color.ui). It is asked at most once, and only when
// a stream is a terminal and neither --color nor the environment decided,
// so that no command in a pipe starts git for it.
func (s *IOStreams) SetColorConfig(read func() string) { s.readConfig, s.configRead = read, false }

// ColorEnabled reports whether standard output is coloured.
func (s *IOStreams) ColorEnabled() bool { return s.colorFor(s.outMode, s.stdoutTTY) }

// ErrColorEnabled reports whether standard error is coloured.
func (s *IOStreams) ErrColorEnabled() bool { return s.colorFor(s.errMode, s.stderrTTY) }

// ColorScheme is the colours of standard output.
func (s *IOStreams) ColorScheme() *ColorScheme { return &ColorScheme{enabled: s.ColorEnabled()} }

// ErrColorScheme is the colours of standard error.
func (s *IOStreams) ErrColorScheme() *ColorScheme { return &ColorScheme{enabled: s.ErrColorEnabled()} }

// colorFor decides for one stream, in git's and gh's order: a program's
// output never; then --color; then NO_COLOR, then CLICOLOR_FORCE; then
// only a terminal that can show colour, unless git's config says never.
func (s *IOStreams) colorFor(m ColorMode, tty bool) bool {
	switch {
	case s.noColor || m == ColorNever:
		return false
	case m == ColorAlways:
		return true
	case s.env.noColor:
		return false
	case s.env.force:
		return true
	case !tty || s.env.dumb:
		return false
	}
	return configAllows(s.gitColor())
}

// gitColor is git's colour setting, read once.
func (s *IOStreams) gitColor() string {
	if !s.configRead && s.readConfig != nil {
		s.config, s.configRead = s.readConfig(), true
	}
	return s.config
}

// configAllows reports whether git's color.ui value v leaves colour on a
// terminal: any value but a false one (never, false, no, off, 0).
func configAllows(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "never", "false", "no", "off", "0":
		return false
	}
	return true
}

// SGR escape sequences (ECMA-48 Select Graphic Rendition).
const (
	sgrReset   = "\x1b[0m"
	sgrBold    = "\x1b[1m"
	sgrRed     = "\x1b[31m"
	sgrGreen   = "\x1b[32m"
	sgrYellow  = "\x1b[33m"
	sgrBlue    = "\x1b[34m"
	sgrMagenta = "\x1b[35m"
	sgrCyan    = "\x1b[36m"
	sgrGray    = "\x1b[90m"
	sgrBoldRed = "\x1b[1;31m"
)

// ColorScheme paints text for one stream: with its colour off, each
// method returns the text as it is.
type ColorScheme struct{ enabled bool }

// NewColorScheme returns a scheme that colours when enabled, for tests
// and for text laid out before it is written.
func NewColorScheme(enabled bool) *ColorScheme { return &ColorScheme{enabled: enabled} }

// Enabled reports whether the scheme colours.
func (c *ColorScheme) Enabled() bool { return c.enabled }

func (c *ColorScheme) paint(sgr, t string) string {
	if !c.enabled || t == "" {
		return t
	}
	return sgr + t + sgrReset
}

// Bold is t in bold.
func (c *ColorScheme) Bold(t string) string { return c.paint(sgrBold, t) }

// Red is t in red: errors, deletions.
func (c *ColorScheme) Red(t string) string { return c.paint(sgrRed, t) }

// BoldRed is t in bold red: the program's error prefix.
func (c *ColorScheme) BoldRed(t string) string { return c.paint(sgrBoldRed, t) }

// Green is t in green: additions.
func (c *ColorScheme) Green(t string) string { return c.paint(sgrGreen, t) }

// Yellow is t in yellow: IDs (as git shows commit hashes), warnings.
func (c *ColorScheme) Yellow(t string) string { return c.paint(sgrYellow, t) }

// Blue is t in blue.
func (c *ColorScheme) Blue(t string) string { return c.paint(sgrBlue, t) }

// Magenta is t in magenta.
func (c *ColorScheme) Magenta(t string) string { return c.paint(sgrMagenta, t) }

// Cyan is t in cyan.
func (c *ColorScheme) Cyan(t string) string { return c.paint(sgrCyan, t) }

// Gray is t in gray: what matters less (dates, marks).
func (c *ColorScheme) Gray(t string) string { return c.paint(sgrGray, t) }

// TerminalWidth is how many columns standard output has when it is a
// terminal, to fit long lines to; 0 when it is not (a pipe is never cut).
func (s *IOStreams) TerminalWidth() int {
	if s.width >= 0 {
		return s.width
	}
	if !s.stdoutTTY || s.outFile == nil {
		return 0
	}
	if w := terminalWidth(s.outFile); w > 0 {
		return w
	}
	var n int
	if _, err := fmt.Sscan(os.Getenv("COLUMNS"), &n); err == nil && n > 0 {
		return n
	}
	return 80 // a terminal that does not say its size
}

// SetTerminalWidth fixes what TerminalWidth reports (0: do not fit), for
// tests and for the command a watcher answers for.
func (s *IOStreams) SetTerminalWidth(n int) { s.width = n }

// Truncate cuts t to at most width characters, ending it with an
// ellipsis when it is cut; width 0 or less leaves it whole. Width is
// counted in characters (runes), as text/tabwriter aligns columns.
func Truncate(t string, width int) string {
	if width <= 0 || utf8.RuneCountInString(t) <= width {
		return t
	}
	if width == 1 {
		return "…"
	}
	n := 0
	for i := range t {
		if n == width-1 {
			return strings.TrimRight(t[:i], " ") + "…"
		}
		n++
	}
	return t
}

// errWriter is standard error: where it is coloured, the program's name
// that begins an error line ("git-contextfs:") is painted red and a
// "warning:" that begins a line, or follows such prefixes
// ("contextfs: warning:"), yellow, whoever wrote the line (this program,
// a library's notices, a watcher's answer).
type errWriter struct {
	w   io.Writer
	s   *IOStreams
	mid bool // the last write ended inside a line
}

// errPrefix begins the line of an error this program reports.
const errPrefix = "git-contextfs:"

func (e *errWriter) Write(p []byte) (int, error) {
	if len(p) == 0 || !e.s.ErrColorEnabled() {
		if len(p) > 0 {
			e.mid = p[len(p)-1] != '\n'
		}
		return e.w.Write(p)
	}
	cs := &ColorScheme{enabled: true}
	var b bytes.Buffer
	rest := p
	for len(rest) > 0 {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i+1], rest[i+1:]
		} else {
			rest = nil
		}
		if e.mid {
			b.Write(line)
		} else {
			b.WriteString(paintErrLine(cs, string(line)))
		}
		e.mid = line[len(line)-1] != '\n'
	}
	if _, err := e.w.Write(b.Bytes()); err != nil {
		return 0, err
	}
	return len(p), nil
}

// paintErrLine colours the prefixes of one line of standard error.
func paintErrLine(cs *ColorScheme, line string) string {
	if rest, ok := strings.CutPrefix(line, errPrefix); ok && !strings.HasPrefix(strings.TrimSpace(rest), "warning:") {
		return cs.BoldRed(errPrefix) + rest
	}
	// "warning:" at the start, or after prefixes such as "contextfs: " or
	// "git-contextfs review: ", never deep in a message.
	const word = "warning:"
	i := strings.Index(line, word)
	if i < 0 || i > 40 || i > 0 && !strings.HasSuffix(line[:i], ": ") {
		return line
	}
	return line[:i] + cs.Yellow(word) + line[i+len(word):]
}
