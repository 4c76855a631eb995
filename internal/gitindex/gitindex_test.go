package gitindex

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/testgit"
)

// lsFiles is git's own reading of the index: `git ls-files --stage`.
func lsFiles(t *testing.T, dir string, extra ...string) []Entry {
	t.Helper()
	out := testgit.Run(t, dir, append([]string{"ls-files", "--stage", "-z"}, extra...)...)
	var want []Entry
	for _, rec := range strings.Split(out, "\x00") {
		if rec == "" {
			continue
		}
		meta, path, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 {
			t.Fatalf("ls-files record %q", rec)
		}
		mode, err := strconv.ParseUint(f[0], 8, 32)
		if err != nil {
			t.Fatal(err)
		}
		stage, _ := strconv.Atoi(f[2])
		want = append(want, Entry{Path: path, Mode: uint32(mode), Stage: stage})
	}
	return want
}

func write(t *testing.T, dir string, files ...string) {
	t.Helper()
	for _, f := range files {
		testgit.WriteFile(t, dir, f, "content of "+f+"\n")
	}
}

// blob stores content and returns its object name.
func blob(t *testing.T, dir, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "blob")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return testgit.Run(t, dir, "hash-object", "-w", p)
}

// TestReadsWhatGitReads builds indexes of every shape with git and checks
// that Read lists exactly what `git ls-files --stage` lists.
func TestReadsWhatGitReads(t *testing.T) {
	tests := []struct {
		name    string
		init    []string // extra arguments to git init
		setup   func(t *testing.T, dir string)
		lsExtra []string
		version uint32 // the index version the setup must have produced
	}{
		{"regular, executable, nested and non-ASCII files", nil, func(t *testing.T, dir string) {
			write(t, dir, "a.go", "pkg/b.go", "pkg/deep/er/c.go", "docs/Größe.md", "with space.txt")
			if err := os.Chmod(filepath.Join(dir, "a.go"), 0o755); err != nil {
				t.Fatal(err)
			}
			testgit.Run(t, dir, "add", ".")
		}, nil, 2},
		{"a symbolic link and a submodule", nil, func(t *testing.T, dir string) {
			write(t, dir, "target.txt")
			if err := os.Symlink("target.txt", filepath.Join(dir, "link")); err != nil {
				t.Fatal(err)
			}
			testgit.Run(t, dir, "add", ".")
			testgit.Run(t, dir, "update-index", "--add", "--cacheinfo", "160000,"+strings.Repeat("1", 40)+",vendor/sub")
		}, nil, 2},
		{"a conflict has stages 1 to 3", nil, func(t *testing.T, dir string) {
			testgit.WriteFile(t, dir, "f.txt", "base\n")
			testgit.Run(t, dir, "add", ".")
			testgit.Run(t, dir, "commit", "-qm", "base")
			testgit.Run(t, dir, "checkout", "-qb", "other")
			testgit.WriteFile(t, dir, "f.txt", "theirs\n")
			testgit.Run(t, dir, "commit", "-qam", "theirs")
			testgit.Run(t, dir, "checkout", "-q", "main")
			testgit.WriteFile(t, dir, "f.txt", "ours\n")
			write(t, dir, "g.txt")
			testgit.Run(t, dir, "add", ".")
			testgit.Run(t, dir, "commit", "-qm", "ours")
			testgit.Try(dir, "merge", "-q", "other") // fails: the conflict is the point
		}, nil, 2},
		{"intent-to-add and skip-worktree make a version 3 index", nil, func(t *testing.T, dir string) {
			write(t, dir, "kept.txt", "skipped.txt", "later.txt")
			testgit.Run(t, dir, "add", "kept.txt", "skipped.txt")
			testgit.Run(t, dir, "add", "-N", "later.txt")
			testgit.Run(t, dir, "update-index", "--skip-worktree", "skipped.txt")
		}, nil, 3},
		{"version 4 compresses each path against the one before", nil, func(t *testing.T, dir string) {
			var files []string
			for i := range 40 {
				files = append(files, "internal/very/long/shared/prefix/file"+strconv.Itoa(i)+".go")
			}
			write(t, dir, append(files, "a.go", "internal/x.go", "z/last.go")...)
			testgit.Run(t, dir, "add", ".")
			testgit.Run(t, dir, "update-index", "--index-version", "4")
		}, nil, 4},
		{"a path of 5,000 bytes overflows the flags' length", nil, func(t *testing.T, dir string) {
			long := strings.Repeat("d/", 2499) + "ff"
			testgit.Run(t, dir, "update-index", "--add", "--cacheinfo", "100644,"+blob(t, dir, "x")+","+long)
			write(t, dir, "short.go")
			testgit.Run(t, dir, "add", "short.go")
		}, nil, 2},
		{"a SHA-256 repository", []string{"--object-format=sha256"}, func(t *testing.T, dir string) {
			write(t, dir, "a.go", "b/c.go")
			testgit.Run(t, dir, "add", ".")
			testgit.Run(t, dir, "update-index", "--add", "--cacheinfo", "160000,"+strings.Repeat("2", 64)+",sub")
		}, nil, 2},
		{"a sparse index keeps directories outside the cone", nil, func(t *testing.T, dir string) {
			write(t, dir, "top.go", "in/a.go", "out/b.go", "out/deeper/c.go")
			testgit.Run(t, dir, "add", ".")
			testgit.Run(t, dir, "commit", "-qm", "files")
			testgit.Run(t, dir, "sparse-checkout", "init", "--cone", "--sparse-index")
			testgit.Run(t, dir, "sparse-checkout", "set", "in")
		}, []string{"--sparse"}, 3},
		{"an empty index", nil, func(t *testing.T, dir string) {
			write(t, dir, "a.go")
			testgit.Run(t, dir, "add", "a.go")
			testgit.Run(t, dir, "rm", "-q", "--cached", "a.go")
		}, nil, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			testgit.Run(t, dir, append([]string{"init", "-q", "-b", "main"}, tt.init...)...)
			tt.setup(t, dir)
			want := lsFiles(t, dir, tt.lsExtra...)
			got, err := Read(filepath.Join(dir, ".git"))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Errorf("Read:\n%v\ngit ls-files --stage:\n%v", got, want)
			}
			data, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
			if err != nil {
				t.Fatal(err)
			}
			if v := uint32(data[7]); v != tt.version {
				t.Errorf("the setup made a version %d index, want %d: the case tests something else", v, tt.version)
			}
		})
	}
}

func TestReadWithoutAnIndexListsNothing(t *testing.T) {
	dir := testgit.Init(t)
	got, err := Read(filepath.Join(dir, ".git"))
	if err != nil || got != nil {
		t.Errorf("Read = %v, %v; want nothing and no error", got, err)
	}
}

// indexOf builds a small index with git and returns its bytes.
func indexOf(t *testing.T, init ...string) (dir string, data []byte) {
	t.Helper()
	dir = t.TempDir()
	testgit.Run(t, dir, append([]string{"init", "-q", "-b", "main"}, init...)...)
	write(t, dir, "a.go", "b/c.go", "b/d.go")
	testgit.Run(t, dir, "add", ".")
	data, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	return dir, data
}

// Without a checksum (git's index.skipHash writes zeros in its place),
// the entries are still read, for either hash.
func TestReadsAnIndexWithoutItsChecksum(t *testing.T) {
	for _, tc := range []struct {
		name string
		init []string
		size int
	}{{"SHA-1", nil, sha1Size}, {"SHA-256", []string{"--object-format=sha256"}, sha256Size}} {
		t.Run(tc.name, func(t *testing.T) {
			dir, data := indexOf(t, tc.init...)
			clear(data[len(data)-tc.size:])
			got, err := Parse(data)
			if err != nil {
				t.Fatal(err)
			}
			if want := lsFiles(t, dir); !slices.Equal(got, want) {
				t.Errorf("Parse = %v, want %v", got, want)
			}
		})
	}
}

func TestRefusesWhatItCannotReadSaying(t *testing.T) {
	dir, data := indexOf(t)
	split := t.TempDir()
	testgit.Run(t, split, "init", "-q", "-b", "main")
	write(t, split, "a.go")
	testgit.Run(t, split, "add", ".")
	testgit.Run(t, split, "update-index", "--split-index")
	splitData, err := os.ReadFile(filepath.Join(split, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	flipped := slices.Clone(data)
	flipped[len(flipped)/2] ^= 0x20
	v5 := slices.Clone(data)
	v5[7] = 5
	_ = dir
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"not an index", []byte("hello, world, this is text"), "no DIRC signature"},
		{"empty", nil, "no DIRC signature"},
		{"a version it does not know", v5, "index version 5"},
		{"a damaged byte", flipped, "checksum mismatch"},
		{"cut short", data[:len(data)/2], "checksum mismatch"},
		{"a split index says how to undo it", splitData, "git update-index --no-split-index"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.data)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Parse = %v, %v; want an error containing %q", got, err, tt.want)
			}
		})
	}
	t.Run("Read names the file", func(t *testing.T) {
		gitDir := filepath.Join(t.TempDir(), ".git")
		if err := os.MkdirAll(gitDir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(gitDir, "index"), flipped, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Read(gitDir)
		if err == nil || !strings.Contains(err.Error(), filepath.Join(gitDir, "index")) {
			t.Errorf("Read error %v does not name the file", err)
		}
	})
}

// FuzzParse: no input makes Parse panic, hang or return an entry that is
// not one (no path, a stage beyond 3).
func FuzzParse(f *testing.F) {
	for _, setup := range [][]string{nil, {"update-index", "--index-version", "4"}, {"add", "-N", "n.txt"}} {
		dir := f.TempDir()
		if _, err := testgit.Try(dir, "init", "-q", "-b", "main"); err != nil {
			f.Fatal(err)
		}
		for _, name := range []string{"a.go", "b/c.go", "b/cc.go", "n.txt"} {
			p := filepath.Join(dir, filepath.FromSlash(name))
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, []byte(name), 0o644)
		}
		testgit.Try(dir, "add", "a.go", "b")
		if setup != nil {
			if out, err := testgit.Try(dir, setup...); err != nil {
				f.Fatal(out, err)
			}
		}
		data, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		zeroed := slices.Clone(data)
		clear(zeroed[len(zeroed)-sha1Size:])
		f.Add(zeroed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		check := func(entries []Entry, err error) {
			for _, e := range entries {
				if err == nil && (e.Path == "" || e.Stage < 0 || e.Stage > 3) {
					t.Fatalf("entry %+v", e)
				}
			}
		}
		check(Parse(data))
		// Past the checksum too, where random bytes seldom get.
		if len(data) >= 12+sha256Size {
			for _, v := range []uint32{2, 3, 4} {
				check(parse(data, v, sha1Size))
				check(parse(data, v, sha256Size))
			}
		}
	})
}
