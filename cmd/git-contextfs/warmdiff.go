package main

import (
	"context"

	"github.com/contextfs/contextfs/branchdiff"
)

// changedUnder asks diff for the files the branch changes below some
// folders; contextblock asks only when some memory has paths:. Only the
// warm-answer server (warm.go) builds blocks here; every other context
// block is package workflow's (Service.Context).
func changedUnder(diff *branchdiff.Resolver) func(context.Context, []string) ([]string, error) {
	return func(ctx context.Context, within []string) ([]string, error) {
		ch, err := diff.FilesUnder(ctx, within)
		return ch.Files, err
	}
}
