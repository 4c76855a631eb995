// Command contextfs-model is the build tool of the built-in embedder's word
// vectors, run by scripts/model.sh (make model); it is not installed.
//
//	contextfs-model corpus -out corpus.txt text...
//
// tokenises the gathered text files the way the embedder does
// (internal/wordvec), one paragraph a line, drops repeated lines (page
// headers, navigation) and lines of fewer than three tokens, and prints
// what each file gave.
//
//	contextfs-model pack -bin ft.bin -corpus corpus.txt -out internal/embed/wordvec.bin
//
// reads fastText's model, keeps the most frequent words, reduces their
// dimension by PCA, quantises them to int8 and writes the table the
// embedder embeds, with each word's SIF weight and the common component of
// the corpus's sentence vectors.
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: contextfs-model corpus|pack [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "corpus":
		err = corpusCmd(os.Args[2:])
	case "pack":
		err = packCmd(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q: want corpus or pack", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "contextfs-model:", err)
		os.Exit(1)
	}
}
