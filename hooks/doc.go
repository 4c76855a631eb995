// Package hooks installs, checks and removes the git hook shims that keep
// contextfs current, and registers the contextfs merge driver.
//
// # Shims
//
// A hook file holds no logic of ours, only a thin shell block that calls
// the binary, so upgrading contextfs never requires reinstalling hooks:
//
//	# BEGIN contextfs (managed by `git contextfs hooks`; do not edit inside this block)
//	...
//	  git-contextfs hook pre-commit "$@" </dev/null || exit $?
//	...
//	# END contextfs
//
// pre-commit may block a commit: a non-zero exit of the binary is the exit
// of the hook. post-merge, post-checkout, post-rewrite and post-commit never
// block, since git has already done the work by then and a failure could
// only confuse. When git-contextfs is not on PATH the block warns on stderr
// and lets git carry on. Hooks that receive nothing on stdin run the binary
// with stdin closed, so it can never wait on a terminal; post-rewrite reads
// the rewritten-commit list once, hands it to the binary and then makes it
// the stdin of the rest of the file again.
//
// # Chaining
//
// A hook file that already exists belongs to the user or to another hook
// manager (husky, lefthook, the pre-commit framework), and is never
// replaced. Our block goes right after its "#!" line (or at the very top
// when there is none), not at the end: hook managers end their scripts with
// exec, with exit, or with an if whose every branch execs, and a block
// below any of those would never run. At the top, the block also sees the
// hook's arguments before the script can shift them, and leaves the exit
// status of the script to the user's last command, as before. Husky 5–8
// re-runs the hook file from inside husky.sh; an exported guard keyed on
// the parent process keeps our block to one run per hook invocation.
//
// Only shell scripts are chained; a hook written in another language, a
// binary, or a symbolic link (whose target is often a tracked file) is left
// alone and reported as an error naming the file. Lines of the block end in
// LF even inside a CRLF file: a shell that copes with CR copes with LF, and
// one that does not still runs our block.
//
// # Removal
//
// Uninstall restores each file byte for byte as it was before Install. Every
// change Install makes outside the block is recorded on a
// "# contextfs-undo:" line inside it: "created" (Install created the file;
// it is deleted again unless someone has since added to it), "newline"
// (Install ended the file's last line so the block could follow), and
// "mode=0644" (Install made the file executable). Keeping the record in the
// block rather than in a backup copy means edits made to the user's part
// after Install survive Uninstall.
//
// Installing is idempotent: an up-to-date block is not rewritten, and a
// block from an older version is replaced where it stands. Every write goes
// to a temporary file in the same directory, is synced, and is renamed over
// the hook, so git never runs a half-written hook.
//
// # Where hooks live
//
// The hooks directory is what `git rev-parse --git-path hooks` names: it
// honours core.hooksPath (relative to the top of the work tree) and, in a
// linked worktree, resolves to the common git directory, so hooks installed
// from any worktree fire in all of them. When core.hooksPath names a
// directory tracked in the repository, the files installed there show up in
// `git status`, to be committed or not as the team prefers.
package hooks
