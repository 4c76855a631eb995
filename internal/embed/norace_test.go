//go:build !race

package embed

// raceEnabled reports a -race build, in which sync.Pool drops items at
// random and allocation counts mean nothing.
const raceEnabled = false
