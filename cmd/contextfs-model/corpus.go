package main

import (
	"bufio"
	"flag"
	"fmt"
	"hash/fnv"
	"os"
	"strings"

	"github.com/contextfs/contextfs/internal/wordvec"
)

// corpusCmd writes the training corpus: every input paragraph tokenised on
// one line, first occurrences only.
func corpusCmd(args []string) error {
	fs := flag.NewFlagSet("corpus", flag.ContinueOnError)
	out := fs.String("out", "corpus.txt", "the corpus to write")
	minTokens := fs.Int("min-tokens", 3, "shortest line kept, in tokens")
	maxTokens := fs.String("max-tokens", "", "comma-separated: the most tokens taken from each file, in order (0 or missing: all); a file's lines are sampled evenly")
	if err := fs.Parse(args); err != nil {
		return err
	}
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	seen := map[uint64]bool{}
	tok := wordvec.Tokenizer{PartsOnly: true}
	var line []byte
	var total int
	caps := strings.Split(*maxTokens, ",")
	for fi, name := range fs.Args() {
		limit := 0
		if fi < len(caps) && strings.TrimSpace(caps[fi]) != "" {
			if _, err := fmt.Sscan(caps[fi], &limit); err != nil {
				return fmt.Errorf("-max-tokens %q: %w", caps[fi], err)
			}
		}
		in, err := os.Open(name)
		if err != nil {
			return err
		}
		sc := bufio.NewScanner(in)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		var para strings.Builder
		var kept []string
		var counts []int
		emit := func() error {
			text := para.String()
			para.Reset()
			line = line[:0]
			n := 0
			tok.Each(text, func(t []byte) {
				if n > 0 {
					line = append(line, ' ')
				}
				line = append(line, t...)
				n++
			}, nil)
			if n < *minTokens {
				return nil
			}
			h := fnv.New64a()
			h.Write(line)
			if k := h.Sum64(); seen[k] {
				return nil
			} else {
				seen[k] = true
			}
			kept = append(kept, string(line))
			counts = append(counts, n)
			return nil
		}
		for sc.Scan() {
			l := strings.TrimSpace(sc.Text())
			if l == "" {
				if err := emit(); err != nil {
					return err
				}
				continue
			}
			if para.Len() > 0 {
				para.WriteByte(' ')
			}
			para.WriteString(l)
			if para.Len() > 4000 { // a paragraph-less file: cut it
				if err := emit(); err != nil {
					return err
				}
			}
		}
		if err := sc.Err(); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if err := emit(); err != nil {
			return err
		}
		in.Close()
		all := 0
		for _, n := range counts {
			all += n
		}
		// Even sampling: line i is kept when it takes the running share of
		// the budget past a whole line.
		lines, tokens := 0, 0
		for i, l := range kept {
			if limit > 0 && all > limit && (i+1)*limit/all == i*limit/all {
				continue
			}
			lines++
			tokens += counts[i]
			if _, err := w.WriteString(l + "\n"); err != nil {
				return err
			}
		}
		total += tokens
		fmt.Printf("%s: %d lines, %d tokens\n", name, lines, tokens)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	fmt.Printf("corpus: %d tokens\n", total)
	return f.Close()
}
