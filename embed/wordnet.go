package embed

import (
	_ "embed"
	"sort"
)

// WordNet senses for the built-in embedder: a table generated from WordNet
// by embed/internal/wngen (see there for what it holds and its layout). It
// is compiled in and read where it lies, by binary search over its sorted
// stems: nothing is parsed or built when a process starts or embeds.
//
// WordNet 3.1, Copyright 2006 by Princeton University, under the WordNet
// licence (permissive; its text is in embed/WORDNET-LICENSE).
//
//go:generate go run ./internal/wngen -dict $WORDNET_DICT -out wordnet.bin
//go:embed wordnet.bin
var wordnetTable string

// seedSense keeps sense features apart from words and concepts.
const seedSense uint64 = 0x85ebca77c2b2ae63

// wordnetSenses returns the range [lo, hi) of the stem's synset numbers in
// the table, empty when WordNet does not know the stem.
func wordnetSenses(stem []byte) (lo, hi int) {
	t := wordnetTable
	if len(t) < 4 {
		return 0, 0
	}
	n := int(wordnetID(0))
	u32 := func(i int) int { return int(wordnetID(i)) }
	// Words: [0]=n, [1..n+1] stem offsets, [n+2..2n+2] id offsets.
	stemsAt := 4 * (2*n + 3)
	blobLen := u32(1 + n)
	idsAt := stemsAt + (blobLen+3)&^3
	key := string(stem)
	i := sort.Search(n, func(i int) bool { return t[stemsAt+u32(1+i):stemsAt+u32(2+i)] >= key })
	if i == n || t[stemsAt+u32(1+i):stemsAt+u32(2+i)] != key {
		return 0, 0
	}
	return idsAt/4 + u32(n+2+i), idsAt/4 + u32(n+3+i)
}

// wordnetID is the little-endian 32-bit word at index i of the table (a
// synset number in the ids section).
func wordnetID(i int) uint32 {
	t := wordnetTable[4*i : 4*i+4]
	return uint32(t[0]) | uint32(t[1])<<8 | uint32(t[2])<<16 | uint32(t[3])<<24
}
