package iostreams

import "testing"

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
