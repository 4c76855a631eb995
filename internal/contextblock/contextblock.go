// Package contextblock builds the context block: what an agent reads at the
// start of a session about the repository it works in. The block has fixed
// sections in a fixed order, cites the ID of every item so the agent can
// recall it, fits a token budget by trimming in a documented priority
// order, and is deterministic: the same memory files give the same bytes,
// so clients may cache it. docs/CONTEXT.md describes the design.
package contextblock

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/frontmatter"
	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/check"
	"github.com/contextfs/contextfs/internal/pathglob"
	"github.com/contextfs/contextfs/internal/scope"
	"github.com/contextfs/contextfs/internal/secrets"
	"github.com/contextfs/contextfs/internal/session"
	"github.com/contextfs/contextfs/memory"
)

// DefaultBudget is the budget, in estimated tokens, when neither the
// caller nor the config gives one.
const DefaultBudget = 2000

// Estimator states how tokens are estimated; it is reported in the block.
const Estimator = "word-runs"

// EstimateTokens is the token estimate of text, made to count at least as
// many tokens as the tokenizers agents use (OpenAI's o200k_base and
// cl100k_base, Anthropic's published Claude tokenizer) on context blocks,
// and not many more: 5 to 26 % more on this project's memories, blocks,
// README and code, where bytes/4 counted up to 29 % fewer
// (TestEstimateNeverUndercountsRealTokenizers checks it against them).
// It reads text as runs: an ASCII word of letters costs a token per five
// letters, one of digits a token per three (tokenizers split numbers in
// threes), one mixing both, as IDs and hashes do, a token per two
// characters; each punctuation mark and run of line breaks costs one, a
// non-ASCII character one per two bytes of UTF-8; a single space before a
// word costs nothing.
func EstimateTokens(text string) int {
	n := 0
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case isAlnum(c):
			j, letters, digits := i, 0, 0
			for ; j < len(text) && isAlnum(text[j]); j++ {
				if text[j] >= '0' && text[j] <= '9' {
					digits++
				} else {
					letters++
				}
			}
			switch l := j - i; {
			case letters > 0 && digits > 0:
				n += (l + 1) / 2
			case digits > 0:
				n += (l + 2) / 3
			default:
				n += (l + 4) / 5
			}
			i = j
		case c == ' ':
			j := i
			for j < len(text) && text[j] == ' ' {
				j++
			}
			n += (j - i - 1 + 3) / 4
			i = j
		case c == '\n':
			for i < len(text) && text[i] == '\n' {
				i++
			}
			n++
		case c < utf8.RuneSelf:
			n++
			i++
		default:
			// Accented letters cost a token, CJK up to two, emoji more.
			_, size := utf8.DecodeRuneInString(text[i:])
			n += (size + 1) / 2
			i += size
		}
	}
	return n
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// Section keys, in the order the block shows them.
const (
	ProjectBrief    = "project-brief"
	Architecture    = "architecture"
	TechContext     = "tech-context"
	ProductContext  = "product-context"
	Progress        = "progress"
	LastSession     = "last-session"
	Preferences     = "preferences"
	OpenWork        = "open-work"
	RelevantChanges = "relevant-to-changes"
	RelevantTask    = "relevant-to-task"
)

// spec describes one section: where its items come from and how many.
type spec struct {
	key, title string
	types      []string
	limit      int
	bodies     bool // items start with their bodies
}

var specs = []spec{
	{ProjectBrief, "Project brief", []string{"project-brief", "config"}, 5, true},
	{Architecture, "Architecture", []string{"architecture"}, 5, true},
	{TechContext, "Tech context", []string{"tech-context"}, 5, true},
	{ProductContext, "Product context", []string{"product-context"}, 5, true},
	{Progress, "Progress", []string{"progress"}, 1, true},
	{LastSession, "Last session", []string{"episodic"}, 1, true},
	{Preferences, "Preferences", []string{"user"}, 15, false},
	{OpenWork, "Open work", []string{"todo", "issue", "task"}, 15, false},
	{RelevantChanges, "Relevant to your changes", nil, 10, false},
	{RelevantTask, "Relevant to the task", nil, 8, false},
	{RegisteredRepos, "From registered repositories", nil, 5, false},
}

// TrimOrder is the order in which sections give way when the block is over
// budget, first to last: first every body in this order, then items from
// the end of each section in this order; a section whose last item goes
// is left out whole and named in Block.Dropped.
var TrimOrder = []string{
	RegisteredRepos, RelevantTask, ProductContext, TechContext, OpenWork, Architecture,
	Preferences, RelevantChanges, LastSession, Progress, ProjectBrief,
}

// maxBody caps one item's body before any trimming, so that one long
// memory cannot take the whole budget.
const maxBody = 1500

// Options configure Build.
type Options struct {
	// Task, when set, fills "Relevant to the task" by hybrid search.
	Task string
	// Budget is the size in estimated tokens; 0 means the config's
	// context.budget, else DefaultBudget.
	Budget int
	// Changed are the files the branch changes (see package branchdiff);
	// memories whose paths cover one of them are "Relevant to your changes".
	Changed []string
	// ChangedUnder, used when Changed is nil, returns the files the branch
	// changes at or below the paths in within (none: everywhere), as
	// branchdiff.FilesUnder does. Build calls it only when some memory
	// has paths:, and then with the folders those globs lie in
	// (pathglob.Roots), so that git looks at no more of the work tree than
	// the answer can match: a repository whose memories name no paths runs
	// no git at all.
	ChangedUnder func(ctx context.Context, within []string) ([]string, error)
	// User, when set, is the user's own store (package scope): its
	// preferences follow the repository's in "Preferences".
	User *contextfs.Store
	// Now is the time a memory's expires: is compared with; zero means
	// the time of the call.
	Now time.Time
	// Repos, with Scopes and a Task, adds "From registered repositories":
	// the memories of these registered repositories that a search for
	// the task finds. Off (nil) by default (docs/SCOPES.md).
	Repos  Repos
	Scopes *scope.Set

	// staleOf answers Store.MayBeStale for the block; a Builder answers
	// from what it learnt for the same state (nil: the store itself).
	staleOf func(ctx context.Context, s *contextfs.Store, ids []string) (map[string]bool, error)
}

// Block is the context block.
type Block struct {
	Budget    int       `json:"budget"`
	Tokens    int       `json:"tokens"`
	Estimator string    `json:"estimator"`
	Sections  []Section `json:"sections"`
	// Dropped names the sections left out whole to meet the budget.
	Dropped []string `json:"dropped,omitempty"`
}

// Section is one non-empty section of the block.
type Section struct {
	Key   string `json:"key"`
	Title string `json:"title"`
	Items []Item `json:"items"`
	// Omitted counts the items left out to meet the budget.
	Omitted int `json:"omitted,omitempty"`
	// Note says why the section is incomplete: one failure (an unreadable
	// file, a search that failed) degrades its section, never the block.
	Note string `json:"note,omitempty"`
}

// Item is one memory in a section.
type Item struct {
	ID      string `json:"id"`
	Type    string `json:"type"`
	Title   string `json:"title"`
	Summary string `json:"summary,omitempty"`
	Body    string `json:"body,omitempty"`
	// Repo names the registered repository an item of "From registered
	// repositories" comes from; empty for this repository's memories.
	Repo string `json:"repo,omitempty"`
	// MayBeStale says that code the memory is attached to (paths:) was
	// committed after the memory last changed (Store.MayBeStale): an
	// agent should check it against the code before relying on it.
	MayBeStale bool `json:"may_be_stale,omitempty"`
}

// Build reads the memories of s and assembles the block.
func Build(ctx context.Context, s *contextfs.Store, o Options) (*Block, error) {
	o, err := prepare(ctx, s, o)
	if err != nil {
		return nil, err
	}
	b, _, err := assemble(ctx, s, o)
	return b, err
}

// Builder builds blocks for a long-lived process (the MCP server), which
// asks for one on every get_context call. It keeps the last few blocks
// with what each is a function of: the generations of the stores' indexes
// (read after their sync, so they name the memory files as they are), the
// changed files, the task and the budget. While those are the same, and no
// item of the kept block has expired since, it returns the kept block,
// which Build would build again byte for byte (the block is
// deterministic, docs/CONTEXT.md). The zero value is ready for
// use; a Builder is safe for concurrent use, with one store.
type Builder struct {
	mu   sync.Mutex
	kept []keptBlock // most recently used last
	// stale is what MayBeStale said of each memory ID for staleState:
	// a block state names the memory files and HEAD, all it depends on,
	// so a session's blocks for many tasks run git for it once.
	staleState string
	stale      map[string]bool
	// base is the task-free part of the last block built, for baseState.
	baseState string
	base      *base
}

type keptBlock struct {
	state  string // blockState
	task   string
	budget int
	block  *Block
	until  time.Time // when an item of the block expires; zero: never
}

// builderKeeps is how many blocks a Builder keeps: the block without a
// task and those of the last few tasks, so that a session's calls with
// and without one do not push each other out.
const builderKeeps = 4

// Build is Build, answered from a kept block when it still holds.
func (bd *Builder) Build(ctx context.Context, s *contextfs.Store, o Options) (*Block, error) {
	o, err := prepare(ctx, s, o)
	if err != nil {
		return nil, err
	}
	state, ok := blockState(ctx, s, o)
	// Other repositories change without this store's generation moving:
	// a block that includes them is built every time.
	ok = ok && len(o.Repos) == 0
	bd.mu.Lock()
	defer bd.mu.Unlock()
	// The generations only grow, and so does the time: blocks of another
	// state, or with an item that has expired since, never hold again.
	bd.kept = slices.DeleteFunc(bd.kept, func(k keptBlock) bool {
		return !ok || k.state != state || !k.until.IsZero() && memory.Expired(k.until, o.Now)
	})
	if i := slices.IndexFunc(bd.kept, func(k keptBlock) bool { return k.task == o.Task && k.budget == o.Budget }); i >= 0 {
		k := bd.kept[i]
		bd.kept = append(slices.Delete(bd.kept, i, i+1), k)
		return k.block.clone(), nil
	}
	if !ok {
		b, _, err := assemble(ctx, s, o)
		return b, err
	}
	o.staleOf = bd.staleFor(state)
	bs := bd.base
	if bd.baseState != state || bs == nil || !bs.until.IsZero() && memory.Expired(bs.until, o.Now) {
		if bs, err = assembleBase(ctx, s, o); err != nil {
			return nil, err
		}
		bd.baseState, bd.base = state, bs
	}
	b, until, err := assembleOn(ctx, s, o, bs)
	if err != nil {
		return b, err
	}
	if len(bd.kept) == builderKeeps {
		bd.kept = slices.Delete(bd.kept, 0, 1)
	}
	bd.kept = append(bd.kept, keptBlock{state, o.Task, o.Budget, b.clone(), until})
	return b, nil
}

// blockState names everything besides the task and the budget that a
// prepared block is built from: the stores, their index generations and
// the changed files. ok is false when a generation cannot be read.
func blockState(ctx context.Context, s *contextfs.Store, o Options) (string, bool) {
	gen, user, userRoot := s.IndexGeneration(ctx), "-", ""
	// A commit can make an item "may be stale" without changing a memory.
	head := s.Repo.HeadCommit(ctx)
	if o.User != nil {
		user, userRoot = o.User.IndexGeneration(ctx), o.User.Repo.Root
	}
	if gen == "" || user == "" {
		return "", false
	}
	k, err := json.Marshal([]any{s.Repo.Root, gen, head, userRoot, user, o.Changed})
	return string(k), err == nil
}

// prepare syncs the stores and settles the options: the budget, and the
// changed files (asked of ChangedUnder when memories have paths).
func prepare(ctx context.Context, s *contextfs.Store, o Options) (Options, error) {
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	if o.Budget <= 0 {
		o.Budget = s.Config.Context.Budget
	}
	if o.Budget <= 0 {
		o.Budget = DefaultBudget
	}
	// One sync for the whole block; the sections then read the index.
	if _, err := s.Sync(ctx); err != nil {
		return o, fmt.Errorf("context: %w", err)
	}
	if o.User != nil {
		if _, err := o.User.Sync(ctx); err != nil {
			return o, fmt.Errorf("context: user store: %w", err)
		}
	}
	if o.Changed == nil && o.ChangedUnder != nil {
		globs, err := s.AttachedGlobsIndexed(ctx)
		if err != nil {
			return o, fmt.Errorf("context: %w", err)
		}
		if len(globs) > 0 {
			if o.Changed, err = o.ChangedUnder(ctx, pathglob.Roots(globs)); err != nil {
				return o, fmt.Errorf("context: the files this branch changes: %w", err)
			}
		}
	}
	// Memory files are not code: a branch that adds memories does not
	// make them "relevant to its changes".
	o.Changed = slices.DeleteFunc(slices.Clone(o.Changed), gitstore.IsMemoryPath)
	return o, nil
}

// assemble builds the block of prepared options from the synced index,
// and says until when it holds: the first time an item of it expires
// (zero: never).
func assemble(ctx context.Context, s *contextfs.Store, o Options) (*Block, time.Time, error) {
	bs, err := assembleBase(ctx, s, o)
	if err != nil {
		return nil, time.Time{}, err
	}
	return assembleOn(ctx, s, o, bs)
}

// base is the part of a block that does not depend on the task: its
// sections before the task's, the memories they show, and when an item of
// them first expires (zero: never). A Builder keeps it for a block state,
// so that a block for a new task costs the task's search, not the whole
// block again.
type base struct {
	sections []Section
	shown    map[string]bool
	until    time.Time
}

// taskSection reports whether the section of key depends on the task.
func taskSection(key string) bool { return key == RelevantTask || key == RegisteredRepos }

// assembleBase builds the sections that do not depend on the task.
func assembleBase(ctx context.Context, s *contextfs.Store, o Options) (*base, error) {
	bs := &base{shown: map[string]bool{}}
	scanners := map[*contextfs.Store]*secrets.Scanner{}
	for _, sp := range specs {
		if taskSection(sp.key) {
			continue
		}
		sec, ok, err := buildSection(ctx, s, o, sp, bs.shown, &bs.until, scanners)
		if err != nil {
			return nil, err
		}
		if ok {
			bs.sections = append(bs.sections, sec)
		}
	}
	return bs, nil
}

// assembleOn adds the task's sections to a copy of bs, flags what may be
// stale and fits the block to its budget.
func assembleOn(ctx context.Context, s *contextfs.Store, o Options, bs *base) (*Block, time.Time, error) {
	b := &Block{Budget: o.Budget, Estimator: Estimator, Sections: cloneSections(bs.sections)}
	shown, until := maps.Clone(bs.shown), bs.until
	scanners := map[*contextfs.Store]*secrets.Scanner{}
	for _, sp := range specs {
		if !taskSection(sp.key) {
			continue
		}
		sec, ok, err := buildSection(ctx, s, o, sp, shown, &until, scanners)
		if err != nil {
			return nil, until, err
		}
		if ok {
			b.Sections = append(b.Sections, sec)
		}
	}
	markStale(ctx, s, b, o.staleOf)
	b.fit()
	return b, until, nil
}

// buildSection gathers one section: ok is false when it has nothing to
// show. It adds what it shows to shown and moves until to the first
// expiry of its items.
func buildSection(ctx context.Context, s *contextfs.Store, o Options, sp spec, shown map[string]bool, until *time.Time,
	scanners map[*contextfs.Store]*secrets.Scanner) (Section, bool, error) {
	var (
		entries []contextfs.Entry
		known   map[string]session.Episode // files read already, by path
		err     error
	)
	if sp.key == RegisteredRepos {
		sec, ok := registeredSection(ctx, sp, o, shown)
		return sec, ok, nil
	}
	if sp.key == LastSession {
		entries, known, err = lastSessions(ctx, s, sp.limit)
	} else {
		entries, err = gather(ctx, s, sp, o)
	}
	sec := Section{Key: sp.key, Title: sp.title}
	if err != nil {
		if ctx.Err() != nil {
			return Section{}, false, fmt.Errorf("context: %s: %w", sp.title, err)
		}
		sec.Note = degraded(err)
	}
	add := func(st *contextfs.Store, entries []contextfs.Entry) {
		for _, e := range entries {
			if shown[e.ID] || len(sec.Items) == sp.limit {
				continue
			}
			// The file, read once: for its expiry, and for what the
			// item shows beyond the index (a body). Search results carry
			// the index's title and summary, as a listing's entries do.
			read := sp.bodies
			var (
				raw  []byte
				m    *memory.Memory
				rerr error
			)
			if ep, ok := known[e.Path]; ok && st == s {
				raw, m = ep.Raw, ep.Memory
			} else if raw, rerr = st.Repo.ReadFile(e.Path); rerr != nil && read {
				// One unreadable file leaves out its item, not the block.
				sec.Note = degraded(rerr)
				continue
			}
			// An expired memory is no longer true: the block shows
			// what it will show once prune has removed it.
			if exp := expiry(raw); !exp.IsZero() {
				if memory.Expired(exp, o.Now) {
					continue
				}
				if until.IsZero() || exp.Before(*until) {
					*until = exp
				}
			}
			if scanners[st] == nil {
				scanners[st] = scanner(st)
			}
			it, err := item(e, raw, m, sp.bodies, read, scanners[st])
			if err != nil {
				sec.Note = degraded(err)
				continue
			}
			shown[e.ID] = true
			sec.Items = append(sec.Items, it)
		}
	}
	add(s, entries)
	if sp.key == Preferences && o.User != nil {
		// The user's own preferences follow them into every repository;
		// the repository's come first, as they bind its team.
		mine, err := o.User.ListIndexed(ctx, contextfs.ListOptions{Types: sp.types, Limit: sp.limit * 2})
		if err != nil {
			sec.Note = degraded(fmt.Errorf("user store: %w", err))
		} else {
			add(o.User, mine)
		}
	}
	return sec, len(sec.Items) > 0 || sec.Note != "", nil
}

// degraded is the note a section shows for err: one line, so that an
// agent reads why the section is short without the block failing.
func degraded(err error) string {
	return "incomplete: " + oneLine(err.Error())
}

// gather lists the candidate entries of one section, best first.
func gather(ctx context.Context, s *contextfs.Store, sp spec, o Options) ([]contextfs.Entry, error) {
	switch sp.key {
	case RelevantChanges:
		if len(o.Changed) == 0 {
			return nil, nil
		}
		return s.ListIndexed(ctx, contextfs.ListOptions{Attached: o.Changed, Limit: sp.limit * 2})
	case RelevantTask:
		if strings.TrimSpace(o.Task) == "" {
			return nil, nil
		}
		// Memories only: the section cites nothing else, and ranking the
		// code index's doc chunks as well was work for nothing.
		res, err := s.SearchIndexed(ctx, contextfs.Query{Text: o.Task, Types: memoryTypes(), Kinds: []string{"memory"}, Limit: sp.limit * 2})
		if err != nil {
			return nil, err
		}
		out := make([]contextfs.Entry, 0, len(res))
		for _, r := range res {
			// The type filter also matches the auto-index's doc chunks
			// (type "doc"): those are files of the repository, not
			// memories, and this section cites memories only. Only the
			// latest progress is current; it has its own section.
			if r.Kind == "memory" && r.Type != "progress" {
				out = append(out, contextfs.Entry{ID: r.ID, Type: r.Type, Title: r.Title, Summary: r.Summary, Path: r.Path})
			}
		}
		return out, nil
	case OpenWork:
		// No earlier section shows these types: the page is exact.
		return s.ListIndexed(ctx, contextfs.ListOptions{Types: sp.types, Status: openStatuses, Limit: sp.limit})
	}
	// An older progress shows only where a newer one has expired.
	entries, err := s.ListIndexed(ctx, contextfs.ListOptions{Types: sp.types, Limit: sp.limit * 2})
	if err != nil {
		return nil, err
	}
	if sp.key == ProjectBrief {
		// The brief first, then config; each newest first.
		slices.SortStableFunc(entries, func(a, b contextfs.Entry) int {
			return slices.Index(sp.types, a.Type) - slices.Index(sp.types, b.Type)
		})
	}
	return entries, nil
}

// lastSessions lists the episodic memories that ended latest (as session
// list orders them, session.LatestEpisodes), one more than shown should
// the latest have expired, with the files read to order them, by path, so
// that each is read once.
func lastSessions(ctx context.Context, s *contextfs.Store, shown int) ([]contextfs.Entry, map[string]session.Episode, error) {
	eps, err := session.LatestEpisodes(ctx, s, shown+1)
	if err != nil {
		return nil, nil, err
	}
	entries := make([]contextfs.Entry, 0, len(eps))
	known := make(map[string]session.Episode, len(eps))
	for _, ep := range eps {
		entries = append(entries, ep.Entry)
		known[ep.Path] = ep
	}
	return entries, known, nil
}

// openStatuses are the data.status values of open work ("" is none).
var openStatuses = []string{"", "open", "in_progress"}

// item is the memory behind e, with its body if body, and the suspected
// secrets sc finds in it masked. Unless read, the entry has all the item
// shows, from the index that Build synced with the files first (the same
// guarantee a listing has); otherwise the file is read, as for a body,
// which the index keeps only mixed with the data's values: its content is
// raw, and m, when not nil, the memory already decoded from it.
func item(e contextfs.Entry, raw []byte, m *memory.Memory, body, read bool, sc *secrets.Scanner) (Item, error) {
	if !read {
		it := Item{ID: e.ID, Type: e.Type, Title: oneLine(e.Title), Summary: oneLine(e.Summary)}
		it.mask(sc)
		return it, nil
	}
	if m == nil {
		var err error
		if m, err = contextfs.DecodeMemory(e.Path, raw); err != nil {
			return Item{}, err
		}
	}
	it := Item{ID: m.ID, Type: m.Type, Title: oneLine(m.Title), Summary: oneLine(m.Summary)}
	if body {
		it.Body = strings.TrimSpace(m.Body)
	}
	// Before the cut, which could leave too little of a secret to know it.
	it.mask(sc)
	it.Body = clip(it.Body, maxBody)
	if it.Body == it.Summary {
		it.Body = ""
	}
	return it, nil
}

// expiry is the instant the memory file whose content is raw expires
// (zero: never), read from its frontmatter as prune reads it
// (check.Expires): a value that is no date, which validate reports, makes
// it expire never, as prune leaves it alone. So does a file that could not
// be read (raw nil): the item is as the index has it. Most memories have
// no expires: key, and are not parsed for it.
func expiry(raw []byte) time.Time {
	if !bytes.Contains(raw, []byte("expires:")) {
		return time.Time{}
	}
	doc, err := frontmatter.Parse(raw)
	if err != nil {
		return time.Time{}
	}
	if exp, ok, _ := check.Expires(doc); ok {
		return exp.At
	}
	return time.Time{}
}

// scanner is the secret scanner of st's config (its allow lists); with a
// config it cannot use, the scanner without exceptions, so that the block
// hides more, never less.
func scanner(st *contextfs.Store) *secrets.Scanner {
	sc, err := st.SecretScanner()
	if err != nil {
		return &secrets.Scanner{}
	}
	return sc
}

// mask replaces each suspected secret in what the item shows with its
// redacted form (the first characters, then one '*' a character), as
// review does in the report it posts. The block goes into every agent's
// context window, and from there to the model's provider and the
// transcript (docs/SECRETS.md): save warns of a secret but keeps it, and
// the block must not spread it.
func (it *Item) mask(sc *secrets.Scanner) {
	var values map[string]string
	for _, text := range []string{it.Title, it.Summary, it.Body} {
		if found := sc.Scan("", []byte(text)); len(found) > 0 {
			values = secrets.Values(values, []byte(text), found)
		}
	}
	if len(values) == 0 {
		return
	}
	m := secrets.Masker(values)
	it.Title, it.Summary, it.Body = m.Replace(it.Title), m.Replace(it.Summary), m.Replace(it.Body)
}

// fit trims the block to its budget: bodies first, then whole items, each
// in TrimOrder; headers stay.
func (b *Block) fit() {
	// The estimate of the whole is the sum of its parts' (blockParts), so
	// a trim re-estimates the one section it changed, not the block: the
	// block for a task, larger than most budgets, trimmed item by item,
	// was the estimate of the whole Markdown again at every step.
	toks := make([]int, len(b.Sections))
	for i := range b.Sections {
		toks[i] = sectionTokens(&b.Sections[i])
	}
	total := func() int {
		n := EstimateTokens(mdHeader)
		for _, t := range toks {
			n += t
		}
		if len(b.Dropped) > 0 {
			n += EstimateTokens(droppedLine(b.Dropped))
		}
		return n
	}
	b.Tokens = total()
	for _, key := range TrimOrder {
		j := slices.IndexFunc(b.Sections, func(s Section) bool { return s.Key == key })
		if j < 0 {
			continue
		}
		sec := b.Sections[j].Items
		for i := len(sec) - 1; i >= 0 && b.Tokens > b.Budget; i-- {
			if sec[i].Body != "" {
				sec[i].Body = ""
				toks[j] = sectionTokens(&b.Sections[j])
				b.Tokens = total()
			}
		}
	}
	// Then items, from the end of each section in trim order. A section
	// whose last item goes is left out whole, and named once at the end:
	// an empty header tells a model nothing and costs tokens.
	for _, key := range TrimOrder {
		for b.Tokens > b.Budget {
			i := slices.IndexFunc(b.Sections, func(s Section) bool { return s.Key == key })
			if i < 0 {
				break
			}
			if sec := &b.Sections[i]; len(sec.Items) > 1 {
				sec.Items = sec.Items[:len(sec.Items)-1]
				sec.Omitted++
				toks[i] = sectionTokens(sec)
			} else {
				b.Dropped = append(b.Dropped, sec.Title)
				b.Sections = slices.Delete(b.Sections, i, i+1)
				toks = slices.Delete(toks, i, i+1)
			}
			b.Tokens = total()
		}
	}
}

// sectionTokens is the estimate of sec as the block shows it, less the
// line break before its header (see blockParts).
func sectionTokens(sec *Section) int {
	var w strings.Builder
	// fit renders a section again at each trim: one buffer of about the
	// right size, not a chain of doublings, each time.
	w.Grow(sectionSize(sec))
	writeSection(&w, sec)
	return EstimateTokens(w.String())
}

// sectionSize is about the length of sec rendered (writeSection).
func sectionSize(sec *Section) int {
	n := 64 + len(sec.Title) + len(sec.Note)
	for i := range sec.Items {
		it := &sec.Items[i]
		n += 64 + len(it.ID) + len(it.Title) + len(it.Type) + len(it.Repo) + len(it.Summary) + len(it.Body) + len(it.Body)/16
	}
	return n
}

// clone is a copy of b that shares nothing that can be changed.
func (b *Block) clone() *Block {
	c := *b
	c.Dropped = slices.Clone(b.Dropped)
	c.Sections = cloneSections(b.Sections)
	return &c
}

// cloneSections copies secs and their items.
func cloneSections(secs []Section) []Section {
	out := make([]Section, len(secs))
	for i, sec := range secs {
		sec.Items = slices.Clone(sec.Items)
		out[i] = sec
	}
	return out
}

// mdHeader opens every block.
const mdHeader = "# Project memory (contextfs)\n\nEach item cites its memory ID: `git contextfs recall ID` (or the recall_memory tool) opens it.\n"

// Markdown renders the block for a model's context window.
//
// blockParts: the block is the header, then each section and the line of
// dropped sections, each after a line break. Every part ends with a line
// break and begins, after that line break, with a character that is none,
// so EstimateTokens of the whole is the sum of its parts' without their
// leading line break (the run of line breaks between two parts counts once
// either way): fit relies on it (TestFitCountsTheBlockAsAWhole).
func (b *Block) Markdown() string {
	var w strings.Builder
	w.WriteString(mdHeader)
	for i := range b.Sections {
		w.WriteString("\n")
		writeSection(&w, &b.Sections[i])
	}
	if len(b.Dropped) > 0 {
		w.WriteString("\n" + droppedLine(b.Dropped))
	}
	return w.String()
}

// droppedLine names the sections left out whole.
func droppedLine(dropped []string) string {
	return fmt.Sprintf("(Left out to fit the budget: %s.)\n", strings.Join(dropped, ", "))
}

// writeSection writes sec as the block shows it, from its header on.
func writeSection(w *strings.Builder, sec *Section) {
	// Strings written one by one, not formatted: fit renders a section
	// again at each trim, and the formatting's allocations added up.
	write := func(parts ...string) {
		for _, p := range parts {
			w.WriteString(p)
		}
	}
	write("## ", sec.Title, "\n\n")
	for i := range sec.Items {
		it := &sec.Items[i]
		write("- [", it.ID, "] ", it.Title, " (", it.Type)
		switch {
		case it.Repo != "":
			write("; repository ", it.Repo)
		case it.MayBeStale:
			write("; may be stale: its code changed since")
		}
		write(")")
		if sum := summaryAfter(it.Title, it.Summary); sum != "" {
			write(": ", sum)
		}
		write("\n")
		for rest, more := it.Body, it.Body != ""; more; {
			var line string
			line, rest, more = strings.Cut(rest, "\n")
			if line == "" {
				write("\n")
				continue
			}
			write("  ", line, "\n")
		}
	}
	if sec.Omitted > 0 {
		fmt.Fprintf(w, "- (%d more left out to fit the budget)\n", sec.Omitted)
	}
	if sec.Note != "" {
		fmt.Fprintf(w, "- (%s)\n", sec.Note)
	}
}

// summaryAfter is what summary adds to title. A memory saved without a
// title takes the first sentence of its first paragraph as its title and
// the paragraph as its summary, which then repeats the title: only the
// rest is said.
func summaryAfter(title, summary string) string {
	if summary == title {
		return ""
	}
	end, _ := utf8.DecodeLastRuneInString(title)
	if rest, ok := strings.CutPrefix(summary, title); ok && strings.HasPrefix(rest, " ") && strings.ContainsRune(".!?…", end) {
		return rest[1:]
	}
	return summary
}

// memoryTypes names every memory type but code and commit, which a
// search takes for the auto-index's kinds: the block cites memories only.
func memoryTypes() []string {
	var out []string
	for _, t := range memory.Types() {
		if t.Name != "code" && t.Name != "commit" {
			out = append(out, t.Name)
		}
	}
	return out
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// clip cuts s to at most n bytes at a line or word boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := s[:n]
	if i := strings.LastIndexAny(cut, "\n "); i > n/2 {
		cut = cut[:i]
	}
	for len(cut) > 0 && !utf8Start(s[len(cut)]) {
		cut = cut[:len(cut)-1]
	}
	return strings.TrimRight(cut, " \n") + " …"
}

func utf8Start(c byte) bool { return c&0xC0 != 0x80 }

// markStale flags the items of s's memories whose code was committed after
// them (Store.MayBeStale: one git log for the block, none when no item has
// paths:). A failure leaves the flags off: they are advice, and the block
// never fails for them.
func markStale(ctx context.Context, s *contextfs.Store, b *Block, staleOf func(context.Context, *contextfs.Store, []string) (map[string]bool, error)) {
	var ids []string
	for _, sec := range b.Sections {
		for _, it := range sec.Items {
			if it.Repo == "" { // another repository's memory has its own code
				ids = append(ids, it.ID)
			}
		}
	}
	if staleOf == nil {
		staleOf = func(ctx context.Context, s *contextfs.Store, ids []string) (map[string]bool, error) {
			return s.MayBeStale(ctx, ids)
		}
	}
	stale, err := staleOf(ctx, s, ids)
	if err != nil || len(stale) == 0 {
		return
	}
	for i := range b.Sections {
		for j := range b.Sections[i].Items {
			if it := &b.Sections[i].Items[j]; it.Repo == "" && stale[it.ID] {
				it.MayBeStale = true
			}
		}
	}
}

// staleFor answers MayBeStale for blocks of state, asking the store only
// about the IDs it has not been asked about since the state was last
// new. Called with bd.mu held, as assemble is.
func (bd *Builder) staleFor(state string) func(context.Context, *contextfs.Store, []string) (map[string]bool, error) {
	if bd.staleState != state {
		bd.staleState, bd.stale = state, map[string]bool{}
	}
	known := bd.stale
	return func(ctx context.Context, s *contextfs.Store, ids []string) (map[string]bool, error) {
		var missing []string
		for _, id := range ids {
			if _, ok := known[id]; !ok {
				missing = append(missing, id)
			}
		}
		if len(missing) > 0 {
			found, err := s.MayBeStale(ctx, missing)
			if err != nil {
				return nil, err
			}
			for _, id := range missing {
				known[id] = found[id]
			}
		}
		out := map[string]bool{}
		for _, id := range ids {
			if known[id] {
				out[id] = true
			}
		}
		return out, nil
	}
}
