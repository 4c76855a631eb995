package memory

import (
	"reflect"
	"testing"
)

func TestPatchDataMergesTheTopLevel(t *testing.T) {
	tests := []struct {
		name              string
		data, patch, want map[string]any
	}{
		{"a key replaces", map[string]any{"a": "1", "b": "2"}, map[string]any{"a": "x"}, map[string]any{"a": "x", "b": "2"}},
		{"nil deletes", map[string]any{"a": "1", "b": "2"}, map[string]any{"a": nil}, map[string]any{"b": "2"}},
		{"nothing left is nil", map[string]any{"a": "1"}, map[string]any{"a": nil}, nil},
		{"no patch copies", map[string]any{"a": "1"}, nil, map[string]any{"a": "1"}},
		{"no data takes the patch", nil, map[string]any{"a": "1"}, map[string]any{"a": "1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := PatchData(tt.data, tt.patch); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("PatchData = %v, want %v", got, tt.want)
			}
		})
	}
	data := map[string]any{"a": "1"}
	PatchData(data, map[string]any{"a": "2"})
	if data["a"] != "1" {
		t.Error("PatchData changed its input")
	}
}

func TestStaleDataFindsFiguresTheNewTextDropped(t *testing.T) {
	data := map[string]any{"decision": "pgxpool, 20 per instance", "status": "accepted", "limit": 20.0}
	tests := []struct {
		name, old, new string
		want           []string
	}{
		{"a new figure replaces the data's", "We pool 20 connections per instance.", "We pool 40 connections per instance.", []string{"decision"}},
		{"figures in words count", "We pool twenty connections.", "We pool forty connections, 40 in all.", []string{"decision"}},
		{"the same figure is not stale", "We pool 20 connections.", "Pools hold 20 connections, one per process.", nil},
		{"a text without figures keeps the data", "We pool 20 connections.", "We pool connections with pgxpool.", nil},
		{"data that never restated the text", "We use pgxpool.", "We use pgxpool, 40 connections.", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := StaleData(data, tt.old, tt.new); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("StaleData = %v, want %v", got, tt.want)
			}
		})
	}
}
