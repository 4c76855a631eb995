//go:build !linux

package iostreams

import "os"

// isTerminal takes a character device for a terminal.
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// terminalWidth is 0: the size is not asked here, so COLUMNS or 80 is used.
func terminalWidth(*os.File) int { return 0 }
