// Package teststore holds what the tests of packages built on the
// contextfs API share about a store.
package teststore

import (
	"context"
	"testing"

	"github.com/contextfs/contextfs"
)

// SaveID saves req in s and returns the new memory's ID; an error fails
// the test at once.
func SaveID(t testing.TB, s *contextfs.Store, req contextfs.SaveRequest) string {
	t.Helper()
	res, err := s.Save(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return res.Memory.ID
}
