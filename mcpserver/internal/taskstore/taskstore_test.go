package taskstore

import (
	"errors"
	"testing"
	"time"
)

// manual is a fake clock: its timers fire in advance.
type manual struct {
	now    time.Duration
	timers map[*struct {
		at time.Duration
		f  func()
	}]bool
}

func newManual() *manual {
	return &manual{timers: map[*struct {
		at time.Duration
		f  func()
	}]bool{}}
}

func (m *manual) afterFunc(d time.Duration, f func()) func() bool {
	t := &struct {
		at time.Duration
		f  func()
	}{m.now + d, f}
	m.timers[t] = true
	return func() bool { ok := m.timers[t]; delete(m.timers, t); return ok }
}

func (m *manual) advance(d time.Duration) {
	m.now += d
	for t := range m.timers {
		if t.at <= m.now {
			delete(m.timers, t)
			t.f()
		}
	}
}

var lim = Limits{MaxTasks: 4, MaxBytes: 100, ClientTasks: 2, ClientBytes: 60, AnonymousTasks: 1, AnonymousBytes: 10,
	TTL: time.Hour, InputTTL: time.Minute}

func limitOf(t *testing.T, err error) string {
	t.Helper()
	var le *LimitError
	if !errors.As(err, &le) {
		t.Fatalf("error %v, want a *LimitError", err)
	}
	return le.Key
}

// Counts and bytes per client, for the anonymous bucket and per server; each refusal names
// its key; a client pushes out only its own oldest finished entry, the anonymous bucket none.
func TestQuotas(t *testing.T) {
	s := New[int](lim)
	m := newManual()
	s.SetAfterFunc(m.afterFunc)
	a1, err := s.Add("a", 10, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Add("a", 10, 2); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Add("a", 1, 3); limitOf(t, err) != "client_tasks" {
		t.Errorf("a's third: %v", err)
	}
	if _, err := s.Add("b", 61, 4); limitOf(t, err) != "client_mb" {
		t.Errorf("b over its bytes: %v", err)
	}
	if _, err := s.Add(Anonymous, 11, 5); limitOf(t, err) != "anonymous_mb" {
		t.Errorf("anonymous over its bytes: %v", err)
	}
	an, err := s.Add(Anonymous, 5, 6)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Finish(an, 5); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Add(Anonymous, 1, 7); limitOf(t, err) != "anonymous_tasks" {
		t.Errorf("anonymous second, its first finished: %v (the bucket evicts nothing)", err)
	}
	if _, err := s.Add("b", 50, 8); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Add("c", 1, 9); limitOf(t, err) != "max_tasks" {
		t.Errorf("c with the server full: %v", err)
	}
	if err := s.Finish(a1, 20); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Add("c", 1, 10); limitOf(t, err) != "max_tasks" {
		t.Errorf("c with a's result kept: %v (another client's result stays until its TTL)", err)
	}
	if _, err := s.Add("a", 1, 11); err != nil {
		t.Errorf("a's third with its own result finished: %v (it pushes that out)", err)
	}
	if s.Get(a1.ID) != nil {
		t.Error("a's finished entry still there")
	}
	if u := s.ClientUsage("a"); u.Tasks != 2 || u.Bytes != 11 {
		t.Errorf("a holds %+v, want 2 tasks, 11 bytes", u)
	}
}

// Resize grows within the budgets; Wait expires after InputTTL unless Resume came first;
// Finish keeps an entry TTL; Stop refuses later adds.
func TestLifecycle(t *testing.T) {
	s := New[int](lim)
	m := newManual()
	s.SetAfterFunc(m.afterFunc)
	e, _ := s.Add("a", 10, 1)
	if err := s.Resize(e, 61); limitOf(t, err) != "client_mb" {
		t.Errorf("resize over: %v", err)
	}
	if err := s.Resize(e, 40); err != nil {
		t.Fatal(err)
	}
	expired := 0
	s.Wait(e, func() { expired++ })
	m.advance(30 * time.Second)
	s.Resume(e)
	m.advance(time.Hour)
	if expired != 0 {
		t.Fatal("expired after Resume")
	}
	s.Wait(e, func() { expired++ })
	m.advance(time.Minute)
	if expired != 1 {
		t.Fatalf("expired %d times after InputTTL, want 1", expired)
	}
	if err := s.Finish(e, 0); err != nil {
		t.Fatal(err)
	}
	m.advance(time.Hour - time.Second)
	if s.Get(e.ID) == nil {
		t.Fatal("removed before its TTL")
	}
	m.advance(time.Second)
	if s.Get(e.ID) != nil || s.Total() != (Usage{}) {
		t.Fatalf("after TTL: %+v", s.Total())
	}
	s.Stop()
	if _, err := s.Add("a", 1, 2); !errors.Is(err, ErrStopped) {
		t.Errorf("Add after Stop: %v", err)
	}
}
