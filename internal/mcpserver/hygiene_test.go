package mcpserver_test

import (
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/mcpserver"
)

func TestMCPSaveReportsSimilarAndMaySupersede(t *testing.T) {
	cs, _, _ := connect(t)
	var first, para, other mcpserver.SaveOutput
	call(t, cs, "save_memory", map[string]any{"type": "decision", "title": "Pool Postgres connections with pgxpool",
		"content": "We pool Postgres connections with pgxpool, 20 per instance.", "data": map[string]any{"decision": "pgxpool, 20 per instance"}}, &first)
	call(t, cs, "save_memory", map[string]any{"type": "decision", "title": "Use pgxpool for Postgres",
		"content": "Postgres connections are pooled with pgxpool: 20 per instance."}, &para)
	if para.Action != "skipped" || para.ID != first.ID || len(para.Similar) != 1 || para.Similar[0].ID != first.ID {
		t.Fatalf("paraphrase: %+v", para)
	}
	call(t, cs, "save_memory", map[string]any{"type": "decision", "title": "Pool Postgres connections with pgxpool",
		"content": "We now pool 40 connections.", "data": map[string]any{"decision": "pgxpool, 40 per instance"}}, &other)
	// The same title with another position: newest wins.
	if other.Action != "saved" || len(other.Superseded) != 1 || other.Superseded[0].ID != first.ID || len(other.MaySupersede) != 0 {
		t.Fatalf("changed decision: %+v", other)
	}
	// Another aspect of the same subject is only proposed.
	var aspect mcpserver.SaveOutput
	call(t, cs, "save_memory", map[string]any{"type": "decision", "title": "Pool Postgres connections per service",
		"content": "Each service keeps its own pool.", "data": map[string]any{"decision": "one pool per service"}}, &aspect)
	if aspect.Action != "saved" || len(aspect.MaySupersede) != 1 || aspect.MaySupersede[0].ID != other.ID || len(aspect.Superseded) != 0 {
		t.Fatalf("another aspect: %+v", aspect)
	}
	// Only the newest shows in the block.
	if got := call(t, cs, "get_context", map[string]any{"task": "pool Postgres connections"}, nil); strings.Contains(got, first.ID) || !strings.Contains(got, other.ID) {
		t.Errorf("block %s; want %s and not %s", got, other.ID, first.ID)
	}
}

func TestMCPLinkRelatedEvolveLineageMergeSplit(t *testing.T) {
	cs, _, _ := connect(t)
	var a, b, c mcpserver.SaveOutput
	call(t, cs, "save_memory", map[string]any{"type": "fact", "content": "The orders service uses Postgres."}, &a)
	call(t, cs, "save_memory", map[string]any{"type": "fact", "content": "Deploys go through Argo CD."}, &b)
	call(t, cs, "save_memory", map[string]any{"type": "fact", "content": "Kafka carries order events.", "link": []string{"part_of:" + a.ID}}, &c)
	call(t, cs, "link_memories", map[string]any{"from": a.ID, "to": b.ID, "rel": "depends_on"}, nil)

	var rel mcpserver.RecallOutput
	call(t, cs, "recall_memory", map[string]any{"id": a.ID, "depth": 1}, &rel)
	if len(rel.Related) != 2 || rel.Related[0].ID != b.ID || rel.Related[0].Via.Rel != "depends_on" || rel.Related[1].ID != c.ID || rel.Related[1].Via.Rel != "part_of" {
		t.Fatalf("related = %+v", rel.Related)
	}
	if res := callRaw(t, cs, "link_memories", map[string]any{"from": a.ID, "to": b.ID, "rel": "likes"}); !res.IsError {
		t.Error("an unknown relation was accepted")
	}

	var v2 mcpserver.MemoryRef
	call(t, cs, "evolve_memory", map[string]any{"id": a.ID, "content": "The orders service uses Postgres 16.", "reason": "observation"}, &v2)
	var lin mcpserver.RecallOutput
	call(t, cs, "recall_memory", map[string]any{"id": v2.ID, "lineage": true}, &lin)
	if len(lin.Versions) != 2 || lin.Versions[0].ID != a.ID || lin.Versions[0].Current || lin.Versions[1].Reason != "observation" {
		t.Fatalf("lineage = %+v", lin.Versions)
	}

	var merged mcpserver.MemoryRef
	call(t, cs, "merge_memories", map[string]any{"id": []string{b.ID, c.ID}}, &merged)
	var parts mcpserver.SplitOutput
	call(t, cs, "split_memory", map[string]any{"id": merged.ID, "part": []string{"Deploys use Argo CD.", "Order events travel on Kafka."}}, &parts)
	if len(parts.Parts) != 2 {
		t.Fatalf("split = %+v", parts)
	}
	lin = mcpserver.RecallOutput{}
	call(t, cs, "recall_memory", map[string]any{"id": parts.Parts[0].ID, "lineage": true}, &lin)
	if len(lin.Versions) != 5 { // b, c -> merged -> two parts
		t.Errorf("lineage of a part has %d versions, want 5: %+v", len(lin.Versions), lin.Versions)
	}
}

func TestMCPSaveChecksTextWithSearchOperatorsAsWords(t *testing.T) {
	cs, _, _ := connect(t)
	args := map[string]any{"type": "decision", "title": "Lint with -fix",
		"content": `Run golangci-lint with -fix OR "go vet" on foo* packages before every commit.`}
	var first, again mcpserver.SaveOutput
	call(t, cs, "save_memory", args, &first)
	call(t, cs, "save_memory", args, &again)
	if again.Action != "skipped" || again.ID != first.ID || len(again.Similar) != 1 || !again.Similar[0].Identical {
		t.Fatalf("second save: %+v", again)
	}
}

// The MCP tools refuse what the CLI refuses, through the same Go API:
// links that validate would reject, blank content, and a memory that a
// newer version already supersedes; a unique prefix in links is saved as
// the full ID.
func TestMCPHygieneRefusals(t *testing.T) {
	cs, _, _ := connect(t)
	var a, b, v1, withPrefix mcpserver.SaveOutput
	call(t, cs, "save_memory", map[string]any{"type": "fact", "content": "The API listens on port 8080."}, &a)
	call(t, cs, "save_memory", map[string]any{"type": "fact", "content": "The API answers in JSON."}, &b)
	call(t, cs, "save_memory", map[string]any{"type": "fact", "content": "Cache TTL is 60 seconds."}, &v1)
	var v2 mcpserver.MemoryRef
	call(t, cs, "evolve_memory", map[string]any{"id": v1.ID, "content": "Cache TTL is 120 seconds."}, &v2)
	call(t, cs, "save_memory", map[string]any{"type": "fact", "content": "The gateway sits in front of the API.", "link": []string{"depends_on:" + a.ID[:5]}}, &withPrefix)
	var m struct{ Links []struct{ ID, Rel string } }
	call(t, cs, "recall_memory", map[string]any{"id": withPrefix.ID}, &m)
	if len(m.Links) != 1 || m.Links[0].ID != a.ID || m.Links[0].Rel != "depends_on" {
		t.Errorf("links saved as %+v, want depends_on:%s", m.Links, a.ID)
	}
	tests := []struct {
		name, tool string
		args       map[string]any
		want       string
	}{
		{"save with a link to a missing memory", "save_memory",
			map[string]any{"type": "fact", "content": "A dead link.", "link": []string{"depends_on:zzzzzzzzzz"}}, "zzzzzzzzzz"},
		{"save with an unknown relation", "save_memory",
			map[string]any{"type": "fact", "content": "A bogus relation.", "link": []string{"bogus:" + a.ID}}, `unknown relation "bogus"`},
		{"save superseding a superseded memory", "save_memory",
			map[string]any{"type": "fact", "content": "Cache TTL is 600 seconds.", "supersedes": []string{v1.ID}}, "supersede " + v2.ID + " instead"},
		{"evolve with blank content", "evolve_memory", map[string]any{"id": a.ID, "content": " \n"}, "needs content"},
		{"evolve of a superseded memory", "evolve_memory",
			map[string]any{"id": v1.ID, "content": "Cache TTL is 300 seconds."}, "evolve " + v2.ID + " instead"},
		{"merge with blank content", "merge_memories", map[string]any{"id": []string{a.ID, b.ID}, "content": "  "}, "needs content"},
		{"merge with a superseded memory", "merge_memories", map[string]any{"id": []string{a.ID, v1.ID}}, "merge " + v2.ID + " instead"},
		{"split into the same part twice", "split_memory", map[string]any{"id": a.ID, "part": []string{"Port 8080.", "Port 8080."}}, "same text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if res := callRaw(t, cs, tt.tool, tt.args); !res.IsError || !strings.Contains(text(res), tt.want) {
				t.Errorf("%s: error %v, text %q; want an error saying %q", tt.tool, res.IsError, text(res), tt.want)
			}
		})
	}
}
