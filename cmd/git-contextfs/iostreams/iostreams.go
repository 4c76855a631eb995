// Package iostreams is what a git-contextfs command reads and writes: its
// standard streams and whether they are terminals. Commands never touch
// os.Stdin, os.Stdout or os.Stderr; they get an IOStreams, the process's
// own from System, or buffers from Test, so the CLI runs in-process in
// tests and its output can be compared byte for byte.
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
}

// System returns the process's own streams.
func System() *IOStreams {
	return &IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		stdinTTY: isTerminal(os.Stdin), stdoutTTY: isTerminal(os.Stdout), stderrTTY: isTerminal(os.Stderr)}
}

// Test returns streams over buffers, none of them a terminal, and the
// buffers: what to feed standard input, and what was written to standard
// output and error.
func Test() (ios *IOStreams, in, out, errOut *bytes.Buffer) {
	in, out, errOut = &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: in, Out: out, ErrOut: errOut}, in, out, errOut
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
