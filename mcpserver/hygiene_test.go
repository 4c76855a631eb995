package mcpserver_test

import (
	"testing"

	"github.com/contextfs/contextfs/mcpserver"
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
	if other.Action != "saved" || len(other.MaySupersede) != 1 || other.MaySupersede[0].ID != first.ID {
		t.Fatalf("changed decision: %+v", other)
	}
}

func TestMCPLinkRelatedEvolveLineageMergeSplit(t *testing.T) {
	cs, _, _ := connect(t)
	var a, b, c mcpserver.SaveOutput
	call(t, cs, "save_memory", map[string]any{"type": "fact", "content": "The orders service uses Postgres."}, &a)
	call(t, cs, "save_memory", map[string]any{"type": "fact", "content": "Deploys go through Argo CD."}, &b)
	call(t, cs, "save_memory", map[string]any{"type": "fact", "content": "Kafka carries order events.", "links": []string{"part_of:" + a.ID}}, &c)
	call(t, cs, "link_memories", map[string]any{"from": a.ID, "to": b.ID, "rel": "depends_on"}, nil)

	var rel mcpserver.RelatedOutput
	call(t, cs, "related_memories", map[string]any{"id": a.ID}, &rel)
	if len(rel.Related) != 2 || rel.Related[0].ID != b.ID || rel.Related[0].Via.Rel != "depends_on" || rel.Related[1].ID != c.ID || rel.Related[1].Via.Rel != "part_of" {
		t.Fatalf("related = %+v", rel.Related)
	}
	if res := callRaw(t, cs, "link_memories", map[string]any{"from": a.ID, "to": b.ID, "rel": "likes"}); !res.IsError {
		t.Error("an unknown relation was accepted")
	}

	var v2 mcpserver.MemoryRef
	call(t, cs, "evolve_memory", map[string]any{"id": a.ID, "content": "The orders service uses Postgres 16.", "reason": "observation"}, &v2)
	var lin mcpserver.LineageOutput
	call(t, cs, "memory_lineage", map[string]any{"id": v2.ID}, &lin)
	if len(lin.Versions) != 2 || lin.Versions[0].ID != a.ID || lin.Versions[0].Current || lin.Versions[1].Reason != "observation" {
		t.Fatalf("lineage = %+v", lin.Versions)
	}

	var merged mcpserver.MemoryRef
	call(t, cs, "merge_memories", map[string]any{"ids": []string{b.ID, c.ID}}, &merged)
	var parts mcpserver.SplitOutput
	call(t, cs, "split_memory", map[string]any{"id": merged.ID, "parts": []string{"Deploys use Argo CD.", "Order events travel on Kafka."}}, &parts)
	if len(parts.Parts) != 2 {
		t.Fatalf("split = %+v", parts)
	}
	call(t, cs, "memory_lineage", map[string]any{"id": parts.Parts[0].ID}, &lin)
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
