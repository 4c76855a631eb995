package gitstore

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/contextfs/contextfs/memory"
)

func TestCodecWritesPathsSourceAndSessionInCanonicalOrder(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	m := &memory.Memory{ID: "abcd1234", Type: "decision", Title: "Tokens", Paths: []string{"auth/**", "**/*.go"},
		Author: "A <a@x>", Source: &memory.Source{Tool: "claude-code", Model: "opus"}, Session: "s1abcd",
		Created: at, Updated: at, Body: "b\n"}
	raw, err := Encode(m, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	want := `---
id: abcd1234
type: decision
title: Tokens
paths:
  - auth/**
  - '**/*.go'
author: A <a@x>
source:
  tool: claude-code
  model: opus
session: s1abcd
created: 2026-01-02T03:04:05Z
updated: 2026-01-02T03:04:05Z
---
b
`
	if string(raw) != want {
		t.Fatalf("encoded:\n%s\nwant:\n%s", raw, want)
	}
	got, doc, err := Decode("x.md", raw)
	if err != nil {
		t.Fatal(err)
	}
	got.Path = ""
	if !reflect.DeepEqual(got, m) {
		t.Errorf("decoded %+v, want %+v", got, m)
	}
	again, err := Encode(got, doc, false)
	if err != nil || string(again) != string(raw) {
		t.Errorf("re-encoding an unchanged memory changed it (%v):\n%s", err, again)
	}
}

func TestDecodeRejectsASourceThatIsNotAMapping(t *testing.T) {
	raw := "---\nid: abcd1234\ntype: fact\ntitle: t\nsource: claude\n---\n"
	_, _, err := Decode("x.md", []byte(raw))
	if err == nil || !strings.Contains(err.Error(), "x.md:5: source: must be a mapping") {
		t.Errorf("err = %v", err)
	}
}
