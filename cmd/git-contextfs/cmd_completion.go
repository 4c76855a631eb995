package main

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/workflow"
	"github.com/contextfs/contextfs/memory"
)

// ---------------------------------------------------------------------------
// git contextfs completion bash|zsh|fish|powershell, and what completes

// gitBashShim is what git's own bash completion needs: for `git contextfs
// <TAB>` it calls a function named _git_contextfs, which asks the binary
// (cobra's __complete) with the words after "contextfs".
const gitBashShim = `
# git's bash completion calls _git_<command> for "git <command> <TAB>".
_git_contextfs ()
{
	local i=$(( ${__git_cmd_idx:-1} + 1 )) out directive line
	local cur_word="${words[cword]}"
	local -a args=("${words[@]:i:cword-i}") comps=()
	out=$(git-contextfs __complete "${args[@]}" "$cur_word" 2>/dev/null) || return
	directive=${out##*:}
	out=${out%:*}
	while IFS= read -r line; do
		[[ -n $line ]] && comps+=("${line%%$'\t'*}")
	done <<< "$out"
	if (( ${#comps[@]} == 0 )); then
		(( directive & 4 )) || COMPREPLY=($(compgen -f -- "$cur_word"))
		return
	fi
	local IFS=$'\n'
	COMPREPLY=($(compgen -W "${comps[*]}" -- "$cur_word"))
	# git's completion is registered with -o nospace and adds the space
	# after a finished word itself; so does this, unless told not to.
	(( directive & 2 )) || COMPREPLY=("${COMPREPLY[@]/%/ }")
	return 0
}
`

// completionCmd replaces cobra's default completion command: its scripts
// complete git-contextfs, while a git user types `git contextfs`, which
// git's completion hands to _git_contextfs (bash) or _git-contextfs with
// words starting at "contextfs" (zsh).
func (a *app) completionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "completion bash|zsh|fish|powershell",
		Short: "Print the shell completion script, for git contextfs and git-contextfs",
		Long: `Prints the completion script for the shell. It completes commands, flags,
memory IDs (with their titles) for every command that takes one, types,
tags, the values of --kind, --mode, --rel, --reason, --format, --scope,
--tests and --dedup, setup's clients and, for review, branches and
revision ranges, both as "git contextfs" under git's own completion and as
"git-contextfs".

bash: needs git's completion loaded (the bash-completion package does it).
zsh:  git's _git completion calls _git-contextfs, which this defines.
fish: fish's git completion hands "git contextfs" to git-contextfs's.`,
		Example: `  source <(git contextfs completion bash)      # in ~/.bashrc
  git contextfs completion zsh > "${fpath[1]}/_git-contextfs"
  git contextfs completion fish > ~/.config/fish/completions/git-contextfs.fish`,
		ValidArgs: []string{"bash", "zsh", "fish", "powershell"},
		Args: cobra.MatchAll(argsRange(1, 1), func(c *cobra.Command, args []string) error {
			if err := cobra.OnlyValidArgs(c, args); err != nil {
				return &usageError{fmt.Errorf("%w: the shells are bash, zsh, fish and powershell", err)}
			}
			return nil
		}),
		RunE: func(cmd *cobra.Command, args []string) error {
			root, w := cmd.Root(), a.io.Out
			switch args[0] {
			case "bash":
				if err := root.GenBashCompletionV2(w, true); err != nil {
					return err
				}
				_, err := fmt.Fprint(w, gitBashShim)
				return err
			case "zsh":
				var b bytes.Buffer
				if err := root.GenZshCompletion(&b); err != nil {
					return err
				}
				// Under git's _git, words[1] is "contextfs", not the binary.
				script := strings.ReplaceAll(b.String(), `requestComp="${words[1]} __complete`, `requestComp="git-contextfs __complete`)
				_, err := fmt.Fprint(w, script)
				return err
			case "fish":
				return root.GenFishCompletion(w, true)
			default:
				return root.GenPowerShellCompletionWithDesc(w)
			}
		},
	}
}

// addCompletions registers the dynamic completions on the commands that
// take memory IDs, types, tags, modes and revisions.
func (a *app) addCompletions(root *cobra.Command) {
	root.CompletionOptions.DisableDefaultCmd = true
	root.AddCommand(a.completionCmd())
	for _, c := range root.Commands() {
		switch c.Name() {
		case "recall", "delete", "update", "related", "lineage", "evolve", "split", "graph":
			c.ValidArgsFunction = a.completeIDs(1)
		case "link", "unlink":
			c.ValidArgsFunction = a.completeIDs(2)
		case "merge":
			c.ValidArgsFunction = a.completeIDs(-1)
		case "setup":
			c.ValidArgsFunction = fixed("claude\tClaude Code: MCP server and session hooks", "cursor\tCursor: MCP server", "codex\tCodex: MCP server")
		case "schema":
			c.ValidArgsFunction = func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
				return typeNames(false), cobra.ShellCompDirectiveNoFileComp
			}
		case "review":
			c.ValidArgsFunction = a.completeRevisions
		}
		if c.Flags().Lookup("type") != nil {
			code := c.Name() == "search"
			c.RegisterFlagCompletionFunc("type", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
				return typeNames(code), cobra.ShellCompDirectiveNoFileComp
			})
		}
		for _, name := range []string{"tag", "add-tag", "remove-tag"} {
			if c.Flags().Lookup(name) != nil {
				c.RegisterFlagCompletionFunc(name, a.completeTags)
			}
		}
		flagValues := map[string][]string{
			"rel":    memory.Relations(),
			"reason": memory.Reasons(),
			"format": formats[c.Name()],
			"kind":   {"memory\tmemories (the default shows them first)", "code\tindexed source code", "doc\tindexed documentation files", "commit\tthe branch's commits"},
			"scope":  {"repo\tthis repository's memories", "user\tyour own store", "all\tboth"},
			"tests":  {"include\tranked below other code", "exclude", "only"},
			"group":  {"file\tone result per file"},
			"dedup":  {"skip\tdo not write a repeat (default)", "update\tupdate the memory it repeats", "error", "allow", "supersede\twrite it as the new version of what it repeats", "off\tno check"},
		}
		for name, values := range flagValues {
			if len(values) > 0 && c.Flags().Lookup(name) != nil {
				c.RegisterFlagCompletionFunc(name, fixed(values...))
			}
		}
		if c.Flags().Lookup("mode") != nil {
			c.RegisterFlagCompletionFunc("mode", cobra.FixedCompletions(
				[]string{"hybrid\tkeywords and meaning, fused", "keyword\tBM25 over the words", "semantic\tby meaning (embeddings)"},
				cobra.ShellCompDirectiveNoFileComp))
		}
	}
}

// formats are the values of --format, by command.
var formats = map[string][]string{
	"context": {"markdown", "json"},
	"review":  {"markdown", "json"},
	"graph":   {"mermaid", "dot", "json"},
}

// fixed completes a fixed list of values (each "value\tdescription" or a
// bare value), never file names.
func fixed(values ...string) cobra.CompletionFunc {
	return cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp)
}

// typeNames are the memory types with their descriptions, and with code
// the kinds search also takes.
func typeNames(code bool) []string {
	var out []string
	for _, t := range memory.Types() {
		out = append(out, t.Name+"\t"+t.Description)
	}
	if code {
		out = append(out, "code\tindexed source code", "commit\tindexed commit messages")
	}
	return out
}

// entries lists the memories for completion; a repository without
// contextfs completes nothing rather than printing an error into the
// user's command line.
func (a *app) entries(ctx context.Context) []contextfs.Entry {
	s, err := a.openStore(ctx)
	if err != nil {
		return nil
	}
	defer s.Close()
	es, err := s.List(ctx, contextfs.ListOptions{})
	if err != nil {
		return nil
	}
	return es
}

// completeIDs completes memory IDs, with titles as descriptions, for the
// first n arguments (n < 0: every argument), leaving out those given.
func (a *app) completeIDs(n int) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if n >= 0 && len(args) >= n {
			return nil, cobra.ShellCompDirectiveDefault
		}
		var out []string
		for _, e := range a.entries(cmd.Context()) {
			if strings.HasPrefix(e.ID, strings.ToLower(toComplete)) && !slices.Contains(args, e.ID) {
				out = append(out, e.ID+"\t"+e.Title)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeTags completes the tags the memories use.
func (a *app) completeTags(cmd *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
	var tags []string
	for _, e := range a.entries(cmd.Context()) {
		tags = append(tags, e.Tags...)
	}
	slices.Sort(tags)
	return slices.Compact(tags), cobra.ShellCompDirectiveNoFileComp
}

// completeRevisions completes review's one argument: a branch, tag or
// remote branch, and after "A.." or "A..." the other end of the range.
func (a *app) completeRevisions(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	refs, err := workflow.RevisionNames(cmd.Context(), a.workDir())
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	prefix := ""
	if i := strings.LastIndex(toComplete, ".."); i >= 0 {
		end := i + 2
		if strings.HasPrefix(toComplete[end:], ".") {
			end++
		}
		prefix = toComplete[:end]
	}
	comps := make([]string, 0, len(refs))
	for _, r := range refs {
		comps = append(comps, prefix+r)
	}
	return comps, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
}
