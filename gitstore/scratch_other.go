//go:build !unix

package gitstore

// flockWorks says HoldScratch's lock tells live scratch files from
// abandoned ones: not without flock, where age alone does.
const flockWorks = false
