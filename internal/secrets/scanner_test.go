package secrets_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/contextfs/contextfs/internal/secrets"
)

func mustScanner(t testing.TB, allow secrets.Allow) *secrets.Scanner {
	t.Helper()
	s, err := secrets.NewScanner(allow)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestScanReportsFindingFields(t *testing.T) {
	g := newGen(10)
	id := "AKIA" + g.s(upper+digits, 16)
	content := "---\ntitle: deploy notes\n---\n\nThe CI user is  " + id + " for now.\n"
	got := mustScanner(t, secrets.Allow{}).Scan(".contextfs/notes/deploy.md", []byte(content))
	sum := sha256.Sum256([]byte("aws-access-key-id:" + id))
	want := []secrets.Finding{{
		Path:        ".contextfs/notes/deploy.md",
		Line:        5,
		Column:      17,
		Rule:        "aws-access-key-id",
		Description: "AWS access key ID",
		Redacted:    "AKIA****************",
		Fingerprint: hex.EncodeToString(sum[:])[:16],
	}}
	if !slices.Equal(got, want) {
		t.Errorf("Scan = %+v\nwant   %+v", got, want)
	}
}

func TestFindingString(t *testing.T) {
	f := secrets.Finding{
		Path: "a/b.md", Line: 3, Column: 7, Rule: "github-token", Description: "GitHub token",
		Redacted: "ghp_********", Fingerprint: "0123456789abcdef",
	}
	const want = "a/b.md:3:7: github-token: GitHub token (ghp_********)"
	if got := f.String(); got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

func TestRedactedHidesAllButAFewCharacters(t *testing.T) {
	tests := []struct {
		name, password, want string
	}{
		{"long secret shows four characters", "s3cr3tPassw0rdValue", "s3cr" + strings.Repeat("*", 15)},
		{"twelve characters show four", "abcd5678wxyz", "abcd********"},
		{"short secret shows a third", "hunter42", "hu******"},
		{"very short secret shows nothing", "q7", "**"},
		{"multibyte secret is masked by character", "pässwörd€42", "päs********"},
	}
	s := mustScanner(t, secrets.Allow{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := s.Scan("m.md", []byte("mysql://root:"+tt.password+"@db/app"))
			if len(fs) != 1 {
				t.Fatalf("Scan = %v, want one finding", fs)
			}
			if fs[0].Redacted != tt.want {
				t.Errorf("Redacted = %q, want %q", fs[0].Redacted, tt.want)
			}
		})
	}
}

func TestScanSortsByLineAndColumn(t *testing.T) {
	g := newGen(11)
	content := strings.Join([]string{
		"url: https://u:" + g.s(alnum, 16) + "@h/ and key AKIA" + g.s(upper+digits, 16),
		"nothing here",
		"GH=ghp_" + g.s(alnum, 36),
		g.pemBlock(""),
	}, "\n")
	var got []string
	for _, f := range mustScanner(t, secrets.Allow{}).Scan("m.md", []byte(content)) {
		got = append(got, fmt.Sprintf("%d:%d:%s", f.Line, f.Column, f.Rule))
	}
	want := []string{"1:16:password-in-url", "1:44:aws-access-key-id", "3:4:github-token", "4:1:private-key"}
	if !slices.Equal(got, want) {
		t.Errorf("findings = %q, want %q", got, want)
	}
}

func TestScanFindsNothingInOrdinaryMemories(t *testing.T) {
	s := mustScanner(t, secrets.Allow{})
	for _, name := range []string{"testdata/memory.md"} {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if fs := s.Scan(name, b); len(fs) != 0 {
			t.Errorf("Scan(%s) = %v, want none", name, fs)
		}
	}
	if fs := s.Scan("empty.md", nil); fs != nil {
		t.Errorf("Scan of empty content = %v, want nil", fs)
	}
}

func TestInlineAllowSuppressesOnlyItsLine(t *testing.T) {
	g := newGen(12)
	tok := "ghp_" + g.s(alnum, 36)
	tests := []struct {
		name    string
		content string
		want    []int // lines of findings
	}{
		{"HTML comment in Markdown", "old token " + tok + " <!-- contextfs:allow-secret -->", nil},
		{"YAML comment", "token: " + tok + " # contextfs:allow-secret", nil},
		{"marker before the secret", "// contextfs:allow-secret\t" + tok, nil},
		{"marker on another line does not count", "<!-- contextfs:allow-secret -->\n" + tok, []int{2}},
		{"a private key is allowed on its BEGIN line", privateKeyHeader("") + " contextfs:allow-secret\n" + g.s(b64, 64), nil},
		{"misspelled marker does not count", tok + " <!-- contextfs:allow_secret, contextfs allow-secret -->", []int{1}},
	}
	s := mustScanner(t, secrets.Allow{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []int
			for _, f := range s.Scan("m.md", []byte(tt.content)) {
				got = append(got, f.Line)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("finding lines = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestAllow(t *testing.T) {
	g := newGen(13)
	tok := "ghp_" + g.s(alnum, 36)
	other := "glpat-" + g.s(alnum, 20)
	content := []byte("a " + tok + "\nb " + other + "\n")
	fp := mustScanner(t, secrets.Allow{}).Scan("m.md", content)[0].Fingerprint

	tests := []struct {
		name  string
		allow secrets.Allow
		path  string
		want  []string // rules reported
	}{
		{"nothing allowed reports both", secrets.Allow{}, "m.md", []string{"github-token", "gitlab-token"}},
		{"fingerprint allows that secret", secrets.Allow{Fingerprints: []string{fp}}, "m.md", []string{"gitlab-token"}},
		{"fingerprint is compared without case", secrets.Allow{Fingerprints: []string{" " + strings.ToUpper(fp) + " "}}, "m.md", []string{"gitlab-token"}},
		{"fingerprint of another secret allows nothing", secrets.Allow{Fingerprints: []string{"0000000000000000"}}, "m.md", []string{"github-token", "gitlab-token"}},
		{"pattern matched against the secret allows it", secrets.Allow{Patterns: []string{`^glpat-`}}, "m.md", []string{"github-token"}},
		{"pattern is not matched against the line", secrets.Allow{Patterns: []string{`^a `}}, "m.md", []string{"github-token", "gitlab-token"}},
		{"path glob skips the file", secrets.Allow{Paths: []string{".contextfs/fixtures/*.md"}}, ".contextfs/fixtures/m.md", nil},
		{"path glob without a slash matches the base name", secrets.Allow{Paths: []string{"*.golden"}}, "a/b/c.golden", nil},
		{"path glob with a slash does not match the base name", secrets.Allow{Paths: []string{"x/*.md"}}, "a/m.md", []string{"github-token", "gitlab-token"}},
		{"path glob does not cross directories", secrets.Allow{Paths: []string{".contextfs/*.md"}}, ".contextfs/notes/m.md", []string{"github-token", "gitlab-token"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, f := range mustScanner(t, tt.allow).Scan(tt.path, content) {
				got = append(got, f.Rule)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("rules = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestAllowedVendorFindingDoesNotResurfaceAsGeneric(t *testing.T) {
	g := newGen(14)
	content := []byte("GITHUB_TOKEN=ghp_" + g.s(alnum, 36))
	fp := mustScanner(t, secrets.Allow{}).Scan("m.md", content)[0].Fingerprint
	if fs := mustScanner(t, secrets.Allow{Fingerprints: []string{fp}}).Scan("m.md", content); fs != nil {
		t.Errorf("Scan with the token allowed = %v, want nil", fs)
	}
}

func TestNewScannerReportsEveryInvalidEntry(t *testing.T) {
	_, err := secrets.NewScanner(secrets.Allow{
		Patterns: []string{`ok`, `(unclosed`, `[z-a]`},
		Paths:    []string{"*.md", "[bad"},
	})
	if err == nil {
		t.Fatal("NewScanner succeeded, want an error")
	}
	for _, bad := range []string{"(unclosed", "[z-a]", "[bad"} {
		if !strings.Contains(err.Error(), fmt.Sprintf("%q", bad)) {
			t.Errorf("error %q does not name %q", err, bad)
		}
	}
	if strings.Contains(err.Error(), `"ok"`) || strings.Contains(err.Error(), `"*.md"`) {
		t.Errorf("error %q names a valid entry", err)
	}
}

func TestZeroScannerScansEverything(t *testing.T) {
	var s secrets.Scanner
	g := newGen(15)
	if fs := s.Scan("m.md", []byte("glpat-"+g.s(alnum, 20))); len(fs) != 1 {
		t.Errorf("Scan = %v, want one finding", fs)
	}
}

func TestScanIsSafeForConcurrentUse(t *testing.T) {
	g := newGen(16)
	content := []byte("a ghp_" + g.s(alnum, 36) + "\nb " + g.pemBlock("RSA ") + "\npassword: " + g.s(alnum, 24))
	s := mustScanner(t, secrets.Allow{Patterns: []string{"^zzz"}, Fingerprints: []string{"0123456789abcdef"}})
	want := s.Scan("m.md", content)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				if got := s.Scan("m.md", content); !slices.Equal(got, want) {
					t.Errorf("concurrent Scan = %v, want %v", got, want)
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestScanReportsPositionsInCRLFFiles(t *testing.T) {
	g := newGen(17)
	tok := "glpat-" + g.s(alnum, 20)
	fs := mustScanner(t, secrets.Allow{}).Scan("m.md", []byte("title: x\r\n\r\ntoken: "+tok+"\r\n"))
	if len(fs) != 1 || fs[0].Line != 3 || fs[0].Column != 8 || fs[0].Redacted != "glpa"+strings.Repeat("*", len(tok)-4) {
		t.Errorf("Scan = %v, want one gitlab-token at 3:8", fs)
	}
}

func FuzzScan(f *testing.F) {
	for _, cases := range ruleCases() {
		for _, c := range cases {
			f.Add(c.content)
		}
	}
	if b, err := os.ReadFile("testdata/memory.md"); err == nil {
		f.Add(string(b))
	}
	s := mustScanner(f, secrets.Allow{})
	f.Fuzz(func(t *testing.T, content string) {
		fs := s.Scan("f.md", []byte(content))
		lines := strings.Split(content, "\n")
		for i, fd := range fs {
			if i > 0 && (fd.Line < fs[i-1].Line || fd.Line == fs[i-1].Line && fd.Column < fs[i-1].Column) {
				t.Errorf("findings not sorted: %v before %v", fs[i-1], fd)
			}
			if fd.Line < 1 || fd.Line > len(lines) {
				t.Fatalf("%v: line out of range 1..%d", fd, len(lines))
			}
			line := lines[fd.Line-1]
			if fd.Column < 1 || fd.Column > len(line) {
				t.Fatalf("%v: column out of range 1..%d", fd, len(line))
			}
			// Redacted has one character per character of the secret, so the
			// secret can be read back from the line.
			n := utf8.RuneCountInString(fd.Redacted)
			secret := line[fd.Column-1:]
			for j := range secret {
				if n == 0 {
					secret = secret[:j]
					break
				}
				n--
			}
			if n > 0 {
				t.Fatalf("%v: redaction longer than the rest of the line %q", fd, line)
			}
			if utf8.RuneCountInString(secret) >= 8 && strings.Contains(fd.Redacted, secret) {
				t.Errorf("%v: Redacted discloses the secret %q", fd, secret)
			}
			if len(fd.Fingerprint) != 16 {
				t.Errorf("%v: fingerprint is not 16 hex digits", fd)
			}
		}
	})
}

func BenchmarkScan(b *testing.B) {
	content, err := os.ReadFile("testdata/memory.md")
	if err != nil {
		b.Fatal(err)
	}
	s := mustScanner(b, secrets.Allow{Paths: []string{"*.golden"}, Patterns: []string{"^test_"}})
	if fs := s.Scan("memory.md", content); len(fs) != 0 {
		b.Fatalf("benchmark memory has findings: %v", fs)
	}
	b.SetBytes(int64(len(content)))
	b.ReportAllocs()
	for b.Loop() {
		s.Scan("memory.md", content)
	}
}

func ExampleScanner_Scan() {
	s, err := secrets.NewScanner(secrets.Allow{Paths: []string{"*.golden"}})
	if err != nil {
		panic(err)
	}
	memory := "---\ntitle: Deploy\n---\n\nDeploy with:\n\n    DEPLOY_TOKEN=" + "glpat-" + "Vq3xT9mK2pLw8RzN4bYc" + "\n"
	for _, f := range s.Scan(".contextfs/runbooks/deploy.md", []byte(memory)) {
		fmt.Println(f)
	}
	// Output:
	// .contextfs/runbooks/deploy.md:7:18: gitlab-token: GitLab personal access token (glpa**********************)
}

// BenchmarkScan4KB scans a typical memory of 4 KB: the first 4 KB of the
// benchmark memory, cut at a line end.
func BenchmarkScan4KB(b *testing.B) {
	content, err := os.ReadFile("testdata/memory.md")
	if err != nil {
		b.Fatal(err)
	}
	content = content[:bytes.LastIndexByte(content[:4096], '\n')+1]
	s := mustScanner(b, secrets.Allow{})
	if fs := s.Scan("memory.md", content); len(fs) != 0 {
		b.Fatalf("benchmark memory has findings: %v", fs)
	}
	b.SetBytes(int64(len(content)))
	b.ReportAllocs()
	for b.Loop() {
		s.Scan("memory.md", content)
	}
}
