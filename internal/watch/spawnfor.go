package watch

// SpawnFor starts git-contextfs's watcher for the work tree at root: exe,
// the git-contextfs program, run as `watch run --repo root` with Spawn.
// Both the CLI and the MCP server program start it so.
func SpawnFor(exe, root string) error {
	return Spawn(exe, []string{"watch", "run", "--repo", root}, root)
}
