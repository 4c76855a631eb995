package watch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"
)

func TestCallRunsTheHandlerAndReturnsItsBytes(t *testing.T) {
	// Any bytes survive, including newlines and "end" lines inside the
	// payload and the answer: they are framed by size, not by lines.
	payload := []byte("line one\nend\n\x00\xff binary")
	d := startDaemon(t, ServeOptions{Call: func(ctx context.Context, name string, p []byte) ([]byte, error) {
		return append([]byte(name+":"), p...), nil
	}})
	got, err := CallDaemon(context.Background(), d.socket, "echo", payload, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if want := append([]byte("echo:"), payload...); !bytes.Equal(got, want) {
		t.Fatalf("answer %q, want %q", got, want)
	}
	// The daemon still answers queries as before.
	if _, err := Query(context.Background(), d.socket, ""); err != nil {
		t.Fatalf("query after a call: %v", err)
	}
}

func TestCallErrorsComeBackAsCallError(t *testing.T) {
	tests := []struct {
		name    string
		handler func(context.Context, string, []byte) ([]byte, error)
		want    string
	}{
		{"a daemon without a handler refuses", nil, "answers no calls"},
		{"the handler's error is the message", func(context.Context, string, []byte) ([]byte, error) {
			return nil, errors.New("declined: another build")
		}, "declined: another build"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := startDaemon(t, ServeOptions{Call: tt.handler})
			_, err := CallDaemon(context.Background(), d.socket, "run", []byte("{}"), time.Second)
			var ce *CallError
			if !errors.As(err, &ce) || !strings.Contains(ce.Msg, tt.want) {
				t.Fatalf("error %v, want a CallError with %q", err, tt.want)
			}
		})
	}
}

func TestCallWithErrRetireStopsTheDaemonAfterAnswering(t *testing.T) {
	d := startDaemon(t, ServeOptions{Call: func(context.Context, string, []byte) ([]byte, error) {
		return nil, fmt.Errorf("program replaced: %w", ErrRetire)
	}})
	_, err := CallDaemon(context.Background(), d.socket, "run", nil, time.Second)
	var ce *CallError
	if !errors.As(err, &ce) {
		t.Fatalf("error %v, want the handler's refusal", err)
	}
	if err := d.exited(t); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if _, err := Status(context.Background(), d.socket); !errors.Is(err, ErrNotRunning) {
		t.Fatalf("status after retiring: %v, want ErrNotRunning", err)
	}
}

func TestCallWithoutDaemonIsNotRunning(t *testing.T) {
	_, err := CallDaemon(context.Background(), t.TempDir()+"/watch.sock", "run", nil, time.Second)
	if !errors.Is(err, ErrNotRunning) {
		t.Fatalf("error %v, want ErrNotRunning", err)
	}
}

func TestCallRequestsTheServerRefuses(t *testing.T) {
	d := startDaemon(t, ServeOptions{Call: func(_ context.Context, _ string, p []byte) ([]byte, error) { return p, nil }})
	tests := []struct{ name, req string }{
		{"a size over the limit", fmt.Sprintf("v1 call run %d\n", maxCallPayload+1)},
		{"a negative size", "v1 call run -1\n"},
		{"no size", "v1 call run\n"},
		{"a name with a space", "v1 call \"a b\" 1\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := net.Dial("unix", d.socket)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(waitTimeout))
			c.Write([]byte(tt.req))
			var buf bytes.Buffer
			buf.ReadFrom(c)
			if !strings.HasPrefix(buf.String(), "v1 err ") {
				t.Fatalf("answer %q, want an error", buf.String())
			}
		})
	}
}

func TestCallDaemonRefusesAnOversizedRequest(t *testing.T) {
	d := startDaemon(t, ServeOptions{})
	_, err := CallDaemon(context.Background(), d.socket, "run", make([]byte, maxCallPayload+1), time.Second)
	if err == nil || !strings.Contains(err.Error(), "over the") {
		t.Fatalf("error %v, want the size refused before sending", err)
	}
}

func TestDialAcceptsADaemonOfThisUser(t *testing.T) {
	// checkPeer compares the daemon's uid with ours; another user's daemon
	// cannot be made here without privileges, so this pins the accepting
	// side: a check that refused every peer would fail it.
	d := startDaemon(t, ServeOptions{})
	c, err := dial(context.Background(), d.socket)
	if err != nil {
		t.Fatalf("dial own daemon: %v", err)
	}
	c.Close()
}
