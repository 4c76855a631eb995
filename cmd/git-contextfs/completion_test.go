package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/testgit"
)

// gitBashCompletion is where Debian's git package puts git's bash
// completion (bash-completion loads it on demand).
const gitBashCompletion = "/usr/share/bash-completion/completions/git"

// completeScript loads git's completion and ours into bash, then runs the
// function git registered for "git" on the command line in $1, as bash
// does on TAB, and prints the candidates separated by "|".
const completeScript = `source "$GIT_COMPLETION"
source <(git-contextfs completion bash)
COMP_LINE="$1"; COMP_POINT=${#COMP_LINE}
read -ra COMP_WORDS <<< "$1"
[[ $1 == *" " ]] && COMP_WORDS+=("")
COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
COMPREPLY=()
__git_wrap__git_main
printf '%s|' "${COMPREPLY[@]}"
`

func TestBashCompletionUnderGitsCompletion(t *testing.T) {
	if _, err := os.Stat(gitBashCompletion); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is missing; .ci/run installs bash-completion", gitBashCompletion)
		}
		t.Skipf("git's bash completion is not installed (%v): apt-get install bash-completion git", err)
	}
	dir := testgit.Init(t)
	ok(t, dir, "init")
	id := strings.TrimSpace(ok(t, dir, "save", "--type", "decision", "--tag", "db", "--title", "Pool connections", "Use pgxpool."))
	other := strings.TrimSpace(ok(t, dir, "save", "--type", "decision", "--title", "Deploy with Flux", "GitOps from main."))
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-qm", "base", "--no-verify")
	testgit.Run(t, dir, "branch", "feature")

	tests := []struct {
		line string
		want []string // candidates that must be offered
	}{
		{"git contextfs se", []string{"search "}},
		{"git contextfs recall ", []string{id + " "}},
		{"git contextfs recall " + id[:2], []string{id + " "}},
		{"git contextfs search --mode ", []string{"hybrid ", "keyword ", "semantic "}},
		{"git contextfs save --type dec", []string{"decision "}},
		{"git contextfs list --tag ", []string{"db "}},
		{"git contextfs review main..", []string{"main..feature", "main..HEAD"}},
		{"git contextfs review fea", []string{"feature"}},
		{"git -C " + dir + " contextfs recall ", []string{id + " "}},
		{"git contextfs link ", []string{id + " "}},
		{"git contextfs evolve ", []string{id + " "}},
		{"git contextfs lineage ", []string{id + " "}},
		{"git contextfs related ", []string{id + " "}},
		{"git contextfs split ", []string{id + " "}},
		{"git contextfs graph ", []string{id + " "}},
		{"git contextfs merge " + id + " ", []string{other + " "}},
		{"git contextfs link --rel ", []string{"depends_on ", "supersedes "}},
		{"git contextfs evolve --reason ", []string{"correction ", "decay "}},
		{"git contextfs graph --format ", []string{"mermaid ", "dot ", "json "}},
		{"git contextfs review --format ", []string{"markdown ", "json "}},
		{"git contextfs search --kind ", []string{"memory ", "code ", "doc ", "commit "}},
		{"git contextfs search --scope ", []string{"repo ", "user ", "all "}},
		{"git contextfs update --add-tag ", []string{"db "}},
		{"git contextfs setup ", []string{"claude ", "cursor ", "codex "}},
		{"git contextfs export ", []string{"agents-md ", "claude-md ", "cursor-rules "}},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			cmd := exec.Command("bash", "--norc", "--noprofile", "-c", completeScript, "complete", tt.line)
			cmd.Dir = dir
			cmd.Env = append(testgit.Env(), "GIT_COMPLETION="+gitBashCompletion, "CONTEXTFS_WATCH=off")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("bash: %v\n%s", err, out)
			}
			got := strings.Split(strings.TrimSuffix(string(out), "|"), "|")
			for _, w := range tt.want {
				found := false
				for _, g := range got {
					found = found || g == w
				}
				if !found {
					t.Errorf("%q completes to %q, want %q among them", tt.line, got, w)
				}
			}
		})
	}
}

func TestCompletionScriptsSpeakGit(t *testing.T) {
	tests := []struct {
		shell string
		want  []string
	}{
		{"bash", []string{"_git_contextfs ()", "__start_git-contextfs"}},
		{"zsh", []string{"#compdef git-contextfs", `requestComp="git-contextfs __complete`}},
		{"fish", []string{"complete -c git-contextfs"}},
	}
	for _, tt := range tests {
		t.Run(tt.shell, func(t *testing.T) {
			out := ok(t, t.TempDir(), "completion", tt.shell)
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("the %s script lacks %q", tt.shell, w)
				}
			}
			if strings.Contains(out, `requestComp="${words[1]} __complete`) {
				t.Errorf("the %s script asks ${words[1]}, which is \"contextfs\" under git's _git", tt.shell)
			}
		})
	}
	if r := cli(t, t.TempDir(), "", "completion", "tcsh"); r.code != 2 {
		t.Errorf("completion tcsh: exit %d, want 2", r.code)
	}
}
