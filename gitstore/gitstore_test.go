package gitstore

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/contextfs/contextfs/memory"
)

// git runs the real git CLI in dir with an isolated configuration.
func runGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null",
		"GIT_AUTHOR_NAME=Ada", "GIT_AUTHOR_EMAIL=ada@example.com", "GIT_COMMITTER_NAME=Ada", "GIT_COMMITTER_EMAIL=ada@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func tempRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	runGit(t, dir, "init", "-q", "-b", "main")
	return dir
}

const sample = `---
id: k3x9m2abcd
type: decision
title: Pool DB connections with pgxpool
# reviewers asked us to keep this tag list short
tags:
  - db
  - postgres
created: 2024-05-01T10:00:00Z
updated: 2024-05-01T10:00:00Z
owner: platform-team
data:
  decision: pgxpool, 20 per instance
  status: accepted
---
We pool Postgres connections with **pgxpool**.

* one pool per process
`

func TestCodecRoundTrip(t *testing.T) {
	m, doc, err := Decode("a.md", []byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	if m.ID != "k3x9m2abcd" || m.Type != "decision" || len(m.Tags) != 2 || m.Data["status"] != "accepted" {
		t.Fatalf("decoded %+v", m)
	}
	t.Run("saving an unchanged memory changes no byte", func(t *testing.T) {
		out, err := Encode(m, doc, false)
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != sample {
			t.Fatalf("changed:\n%s", out)
		}
	})
	t.Run("an edit changes only the edited lines and keeps unknown keys and comments", func(t *testing.T) {
		m, doc, _ := Decode("a.md", []byte(sample))
		m.Tags = append(m.Tags, "pgx")
		m.Updated = time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)
		out, err := Encode(m, doc, false)
		if err != nil {
			t.Fatal(err)
		}
		want := strings.Replace(sample, "  - postgres\n", "  - postgres\n  - pgx\n", 1)
		want = strings.Replace(want, "updated: 2024-05-01T10:00:00Z", "updated: 2024-06-01T00:00:00Z", 1)
		if string(out) != want {
			t.Fatalf("got\n%s\nwant\n%s", out, want)
		}
	})
	t.Run("a list that gains or loses an item keeps the comments beside the rest", func(t *testing.T) {
		src := "---\nid: abcd1234\ntype: fact\ntitle: T\n# the tags\ntags:\n  - db # the database\n  # why ops\n  - ops\n  - gone # leaves\n" +
			"links:\n  - efgh5678 # the pool decision\n  - {id: ijkl9012, rel: depends_on} # must hold\n---\nbody\n"
		tests := []struct {
			name string
			edit func(m *memory.Memory)
			want string
		}{
			{"a tag removed and one added", func(m *memory.Memory) { m.Tags = []string{"db", "ops", "new"} },
				"---\nid: abcd1234\ntype: fact\ntitle: T\n# the tags\ntags:\n  - db # the database\n  # why ops\n  - ops\n  - new\n" +
					"links:\n  - efgh5678 # the pool decision\n  - {id: ijkl9012, rel: depends_on} # must hold\n---\nbody\n"},
			{"a link added", func(m *memory.Memory) { m.Links = append(m.Links, memory.Link{ID: "mnop3456", Rel: "references"}) },
				"---\nid: abcd1234\ntype: fact\ntitle: T\n# the tags\ntags:\n  - db # the database\n  # why ops\n  - ops\n  - gone # leaves\n" +
					"links:\n  - efgh5678 # the pool decision\n  - {id: ijkl9012, rel: depends_on} # must hold\n  - {id: mnop3456, rel: references}\n---\nbody\n"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				m, doc, err := Decode("a.md", []byte(src))
				if err != nil {
					t.Fatal(err)
				}
				tt.edit(m)
				out, err := Encode(m, doc, false)
				if err != nil {
					t.Fatal(err)
				}
				if string(out) != tt.want {
					t.Fatalf("got\n%s\nwant\n%s", out, tt.want)
				}
			})
		}
	})
	t.Run("canonical encoding is idempotent and ordered", func(t *testing.T) {
		m, doc, _ := Decode("a.md", []byte("---\ntags: [b, a]\nzzz: kept\ntype: fact\nid: abcd1234\n---\nbody\n"))
		once, err := Encode(m, doc, true)
		if err != nil {
			t.Fatal(err)
		}
		want := "---\nid: abcd1234\ntype: fact\ntags:\n  - b\n  - a\nzzz: kept\n---\nbody\n"
		if string(once) != want {
			t.Fatalf("got\n%s\nwant\n%s", once, want)
		}
		m2, doc2, _ := Decode("a.md", once)
		twice, _ := Encode(m2, doc2, true)
		if !bytes.Equal(once, twice) {
			t.Fatalf("not idempotent:\n%s\n%s", once, twice)
		}
	})
	t.Run("a new memory is written canonically", func(t *testing.T) {
		ts := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
		m := &memory.Memory{ID: "abcd1234", Type: "fact", Title: "T: with colon", Tags: []string{"x"}, Created: ts, Updated: ts,
			Data: map[string]any{"confidence": 0.9, "category": "infra"}, Body: "text\n"}
		out, err := Encode(m, nil, true)
		if err != nil {
			t.Fatal(err)
		}
		want := "---\nid: abcd1234\ntype: fact\ntitle: 'T: with colon'\ntags:\n  - x\ncreated: 2024-01-02T03:04:05Z\nupdated: 2024-01-02T03:04:05Z\ndata:\n  category: infra\n  confidence: 0.9\n---\ntext\n"
		if string(out) != want {
			t.Fatalf("got\n%s\nwant\n%s", out, want)
		}
		back, _, err := Decode("x.md", out)
		if err != nil || back.Title != m.Title || !back.Created.Equal(ts) {
			t.Fatalf("round trip: %+v %v", back, err)
		}
	})
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name, src string
		line      int
		msg       string
	}{
		{"no frontmatter", "just text\n", 1, "no frontmatter"},
		{"broken yaml", "---\nid: a\nb: c\nd: : e\n---\n", 4, "mapping values"},
		{"tags must be a list of values", "---\nid: abcd\ntags:\n  a: b\n---\n", 3, "tags: must be a list"},
		{"created must be a time", "---\nid: abcd\ncreated: soon\n---\n", 3, "created: must be a date"},
		{"data must be a mapping", "---\nid: abcd\ndata: 3\n---\n", 3, "data: must be a mapping"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Decode("f.md", []byte(tt.src))
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("want DecodeError, got %v", err)
			}
			if de.Line != tt.line || !strings.Contains(de.Msg, tt.msg) || !strings.HasPrefix(err.Error(), "f.md:") {
				t.Fatalf("got %v (line %d)", err, de.Line)
			}
		})
	}
}

func TestDiscover(t *testing.T) {
	dir := tempRepo(t)
	os.WriteFile(filepath.Join(dir, "f"), []byte("x"), 0o644)
	runGit(t, dir, "add", "f")
	runGit(t, dir, "commit", "-qm", "init")
	sub := filepath.Join(dir, "a", "b")
	os.MkdirAll(sub, 0o755)
	wt := filepath.Join(t.TempDir(), "wt")
	runGit(t, dir, "worktree", "add", "-q", wt)
	t.Setenv("GIT_DIR", "")
	os.Unsetenv("GIT_DIR")
	tests := []struct {
		name, from, root string
		linked           bool
	}{
		{"from the top of the work tree", dir, dir, false},
		{"from a subdirectory", sub, dir, false},
		{"from a linked worktree", wt, wt, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Discover(tt.from)
			if err != nil {
				t.Fatal(err)
			}
			rootReal, _ := filepath.EvalSymlinks(tt.root)
			gotReal, _ := filepath.EvalSymlinks(r.Root)
			if gotReal != rootReal {
				t.Errorf("root = %s, want %s", r.Root, tt.root)
			}
			if tt.linked == (r.GitDir == r.CommonDir) {
				t.Errorf("git dir %s, common %s", r.GitDir, r.CommonDir)
			}
			if want := runGit(t, tt.from, "rev-parse", "--absolute-git-dir"); filepath.Clean(want) != r.GitDir {
				t.Errorf("git dir = %s, git says %s", r.GitDir, want)
			}
		})
	}
	t.Run("outside a repository is a clear error", func(t *testing.T) {
		_, err := Discover(t.TempDir())
		if !errors.Is(err, ErrNotRepo) {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("a folder that does not exist is named, not walked up from", func(t *testing.T) {
		inside := filepath.Join(tempRepo(t), "no-such-dir")
		r, err := Discover(inside)
		if err == nil || !strings.Contains(err.Error(), "no such folder") {
			t.Fatalf("got %v, %v; want no such folder", r, err)
		}
	})
	t.Run("a bare repository is named as one", func(t *testing.T) {
		bare := filepath.Join(t.TempDir(), "b.git")
		runGit(t, filepath.Dir(bare), "init", "-q", "--bare", bare)
		_, err := Discover(bare)
		if !errors.Is(err, ErrNotRepo) || !strings.Contains(err.Error(), "bare repository") || strings.Contains(err.Error(), "not a git repository") {
			t.Fatalf("got %v; want a bare repository named, and not called no repository", err)
		}
	})
	t.Run("the .git folder of a work tree is not taken for a bare repository", func(t *testing.T) {
		dir := tempRepo(t)
		_, err := Discover(filepath.Join(dir, ".git"))
		if err != nil && strings.Contains(err.Error(), "bare") {
			t.Fatalf("got %v", err)
		}
	})
}

func TestListReadRefAndBlobOID(t *testing.T) {
	dir := tempRepo(t)
	r, err := Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		".contextfs/memories/a-1111.md": sample,
		".contextfs/team/b-2222.md":     "---\nid: b2222\ntype: fact\n---\nB\n",
		".contextfs/README.md":          "not a memory",
		".contextfs/config.yaml":        "search: {}\n",
		".contextfs/.hidden/c.md":       "hidden",
		"docs/other.md":                 "outside",
	}
	for p, c := range files {
		if err := WriteFileAtomic(r.Abs(p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ents, err := r.List()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		got = append(got, e.Path)
	}
	if strings.Join(got, " ") != ".contextfs/memories/a-1111.md .contextfs/team/b-2222.md" {
		t.Fatalf("List = %v", got)
	}
	runGit(t, dir, "add", "-A")
	runGit(t, dir, "commit", "-qm", "memories")
	for _, p := range got {
		if want := runGit(t, dir, "rev-parse", "HEAD:"+p); BlobOID([]byte(files[p])) != want {
			t.Errorf("BlobOID(%s) != git's %s", p, want)
		}
	}
	os.Remove(r.Abs(".contextfs/team/b-2222.md"))
	at, err := r.ReadRef("HEAD")
	if err != nil {
		t.Fatal(err)
	}
	if len(at) != 2 || at[1].Path != ".contextfs/team/b-2222.md" || string(at[1].Content) != files[at[1].Path] {
		t.Fatalf("ReadRef = %+v", at)
	}
	if _, err := r.ReadRef("no-such-branch"); err == nil {
		t.Fatal("want error for a bad revision")
	}
}

func TestCreateFileExclusiveNeverOverwrites(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "m.md")
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			errs[i] = CreateFileExclusive(p, []byte(strings.Repeat(string(rune('a'+i)), 100)))
		}(i)
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		if err == nil {
			ok++
		} else if !errors.Is(err, os.ErrExist) {
			t.Errorf("unexpected error %v", err)
		}
	}
	if ok != 1 {
		t.Fatalf("%d creates succeeded, want 1", ok)
	}
	b, _ := os.ReadFile(p)
	if len(b) != 100 || strings.Count(string(b), string(b[0])) != 100 {
		t.Fatalf("content mixed: %q", b)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Fatalf("temp files left behind: %v", ents)
	}
}

func TestListAgreesWithThePortableWalk(t *testing.T) {
	dir := tempRepo(t)
	r, err := Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{".contextfs/memories/a.md", ".contextfs/x/y/b.md", ".contextfs/.hidden/c.md", ".contextfs/x/.d.md",
		".contextfs/README.md", ".contextfs/x/README.md", ".contextfs/config.yaml", ".contextfs/x/e.txt"} {
		WriteFileAtomic(r.Abs(p), []byte(p), 0o644)
	}
	for i := 0; i < 600; i++ { // more than one stat batch in a folder
		WriteFileAtomic(r.Abs(fmt.Sprintf(".contextfs/memories/m%03d.md", i)), []byte("x"), 0o644)
	}
	os.Symlink("a.md", r.Abs(".contextfs/memories/link.md"))
	fast, err := r.List()
	if err != nil {
		t.Fatal(err)
	}
	slow, err := r.listPortable(r.MemoryDir())
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(slow, func(i, j int) bool { return slow[i].Path < slow[j].Path })
	if len(fast) != 602 || !reflect.DeepEqual(fast, slow) {
		t.Fatalf("List found %d, the portable walk %d; first: %+v / %+v", len(fast), len(slow), fast[:2], slow[:2])
	}
}

// TestReadFileReportsOverSizeFilesWithoutReadingThem checks the size
// limit of ReadFile at and past its bound.
func TestReadFileReportsOverSizeFilesWithoutReadingThem(t *testing.T) {
	dir := t.TempDir()
	r := &Repo{Root: dir, MaxFileBytes: 100}
	for _, c := range []struct {
		name string
		size int
		ok   bool
	}{{"a file at the limit is read", 100, true}, {"a file past the limit is reported", 101, false}} {
		t.Run(c.name, func(t *testing.T) {
			if err := os.WriteFile(filepath.Join(dir, "f.md"), make([]byte, c.size), 0o644); err != nil {
				t.Fatal(err)
			}
			b, err := r.ReadFile("f.md")
			var tl *memory.TooLargeError
			switch {
			case c.ok && (err != nil || len(b) != c.size):
				t.Fatalf("got %d bytes, %v", len(b), err)
			case !c.ok && (!errors.As(err, &tl) || tl.Path != "f.md" || tl.Size != int64(c.size) || b != nil):
				t.Fatalf("got %d bytes, %v; want a TooLargeError", len(b), err)
			}
		})
	}
}

func TestMemoryWritesOverTheSizeLimitWriteNothing(t *testing.T) {
	dir := t.TempDir()
	r := &Repo{Root: dir, MaxFileBytes: 100}
	writers := []struct {
		name  string
		write func(rel string, data []byte) error
	}{
		{"create", r.CreateMemoryFile},
		{"rewrite", func(rel string, data []byte) error { return r.WriteMemoryFile(rel, data, 0o644) }},
	}
	for _, w := range writers {
		for _, c := range []struct {
			size int
			ok   bool
		}{{100, true}, {101, false}} {
			t.Run(fmt.Sprintf("%s of %d bytes", w.name, c.size), func(t *testing.T) {
				rel := fmt.Sprintf("%s-%d.md", w.name, c.size)
				err := w.write(rel, make([]byte, c.size))
				_, statErr := os.Stat(filepath.Join(dir, rel))
				var tl *memory.TooLargeError
				switch {
				case c.ok && (err != nil || statErr != nil):
					t.Fatalf("write: %v; stat: %v", err, statErr)
				case !c.ok && (!errors.As(err, &tl) || tl.Path != rel || tl.Size != int64(c.size) || tl.Limit != 100):
					t.Fatalf("write: %v; want a TooLargeError for %s", err, rel)
				case !c.ok && !errors.Is(statErr, os.ErrNotExist):
					t.Fatalf("a file over the limit was written: %v", statErr)
				}
			})
		}
	}
}

// TestAtomicWritesNameTempFilesApartAndCleanThemByAge checks that an
// abandoned temporary file is never a memory path, and that the next
// write in its folder removes it once it is old, but not a fresh one.
func TestAtomicWritesNameTempFilesApartAndCleanThemByAge(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, TempPrefix+"123")
	legacy := filepath.Join(dir, ".a-1234.md.tmp-999")
	fresh := filepath.Join(dir, TempPrefix+"456")
	for _, p := range []string{old, legacy, fresh} {
		if err := os.WriteFile(p, []byte("---\nid: abcd\n---\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if IsMemoryPath(Dir + "/memories/" + filepath.Base(p)) {
			t.Errorf("%s is taken for a memory", filepath.Base(p))
		}
	}
	past := time.Now().Add(-2 * TempMaxAge)
	os.Chtimes(old, past, past)
	os.Chtimes(legacy, past, past)
	if err := WriteFileAtomic(filepath.Join(dir, "m.md"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]bool{old: false, legacy: false, fresh: true} {
		if _, err := os.Stat(p); (err == nil) != want {
			t.Errorf("%s exists = %v, want %v", filepath.Base(p), err == nil, want)
		}
	}
}

// TestOdditiesReportsTempFilesSymlinksAndControlCharacters checks that
// the files memories skip are reported, and that a name with a newline is
// not a memory.
func TestOdditiesReportsTempFilesSymlinksAndControlCharacters(t *testing.T) {
	root := t.TempDir()
	r := &Repo{Root: root}
	mem := filepath.Join(root, Dir, "memories")
	if err := os.MkdirAll(mem, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(mem, "ok-abcd.md"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(mem, TempPrefix+"1"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(mem, "new\nline-abcd.md"), []byte("x"), 0o644)
	if err := os.Symlink("/etc/passwd", filepath.Join(mem, "link-abcd.md")); err != nil {
		t.Fatal(err)
	}
	got, err := r.Oddities()
	if err != nil {
		t.Fatal(err)
	}
	want := []Oddity{
		{Dir + "/memories/" + TempPrefix + "1", OddTemp},
		{Dir + "/memories/link-abcd.md", OddSymlink},
		{Dir + "/memories/new\nline-abcd.md", OddName},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Oddities() = %q, want %q", got, want)
	}
	entries, err := r.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Path != Dir+"/memories/ok-abcd.md" {
		t.Fatalf("List() = %v, want only ok-abcd.md", entries)
	}
}

// TestMemoryWritesSweepTheirFolderAtMostEverySweepEvery checks that the
// writes of memory files look for abandoned temporary files on the first
// write and then only once SweepEvery has passed since the last look, as
// recorded in the git directory, and every time without one.
func TestMemoryWritesSweepTheirFolderAtMostEverySweepEvery(t *testing.T) {
	root := t.TempDir()
	r := &Repo{Root: root, GitDir: filepath.Join(root, ".git")}
	mem := filepath.Join(root, Dir, "memories")
	if err := os.MkdirAll(mem, 0o755); err != nil {
		t.Fatal(err)
	}
	abandon := func(name string) string {
		p := filepath.Join(mem, TempPrefix+name)
		if err := os.WriteFile(p, []byte("half"), 0o644); err != nil {
			t.Fatal(err)
		}
		past := time.Now().Add(-2 * TempMaxAge)
		os.Chtimes(p, past, past)
		return p
	}
	exists := func(p string) bool { _, err := os.Stat(p); return err == nil }
	first := abandon("1")
	if err := r.CreateMemoryFile(Dir+"/memories/a.md", []byte("a")); err != nil {
		t.Fatal(err)
	}
	if exists(first) {
		t.Fatal("the first write did not sweep")
	}
	second := abandon("2")
	if err := r.CreateMemoryFile(Dir+"/memories/b.md", []byte("b")); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteMemoryFile(Dir+"/memories/b.md", []byte("b2"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !exists(second) {
		t.Fatal("a write within SweepEvery of the last sweep swept again")
	}
	stamps, _ := filepath.Glob(filepath.Join(r.GitDir, "contextfs", "swept-*"))
	if len(stamps) != 1 {
		t.Fatalf("stamps %v, want one for the folder", stamps)
	}
	past := time.Now().Add(-SweepEvery - time.Minute)
	os.Chtimes(stamps[0], past, past)
	if err := r.WriteMemoryFile(Dir+"/memories/b.md", []byte("b3"), 0o644); err != nil {
		t.Fatal(err)
	}
	if exists(second) {
		t.Fatal("a write after SweepEvery did not sweep")
	}
	if b, _ := os.ReadFile(filepath.Join(mem, "b.md")); string(b) != "b3" {
		t.Fatalf("b.md = %q", b)
	}
	// Without a git directory to keep the time in, every write sweeps.
	bare := &Repo{Root: root}
	third := abandon("3")
	if err := bare.CreateMemoryFile(Dir+"/memories/c.md", []byte("c")); err != nil {
		t.Fatal(err)
	}
	if exists(third) {
		t.Fatal("a write with no git directory did not sweep")
	}
}

// A file's recorded time is when its status last changed, not the
// modification time it claims: cp -p, rsync -t, tar and touch -r put an
// old modification time back after the write, and an edit that also
// keeps the size then looked unchanged to every command run without the
// watcher. Every way of stating a memory file says the same.
func TestEntriesCarryTheStatusChangeTime(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the status-change time is read on Linux only (gitstore/stat_other.go)")
	}
	root := t.TempDir()
	r := &Repo{Root: root, GitDir: filepath.Join(root, ".git")}
	mem := filepath.Join(root, Dir, "memories")
	if err := os.MkdirAll(mem, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(mem, "a.md")
	if err := os.WriteFile(p, []byte("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	past := time.Now().Add(-time.Hour)
	if err := os.Chtimes(p, past, past); err != nil {
		t.Fatal(err)
	}
	listed, err := r.List()
	if err != nil || len(listed) != 1 {
		t.Fatalf("List: %v, %v", listed, err)
	}
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	for name, e := range map[string]Entry{
		"List":      listed[0],
		"StatPaths": r.StatPaths([]string{Dir + "/memories/a.md"})[0],
		"EntryOf":   EntryOf(Dir+"/memories/a.md", fi),
	} {
		if when := time.Unix(0, e.Changed); when.Before(past.Add(30 * time.Minute)) {
			t.Errorf("%s: time %v is the modification time put back, not when the file changed", name, when)
		}
	}
}
