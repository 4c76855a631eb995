package iostreams

import (
	"testing"
)

func TestColorIsDecidedInGitsAndGhsOrder(t *testing.T) {
	for _, tc := range []struct {
		name      string
		mode      ColorMode
		env       colorEnv
		tty       bool
		config    string
		want      bool
		askConfig bool // whether git's config may be read
	}{
		{name: "a terminal", tty: true, want: true, askConfig: true},
		{name: "a pipe", tty: false},
		{name: "a terminal, color.ui never", tty: true, config: "never", askConfig: true},
		{name: "a terminal, color.ui false", tty: true, config: "false", askConfig: true},
		{name: "a terminal, color.ui auto", tty: true, config: "auto", want: true, askConfig: true},
		{name: "a pipe, color.ui always (git never asked)", config: "always"},
		{name: "a terminal, TERM=dumb", tty: true, env: colorEnv{dumb: true}},
		{name: "a terminal, NO_COLOR", tty: true, env: colorEnv{noColor: true}},
		{name: "a pipe, CLICOLOR_FORCE", env: colorEnv{force: true}, want: true},
		{name: "NO_COLOR over CLICOLOR_FORCE", env: colorEnv{noColor: true, force: true}},
		{name: "--color=always over NO_COLOR", mode: ColorAlways, env: colorEnv{noColor: true}, want: true},
		{name: "--color=never over CLICOLOR_FORCE", mode: ColorNever, tty: true, env: colorEnv{force: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			asked := 0
			s := &IOStreams{stdoutTTY: tc.tty, env: tc.env, width: -1}
			s.SetColorConfig(func() string { asked++; return tc.config })
			s.SetColorMode(tc.mode)
			if got := s.ColorEnabled(); got != tc.want {
				t.Errorf("ColorEnabled() = %v, want %v", got, tc.want)
			}
			s.ColorEnabled()
			if asked > 1 || asked == 1 && !tc.askConfig {
				t.Errorf("git's config read %d times, want at most %d", asked, map[bool]int{true: 1}[tc.askConfig])
			}
			s.DisableColor()
			if s.ColorEnabled() {
				t.Error("coloured after DisableColor")
			}
		})
	}
}

func TestParseColorModeTakesGitsValues(t *testing.T) {
	for in, want := range map[string]ColorMode{"auto": ColorAuto, "always": ColorAlways, "never": ColorNever, "true": ColorAlways, "false": ColorNever} {
		if got, err := ParseColorMode(in); err != nil || got != want {
			t.Errorf("ParseColorMode(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := ParseColorMode("sometimes"); err == nil {
		t.Error("ParseColorMode(sometimes): no error")
	}
}

func TestStandardErrorPaintsErrorAndWarningPrefixes(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"the error prefix", "git-contextfs: no such memory\nSee 'x'.\n", "\x1b[1;31mgit-contextfs:\x1b[0m no such memory\nSee 'x'.\n"},
		{"a warning", "warning: possible secret\n", "\x1b[33mwarning:\x1b[0m possible secret\n"},
		{"a warning after prefixes", "contextfs: warning: unknown key\n", "contextfs: \x1b[33mwarning:\x1b[0m unknown key\n"},
		{"a warning after the program's name", "git-contextfs review: warning: x\n", "git-contextfs review: \x1b[33mwarning:\x1b[0m x\n"},
		{"warning deep in a message", "the file says a warning: here\n", "the file says a warning: here\n"},
		{"other lines", "no matches\n", "no matches\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ios, _, _, errOut := Test()
			ios.SetColor(false, true)
			ios.ErrOut.Write([]byte(tc.in))
			if errOut.String() != tc.want {
				t.Errorf("got %q, want %q", errOut, tc.want)
			}
		})
	}
	t.Run("a line written in parts is painted once, at its start", func(t *testing.T) {
		ios, _, _, errOut := Test()
		ios.SetColor(false, true)
		ios.ErrOut.Write([]byte("note: "))
		ios.ErrOut.Write([]byte("warning: x\nwarning: y\n"))
		if want := "note: warning: x\n\x1b[33mwarning:\x1b[0m y\n"; errOut.String() != want {
			t.Errorf("got %q, want %q", errOut, want)
		}
	})
	t.Run("uncoloured, the bytes pass as they are", func(t *testing.T) {
		ios, _, _, errOut := Test()
		in := "git-contextfs: x\nwarning: y\n"
		ios.ErrOut.Write([]byte(in))
		if errOut.String() != in {
			t.Errorf("got %q", errOut)
		}
	})
}

func TestTruncateCutsWithAnEllipsis(t *testing.T) {
	for _, tc := range []struct {
		in    string
		width int
		want  string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"a longer title", 8, "a longe…"},
		{"word end here", 6, "word…"}, // no space before the ellipsis
		{"héllo wörld", 7, "héllo…"},
		{"anything", 0, "anything"},
		{"anything", 1, "…"},
	} {
		if got := Truncate(tc.in, tc.width); got != tc.want {
			t.Errorf("Truncate(%q, %d) = %q, want %q", tc.in, tc.width, got, tc.want)
		}
	}
}

func TestTerminalWidthIsZeroOffATerminal(t *testing.T) {
	ios, _, _, _ := Test()
	if w := ios.TerminalWidth(); w != 0 {
		t.Errorf("test streams: width %d, want 0", w)
	}
	s := &IOStreams{width: -1}
	if w := s.TerminalWidth(); w != 0 {
		t.Errorf("no terminal: width %d, want 0", w)
	}
}
