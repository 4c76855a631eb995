//go:build unix

package gitstore

// flockWorks says HoldScratch's lock tells live scratch files from
// abandoned ones here.
const flockWorks = true
