package aging_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	contextfs "github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/aging"
	"github.com/contextfs/contextfs/embed"
	"github.com/contextfs/contextfs/internal/testgit"
)

func TestRulesOfDefaults(t *testing.T) {
	off := false
	tests := []struct {
		name string
		in   contextfs.HygieneConfig
		want aging.Rules
	}{
		{"nothing set", contextfs.HygieneConfig{}, aging.Rules{SupersedeProgress: true, SessionCap: 3}},
		{"progress supersede off", contextfs.HygieneConfig{SupersedeProgress: &off}, aging.Rules{SupersedeProgress: false, SessionCap: 3}},
		{"a cap of 5", contextfs.HygieneConfig{SessionCap: 5}, aging.Rules{SupersedeProgress: true, SessionCap: 5}},
		{"a negative cap is the default", contextfs.HygieneConfig{SessionCap: -1}, aging.Rules{SupersedeProgress: true, SessionCap: 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := aging.RulesOf(tt.in); got != tt.want {
				t.Errorf("RulesOf = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestPlan(t *testing.T) {
	ctx := context.Background()
	s, err := contextfs.Open(ctx, contextfs.Options{Dir: testgit.Init(t), Embedder: embed.NewBuiltin()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	keep, err := s.Save(ctx, contextfs.SaveRequest{Type: "fact", Body: "The staging database is read-only."})
	if err != nil {
		t.Fatal(err)
	}
	orig, err := os.ReadFile(s.Repo.Abs(keep.Memory.Path))
	if err != nil {
		t.Fatal(err)
	}
	setExpires := func(value string) {
		out := strings.Replace(string(orig), "\ncreated:", "\nexpires: "+value+"\ncreated:", 1)
		if err := os.WriteFile(s.Repo.Abs(keep.Memory.Path), []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	now := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	rules := aging.Rules{SupersedeProgress: true, SessionCap: 3}

	setExpires("2025-06-02")
	if steps, err := aging.Plan(ctx, s, rules, now); err != nil || len(steps) != 0 {
		t.Errorf("before the date: steps %+v, err %v; want none", steps, err)
	}
	setExpires("2025-05-31")
	steps, err := aging.Plan(ctx, s, rules, now)
	if err != nil || len(steps) != 1 || steps[0].Kind != "expired" || steps[0].ID != keep.Memory.ID {
		t.Errorf("after the date: steps %+v, err %v; want one expired", steps, err)
	}
	setExpires("someday!!")
	if _, err := aging.Plan(ctx, s, rules, now); err == nil || !strings.Contains(err.Error(), keep.Memory.Path) {
		t.Errorf("a malformed date: err %v, want one naming the file", err)
	}
}
