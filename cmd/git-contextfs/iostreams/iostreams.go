// Package iostreams is what a git-contextfs command reads and writes: its
// standard streams and whether they are terminals. Commands never touch
// os.Stdin, os.Stdout or os.Stderr; they get an IOStreams, the process's
// own from System, or buffers from Test, so the CLI runs in-process in
// tests and its output can be compared byte for byte.
//
// Like GitHub CLI's package of the same name, it also decides whether
// each output stream is coloured (ColorScheme) and how wide the terminal
// is: a command asks, and never looks at the environment itself.
package iostreams

import (
	"bytes"
	"io"
	"os"
)

// IOStreams are a command's standard input, output and error.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	stdinTTY, stdoutTTY, stderrTTY bool

	// outFile is standard output as a file, to ask a terminal its size.
	outFile *os.File
	// width is what TerminalWidth reports when 0 or more.
	width int
	// outMode and errMode are --color, per stream; noColor turns colour
	// off whatever they say (DisableColor).
	outMode, errMode ColorMode
	noColor          bool
	// env is what the environment says about colour.
	env colorEnv
	// readConfig reads git's colour setting into config, once.
	readConfig func() string
	config     string
	configRead bool
}

// System returns the process's own streams.
// Standard error is written through a writer that colours the prefixes
// of errors and warnings where standard error is coloured.
func System() *IOStreams {
	s := &IOStreams{In: os.Stdin, Out: os.Stdout, outFile: os.Stdout, width: -1, env: readColorEnv(),
		stdinTTY: isTerminal(os.Stdin), stdoutTTY: isTerminal(os.Stdout), stderrTTY: isTerminal(os.Stderr)}
	s.ErrOut = &errWriter{w: os.Stderr, s: s}
	return s
}

// Test returns streams over buffers, none of them a terminal, and the
// buffers: what to feed standard input, and what was written to standard
// output and error. The environment is not read: they are coloured only
// when --color=always (SetColorMode) or SetColor asks.
func Test() (ios *IOStreams, in, out, errOut *bytes.Buffer) {
	in, out, errOut = &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	ios = &IOStreams{In: in, Out: out}
	ios.ErrOut = &errWriter{w: errOut, s: ios}
	return ios, in, out, errOut
}

// StdinIsTerminal reports whether standard input is a terminal, where
// waiting for input would hang a script.
func (s *IOStreams) StdinIsTerminal() bool { return s.stdinTTY }

// StdoutIsTerminal reports whether standard output is a terminal, where a
// long listing goes through a pager as git's does.
func (s *IOStreams) StdoutIsTerminal() bool { return s.stdoutTTY }

// StderrIsTerminal reports whether standard error is a terminal, where a
// progress line may redraw itself.
func (s *IOStreams) StderrIsTerminal() bool { return s.stderrTTY }

// SetStdinTerminal sets what StdinIsTerminal reports, for tests.
func (s *IOStreams) SetStdinTerminal(b bool) { s.stdinTTY = b }

// SetStderrTerminal sets what StderrIsTerminal reports, for tests.
func (s *IOStreams) SetStderrTerminal(b bool) { s.stderrTTY = b }
