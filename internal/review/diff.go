package review

import (
	"fmt"
	"strings"
)

// diffContext is the number of unchanged lines shown around a change, as
// in `git diff`.
const diffContext = 3

// maxDiffCells bounds the work of the line diff (lines × lines after the
// common prefix and suffix are cut). Memory bodies are far smaller; beyond
// it the diff shows the old text removed and the new added, which is
// correct, only less precise.
const maxDiffCells = 1 << 20

// diffResult is a unified diff of two texts and its line counts.
type diffResult struct {
	text           string
	added, removed int
}

// op is one line of an edit script.
type op struct {
	kind byte // ' ', '-' or '+'
	line string
}

// lineDiff returns the unified diff (hunks only, no file headers) that
// turns a into b.
func lineDiff(a, b string) diffResult {
	ops := editScript(splitLines(a), splitLines(b))
	var res diffResult
	for _, o := range ops {
		switch o.kind {
		case '+':
			res.added++
		case '-':
			res.removed++
		}
	}
	res.text = unified(ops)
	return res
}

// splitLines splits text into lines without their newlines; a final
// newline does not start another line.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// editScript is a shortest edit script from a to b: the longest common
// subsequence by dynamic programming, after the common prefix and suffix
// are set aside so that a typical edit costs almost nothing.
func editScript(a, b []string) []op {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var ops []op
	for _, l := range a[:pre] {
		ops = append(ops, op{' ', l})
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	if len(ma)*len(mb) > maxDiffCells {
		for _, l := range ma {
			ops = append(ops, op{'-', l})
		}
		for _, l := range mb {
			ops = append(ops, op{'+', l})
		}
	} else {
		ops = append(ops, lcsScript(ma, mb)...)
	}
	for _, l := range a[len(a)-suf:] {
		ops = append(ops, op{' ', l})
	}
	return ops
}

// lcsScript computes the edit script through the longest common
// subsequence table; removals come before additions within a change, as
// git prints them.
func lcsScript(a, b []string) []op {
	n, m := len(a), len(b)
	// t[i][j] is the LCS length of a[i:] and b[j:].
	t := make([][]int, n+1)
	for i := range t {
		t[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				t[i][j] = t[i+1][j+1] + 1
			} else {
				t[i][j] = max(t[i+1][j], t[i][j+1])
			}
		}
	}
	var ops, adds []op
	flush := func() {
		ops = append(ops, adds...)
		adds = adds[:0]
	}
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			flush()
			ops = append(ops, op{' ', a[i]})
			i++
			j++
		case j < m && (i == n || t[i][j+1] > t[i+1][j]):
			adds = append(adds, op{'+', b[j]})
			j++
		default:
			ops = append(ops, op{'-', a[i]})
			i++
		}
	}
	flush()
	return ops
}

// unified formats an edit script as unified-diff hunks with diffContext
// lines of context.
func unified(ops []op) string {
	var b strings.Builder
	for start := 0; start < len(ops); {
		// Find the next change.
		first := start
		for first < len(ops) && ops[first].kind == ' ' {
			first++
		}
		if first == len(ops) {
			break
		}
		// Extend the hunk while changes are within 2×context of each other.
		last := first
		for k := first; k < len(ops); k++ {
			if ops[k].kind != ' ' {
				last = k
			} else if k-last > 2*diffContext {
				break
			}
		}
		lo := max(first-diffContext, start)
		hi := min(last+diffContext+1, len(ops))
		// Line numbers of the hunk's first line on each side.
		oldLine, newLine := 1, 1
		for _, o := range ops[:lo] {
			if o.kind != '+' {
				oldLine++
			}
			if o.kind != '-' {
				newLine++
			}
		}
		oldN, newN := 0, 0
		for _, o := range ops[lo:hi] {
			if o.kind != '+' {
				oldN++
			}
			if o.kind != '-' {
				newN++
			}
		}
		fmt.Fprintf(&b, "@@ -%s +%s @@\n", hunkRange(oldLine, oldN), hunkRange(newLine, newN))
		for _, o := range ops[lo:hi] {
			b.WriteByte(o.kind)
			b.WriteString(o.line)
			b.WriteByte('\n')
		}
		start = hi
	}
	return b.String()
}

// hunkRange writes a side of a hunk header the way diff does: "start,count",
// with an empty side starting at the line before it.
func hunkRange(start, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", start-1)
	case 1:
		return fmt.Sprintf("%d", start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}
