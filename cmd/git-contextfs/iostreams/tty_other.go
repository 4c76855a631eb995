//go:build !linux

package iostreams

import "os"

// isTerminal takes a character device for a terminal.
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
