package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/contextfs/contextfs/internal/embed"
)

// firstVectorQuery is what the child of benchEmbedder embeds first.
const firstVectorQuery = "What database should I use for this new feature?"

// firstVector is the child's part: embed one query with a fresh embedder
// in this fresh process and print how long it took, table loading and
// first page faults included.
func firstVector(which string) error {
	e := embed.NewBuiltin()
	if which == "hash" {
		e = embed.NewHashing()
	}
	t := time.Now()
	if _, err := e.Embed(context.Background(), []string{firstVectorQuery}); err != nil {
		return err
	}
	fmt.Println(time.Since(t).Nanoseconds())
	return nil
}

// benchEmbedder prints the built-in embedder's query latency (p50 over
// the world set's questions, warm) and the time to the first vector in a
// fresh process (p50 of runs children), beside the hashing embedder it
// replaced.
func benchEmbedder(runs int) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	queries := []string{firstVectorQuery, "Which broker carries order events?", "How do releases reach production?",
		"Where are passwords and private keys stored?", "How many calls may one client make before getting throttled?",
		"Pool Postgres connections with pgxpool, twenty per instance, one pool per process."}
	fmt.Println("## Built-in embedder")
	fmt.Println()
	fmt.Println("| embedder | model | query embedding p50 | first vector in a fresh process p50 |")
	fmt.Println("| --- | --- | ---: | ---: |")
	for _, which := range []string{"builtin", "hash"} {
		e := embed.NewBuiltin()
		if which == "hash" {
			e = embed.NewHashing()
		}
		ctx := context.Background()
		var lat []time.Duration
		for i := 0; i < 2000; i++ {
			q := queries[i%len(queries)]
			t := time.Now()
			if _, err := e.Embed(ctx, []string{q}); err != nil {
				return err
			}
			lat = append(lat, time.Since(t))
		}
		var first []time.Duration
		for range runs {
			out, err := exec.Command(self, "-first-vector", which).Output()
			if err != nil {
				return fmt.Errorf("first vector: %w", err)
			}
			var ns int64
			if _, err := fmt.Sscan(strings.TrimSpace(string(out)), &ns); err != nil {
				return fmt.Errorf("first vector: %q: %w", out, err)
			}
			first = append(first, time.Duration(ns))
		}
		slices.Sort(lat)
		slices.Sort(first)
		fmt.Printf("| %s | %s | %.3f ms | %.2f ms |\n", which, e.Model(), float64(lat[len(lat)/2])/1e6, float64(first[len(first)/2])/1e6)
	}
	fmt.Println()
	return nil
}
