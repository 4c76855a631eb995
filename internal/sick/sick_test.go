package sick

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const head = "pair_ID\tsentence_A\tsentence_B\trelatedness_score\tentailment_judgment\n"

func TestLoadRealDataSet(t *testing.T) {
	path, err := Locate()
	if err != nil {
		t.Fatal(err)
	}
	pairs, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(pairs) != 4500 {
		t.Fatalf("Load(%s) = %d pairs, want 4500", path, len(pairs))
	}
	first := Pair{
		ID:    1,
		A:     "A group of kids is playing in a yard and an old man is standing in the background",
		B:     "A group of boys in a yard is playing and a man is standing in the background",
		Score: 4.5, Entailment: "NEUTRAL",
	}
	if pairs[0] != first {
		t.Errorf("first pair = %+v, want %+v", pairs[0], first)
	}
	for _, p := range pairs {
		if p.Score < 1 || p.Score > 5 || p.A == "" || p.B == "" {
			t.Fatalf("implausible pair %+v", p)
		}
	}
}

func TestLoadRejectsMalformedInput(t *testing.T) {
	tests := []struct {
		name    string
		content string
		wantErr string // substring of the error
	}{
		{"empty file names the missing header", "", "empty file"},
		{"wrong header is reported on line 1", "id\ta\tb\tscore\n1\tx\ty\t3\n", ":1: header"},
		{"header alone has no pairs", head, "no pairs"},
		{"too few fields report line and count", head + "1\ta\tb\t4.5\tNEUTRAL\n2\tonly two\n", ":3: 2 tab-separated fields"},
		{"non-integer ID is quoted", head + "x1\ta\tb\t4\tNEUTRAL\n", `:2: pair_ID "x1"`},
		{"non-numeric score is quoted", head + "1\ta\tb\thigh\tNEUTRAL\n", `:2: pair 1: relatedness_score "high"`},
		{"score above 5 is out of range", head + "1\ta\tb\t5.5\tNEUTRAL\n", "outside [1, 5]"},
		{"score below 1 is out of range", head + "1\ta\tb\t0\tNEUTRAL\n", "outside [1, 5]"},
		{"NaN score is out of range", head + "1\ta\tb\tNaN\tNEUTRAL\n", "outside [1, 5]"},
		{"empty sentence is rejected", head + "1\t \tb\t3\tNEUTRAL\n", ":2: pair 1: empty sentence"},
		{"duplicate ID names both lines", head + "7\ta\tb\t3\tN\n\n7\tc\td\t2\tN\n", ":4: pair_ID 7 already used on line 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "dataset.txt")
			if err := os.WriteFile(path, []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Load(path)
			if err == nil {
				t.Fatalf("Load succeeded, want error containing %q", tt.wantErr)
			}
			if !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), path) {
				t.Errorf("Load error = %q, want it to name %s and contain %q", err, path, tt.wantErr)
			}
		})
	}
}

func TestLoadAcceptsCRLFBlankLinesAndFourColumns(t *testing.T) {
	content := "\uFEFF" + strings.ReplaceAll(head, "\n", "\r\n") +
		"1\tA dog runs\tA dog is running\t4.9\tENTAILMENT\r\n" +
		"\r\n" +
		"2\tA cat sleeps\tA man cooks\t1.1\r\n"
	path := filepath.Join(t.TempDir(), "dataset.txt")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []Pair{{1, "A dog runs", "A dog is running", 4.9, "ENTAILMENT"}, {2, "A cat sleeps", "A man cooks", 1.1, ""}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("Load = %+v, want %+v", got, want)
	}
}

func TestLoadMissingFileNamesIt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nope.txt")
	_, err := Load(path)
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("Load(%s) error = %v, want one naming the path", path, err)
	}
}

func TestLocateHonoursEnv(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "sick.txt")
	if err := os.WriteFile(file, []byte(head), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		env     string
		want    string
		wantErr string
	}{
		{"existing file is returned as is", file, file, ""},
		{"missing file is an error naming the variable", filepath.Join(dir, "missing.txt"), "", "$CONTEXTFS_SICK"},
		{"directory is an error", dir, "", "not a regular file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(EnvPath, tt.env)
			got, err := Locate()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Locate() = %q, %v; want error containing %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Locate() = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestLocateFailureSaysHowToFetch(t *testing.T) {
	empty := t.TempDir()
	t.Setenv(EnvPath, "")
	t.Setenv("GOMODCACHE", empty)
	t.Setenv("GOPATH", empty)
	t.Setenv("HOME", empty)
	t.Setenv("GOTOOLCHAIN", "local") // never fetch a toolchain to answer `go env`
	// The go command writes telemetry counters under the user config
	// directory, sometimes after `go env` has returned; kept out of the
	// test's temp dir, they cannot make its removal fail.
	config, err := os.MkdirTemp("", "sick-config-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(config) })
	t.Setenv("XDG_CONFIG_HOME", config)
	_, err = Locate()
	if err == nil {
		t.Fatal("Locate succeeded with an empty module cache")
	}
	for _, want := range []string{"go mod download github.com/kelindar/search@v0.5.0", empty, "CONTEXTFS_SICK"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Locate error = %q, want it to contain %q", err, want)
		}
	}
}

func TestSpearman(t *testing.T) {
	tests := []struct {
		name string
		x, y []float64
		want float64
	}{
		{"identical order is 1", []float64{1, 2, 3, 4}, []float64{10, 20, 30, 40}, 1},
		{"reversed order is -1", []float64{1, 2, 3, 4}, []float64{4, 3, 2, 1}, -1},
		{"monotone but nonlinear is 1", []float64{1, 2, 3, 4}, []float64{1, 8, 27, 1000}, 1},
		// Ranks x = 1, 2.5, 2.5, 4 and y = 1, 2, 3, 4: Pearson of the ranks is
		// 4.5/sqrt(4.5*5).
		{"ties get average ranks", []float64{1, 2, 2, 3}, []float64{1, 2, 3, 4}, 4.5 / math.Sqrt(4.5*5)},
		{"constant input is undefined", []float64{1, 1, 1}, []float64{1, 2, 3}, math.NaN()},
		{"one value is undefined", []float64{1}, []float64{1}, math.NaN()},
		{"NaN input is undefined", []float64{1, math.NaN(), 3}, []float64{1, 2, 3}, math.NaN()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Spearman(tt.x, tt.y)
			if math.IsNaN(tt.want) {
				if !math.IsNaN(got) {
					t.Errorf("Spearman = %v, want NaN", got)
				}
				return
			}
			if math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("Spearman = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestSpearmanPanicsOnLengthMismatch(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Spearman with different lengths did not panic")
		}
	}()
	Spearman([]float64{1, 2}, []float64{1})
}
