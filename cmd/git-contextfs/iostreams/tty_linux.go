package iostreams

import (
	"os"

	"golang.org/x/sys/unix"
)

// isTerminal asks the terminal driver: a character device is not enough,
// since /dev/null is one too, and `list > /dev/null` must not start a
// pager.
func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// terminalWidth is the columns of the terminal f, 0 when it does not say.
func terminalWidth(f *os.File) int {
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil {
		return 0
	}
	return int(ws.Col)
}
