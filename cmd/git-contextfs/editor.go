package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/contextfs/contextfs/internal/workflow"
	"github.com/contextfs/contextfs/memory"
)

// scissors ends what the person writes in the editor; it and everything
// after it are removed, as git removes what follows its own scissors line.
const scissors = "# ------------------------ >8 ------------------------"

// errEmptyEdit is an edit that left no body: the save is aborted, as git
// aborts a commit whose message is empty.
var errEmptyEdit = errors.New("aborting: the memory is empty")

// edited is what the person wrote in the editor.
type edited struct {
	title string
	data  map[string]any
	body  string
}

// editMemory opens the editor git would open (git var GIT_EDITOR:
// GIT_EDITOR, core.editor, VISUAL, EDITOR, then vi) on a template for a
// memory of type typ, in file, and reads back what was written.
func (a *app) editMemory(ctx context.Context, typ, title, file string) (edited, error) {
	return a.editMemoryText(ctx, file, editTemplate(typ, title))
}

// editMemoryText opens the editor on text, written to file, and reads back
// what was written there.
func (a *app) editMemoryText(ctx context.Context, file string, text []byte) (edited, error) {
	if err := os.WriteFile(file, text, 0o600); err != nil {
		return edited{}, err
	}
	editor, err := workflow.Editor(ctx, a.workDir())
	if err != nil {
		return edited{}, fmt.Errorf("no editor: %w (set GIT_EDITOR, core.editor, VISUAL or EDITOR, or give the text as an argument)", err)
	}
	// As git runs it: through the shell, so that "code --wait" works.
	cmd := exec.CommandContext(ctx, "sh", "-c", editor+` "$@"`, editor, file)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return edited{}, fmt.Errorf("the editor %q failed: %w; the text is kept in %s", editor, err, file)
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		return edited{}, err
	}
	return parseEdit(file, raw)
}

// editFile is where the template is written: in the git directory, as
// git writes COMMIT_EDITMSG, or a temporary folder outside a repository.
func (a *app) editFile() (string, func(), error) {
	return workflow.EditFile(context.Background(), a.workDir())
}

// editTemplate is the text the editor opens: frontmatter with the title
// and the type's data fields (each described in a comment), an empty
// body, and the help below the scissors line.
func editTemplate(typ, title string) []byte {
	var b strings.Builder
	b.WriteString("---\n")
	fmt.Fprintf(&b, "title: %s\n", yamlScalar(title))
	if fields := dataFields(typ); len(fields) > 0 {
		b.WriteString("data:\n")
		for _, f := range fields {
			fmt.Fprintf(&b, "  %s:", f.name)
			if f.help != "" {
				fmt.Fprintf(&b, " # %s", f.help)
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("---\n\n\n")
	b.WriteString(scissors + "\n")
	fmt.Fprintf(&b, "# Write the %s above the line: its text in Markdown under the\n", typ)
	b.WriteString("# frontmatter, a title and data fields in it (empty fields are dropped;\n")
	b.WriteString("# a blank title is derived from the text). Everything from the line\n")
	b.WriteString("# above down is removed. An empty text aborts the save.\n")
	return []byte(b.String())
}

// existingTemplate is the text the editor opens for an update: the
// memory's title, data and body, and the help below the scissors line.
func existingTemplate(m *memory.Memory) []byte {
	var b strings.Builder
	b.WriteString("---\n")
	fmt.Fprintf(&b, "title: %s\n", yamlScalar(m.Title))
	if len(m.Data) > 0 {
		out, err := yaml.Marshal(map[string]any{"data": m.Data})
		if err == nil {
			b.Write(out)
		}
	}
	b.WriteString("---\n\n")
	b.WriteString(strings.TrimSpace(m.Body) + "\n\n")
	b.WriteString(scissors + "\n")
	fmt.Fprintf(&b, "# Edit %s (%s) above the line: the title and data fields in the\n", m.ID, m.Type)
	b.WriteString("# frontmatter, the text below it. Everything from the line above down is\n")
	b.WriteString("# removed. An empty text aborts the update.\n")
	return []byte(b.String())
}

func yamlScalar(s string) string {
	if s == "" {
		return ""
	}
	out, err := yaml.Marshal(s)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// field is one property of a type's data schema.
type field struct{ name, help string }

// dataFields lists the properties of typ's data schema, in the schema's
// order, with their descriptions (an enum's values when it has them).
func dataFields(typ string) []field {
	t, ok := memory.LookupType(typ)
	if !ok || len(t.Schema) == 0 {
		return nil
	}
	// JSON is YAML: a yaml.Node keeps the properties' order.
	var root yaml.Node
	if yaml.Unmarshal(t.Schema, &root) != nil || len(root.Content) == 0 {
		return nil
	}
	props := mapValue(root.Content[0], "properties")
	if props == nil {
		return nil
	}
	var out []field
	for i := 0; i+1 < len(props.Content); i += 2 {
		name, p := props.Content[i].Value, props.Content[i+1]
		var help string
		if e := mapValue(p, "enum"); e != nil {
			var vals []string
			for _, v := range e.Content {
				vals = append(vals, v.Value)
			}
			help = strings.Join(vals, " | ")
		} else if d := mapValue(p, "description"); d != nil {
			help = d.Value
		}
		out = append(out, field{name, strings.ReplaceAll(help, "\n", " ")})
	}
	return out
}

func mapValue(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// parseEdit reads what the person wrote: everything above the scissors
// line, as a memory file's frontmatter and body.
func parseEdit(file string, raw []byte) (edited, error) {
	if i := bytes.Index(raw, []byte(scissors)); i >= 0 {
		raw = raw[:i]
	}
	t, err := workflow.ParseEditedText(raw)
	if err != nil {
		return edited{}, fmt.Errorf("%s: %w", file, err)
	}
	e := edited{title: t.Title, data: dropEmpty(t.Data), body: t.Body}
	if e.body == "" {
		return e, errEmptyEdit
	}
	return e, nil
}

// dropEmpty leaves out the fields the person did not fill in.
func dropEmpty(d map[string]any) map[string]any {
	for k, v := range d {
		switch x := v.(type) {
		case nil:
			delete(d, k)
		case string:
			if strings.TrimSpace(x) == "" {
				delete(d, k)
			}
		case []any:
			if x = slices.DeleteFunc(x, func(v any) bool { return v == nil || v == "" }); len(x) == 0 {
				delete(d, k)
			} else {
				d[k] = x
			}
		}
	}
	if len(d) == 0 {
		return nil
	}
	return d
}
