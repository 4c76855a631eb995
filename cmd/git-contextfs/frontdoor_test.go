package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/testgit"
)

// The scenarios of the front door (package workflow) driven through both
// adapters: the CLI as a process, and the MCP server as a process spoken
// to over stdio. Each adapter works in a repository of its own seeded with
// the same hand-written files; afterwards the files of the two must be the
// same, but for what is each write's own (IDs and times of new memories,
// updated: times, the MCP client's name as source).

// doorSaved is what a save answers, in either adapter.
type doorSaved struct {
	ID                 string   `json:"id"`
	Path               string   `json:"path"`
	Action             string   `json:"action"`
	SupersededProgress []string `json:"superseded_progress"`
}

// doorUpdated is what an update answers, in either adapter.
type doorUpdated struct {
	ID      string `json:"id"`
	Path    string `json:"path"`
	Changed bool   `json:"changed"`
}

// doorAdapter runs the scenarios' steps through one adapter.
type doorAdapter interface {
	save(t *testing.T, typ, title, body string) doorSaved
	addTag(t *testing.T, id, tag string) doorUpdated
	// evolve writes a new version of id, for reason; it answers the new
	// memory.
	evolve(t *testing.T, id, body, reason string) doorSaved
	// link links from to to with rel; it answers the linking memory.
	link(t *testing.T, from, to, rel string) doorSaved
	// sessionStart opens a session and answers its ID; sessionEnd ends
	// it with summary and answers the summary memory.
	sessionStart(t *testing.T, label, tool, model string) string
	sessionEnd(t *testing.T, summary string) doorSaved
}

type cliDoor struct{ dir string }

func (c cliDoor) save(t *testing.T, typ, title, body string) doorSaved {
	var out doorSaved
	decodeJSON(t, ok(t, c.dir, "save", "--type", typ, "--title", title, "--json", body), &out)
	return out
}

func (c cliDoor) addTag(t *testing.T, id, tag string) doorUpdated {
	var out doorUpdated
	decodeJSON(t, ok(t, c.dir, "update", id, "--add-tag", tag, "--json"), &out)
	return out
}

func (c cliDoor) evolve(t *testing.T, id, body, reason string) doorSaved {
	var out doorSaved
	decodeJSON(t, ok(t, c.dir, "evolve", id, "--reason", reason, "--json", body), &out)
	return out
}

func (c cliDoor) link(t *testing.T, from, to, rel string) doorSaved {
	var out doorSaved
	decodeJSON(t, ok(t, c.dir, "link", from, to, "--rel", rel, "--json"), &out)
	return out
}

func (c cliDoor) sessionStart(t *testing.T, label, tool, model string) string {
	var out struct{ Session struct{ ID string } }
	decodeJSON(t, ok(t, c.dir, "session", "start", "--label", label, "--tool", tool, "--model", model, "--json"), &out)
	return out.Session.ID
}

func (c cliDoor) sessionEnd(t *testing.T, summary string) doorSaved {
	var out doorSaved
	decodeJSON(t, ok(t, c.dir, "session", "end", "--summary", summary, "--json"), &out)
	return out
}

type mcpDoor struct {
	p    *mcpProc
	next *int // the next request ID
}

// call runs a tool and decodes its structured result into out.
func (m mcpDoor) call(t *testing.T, tool string, args map[string]any, out any) {
	t.Helper()
	*m.next++
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	m.p.t = t
	m.p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, *m.next, tool, raw))
	r := m.p.next()
	if text, isErr := toolText(t, r); isErr {
		t.Fatalf("%s: %s", tool, text)
	}
	var res struct {
		StructuredContent json.RawMessage `json:"structuredContent"`
	}
	if err := json.Unmarshal(r.Result, &res); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(res.StructuredContent, out); err != nil {
		t.Fatalf("%s: %v: %s", tool, err, res.StructuredContent)
	}
}

func (m mcpDoor) save(t *testing.T, typ, title, body string) doorSaved {
	var out doorSaved
	m.call(t, "save_memory", map[string]any{"type": typ, "title": title, "content": body}, &out)
	return out
}

func (m mcpDoor) addTag(t *testing.T, id, tag string) doorUpdated {
	var out doorUpdated
	m.call(t, "update_memory", map[string]any{"id": id, "add_tag": []string{tag}}, &out)
	return out
}

func (m mcpDoor) evolve(t *testing.T, id, body, reason string) doorSaved {
	var out doorSaved
	m.call(t, "evolve_memory", map[string]any{"id": id, "content": body, "reason": reason}, &out)
	return out
}

func (m mcpDoor) link(t *testing.T, from, to, rel string) doorSaved {
	var out doorSaved
	m.call(t, "link_memories", map[string]any{"from": from, "to": to, "rel": rel}, &out)
	return out
}

func (m mcpDoor) sessionStart(t *testing.T, label, tool, model string) string {
	var out struct{ Session struct{ ID string } }
	m.call(t, "session", map[string]any{"action": "start", "label": label, "tool": tool, "model": model}, &out)
	return out.Session.ID
}

func (m mcpDoor) sessionEnd(t *testing.T, summary string) doorSaved {
	var out struct{ Memory doorSaved }
	m.call(t, "session", map[string]any{"action": "end", "summary": summary}, &out)
	return out.Memory
}

// seedDoor writes the memories both adapters start from: a fact tagged
// infra and the current progress.
func seedDoor(t *testing.T) string {
	dir := testgit.Init(t)
	testgit.WriteFile(t, dir, ".contextfs/memories/staging-fact000001.md",
		testgit.Memory("fact000001", "tags:\n  - infra\n", "Staging runs on Kubernetes.\n"))
	testgit.WriteFile(t, dir, ".contextfs/memories/progress-prog000001.md",
		"---\nid: prog000001\ntype: progress\ntitle: Auth half done\ncreated: 2024-05-01T10:00:00Z\nupdated: 2024-05-01T10:00:00Z\n---\nLogin works; refresh tokens next.\n")
	return dir
}

func readDoor(t *testing.T, dir, rel string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// TestCLIAndMCPWriteTheSameFiles runs, in a session, save with a
// duplicate, save of a progress that supersedes the current one, an
// update that changes nothing and one that adds a tag, an evolve and a
// link, then ends the session, through the CLI and through MCP, and
// compares what each answered and the files each left: the summary of
// the session included.
func TestCLIAndMCPWriteTheSameFiles(t *testing.T) {
	const fact = ".contextfs/memories/staging-fact000001.md"
	files := map[string]map[string]string{} // adapter → file → normalized content
	for _, name := range []string{"cli", "mcp"} {
		t.Run(name, func(t *testing.T) {
			dir := seedDoor(t)
			var door doorAdapter = cliDoor{dir}
			if name == "mcp" {
				p := startMCP(t, dir)
				p.initialize()
				door = mcpDoor{p: p, next: new(int)}
			}

			sid := door.sessionStart(t, "staging", "door-tool", "door-model")
			if sid == "" {
				t.Fatal("session start answered no session ID")
			}

			before := readDoor(t, dir, fact)
			if up := door.addTag(t, "fact000001", "infra"); up.Changed || up.ID != "fact000001" {
				t.Errorf("update adding a tag it has: %+v, want changed false", up)
			}
			if after := readDoor(t, dir, fact); after != before {
				t.Errorf("an update that changes nothing rewrote the file:\n%s", after)
			}

			dup := door.save(t, "fact", "Memory fact000001", "Staging runs on Kubernetes.")
			if dup.Action != "skipped" || dup.ID != "fact000001" {
				t.Errorf("save of a duplicate: %+v, want skipped as fact000001", dup)
			}

			prog := door.save(t, "progress", "Auth done", "Login and refresh tokens work.")
			if prog.Action != "saved" || !slices.Equal(prog.SupersededProgress, []string{"prog000001"}) {
				t.Errorf("save of a progress: %+v, want saved, superseding [prog000001]", prog)
			}
			if got := readDoor(t, dir, prog.Path); !strings.Contains(got, "supersedes:\n  - prog000001\n") {
				t.Errorf("the new progress does not supersede the old:\n%s", got)
			}

			up := door.addTag(t, "fact000001", "k8s")
			after := readDoor(t, dir, fact)
			if !up.Changed || !strings.Contains(after, "tags:\n  - infra\n  - k8s\n") || strings.Contains(after, "updated: 2024-05-01T10:00:00Z") {
				t.Errorf("update adding a tag: %+v\n%s", up, after)
			}

			evolved := door.evolve(t, "fact000001", "Staging runs on Kubernetes 1.30.", "correction")
			if got := readDoor(t, dir, evolved.Path); !strings.Contains(got, "supersedes:\n  - fact000001\n") || !strings.Contains(got, "reason: correction\n") {
				t.Errorf("the new version does not supersede the old for its reason:\n%s", got)
			}

			linked := door.link(t, evolved.ID, prog.ID, "depends_on")
			if got := readDoor(t, dir, linked.Path); linked.ID != evolved.ID || !strings.Contains(got, "links:\n  - {id: "+prog.ID+", rel: depends_on}\n") {
				t.Errorf("link answered %+v; the file:\n%s", linked, got)
			}

			summary := door.sessionEnd(t, "Staging moved to Kubernetes 1.30.")
			if got := readDoor(t, dir, summary.Path); !strings.Contains(got, "session_id: "+sid+"\n") || !strings.Contains(got, "    - "+prog.ID+"\n") {
				t.Errorf("the session's summary does not name the session and the progress saved in it:\n%s", got)
			}

			files[name] = doorFiles(t, dir, map[string]string{prog.ID: "NEW", evolved.ID: "EVOLVED", summary.ID: "SUMMARY", sid: "SESSION"})
		})
	}
	if len(files) == 2 && !reflect.DeepEqual(files["cli"], files["mcp"]) {
		t.Errorf("the adapters left different files:\ncli: %q\nmcp: %q", files["cli"], files["mcp"])
	}
}

// doorFiles reads the memory files under dir, normalized: the IDs in
// rename named NEW-like placeholders, times and the source left out.
func doorFiles(t *testing.T, dir string, rename map[string]string) map[string]string {
	t.Helper()
	times := regexp.MustCompile(`(?m)^(created|updated|  started|  ended): .*$`)
	source := regexp.MustCompile(`(?m)^source:\n(  .*\n)*`)
	saved := regexp.MustCompile(`(?m)^  saved:\n(    - .*\n)+`)
	out := map[string]string{}
	root := filepath.Join(dir, ".contextfs", "memories")
	ents, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		raw, err := os.ReadFile(filepath.Join(root, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		name, s := e.Name(), string(raw)
		for id, as := range rename {
			name, s = strings.ReplaceAll(name, id, as), strings.ReplaceAll(s, id, as)
		}
		s = source.ReplaceAllString(times.ReplaceAllString(s, "$1: T"), "")
		// A summary lists what the session saved sorted by ID, and the IDs
		// are random: compare the list as placeholders, sorted again.
		s = saved.ReplaceAllStringFunc(s, func(list string) string {
			lines := strings.SplitAfter(strings.TrimSuffix(list, "\n"), "\n")
			items := lines[1:]
			for i := range items {
				items[i] = strings.TrimSuffix(items[i], "\n")
			}
			slices.Sort(items)
			return lines[0] + strings.Join(items, "\n") + "\n"
		})
		out[name] = s
	}
	return out
}

// TestReviewAndContextPickTheSameBaseWithOnlyOriginMain works in a clone
// as CI checks one out: no origin/HEAD and no local main, only the
// remote-tracking origin/main. review, without a range, and the context
// block must both compare the branch with origin/main (the one rule of
// workflow.DefaultBranch): review names it as its base, and both list the
// memory attached to the code the branch changed.
func TestReviewAndContextPickTheSameBaseWithOnlyOriginMain(t *testing.T) {
	upstream := testgit.Init(t)
	testgit.WriteFile(t, upstream, "auth/token.go", "package auth\n")
	var saved doorSaved
	decodeJSON(t, ok(t, upstream, "save", "--type", "decision", "--path", "auth/**", "--json",
		"--data", `{"decision":"Tokens expire after 15 minutes","status":"accepted"}`, "Access tokens expire after 15 minutes."), &saved)
	testgit.Run(t, upstream, "add", ".")
	testgit.Run(t, upstream, "commit", "-qm", "auth")

	clone := filepath.Join(t.TempDir(), "clone")
	testgit.Run(t, upstream, "clone", "-q", upstream, clone)
	testgit.Run(t, clone, "config", "user.name", "Ada Lovelace")
	testgit.Run(t, clone, "config", "user.email", "ada@example.com")
	testgit.Run(t, clone, "remote", "set-head", "origin", "-d")
	testgit.Run(t, clone, "checkout", "-qb", "feature")
	testgit.Run(t, clone, "branch", "-D", "main")
	if refs := testgit.Run(t, clone, "for-each-ref", "--format=%(refname)"); refs != "refs/heads/feature\nrefs/remotes/origin/main" {
		t.Fatalf("the clone has refs %q, want only feature and origin/main", refs)
	}
	testgit.WriteFile(t, clone, "auth/token.go", "package auth // refresh tokens\n")
	testgit.Run(t, clone, "commit", "-qam", "refresh tokens")

	r := cli(t, clone, "", "review", "--format", "json")
	if r.code != 0 {
		t.Fatalf("review: exit %d\n%s", r.code, r.stderr)
	}
	var rep struct {
		Base     string
		Relevant []struct{ ID string }
	}
	decodeJSON(t, r.stdout, &rep)
	if rep.Base != "origin/main" || len(rep.Relevant) != 1 || rep.Relevant[0].ID != saved.ID {
		t.Errorf("review: base %q, relevant %+v; want origin/main and %s", rep.Base, rep.Relevant, saved.ID)
	}

	var block struct {
		Sections []struct {
			Key   string
			Items []struct{ ID string }
		}
	}
	decodeJSON(t, ok(t, clone, "context", "--format", "json"), &block)
	var relevant []string
	for _, s := range block.Sections {
		if s.Key == "relevant-to-changes" {
			for _, it := range s.Items {
				relevant = append(relevant, it.ID)
			}
		}
	}
	if !slices.Equal(relevant, []string{saved.ID}) {
		t.Errorf("context lists %v as relevant to the changes, want [%s]: not compared with origin/main", relevant, saved.ID)
	}
}
