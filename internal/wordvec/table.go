package wordvec

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// The table format, little-endian, read in place (nothing is copied or
// decoded when a table is opened, so opening costs microseconds and only
// the pages of the words a text uses are ever read):
//
//	magic    [4]byte "CFWV"
//	version  uint32  1
//	dim      uint32  vector dimension
//	words    uint32  number of words
//	slots    uint32  hash slots, a power of two
//	strBytes uint32  length of the string area
//	common   [dim]float32  unit common component, removed from sentence vectors
//	slot     [slots]uint32 word index + 1, 0 when empty (FNV-1a 64, linear probing)
//	off      [words+1]uint32 word i is str[off[i]:off[i+1]]
//	scale    [words]float32 int8 scale of each row
//	freq     [words]float32 p(w), the word's frequency in the corpus
//	vec      [words*dim]int8
//	str      [strBytes]byte
const (
	magic      = "CFWV"
	version    = 1
	headerSize = 24
)

// Table is a read-only word-vector table over the bytes of the format
// above.
type Table struct {
	data     []byte
	dim      int
	words    int
	slots    int
	common   []byte
	slot     []byte
	off      []byte
	scale    []byte
	freq     []byte
	vec      []byte
	str      []byte
	commonFs []float32
	weights  []float32
}

// Open checks data's header and sizes and returns the table over it, with
// SIF weights a/(a+p(w)); data must not change afterwards.
func Open(data []byte, a float32) (*Table, error) {
	if len(data) < headerSize || string(data[:4]) != magic {
		return nil, errors.New("wordvec: not a word-vector table")
	}
	le := binary.LittleEndian
	if v := le.Uint32(data[4:]); v != version {
		return nil, fmt.Errorf("wordvec: table version %d, want %d", v, version)
	}
	t := &Table{data: data, dim: int(le.Uint32(data[8:])), words: int(le.Uint32(data[12:])), slots: int(le.Uint32(data[16:]))}
	strBytes := int(le.Uint32(data[20:]))
	if t.dim <= 0 || t.dim > 4096 || t.slots&(t.slots-1) != 0 || t.slots < t.words {
		return nil, errors.New("wordvec: bad table header")
	}
	p := headerSize
	take := func(n int) []byte {
		if p+n > len(data) || n < 0 {
			p = len(data) + 1
			return nil
		}
		b := data[p : p+n : p+n]
		p += n
		return b
	}
	t.common = take(4 * t.dim)
	t.slot = take(4 * t.slots)
	t.off = take(4 * (t.words + 1))
	t.scale = take(4 * t.words)
	t.freq = take(4 * t.words)
	t.vec = take(t.words * t.dim)
	t.str = take(strBytes)
	if p != len(data) {
		return nil, fmt.Errorf("wordvec: table of %d bytes, header says %d", len(data), p)
	}
	t.commonFs = make([]float32, t.dim)
	for i := range t.commonFs {
		t.commonFs[i] = math.Float32frombits(le.Uint32(t.common[4*i:]))
	}
	t.weights = make([]float32, t.words)
	for i := range t.weights {
		t.weights[i] = a / (a + math.Float32frombits(le.Uint32(t.freq[4*i:])))
	}
	return t, nil
}

// Dim is the dimension of the table's vectors.
func (t *Table) Dim() int { return t.dim }

// Len is the number of words.
func (t *Table) Len() int { return t.words }

// Lookup returns the index of word w, or -1.
func (t *Table) Lookup(w []byte) int {
	h := Hash(w)
	mask := uint64(t.slots - 1)
	le := binary.LittleEndian
	for i := h & mask; ; i = (i + 1) & mask {
		s := int(le.Uint32(t.slot[4*i:]))
		if s == 0 {
			return -1
		}
		if string(t.Word(s-1)) == string(w) {
			return s - 1
		}
	}
}

// Word returns word i.
func (t *Table) Word(i int) []byte {
	le := binary.LittleEndian
	return t.str[le.Uint32(t.off[4*i:]):le.Uint32(t.off[4*i+4:])]
}

// Weight is the SIF weight of word i.
func (t *Table) Weight(i int) float32 { return t.weights[i] }

// AddTo adds w times word i's vector to v.
func (t *Table) AddTo(v []float32, i int, w float32) {
	w *= math.Float32frombits(binary.LittleEndian.Uint32(t.scale[4*i:]))
	row := t.vec[i*t.dim : (i+1)*t.dim]
	for j, b := range row {
		v[j] += w * float32(int8(b))
	}
}

// Common is the unit common component (not to be modified).
func (t *Table) Common() []float32 { return t.commonFs }

// Hash is 64-bit FNV-1a, the table's slot hash.
func Hash(b []byte) uint64 {
	h := uint64(0xcbf29ce484222325)
	for _, c := range b {
		h ^= uint64(c)
		h *= 0x100000001b3
	}
	return h
}

// Builder collects the parts of a table for Write.
type Builder struct {
	Dim    int
	Words  []string
	Vecs   [][]float32 // one per word, len Dim
	Freq   []float32   // corpus frequency p(w) per word
	Common []float32   // unit common component, or nil for none
}

// Encode returns the table in the format above, rows quantised to int8
// with a scale per row.
func (b *Builder) Encode() []byte {
	n := len(b.Words)
	slots := 1
	for slots < 2*n {
		slots <<= 1
	}
	le := binary.LittleEndian
	var out []byte
	u32 := func(v uint32) { out = le.AppendUint32(out, v) }
	f32 := func(v float32) { out = le.AppendUint32(out, math.Float32bits(v)) }
	strBytes := 0
	for _, w := range b.Words {
		strBytes += len(w)
	}
	out = append(out, magic...)
	u32(version)
	u32(uint32(b.Dim))
	u32(uint32(n))
	u32(uint32(slots))
	u32(uint32(strBytes))
	for j := 0; j < b.Dim; j++ {
		if b.Common != nil {
			f32(b.Common[j])
		} else {
			f32(0)
		}
	}
	slot := make([]uint32, slots)
	for i, w := range b.Words {
		for k := Hash([]byte(w)) & uint64(slots-1); ; k = (k + 1) & uint64(slots-1) {
			if slot[k] == 0 {
				slot[k] = uint32(i + 1)
				break
			}
		}
	}
	for _, s := range slot {
		u32(s)
	}
	off := 0
	for _, w := range b.Words {
		u32(uint32(off))
		off += len(w)
	}
	u32(uint32(off))
	scales := make([]float32, n)
	for i, v := range b.Vecs {
		var m float32
		for _, x := range v {
			m = max(m, float32(math.Abs(float64(x))))
		}
		scales[i] = m / 127
		f32(scales[i])
	}
	for _, p := range b.Freq {
		f32(p)
	}
	for i, v := range b.Vecs {
		for _, x := range v {
			q := 0.0
			if scales[i] > 0 {
				q = math.Round(float64(x / scales[i]))
			}
			out = append(out, byte(int8(max(-127, min(127, q)))))
		}
	}
	for _, w := range b.Words {
		out = append(out, w...)
	}
	return out
}
