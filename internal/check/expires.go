package check

import (
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/contextfs/contextfs/frontmatter"
	"github.com/contextfs/contextfs/memory"
)

// Expiry is a memory's expires: value.
type Expiry struct {
	// Value is the value as written: a date or an RFC 3339 time.
	Value string
	// At is the first instant at which the memory counts as expired (see
	// memory.ParseExpires): for a date, the end of that day.
	At time.Time
}

// Expires reads the expires: key of a memory file's frontmatter. It is a
// key contextfs keeps beside the ones memory.Memory holds, so it is read
// from the document. ok is false when the memory does not expire: the key
// is absent, null or empty. Any other value that is not a date or an RFC
// 3339 time, including a list or a mapping, is an issue of field
// "expires"; validate reports it and prune leaves the file alone, the
// same reading in both.
func Expires(doc *frontmatter.Document) (e Expiry, ok bool, issue *memory.Issue) {
	n := doc.Get("expires")
	if n == nil {
		return Expiry{}, false, nil
	}
	bad := func(msg string) (Expiry, bool, *memory.Issue) {
		return Expiry{}, false, &memory.Issue{Field: "expires", Message: msg}
	}
	switch n.Kind {
	case yaml.ScalarNode:
		if n.ShortTag() == "!!null" || n.Value == "" {
			return Expiry{}, false, nil
		}
		at, err := memory.ParseExpires(n.Value)
		if err != nil {
			return bad(err.Error())
		}
		return Expiry{Value: n.Value, At: at}, true, nil
	case yaml.SequenceNode:
		return bad("must be " + memory.ExpiresForms + "; got a list")
	case yaml.MappingNode:
		return bad("must be " + memory.ExpiresForms + "; got a mapping")
	}
	return bad("must be " + memory.ExpiresForms + "; got " + kindName(n))
}

// kindName names the kind of a YAML node that is not a scalar, a list or
// a mapping, for messages.
func kindName(n *yaml.Node) string {
	if n.Kind == yaml.AliasNode {
		return "an alias"
	}
	return "a YAML node of another kind"
}
