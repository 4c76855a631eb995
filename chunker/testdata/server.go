// Package kv implements a tiny in-memory key/value server used by the
// integration tests.
package kv

import (
	"encoding/json"
	"errors"
	"net/http"
	"sync"
)

// ErrNotFound is returned when a key is absent.
var ErrNotFound = errors.New("kv: not found")

const defaultCapacity = 64

// Store is a concurrency-safe map of keys to values.
type Store struct {
	mu   sync.RWMutex
	data map[string]string
}

// NewStore returns an empty Store.
func NewStore() *Store {
	return &Store{data: make(map[string]string, defaultCapacity)}
}

// Get returns the value stored under key.
func (s *Store) Get(key string) (string, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	v, ok := s.data[key]
	if !ok {
		return "", ErrNotFound
	}
	return v, nil
}

// Put stores value under key, replacing any previous value.
func (s *Store) Put(key, value string) {
	s.mu.Lock()
	s.data[key] = value
	s.mu.Unlock()
}

// Getter is the read side of a Store.
type Getter interface {
	Get(key string) (string, error)
}

type (
	// Key names an entry.
	Key string
	// Value is an entry's payload.
	Value = string
)

// Server exposes a Store over HTTP.
type Server struct {
	store *Store
}

// ServeHTTP answers GET /?key=k with the value as JSON.
func (srv *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	key := r.URL.Query().Get("key")
	v, err := srv.store.Get(key)
	if errors.Is(err, ErrNotFound) {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]string{key: v})
}

func (srv Server) String() string { return "kv.Server" }

// Keys returns the keys of m in no particular order.
func Keys[K comparable, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}
