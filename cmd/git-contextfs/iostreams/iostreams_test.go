package iostreams

import (
	"os"
	"testing"
)

func TestTestStreamsAreBuffersAndNoTerminal(t *testing.T) {
	ios, in, out, errOut := Test()
	in.WriteString("input")
	b := make([]byte, 5)
	if n, _ := ios.In.Read(b); string(b[:n]) != "input" {
		t.Errorf("In read %q, want the buffer's input", b[:n])
	}
	ios.Out.Write([]byte("out"))
	ios.ErrOut.Write([]byte("err"))
	if out.String() != "out" || errOut.String() != "err" {
		t.Errorf("out %q, err %q; want the writes", out, errOut)
	}
	if ios.StdinIsTerminal() || ios.StderrIsTerminal() {
		t.Error("test streams claim a terminal")
	}
	ios.SetStdinTerminal(true)
	if !ios.StdinIsTerminal() {
		t.Error("SetStdinTerminal(true) not reported")
	}
}

// TestDevNullIsNoTerminal: /dev/null is a character device, but output
// sent there must not go through a pager.
func TestDevNullIsNoTerminal(t *testing.T) {
	f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if isTerminal(f) {
		t.Error("/dev/null taken for a terminal")
	}
}
