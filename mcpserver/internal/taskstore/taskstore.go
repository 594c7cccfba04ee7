// Package taskstore owns the table of one MCP server's tasks (mcpserver/tasks.go): the entries
// by id, which client each belongs to, the bytes each holds, the per-client and per-server
// quotas (a count and a byte budget), the expiry of a task waiting for input
// (Limits.InputTTL) and of a finished one (Limits.TTL). It knows nothing of MCP: the protocol
// handlers (tasks/get, tasks/update, tasks/cancel, the tools/call middleware) keep each
// task's status and round in the entry's Value and tell the store what the task holds
// (Resize), when it waits for input (Wait, Resume) and when it finished (Finish).
//
// Eviction: a new entry (or a grown one) may push out the oldest finished entries of its own
// client only; another client's finished entry stays until its TTL has passed. The anonymous
// bucket (Anonymous: every request without subject or session) evicts nothing: it holds many
// clients' results. Expiry runs on
// timers (time.AfterFunc), not goroutines.
package taskstore

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Anonymous is the client key of requests with neither an authenticated subject nor a
// session: they share one bucket, bounded by Limits.AnonymousTasks and AnonymousBytes.
const Anonymous = ""

// ErrStopped is returned by Add after Stop.
var ErrStopped = errors.New("the server is stopping its tasks: no new task is accepted")

// Limits bound a Store. Every field must be positive (see Limits.Check).
type Limits struct {
	MaxTasks       int           // tasks the server holds, running, waiting or finished
	MaxBytes       int64         // bytes the server's tasks hold (input, state, arguments, results)
	ClientTasks    int           // tasks one client (subject or session) holds
	ClientBytes    int64         // bytes one client's tasks hold
	AnonymousTasks int           // tasks the anonymous bucket holds (every client without a key)
	AnonymousBytes int64         // bytes the anonymous bucket holds
	TTL            time.Duration // how long a finished task is kept
	InputTTL       time.Duration // how long a task may wait for input before it expires
}

// Check reports the first field that is not positive.
func (l Limits) Check() error {
	for _, f := range []struct {
		name string
		v    int64
	}{{"MaxTasks", int64(l.MaxTasks)}, {"MaxBytes", l.MaxBytes}, {"ClientTasks", int64(l.ClientTasks)},
		{"ClientBytes", l.ClientBytes}, {"AnonymousTasks", int64(l.AnonymousTasks)}, {"AnonymousBytes", l.AnonymousBytes},
		{"TTL", int64(l.TTL)}, {"InputTTL", int64(l.InputTTL)}} {
		if f.v <= 0 {
			return fmt.Errorf("taskstore: %s must be positive, got %d", f.name, f.v)
		}
	}
	return nil
}

// LimitError is a refusal by a quota. Limit names it in words ("tasks per client"), Key as
// the configuration file names it ("client_tasks", "client_mb": mcpserver.TaskOptions), Max
// is its value (a count, or bytes when Bytes).
type LimitError struct {
	Limit  string
	Key    string
	Max    int64
	Bytes  bool
	Server bool // a server-wide limit, not the client's own
}

func (e *LimitError) Error() string {
	if e.Bytes {
		return fmt.Sprintf("task limit reached: %s (%s: %d bytes)", e.Limit, e.Key, e.Max)
	}
	return fmt.Sprintf("task limit reached: %s (%s = %d)", e.Limit, e.Key, e.Max)
}

// Entry is one task in the store; Value is the protocol handler's.
type Entry[V any] struct {
	ID     string
	Client string
	Value  V

	// guarded by Store.mu
	bytes    int64
	finished bool
	removed  bool
	stop     func() bool // stops the input or the TTL timer
}

type usage struct {
	tasks int
	bytes int64
	fin   []string // ids of finished entries, oldest first
}

// Store is a task table. The zero value is not usable: use New.
type Store[V any] struct {
	lim       Limits
	afterFunc AfterFunc

	mu      sync.Mutex
	stopped bool
	entries map[string]*Entry[V]
	clients map[string]*usage
	tasks   int
	bytes   int64
}

// New returns an empty store bounded by lim (lim.Check must pass; New panics otherwise,
// a programming error).
func New[V any](lim Limits) *Store[V] {
	if err := lim.Check(); err != nil {
		panic(err)
	}
	return &Store[V]{lim: lim, afterFunc: realAfterFunc, entries: map[string]*Entry[V]{}, clients: map[string]*usage{}}
}

// AfterFunc runs f once d has passed (in its own goroutine) unless the returned stop is
// called first; stop reports whether it stopped f. time.AfterFunc by default; tests set a
// fake clock's (SetAfterFunc).
type AfterFunc func(d time.Duration, f func()) (stop func() bool)

func realAfterFunc(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }

// SetAfterFunc replaces the store's timers (for tests); call it before the first Add.
func (s *Store[V]) SetAfterFunc(af AfterFunc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.afterFunc = af
}

// Limits returns the store's limits.
func (s *Store[V]) Limits() Limits { return s.lim }

func (s *Store[V]) quota(client string) (int, int64, string, string) {
	if client == Anonymous {
		return s.lim.AnonymousTasks, s.lim.AnonymousBytes, "of clients without a session", "anonymous_"
	}
	return s.lim.ClientTasks, s.lim.ClientBytes, "per client", "client_"
}

// newID is 128 random bits in hex.
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// fits makes room for extra tasks and more bytes of client, dropping the client's own oldest
// finished entries (never another client's, none of the anonymous bucket) while a bound is
// exceeded; the LimitError of the
// bound still exceeded, else nil. s.mu is held.
func (s *Store[V]) fits(client string, extraTasks int, more int64, keep *Entry[V]) error {
	u := s.clients[client]
	if u == nil {
		u = &usage{}
	}
	ctasks, cbytes, share, key := s.quota(client)
	for {
		var err error
		switch {
		case u.tasks+extraTasks > ctasks:
			err = &LimitError{Limit: "tasks " + share, Key: key + "tasks", Max: int64(ctasks)}
		case u.bytes+more > cbytes:
			err = &LimitError{Limit: "task bytes " + share, Key: key + "mb", Max: cbytes, Bytes: true}
		case s.tasks+extraTasks > s.lim.MaxTasks:
			err = &LimitError{Limit: "tasks per server", Key: "max_tasks", Max: int64(s.lim.MaxTasks), Server: true}
		case s.bytes+more > s.lim.MaxBytes:
			err = &LimitError{Limit: "task bytes per server", Key: "max_mb", Max: s.lim.MaxBytes, Bytes: true, Server: true}
		}
		if err == nil {
			return nil
		}
		// The anonymous bucket is many clients: one of them must not push out another's
		// result, so it waits for the TTL.
		if client == Anonymous || !s.dropOldestFinished(u, keep) {
			return err
		}
	}
}

// dropOldestFinished removes u's oldest finished entry other than keep; false if none.
func (s *Store[V]) dropOldestFinished(u *usage, keep *Entry[V]) bool {
	for i, id := range u.fin {
		if e := s.entries[id]; e != nil && e != keep {
			u.fin = append(u.fin[:i:i], u.fin[i+1:]...)
			s.remove(e)
			return true
		}
	}
	return false
}

// Add makes an entry of client holding bytes, or refuses it: ErrStopped after Stop, a
// *LimitError naming the quota that is full.
func (s *Store[V]) Add(client string, bytes int64, value V) (*Entry[V], error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return nil, ErrStopped
	}
	if err := s.fits(client, 1, bytes, nil); err != nil {
		return nil, err
	}
	e := &Entry[V]{ID: newID(), Client: client, Value: value, bytes: bytes}
	s.entries[e.ID] = e
	u := s.clients[client]
	if u == nil {
		u = &usage{}
		s.clients[client] = u
	}
	u.tasks++
	u.bytes += bytes
	s.tasks++
	s.bytes += bytes
	return e, nil
}

// Resize sets the bytes e holds; growing it may fail with a *LimitError (e is unchanged then).
func (s *Store[V]) Resize(e *Entry[V], bytes int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.resize(e, bytes)
}

func (s *Store[V]) resize(e *Entry[V], bytes int64) error {
	if e.removed {
		return nil
	}
	if d := bytes - e.bytes; d > 0 {
		if err := s.fits(e.Client, 0, d, e); err != nil {
			return err
		}
	}
	u := s.clients[e.Client]
	u.bytes += bytes - e.bytes
	s.bytes += bytes - e.bytes
	e.bytes = bytes
	return nil
}

// Wait starts e's wait for input: expire runs once InputTTL has passed, unless Resume or
// Finish came first.
func (s *Store[V]) Wait(e *Entry[V], expire func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e.removed || e.finished {
		return
	}
	s.stopTimer(e)
	e.stop = s.afterFunc(s.lim.InputTTL, expire)
}

// Resume ends e's wait for input.
func (s *Store[V]) Resume(e *Entry[V]) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !e.finished {
		s.stopTimer(e)
	}
}

func (s *Store[V]) stopTimer(e *Entry[V]) {
	if e.stop != nil {
		e.stop()
		e.stop = nil
	}
}

// Finish marks e finished, holding bytes (its result): it is removed after TTL, or earlier
// when its own client needs the room. A result that does not fit is refused with a
// *LimitError and e stays unfinished: finish it again with what fits (0 bytes, an error).
func (s *Store[V]) Finish(e *Entry[V], bytes int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e.removed || e.finished {
		return nil
	}
	if err := s.resize(e, bytes); err != nil {
		return err
	}
	s.stopTimer(e)
	e.finished = true
	u := s.clients[e.Client]
	u.fin = append(u.fin, e.ID)
	e.stop = s.afterFunc(s.lim.TTL, func() { s.Remove(e) })
	return nil
}

// Get returns the entry id, or nil if it is unknown or was removed.
func (s *Store[V]) Get(id string) *Entry[V] {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.entries[id]
}

// Remove drops e (no-op if it is gone).
func (s *Store[V]) Remove(e *Entry[V]) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.remove(e)
}

func (s *Store[V]) remove(e *Entry[V]) {
	if e.removed {
		return
	}
	e.removed = true
	s.stopTimer(e)
	delete(s.entries, e.ID)
	u := s.clients[e.Client]
	u.tasks--
	u.bytes -= e.bytes
	for i, id := range u.fin {
		if id == e.ID {
			u.fin = append(u.fin[:i:i], u.fin[i+1:]...)
			break
		}
	}
	if u.tasks == 0 {
		delete(s.clients, e.Client)
	}
	s.tasks--
	s.bytes -= e.bytes
}

// Stop refuses every later Add (ErrStopped) and returns the entries held now.
func (s *Store[V]) Stop() []*Entry[V] {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopped = true
	out := make([]*Entry[V], 0, len(s.entries))
	for _, e := range s.entries {
		out = append(out, e)
	}
	return out
}

// Usage is what a store (or one client of it) holds.
type Usage struct {
	Tasks   int
	Bytes   int64
	Clients int // clients holding a task (store-wide only)
}

// Total is what the whole store holds.
func (s *Store[V]) Total() Usage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Usage{Tasks: s.tasks, Bytes: s.bytes, Clients: len(s.clients)}
}

// ClientUsage is what client holds.
func (s *Store[V]) ClientUsage(client string) Usage {
	s.mu.Lock()
	defer s.mu.Unlock()
	if u := s.clients[client]; u != nil {
		return Usage{Tasks: u.tasks, Bytes: u.bytes}
	}
	return Usage{}
}
