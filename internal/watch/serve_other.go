//go:build !linux

package watch

import (
	"context"
	"fmt"
	"net"
)

// Serve returns ErrUnsupported: the daemon needs inotify.
func Serve(ctx context.Context, o ServeOptions) error { return ErrUnsupported }

// Spawn returns ErrUnsupported: there is no daemon to start.
func Spawn(exe string, args []string, dir string) error { return ErrUnsupported }

// dial always fails with ErrNotRunning, so that callers scan in full.
func dial(ctx context.Context, socket string) (net.Conn, error) {
	return nil, fmt.Errorf("%w: %w", ErrNotRunning, ErrUnsupported)
}

// Holder finds no daemon: there is none here.
func Holder(socket string) (int, error) { return 0, nil }

// Terminate finds no daemon to stop.
func Terminate(socket string) (int, error) { return 0, ErrNotRunning }
