package cache

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/contextfs/contextfs/gitstore"
)

// Filter narrows a search. The zero value means: current documents,
// superseded memories hidden.
type Filter struct {
	Types []string  // any of these types
	Tags  []string  // all of these tags
	Since time.Time // updated at or after
	All   bool      // include superseded memories
	Attrs []Attr    // all of these attributes
	MIDs  []string  // any of these IDs (nil: any ID)
	// Statuses keeps documents whose status is one of these ("" is a
	// document without one); nil keeps any.
	Statuses []string
	// Match and NotMatch are FTS5 expressions over title, tags and body
	// that a document must and must not satisfy (the query syntax's
	// phrases, OR groups and exclusions); "" for none.
	Match, NotMatch string
	// IDF, when not nil, is the inverse document frequency to rank each
	// word or phrase of a keyword query by (KeywordTerms), in place of the
	// set's own: a search of several stores ranks them all with the
	// frequencies of their union (docs/SCOPES.md). It filters nothing.
	IDF map[string]float64
}

func (f Filter) restrictive() bool {
	return len(f.Types) > 0 || len(f.Tags) > 0 || !f.Since.IsZero() || len(f.Attrs) > 0 || f.MIDs != nil ||
		f.Statuses != nil || f.Match != "" || f.NotMatch != ""
}

// typesOnly reports whether the filter is by type and nothing else, which
// the memories' type index (docs_memtype) answers without the table.
func (f Filter) typesOnly() bool {
	return len(f.Types) > 0 && len(f.Tags) == 0 && f.Since.IsZero() && len(f.Attrs) == 0 && f.MIDs == nil &&
		f.Statuses == nil && f.Match == "" && f.NotMatch == ""
}

// Hit is a document and its score in one ranking.
type Hit struct {
	Row   int64
	Score float64
}

// where returns the SQL condition (over docs aliased d) and its
// arguments. The rankers leave out the test that the document is current
// (the docSet knows); listing needs it.
func (f Filter) where(kind Kind, current bool) (string, []any) {
	conds := []string{"d.kind=?"}
	if current {
		conds = append(conds, "EXISTS (SELECT 1 FROM paths p WHERE p.oid=d.src AND p.kind=d.kind)")
	}
	args := []any{int(kind)}
	if len(f.Types) > 0 {
		conds = append(conds, "d.type IN ("+strings.TrimSuffix(strings.Repeat("?,", len(f.Types)), ",")+")")
		for _, t := range f.Types {
			args = append(args, t)
		}
	}
	for _, t := range f.Tags {
		conds = append(conds, "d.tags LIKE ? ESCAPE '\\'")
		args = append(args, "% "+likeEscape(strings.ToLower(t))+" %")
	}
	if !f.Since.IsZero() {
		conds = append(conds, "d.updated >= ?")
		args = append(args, f.Since.Unix())
	}
	for _, a := range f.Attrs {
		conds = append(conds, "EXISTS (SELECT 1 FROM attrs a WHERE a.src=d.src AND a.key=? AND a.value=?)")
		args = append(args, a.Key, a.Value)
	}
	if f.Statuses != nil {
		conds = append(conds, "d.status IN (SELECT value FROM json_each(?))")
		b, _ := json.Marshal(f.Statuses)
		args = append(args, string(b))
	}
	if f.MIDs != nil {
		conds = append(conds, "d.mid IN (SELECT value FROM json_each(?))")
		b, _ := json.Marshal(f.MIDs)
		args = append(args, string(b))
	}
	fts := FTSTable(kind)
	if f.Match != "" {
		conds = append(conds, "d.rowid IN (SELECT rowid FROM "+fts+" WHERE "+fts+" MATCH ?)")
		args = append(args, f.Match)
	}
	if f.NotMatch != "" {
		conds = append(conds, "d.rowid NOT IN (SELECT rowid FROM "+fts+" WHERE "+fts+" MATCH ?)")
		args = append(args, f.NotMatch)
	}
	if !f.All && kind == KindMemory {
		conds = append(conds, "d.status != 'superseded'", retiredCond)
	}
	return strings.Join(conds, " AND "), args
}

// retiredCond excludes memories that a current memory supersedes.
const retiredCond = `d.mid NOT IN (SELECT s.target FROM supersedes s WHERE EXISTS (SELECT 1 FROM paths p WHERE p.oid=s.src AND p.kind=1))`

func likeEscape(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return r.Replace(s)
}

// FTSTable names the full-text table of kind's documents.
func FTSTable(kind Kind) string { return "fts_" + strconv.Itoa(int(kind)) }

// stopwords are dropped from keyword queries: "how do we pool db
// connections" should match on pool, db and connections, not on every
// memory that contains "we". The pieces of contractions ("don't" is the
// words don and t) are among them: "why don't we ..." should not match
// every memory that says "don't". Built on first use, not at start.
var stopwords = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about above after again all also am an and any are as at be because been
		before being below between both but by can could did do does doing down during each few for from further
		had has have having he her here hers him his how i if in into is it its itself just me more most my no nor
		not of off on once only or other our ours out over own same she should so some such than that the their
		theirs them then there these they this those through to too under until up very was we were what when
		where which while who whom why will with would you your yours
		never t s d ll m re ve don doesn didn isn aren wasn weren won wouldn shouldn couldn can cannot haven hasn hadn mustn needn ain`) {
		m[w] = true
	}
	return m
})

// MatchQuery turns free text into an FTS5 query: every word, quoted so no
// character is read as FTS5 syntax, OR-ed; stop words are dropped unless
// nothing else is left.
func MatchQuery(text string) string { return joinWords(matchWords(text)) }

func matchWords(text string) []string {
	words := queryWords(text)
	var keep []string
	for _, w := range words {
		if !stopwords()[w] {
			keep = append(keep, w)
		}
	}
	if len(keep) == 0 {
		return words
	}
	return keep
}

// queryWords are the distinct words of text, lower-cased, in order.
func queryWords(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_'
	}) {
		if !seen[w] {
			out = append(out, w)
			seen[w] = true
		}
	}
	return out
}

func joinWords(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = `"` + w + `"`
	}
	return strings.Join(q, " OR ")
}

// candidates returns the rows of kind that pass f, current or not,
// sorted. SQLite hands them over as one list (group_concat): read a row
// at a time through database/sql, the 10,000 rows of one type at 100K
// memories cost about 8 ms, most of a duplicate check's search.
func (c *Cache) candidates(ctx context.Context, kind Kind, f Filter) ([]int64, error) {
	cond, args := f.where(kind, false)
	return c.rowList(ctx, `SELECT group_concat(d.rowid) FROM docs d WHERE `+cond, args...)
}

// rowList runs a query whose one value is a group_concat of rowids and
// returns them sorted.
func (c *Cache) rowList(ctx context.Context, query string, args ...any) ([]int64, error) {
	var list sql.NullString
	if err := c.db.QueryRowContext(ctx, query, args...).Scan(&list); err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	out, err := parseRowList(list.String)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	slices.Sort(out)
	return out, nil
}

// parseRowList reads group_concat's comma-separated rowids.
func parseRowList(s string) ([]int64, error) {
	if s == "" {
		return nil, nil
	}
	out := make([]int64, 0, strings.Count(s, ",")+1)
	var v int64
	neg, digits := false, 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ',' {
			if digits == 0 {
				return nil, fmt.Errorf("row list: empty item at byte %d", i)
			}
			if neg {
				v = -v
			}
			out = append(out, v)
			v, neg, digits = 0, false, 0
			continue
		}
		switch ch := s[i]; {
		case ch >= '0' && ch <= '9' && digits < 19:
			v = v*10 + int64(ch-'0')
			digits++
		case ch == '-' && digits == 0 && !neg:
			neg = true
		default:
			return nil, fmt.Errorf("row list: unexpected %q at byte %d", ch, i)
		}
	}
	return out, nil
}

// typeRows are the memory rows of some types, whatever their status, as
// of generation gen, and of those the ones a filter passes (hidden
// memories left out unless All) as of passGen.
type typeRows struct {
	mu            sync.Mutex
	gen, passGen  int64
	rows, pass    []int64 // sorted
	known, filled bool

	// slab is these types' vectors packed out of the base file (see
	// slab); uses counts the filtered scans of base slabBase so far.
	slab     atomic.Pointer[slab]
	slabBase [16]byte
	uses     int
}

// filtered returns candidates(ds.kind, f), sorted. The rows of a filter by
// memory type alone (a duplicate check, search --type) are computed once
// per generation, however many ask at once (a hybrid search's two halves
// do), and a long-lived process keeps them from one generation to the
// next by reading only the change log's rows since: a save at 100K
// memories then costs a look at one row, not 10,000. The caller must not
// modify the result.
func (c *Cache) filtered(ctx context.Context, ds *docSet, f Filter) ([]int64, error) {
	rows, _, err := c.filteredBy(ctx, ds, f)
	return rows, err
}

// filteredBy is filtered, also returning the typeRows that answered (nil
// for a filter that is not by type alone).
func (c *Cache) filteredBy(ctx context.Context, ds *docSet, f Filter) ([]int64, *typeRows, error) {
	if ds.kind != KindMemory || !f.typesOnly() {
		rows, err := c.candidates(ctx, ds.kind, f)
		return rows, nil, err
	}
	types := slices.Clone(f.Types)
	slices.Sort(types)
	types = slices.Compact(types)
	key := strconv.FormatBool(f.All) + "\x00" + strings.Join(types, "\x00")
	c.mu.Lock()
	if c.typeRows == nil {
		c.typeRows = map[string]*typeRows{}
	}
	t := c.typeRows[key]
	if t == nil {
		t = &typeRows{}
		c.typeRows[key] = t
	}
	c.mu.Unlock()
	rows, err := c.typeRowsPass(ctx, ds, f, t, types)
	return rows, t, err
}

// typeRowsPass brings t to ds's generation and returns the rows that f
// passes.
func (c *Cache) typeRowsPass(ctx context.Context, ds *docSet, f Filter, t *typeRows, types []string) ([]int64, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.filled && t.passGen == ds.gen {
		return t.pass, nil
	}
	if !t.known || t.gen != ds.gen {
		rows, err := c.typeRowsAt(ctx, t, types, ds.gen)
		if err != nil {
			t.known = false
			return nil, err
		}
		t.rows, t.gen, t.known = rows, ds.gen, true
	}
	pass := t.rows
	if !f.All {
		hidden, err := c.retired(ctx)
		if err != nil {
			return nil, err
		}
		if len(hidden) > 0 {
			pass = make([]int64, 0, len(t.rows))
			for _, r := range t.rows {
				if !hidden[r] {
					pass = append(pass, r)
				}
			}
		}
	}
	t.pass, t.passGen, t.filled = pass, ds.gen, true
	return pass, nil
}

// typeRowsAt returns the rows of types at generation gen: t's rows
// brought forward by the change log when t knows an earlier generation
// the log still reaches back to, else all of them from the type index.
func (c *Cache) typeRowsAt(ctx context.Context, t *typeRows, types []string, gen int64) ([]int64, error) {
	in := "(" + strings.TrimSuffix(strings.Repeat("?,", len(types)), ",") + ")"
	args := make([]any, 0, len(types)+3)
	args = append(args, int(KindMemory))
	for _, ty := range types {
		args = append(args, ty)
	}
	logFrom, _ := strconv.ParseInt(c.meta(ctx, c.db, "logfrom:"+strconv.Itoa(int(KindMemory))), 10, 64)
	if !t.known || t.gen > gen || t.gen < logFrom {
		return c.rowList(ctx, `SELECT group_concat(d.rowid) FROM docs d WHERE d.kind=? AND d.type IN `+in, args...)
	}
	// Rows are inserted and deleted, never changed: a row the log names
	// since t.gen is of the types now if it exists with one of them.
	args = append(args, t.gen, gen)
	rs, err := c.db.QueryContext(ctx, `SELECT l.row, EXISTS (SELECT 1 FROM docs d WHERE d.rowid=l.row AND d.kind=?1 AND d.type IN `+in+`)
		FROM doclog l WHERE l.kind=?1 AND l.gen > ? AND l.gen <= ?`, args...)
	if err != nil {
		return nil, fmt.Errorf("search: change log: %w", err)
	}
	defer rs.Close()
	named := map[int64]bool{}
	for rs.Next() {
		var row int64
		var of bool
		if err := rs.Scan(&row, &of); err != nil {
			return nil, fmt.Errorf("search: change log: %w", err)
		}
		named[row] = of
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("search: change log: %w", err)
	}
	if len(named) == 0 {
		return t.rows, nil
	}
	rows := make([]int64, 0, len(t.rows)+len(named))
	for _, r := range t.rows {
		if _, ok := named[r]; !ok {
			rows = append(rows, r)
		}
	}
	for r, of := range named {
		if of {
			rows = append(rows, r)
		}
	}
	slices.Sort(rows)
	return rows, nil
}

// retired returns the rows of current memories hidden by default. The
// set changes only with the memories, so it is kept per generation.
func (c *Cache) retired(ctx context.Context) (map[int64]bool, error) {
	gen := c.Generation(ctx, KindMemory) // with the database ID: see Replace
	c.mu.Lock()
	if c.retiredGen == gen && c.retiredSet != nil {
		defer c.mu.Unlock()
		return c.retiredSet, nil
	}
	c.mu.Unlock()
	set, err := c.loadRetired(ctx)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.retiredGen, c.retiredSet = gen, set
	c.mu.Unlock()
	return set, nil
}

func (c *Cache) loadRetired(ctx context.Context) (map[int64]bool, error) {
	// Both halves are index lookups (docs_superseded, docs_mid); rows of
	// versions no longer current may be included, which is harmless.
	rows, err := c.db.QueryContext(ctx, `SELECT d.rowid FROM docs d WHERE d.kind=1 AND d.status='superseded'
		UNION SELECT d.rowid FROM supersedes s JOIN docs d ON d.kind=1 AND d.mid=s.target
		WHERE EXISTS (SELECT 1 FROM paths p WHERE p.oid=s.src AND p.kind=1)`)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	defer rows.Close()
	out := map[int64]bool{}
	for rows.Next() {
		var r int64
		if err := rows.Scan(&r); err != nil {
			return nil, err
		}
		out[r] = true
	}
	return out, rows.Err()
}

// Row is a document as stored in the cache, with the path of a current
// file holding it.
type Row struct {
	Row       int64
	Kind      Kind
	MID       string
	Type      string
	Title     string
	Tags      []string
	Body      string
	Summary   string
	Created   time.Time
	Updated   time.Time
	Author    string
	Status    string
	Symbol    string
	Lang      string
	StartLine int
	EndLine   int
	Path      string
	Retired   bool
}

const rowCols = `d.rowid, d.kind, d.mid, d.type, d.title, d.tags, d.body, d.summary, d.created, d.updated, d.author, d.status,
	d.symbol, d.lang, d.start_line, d.end_line, COALESCE((SELECT p.path FROM paths p WHERE p.oid=d.src AND p.kind=d.kind ORDER BY p.path LIMIT 1), '')`

func scanRow(rs interface{ Scan(...any) error }) (Row, error) {
	var r Row
	var kind int
	var tags string
	var created, updated int64
	err := rs.Scan(&r.Row, &kind, &r.MID, &r.Type, &r.Title, &tags, &r.Body, &r.Summary, &created, &updated, &r.Author,
		&r.Status, &r.Symbol, &r.Lang, &r.StartLine, &r.EndLine, &r.Path)
	r.Kind = Kind(kind)
	r.Tags = strings.Fields(tags)
	if created != 0 {
		r.Created = time.Unix(created, 0).UTC()
	}
	if updated != 0 {
		r.Updated = time.Unix(updated, 0).UTC()
	}
	return r, err
}

// Rows returns the stored documents for rows, keyed by row.
func (c *Cache) Rows(ctx context.Context, rows []int64) (map[int64]Row, error) {
	out := make(map[int64]Row, len(rows))
	if len(rows) == 0 {
		return out, nil
	}
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = strconv.FormatInt(r, 10)
	}
	rs, err := c.db.QueryContext(ctx, `SELECT `+rowCols+` FROM docs d WHERE d.rowid IN (`+strings.Join(ids, ",")+`)`)
	if err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	defer rs.Close()
	for rs.Next() {
		r, err := scanRow(rs)
		if err != nil {
			return nil, fmt.Errorf("cache: %w", err)
		}
		out[r.Row] = r
	}
	return out, rs.Err()
}

// List returns the current documents of kind that pass f, newest first,
// without their bodies (see ListRows).
func (c *Cache) List(ctx context.Context, kind Kind, f Filter, limit int) ([]Row, error) {
	var out []Row
	for r, err := range c.ListRows(ctx, kind, f, limit) {
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// listCols are what a listing shows of a document: rowCols without the
// body and the code chunk's fields, all in the docs_mlist index for
// memories, with the path of its current file (NULL for none: that one
// look-up stands for where's "current" test too).
const listCols = `d.rowid, d.kind, d.mid, d.type, d.title, d.tags, d.summary, d.created, d.updated, d.author, d.status,
	(SELECT p.path FROM paths p WHERE p.oid=d.src AND p.kind=d.kind ORDER BY p.path LIMIT 1)`

// ListRows yields the current documents of kind that pass f, newest
// first, one at a time as SQLite reads them, so that a long listing is
// never held whole; their Body and code chunk fields (Symbol, Lang,
// lines) are empty. Stopping early closes the query.
func (c *Cache) ListRows(ctx context.Context, kind Kind, f Filter, limit int) iter.Seq2[Row, error] {
	return func(yield func(Row, error) bool) {
		cond, args := f.where(kind, false)
		// The kind as a literal too, for the planner to know that the
		// partial index docs_mlist serves memories.
		q := `SELECT ` + listCols + ` FROM docs d WHERE d.kind=` + strconv.Itoa(int(kind)) + ` AND ` + cond +
			` ORDER BY d.updated DESC, d.mid DESC`
		rs, err := c.db.QueryContext(ctx, q, args...)
		if err != nil {
			yield(Row{}, fmt.Errorf("cache: %w", err))
			return
		}
		defer rs.Close()
		n := 0
		for (limit <= 0 || n < limit) && rs.Next() {
			var r Row
			var k int
			var tags string
			var created, updated int64
			var path sql.NullString
			if err := rs.Scan(&r.Row, &k, &r.MID, &r.Type, &r.Title, &tags, &r.Summary, &created, &updated, &r.Author, &r.Status, &path); err != nil {
				yield(Row{}, fmt.Errorf("cache: %w", err))
				return
			}
			if !path.Valid {
				continue // no current file holds it: an older version
			}
			r.Kind, r.Path, r.Tags = Kind(k), path.String, strings.Fields(tags)
			if created != 0 {
				r.Created = time.Unix(created, 0).UTC()
			}
			if updated != 0 {
				r.Updated = time.Unix(updated, 0).UTC()
			}
			n++
			if !yield(r, nil) {
				return
			}
		}
		if err := rs.Err(); err != nil {
			yield(Row{}, fmt.Errorf("cache: %w", err))
		}
	}
}

// AttrValues returns, for each current document of kind that matches f
// and carries attribute key, its values in the order they were stored.
func (c *Cache) AttrValues(ctx context.Context, kind Kind, key string, f Filter) (map[string][]string, error) {
	cond, args := f.where(kind, true)
	q := `SELECT d.mid, a.value FROM attrs a JOIN docs d ON d.src=a.src WHERE a.key=? AND ` + cond + ` ORDER BY d.mid, a.rowid`
	return c.attrValues(ctx, q, append([]any{key}, args...)...)
}

// AttrValuesIn is AttrValues for the values of key in [lo, hi) of kind's
// current documents, whatever else they are: a range of the attrs_key
// index, for finding the documents that name a value (the memories that
// link to one).
func (c *Cache) AttrValuesIn(ctx context.Context, kind Kind, key, lo, hi string) (map[string][]string, error) {
	return c.attrValues(ctx, `SELECT d.mid, a.value FROM attrs a JOIN docs d ON d.src=a.src AND d.kind=?
		WHERE a.key=? AND a.value >= ? AND a.value < ? AND EXISTS (SELECT 1 FROM paths p WHERE p.oid=d.src AND p.kind=d.kind)
		ORDER BY d.mid, a.rowid`, int(kind), key, lo, hi)
}

// attrValues runs q, which selects (ID, value) pairs in order, and groups
// the values by ID.
func (c *Cache) attrValues(ctx context.Context, q string, args ...any) (map[string][]string, error) {
	rs, err := c.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	defer rs.Close()
	out := map[string][]string{}
	for rs.Next() {
		var mid, v string
		if err := rs.Scan(&mid, &v); err != nil {
			return nil, fmt.Errorf("cache: %w", err)
		}
		out[mid] = append(out[mid], v)
	}
	return out, rs.Err()
}

// ResolveID finds current documents of kind whose ID starts with prefix,
// the way git resolves abbreviated hashes. An exact match wins.
func (c *Cache) ResolveID(ctx context.Context, kind Kind, prefix string) ([]Row, error) {
	p := strings.ToLower(prefix)
	if p == "" {
		return nil, nil // the empty prefix of every ID names none of them
	}
	rs, err := c.db.QueryContext(ctx, `SELECT `+rowCols+` FROM docs d WHERE d.kind=? AND d.mid >= ? AND d.mid < ?
		AND EXISTS (SELECT 1 FROM paths p WHERE p.oid=d.src AND p.kind=d.kind) ORDER BY d.mid LIMIT 50`, int(kind), p, p+"\uffff")
	if err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	defer rs.Close()
	var out, exact []Row
	for rs.Next() {
		r, err := scanRow(rs)
		if err != nil {
			return nil, fmt.Errorf("cache: %w", err)
		}
		if r.MID == p {
			exact = append(exact, r) // more than one: files sharing an ID, for the caller to report
		}
		out = append(out, r)
	}
	if len(exact) > 0 {
		return exact, rs.Err()
	}
	return out, rs.Err()
}

// Problem is a file the cache could not index, as recorded at sync.
type Problem struct {
	Path string
	Line int
	Msg  string
	Note string
}

// Problems lists current files of kind whose analysis failed or left a
// note.
func (c *Cache) Problems(ctx context.Context, kind Kind) ([]Problem, error) {
	// Driven from the blobs with a problem (a partial index), not from
	// every current file: this runs on every read.
	rs, err := c.db.QueryContext(ctx, `SELECT p.path, b.line, b.error, b.note FROM blobs b INDEXED BY blobs_problems
		CROSS JOIN paths p ON p.oid=b.oid WHERE (b.error != '' OR b.note != '') AND p.kind=? ORDER BY p.path`, int(kind))
	if err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	defer rs.Close()
	var out []Problem
	for rs.Next() {
		var p Problem
		if err := rs.Scan(&p.Path, &p.Line, &p.Msg, &p.Note); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rs.Err()
}

// Counts returns the number of current documents of kind by type, and the
// number of current files.
func (c *Cache) Counts(ctx context.Context, kind Kind) (byType map[string]int, files int, err error) {
	byType = map[string]int{}
	// Driven from paths (the current files) through the docs_src index:
	// docs also holds every version ever indexed, so scanning it is slower.
	rs, err := c.db.QueryContext(ctx, `SELECT d.type, COUNT(*) FROM paths p CROSS JOIN docs d ON d.src=p.oid AND d.kind=p.kind WHERE p.kind=? GROUP BY d.type`, int(kind))
	if err != nil {
		return nil, 0, fmt.Errorf("cache: %w", err)
	}
	defer rs.Close()
	for rs.Next() {
		var t string
		var n int
		if err := rs.Scan(&t, &n); err != nil {
			return nil, 0, err
		}
		byType[t] = n
	}
	if err := c.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM paths WHERE kind=?`, int(kind)).Scan(&files); err != nil && err != sql.ErrNoRows {
		return nil, 0, fmt.Errorf("cache: %w", err)
	}
	return byType, files, rs.Err()
}

// DocCount is the number of documents of kind's current files, as the
// sum of Counts' figures, read from the paths and blobs tables alone (an
// index run's summary asks for it after every run).
func (c *Cache) DocCount(ctx context.Context, kind Kind) (int, error) {
	var n int
	err := c.db.QueryRowContext(ctx, `SELECT coalesce(sum(b.docs), 0) FROM paths p CROSS JOIN blobs b ON b.oid=p.oid WHERE p.kind=?`, int(kind)).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("cache: %w", err)
	}
	return n, nil
}

// Meta reads a value the caller stored with SetMeta.
func (c *Cache) Meta(ctx context.Context, key string) string { return c.meta(ctx, c.db, "x:"+key) }

// SetMeta stores a small value (last index time, and the like).
func (c *Cache) SetMeta(ctx context.Context, key, value string) error {
	defer c.noteOwnWrite(c.identity())
	return setMeta(ctx, c.db, "x:"+key, value)
}

// SetMetaAt is SetMeta, done only while the database ID is id (see ID):
// a value that describes what was read from one database must not land
// in another that replaced it.
func (c *Cache) SetMetaAt(ctx context.Context, id, key, value string) error {
	defer c.noteOwnWrite(c.identity())
	_, err := c.db.ExecContext(ctx, `INSERT INTO meta(key, value) SELECT ?, ? WHERE (SELECT value FROM meta WHERE key='dbid') = ?
		ON CONFLICT(key) DO UPDATE SET value=excluded.value`, "x:"+key, value, id)
	if err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	return nil
}

// ClearKinds forgets which files of the given kinds are current, so the
// next sync analyses every file again (their cached blobs are dropped too).
func (c *Cache) ClearKinds(ctx context.Context, kinds ...Kind) error {
	defer c.noteOwnWrite(c.identity())
	tx, err := c.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	defer tx.Rollback()
	for _, k := range kinds {
		if err := clearDocs(ctx, tx, k); err != nil {
			return err
		}
		for _, q := range []string{`DELETE FROM paths WHERE kind=?`, `DELETE FROM blobs WHERE kind=?`} {
			if _, err := tx.ExecContext(ctx, q, int(k)); err != nil {
				return fmt.Errorf("cache: %w", err)
			}
		}
		if err := logChanges(ctx, tx, k, nil, nil, false); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM meta WHERE key IN ('x:code:last', 'x:commits:head') OR key LIKE 'stat:%'`); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	return tx.Commit()
}

// clearDocs deletes every document of kind k and empties its full-text
// table. Deleting rows one by one would run the delete trigger for each,
// which tokenises every body again to remove it from the index (a forced
// re-index of a large repository spent half its time there); the table
// holds only kind k, so FTS5's delete-all empties it at once. The trigger
// is dropped for the delete and put back as it was, in the caller's
// transaction.
func clearDocs(ctx context.Context, tx *sql.Tx, k Kind) error {
	name := "docs_ad_" + strconv.Itoa(int(k))
	var trigger string
	if err := tx.QueryRowContext(ctx, `SELECT sql FROM sqlite_master WHERE type='trigger' AND name=?`, name).Scan(&trigger); err != nil {
		return fmt.Errorf("cache: trigger %s: %w", name, err)
	}
	fts := FTSTable(k)
	for _, q := range []string{
		`DROP TRIGGER ` + name,
		`DELETE FROM docs WHERE kind=` + strconv.Itoa(int(k)),
		`INSERT INTO ` + fts + `(` + fts + `) VALUES ('delete-all')`,
		trigger,
	} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("cache: clear %s: %w", fts, err)
		}
	}
	return nil
}

// StalePaths compares entries with what the cache last saw, without
// changing anything: paths whose content differs, and paths gone. Files
// recorded too close to their modification to trust their stat are
// hashed under root to tell.
func (c *Cache) StalePaths(ctx context.Context, kind Kind, root string, entries []FileEntry) (stale, removed []string, err error) {
	known, err := c.paths(ctx, kind)
	if err != nil {
		return nil, nil, err
	}
	seen := map[string]bool{}
	for _, e := range entries {
		seen[e.Path] = true
		r, ok := known[e.Path]
		switch {
		case !ok || r.size != e.Size:
			stale = append(stale, e.Path)
		case r.mtime == e.Changed && r.ino == e.Ino:
		default:
			// The size matches the cached one: a file that has grown
			// since the stat is stale without being read whole.
			raw, err := gitstore.ReadFileLimited(filepath.Join(root, filepath.FromSlash(e.Path)), max(e.Size, 1))
			if err != nil || gitstore.BlobOID(raw) != keyOID(r.oid) {
				stale = append(stale, e.Path)
			}
		}
	}
	for p := range known {
		if !seen[p] {
			removed = append(removed, p)
		}
	}
	sort.Strings(stale)
	sort.Strings(removed)
	return stale, removed, nil
}

// CodeStats counts current code files and chunks by language.
func (c *Cache) CodeStats(ctx context.Context) (map[string][2]int, error) {
	rs, err := c.db.QueryContext(ctx, `SELECT d.lang, COUNT(DISTINCT p.path), COUNT(*) FROM paths p CROSS JOIN docs d ON d.src=p.oid AND d.kind=p.kind
		WHERE p.kind=2 GROUP BY d.lang`)
	if err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	defer rs.Close()
	out := map[string][2]int{}
	for rs.Next() {
		var l string
		var f, n int
		if err := rs.Scan(&l, &f, &n); err != nil {
			return nil, err
		}
		out[l] = [2]int{f, n}
	}
	return out, rs.Err()
}

// CodeAt returns the current chunk of path spanning exactly start-end, or
// nil.
func (c *Cache) CodeAt(ctx context.Context, path string, start, end int) (*Row, error) {
	rs := c.db.QueryRowContext(ctx, `SELECT `+rowCols+` FROM docs d JOIN paths p ON p.oid=d.src AND p.kind=d.kind
		WHERE d.kind=2 AND p.path=? AND d.start_line=? AND d.end_line=? LIMIT 1`, path, start, end)
	r, err := scanRow(rs)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	r.Path = path
	return &r, nil
}
