package main

import (
	"context"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/cmd/git-contextfs/iostreams"
	"github.com/contextfs/contextfs/internal/embed"
)

// initBudget is what the package initialisers of git-contextfs may
// allocate in all (docs/DESIGN.md, "Start-up"). Today about 400 KB, nearly
// all of it third-party: goldmark's parser and util tables (250 KB, about
// 0.6 ms, the price of reading Markdown with the design card's library),
// go-git's ref reader (90 KB, most of it encoding/gob's registrations
// for gcfg, which its storage package links; about 0.45 ms), yaml.v3;
// ours allocate almost nothing.
const initBudget = 480 << 10

// TestVersionStartsNothingItDoesNotNeed runs `git-contextfs --version` as
// a real process with GODEBUG=inittrace=1 and holds it to the start-up
// budget: none of the packages dropped from the binary for their
// initialisers is back, none of ours builds a table at start, and all
// initialisers together stay within initBudget.
func TestVersionStartsNothingItDoesNotNeed(t *testing.T) {
	cmd := exec.Command(filepath.Join(binDir, "git-contextfs"), "--version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("--version: %v\n%s", err, out)
	}
	// Linked for one rarely run command each, and costly at every start.
	gone := []string{
		"github.com/russross/blackfriday/v2", // cobra/doc's Markdown, for man
		"github.com/go-git/go-git/v5",        // go-git's transports, for review's ReadRef
		"golang.org/x/crypto/ssh",
		"github.com/ProtonMail/go-crypto/openpgp/internal/ecc",
		"github.com/yuin/goldmark", // its root and HTML renderer: we only parse
		"github.com/yuin/goldmark/renderer/html",
		"net/http", // provider openai's client: git-contextfs-embed makes its requests
		"crypto/tls",
		"crypto/x509",
		// go-git's plumbing, storage and gcfg are linked for reading refs
		// (gitstore.Head), not its index or config readers (docs/DESIGN.md).
	}
	total := 0
	for _, line := range strings.Split(string(out), "\n") {
		// init PKG @T ms, C ms clock, B bytes, N allocs
		f := strings.Fields(line)
		if len(f) < 11 || f[0] != "init" || f[8] != "bytes," {
			continue
		}
		pkg := f[1]
		bytes, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("inittrace line %q: %v", line, err)
		}
		total += bytes
		for _, g := range gone {
			if pkg == g {
				t.Errorf("%s is initialised at start again (%d bytes)", pkg, bytes)
			}
		}
		if strings.HasPrefix(pkg, "github.com/contextfs/") && bytes > 4<<10 {
			t.Errorf("%s allocates %d bytes at start; build its tables on first use (sync.OnceValue)", pkg, bytes)
		}
	}
	if total == 0 {
		t.Fatalf("no inittrace lines in the output:\n%s", out)
	}
	if total > initBudget {
		t.Errorf("initialisers allocate %d bytes in all, over the budget of %d", total, initBudget)
	}
}

// TestVersionDoesNotBuildTheLexicon checks that --version leaves the
// built-in embedder's lexicon unbuilt: it runs in a fresh process (this
// test binary again) so that no other test has built it, and compares
// what --version allocates with what the first embedding then allocates,
// which loads the lexicon: its two maps and the word weights, about 77 KB
// (parsing the word lists, before lexicon_table.go was generated, was
// 595 KB).
func TestVersionDoesNotBuildTheLexicon(t *testing.T) {
	if os.Getenv("CONTEXTFS_TEST_VERSION_ALLOCS") == "1" {
		var before, mid, after runtime.MemStats
		runtime.ReadMemStats(&before)
		ios, _, _, _ := iostreams.Test()
		if code := (&app{io: ios}).run(context.Background(), []string{"--version"}); code != 0 {
			t.Fatalf("--version: exit %d", code)
		}
		runtime.ReadMemStats(&mid)
		if _, err := embed.NewBuiltin().Embed(context.Background(), []string{"pooled database connections"}); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		os.Stdout.WriteString("\nallocs " + strconv.FormatUint(mid.TotalAlloc-before.TotalAlloc, 10) + " " +
			strconv.FormatUint(after.TotalAlloc-mid.TotalAlloc, 10) + "\n")
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestVersionDoesNotBuildTheLexicon$", "-test.count=1")
	cmd.Env = append(os.Environ(), "CONTEXTFS_TEST_VERSION_ALLOCS=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	_, rest, ok := strings.Cut(string(out), "\nallocs ")
	f := strings.Fields(rest)
	if !ok || len(f) < 2 {
		t.Fatalf("child printed no figures:\n%s", out)
	}
	version, _ := strconv.Atoi(f[0])
	embedding, _ := strconv.Atoi(f[1])
	if embedding < 48<<10 {
		t.Errorf("the first embedding allocated %d bytes: the lexicon was built before it, by --version or at start", embedding)
	}
	if version > embedding/2 {
		t.Errorf("--version allocated %d bytes, the first embedding %d: --version should build no tables", version, embedding)
	}
}

// TestNoProcessorProbeRunsBeforeMain holds both programs to having no
// C constructor that probes the processor. libgcc's __cpu_indicator_init,
// which __builtin_cpu_supports links, runs a dozen cpuid instructions in
// every process before main; under a hypervisor each traps (perf put them
// at about 0.1 ms of --version; docs/DESIGN.md, "Start-up").
// cache/dots.c asks the processor itself, on its first scan.
func TestNoProcessorProbeRunsBeforeMain(t *testing.T) {
	for _, prog := range []string{"git-contextfs", "git-contextfs-mcp"} {
		f, err := elf.Open(filepath.Join(binDir, prog))
		if err != nil {
			if runtime.GOOS != "linux" {
				t.Skipf("%s is not an ELF file on %s", prog, runtime.GOOS)
			}
			t.Fatal(err)
		}
		syms, err := f.Symbols()
		f.Close()
		if err != nil {
			t.Fatalf("%s: symbols: %v", prog, err)
		}
		if len(syms) < 1000 {
			t.Fatalf("%s: only %d symbols; was it built stripped?", prog, len(syms))
		}
		for _, s := range syms {
			if s.Name == "__cpu_indicator_init" {
				t.Errorf("%s links libgcc's __cpu_indicator_init: some C code uses __builtin_cpu_supports", prog)
			}
		}
	}
}
