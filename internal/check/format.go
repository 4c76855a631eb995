package check

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"time"

	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/memory"
)

// FormatResult is what Format did, or with write off would do.
type FormatResult struct {
	// Changed are the files rewritten (or that would be), work-tree
	// relative.
	Changed []string `json:"changed"`
	// Check is true when nothing was written.
	Check bool `json:"check"`
	// Files is the number of files looked at.
	Files int `json:"files"`
	// Problems are the files that do not parse or could not be written;
	// they are left alone.
	Problems []Problem `json:"problems"`
}

// Format puts the memory files paths (work-tree relative) of repo in
// canonical form: known frontmatter keys in the standard order,
// block-style lists, times in UTC, the canonical type name; the body is
// never changed. With write off nothing is written and Changed lists the
// files that would change. A file is written only when its bytes change,
// atomically; a file that does not parse is a problem and is left alone.
func Format(repo *gitstore.Repo, paths []string, write bool) FormatResult {
	res := FormatResult{Changed: []string{}, Check: !write, Files: len(paths), Problems: []Problem{}}
	for _, rel := range paths {
		did, prob, err := FormatFile(repo, rel, write)
		switch {
		case err != nil:
			res.Problems = append(res.Problems, Problem{Path: rel, Rule: "fmt", Message: err.Error()})
		case prob != nil:
			res.Problems = append(res.Problems, *prob)
		case did:
			res.Changed = append(res.Changed, rel)
		}
	}
	return res
}

// FormatFile formats one memory file. It reports whether the file is (or,
// without write, would be) changed, or the problem that stops it from
// being parsed. A file over repo.MaxFileBytes is a "size" problem and is
// not read: its size is taken from a stat, so a huge or sparse file costs
// nothing.
func FormatFile(repo *gitstore.Repo, rel string, write bool) (bool, *Problem, error) {
	raw, err := repo.ReadFile(rel)
	if tl, ok := errors.AsType[*memory.TooLargeError](err); ok {
		return false, &Problem{Path: rel, Rule: "size", Message: tl.Reason()}, nil
	}
	if err != nil {
		return false, nil, err
	}
	abs := repo.Abs(rel)
	out, prob, err := CanonicalForm(rel, raw)
	if prob != nil || err != nil {
		return false, prob, err
	}
	if bytes.Equal(out, raw) {
		return false, nil, nil
	}
	if !write {
		return true, nil, nil
	}
	// An agent or an editor may have saved the file since it was read:
	// their content wins, and fmt can run again.
	if now, err := repo.ReadFile(rel); err != nil || !bytes.Equal(now, raw) {
		return false, nil, fmt.Errorf("changed while being formatted; left alone")
	}
	if err := gitstore.WriteFileAtomic(abs, out, 0o644); err != nil {
		return false, nil, err
	}
	return true, nil, nil
}

// CanonicalForm returns the canonical bytes of a memory file, or the
// problem that stops it from being parsed. It checks its own work: the
// result must read back as the same memory with the same body bytes, or
// the file is left alone, since a formatter that loses data is worse than
// none.
func CanonicalForm(rel string, raw []byte) ([]byte, *Problem, error) {
	m, doc, err := gitstore.Decode(rel, raw)
	if err != nil {
		p := Problem{Path: rel, Rule: "syntax", Message: err.Error()}
		var de *gitstore.DecodeError
		if errors.As(err, &de) {
			p.Line, p.Message = de.Line, de.Msg
		}
		return nil, &p, nil
	}
	body := slices.Clone(doc.Body)
	out, err := gitstore.Encode(m, doc, true)
	if err != nil {
		return nil, nil, fmt.Errorf("encode: %w", err)
	}
	m2, doc2, err := gitstore.Decode(rel, out)
	if err != nil {
		return nil, nil, fmt.Errorf("canonical form does not parse (%v); left alone", err)
	}
	if !bytes.Equal(doc2.Body, body) {
		return nil, nil, errors.New("canonical form would change the body; left alone")
	}
	if f := differentField(m, m2); f != "" {
		return nil, nil, fmt.Errorf("canonical form would change %s; left alone", f)
	}
	return out, nil, nil
}

// differentField names the first field in which a and b differ as far as
// the canonical form may not change them, or returns "". Times are
// compared to the second, the precision the canonical form keeps.
func differentField(a, b *memory.Memory) string {
	switch {
	case a.ID != b.ID:
		return "id"
	case a.Type != b.Type:
		return "type"
	case a.Title != b.Title:
		return "title"
	case a.Summary != b.Summary:
		return "summary"
	case !slices.Equal(a.Tags, b.Tags):
		return "tags"
	case !slices.Equal(a.Links, b.Links):
		return "links"
	case !slices.Equal(a.Supersedes, b.Supersedes):
		return "supersedes"
	case a.Author != b.Author:
		return "author"
	case !a.Created.Truncate(time.Second).Equal(b.Created.Truncate(time.Second)):
		return "created"
	case !a.Updated.Truncate(time.Second).Equal(b.Updated.Truncate(time.Second)):
		return "updated"
	case !reflect.DeepEqual(memory.NormalizeData(a.Data), memory.NormalizeData(b.Data)):
		return "data"
	}
	return ""
}
