package watch

import (
	"sort"
	"strconv"
	"strings"
)

// changeKey names one recorded change: a file path, or a folder prefix
// standing for everything under it. The two are distinct keys because a
// name can be a file at one moment and a folder at the next.
type changeKey struct {
	path   string
	prefix bool
}

type logEntry struct {
	seq uint64
	key changeKey
}

// changeLog remembers, for every path that changed, the highest sequence
// number at which it changed, so that "what changed since seq t" is the set
// of keys whose latest seq is above t. Memory is bounded by the number of
// distinct paths (at most about 2×max), never by the number of events.
//
// The entries are also kept in a slice ordered by seq, so that an answer
// costs time proportional to the changes since the token rather than to
// everything remembered; entries superseded by a later change of the same
// key stay in the slice until the next compaction.
type changeLog struct {
	max     int    // more changed keys than this since a token → full rescan
	seq     uint64 // seq of the newest change
	issued  uint64 // highest seq handed out in a token
	fullSeq uint64 // tokens below this seq get a full answer
	latest  map[changeKey]uint64
	entries []logEntry // ascending seq; stale ones have latest[key] != seq
}

func newChangeLog(max int) *changeLog {
	return &changeLog{max: max, latest: make(map[changeKey]uint64)}
}

// record notes a change of a file (prefix false) or of everything under a
// folder (prefix true).
func (l *changeLog) record(path string, prefix bool) {
	k := changeKey{path, prefix}
	// A burst of events for one file (a large write is many IN_MODIFY) needs
	// one entry: if the newest entry is this key and no token has been
	// handed out since, every token still below it sees it.
	if n := len(l.entries); n > 0 && l.entries[n-1].key == k && l.entries[n-1].seq > l.issued {
		return
	}
	l.seq++
	l.latest[k] = l.seq
	l.entries = append(l.entries, logEntry{l.seq, k})
	if len(l.entries) > 2*len(l.latest)+64 {
		l.compact()
	}
	if len(l.latest) > 2*l.max {
		l.trim()
	}
}

// invalidate makes every token issued so far answer "full": called when
// events were lost, so nothing recorded before can be trusted.
func (l *changeLog) invalidate() {
	l.seq++
	l.fullSeq = l.seq
	clear(l.latest)
	l.entries = nil
}

// compact drops the entries superseded by a later change of their key.
func (l *changeLog) compact() {
	live := make([]logEntry, 0, len(l.latest))
	for _, e := range l.entries {
		if l.latest[e.key] == e.seq {
			live = append(live, e)
		}
	}
	l.entries = live
}

// trim forgets all but the max newest changes. It changes no answer: a
// token old enough to need a forgotten change would see more than max
// changes, and so gets a full answer anyway; the watermark says so.
func (l *changeLog) trim() {
	l.compact()
	drop := len(l.entries) - l.max
	if drop <= 0 {
		return
	}
	for _, e := range l.entries[:drop] {
		delete(l.latest, e.key)
	}
	l.fullSeq = max(l.fullSeq, l.entries[drop-1].seq)
	l.entries = append([]logEntry(nil), l.entries[drop:]...)
}

// issue returns the current seq for a token and remembers that it was
// handed out.
func (l *changeLog) issue() uint64 {
	l.issued = l.seq
	return l.seq
}

// since lists the changes after seq t, or says that a full rescan is needed
// because t predates lost events, or more than max keys changed.
func (l *changeLog) since(t uint64) (full bool, paths, prefixes []string) {
	if t < l.fullSeq || t > l.seq {
		return true, nil, nil
	}
	i := sort.Search(len(l.entries), func(i int) bool { return l.entries[i].seq > t })
	n := 0
	for _, e := range l.entries[i:] {
		if l.latest[e.key] != e.seq {
			continue
		}
		if n++; n > l.max {
			return true, nil, nil
		}
		if e.key.prefix {
			prefixes = append(prefixes, e.key.path)
		} else {
			paths = append(paths, e.key.path)
		}
	}
	return false, paths, prefixes
}

// pending is the number of distinct changed keys remembered.
func (l *changeLog) pending() int { return len(l.latest) }

// formatToken and parseToken define the token text "<instance>:<seq>".
func formatToken(instance string, seq uint64) string {
	return instance + ":" + strconv.FormatUint(seq, 10)
}

func parseToken(tok string) (instance string, seq uint64, ok bool) {
	instance, s, found := strings.Cut(tok, ":")
	if !found || instance == "" {
		return "", 0, false
	}
	seq, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return "", 0, false
	}
	return instance, seq, true
}
