package chunker

import "testing"

func TestIsTestAndIsProse(t *testing.T) {
	tests := []struct {
		path        string
		test, prose bool
	}{
		{"repo.go", false, false},
		{"repo_test.go", true, false},
		{"internal/testing/helper.go", true, false},
		{"tests/test_utils.py", true, false},
		{"src/test_utils.py", true, false},
		{"src/utils_test.py", true, false},
		{"src/utils.py", false, false},
		{"conftest.py", true, false},
		{"src/__tests__/cart.ts", true, false},
		{"src/cart.spec.ts", true, false},
		{"src/cart.test.js", true, false},
		{"src/contest.ts", false, false},
		{"spec/models/user_spec.rb", true, false},
		{"src/main/java/FooTest.java", true, false},
		{"README.md", false, true},
		{"docs/api.rst", false, true},
		{"HISTORY", false, true},
		{"CHANGELOG.txt", false, true},
		{"guide.adoc", false, true},
		{"config.yaml", false, false},
	}
	for _, tt := range tests {
		if got := IsTest(tt.path); got != tt.test {
			t.Errorf("IsTest(%q) = %v, want %v", tt.path, got, tt.test)
		}
		if got := IsProse(tt.path); got != tt.prose {
			t.Errorf("IsProse(%q) = %v, want %v", tt.path, got, tt.prose)
		}
	}
}

func TestProseIsChunkedByHeadings(t *testing.T) {
	tests := []struct {
		name, path, src string
		want            []string // section symbols in order
	}{
		{"reStructuredText underlines and overlines", "guide.rst",
			"=====\nTitle\n=====\n\nIntro.\n\nInstall\n-------\n\npip install.\n\nUsage\n~~~~~\n\nCall it.\n",
			[]string{"Title", "Install", "Usage"}},
		{"AsciiDoc titles", "guide.adoc", "= Guide\n\nIntro.\n\n== Install\n\nRun it.\n", []string{"Guide", "Install"}},
		{"plain text without headings falls back to windows", "notes.txt", "one\n\ntwo\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ck := New(Options{})
			defer ck.Close()
			chunks, err := ck.Chunk(tt.path, []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range chunks {
				if c.Kind == "section" {
					got = append(got, c.Symbol)
				}
			}
			if len(got) != len(tt.want) {
				t.Fatalf("sections %q, want %q", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("section %d = %q, want %q", i, got[i], tt.want[i])
				}
			}
		})
	}
}
