package memmerge

import "bytes"

// Labeled returns r with its conflict markers naming the two sides ours
// and theirs (the branch names, as git's own conflict markers do) instead
// of the words "ours" and "theirs". An empty name keeps the word. Only
// whole marker lines change: Merge writes exactly those lines, and a memory
// holding such a line already fails validation as a leftover conflict.
func (r Result) Labeled(ours, theirs string) Result {
	if len(r.Conflicts) == 0 || (ours == "" && theirs == "") {
		return r
	}
	var out bytes.Buffer
	for line := range bytes.Lines(r.Content) {
		body := bytes.TrimRight(line, "\r\n")
		eol := line[len(body):]
		switch {
		case ours != "" && string(body) == markerOurs:
			out.WriteString("<<<<<<< " + ours)
			out.Write(eol)
		case theirs != "" && string(body) == markerTheirs:
			out.WriteString(">>>>>>> " + theirs)
			out.Write(eol)
		default:
			out.Write(line)
		}
	}
	r.Content = out.Bytes()
	return r
}
