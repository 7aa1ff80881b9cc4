package informer

import (
	"testing"
	"time"
)

func TestBackoffDoublesUpToMax(t *testing.T) {
	b := newBackoff(100*time.Millisecond, time.Second)
	b.random = func() float64 { return 0 }
	want := []time.Duration{100, 200, 400, 800, 1000, 1000}
	for i, w := range want {
		if got := b.next(); got != w*time.Millisecond {
			t.Errorf("delay %d = %v, want %v", i, got, w*time.Millisecond)
		}
	}
	b.reset()
	if got := b.next(); got != 100*time.Millisecond {
		t.Errorf("delay after reset = %v, want 100ms", got)
	}
}

func TestBackoffJitterShortensAtMostByHalf(t *testing.T) {
	b := newBackoff(time.Second, time.Second)
	b.random = func() float64 { return 0.999999 }
	got := b.next()
	if got <= 500*time.Millisecond || got > time.Second {
		t.Errorf("delay with maximal jitter = %v, want in (500ms, 1s]", got)
	}
	b.random = func() float64 { return 0.5 }
	if got := b.next(); got != 750*time.Millisecond {
		t.Errorf("delay with jitter 0.5*0.5 = %v, want 750ms", got)
	}
}

func TestBackoffDefaults(t *testing.T) {
	b := newBackoff(0, 0)
	if b.initial != DefaultInitialBackoff || b.max != DefaultMaxBackoff {
		t.Errorf("defaults = %v, %v", b.initial, b.max)
	}
	if b := newBackoff(time.Minute, time.Second); b.max != time.Minute {
		t.Errorf("max below initial not raised: %v", b.max)
	}
}
