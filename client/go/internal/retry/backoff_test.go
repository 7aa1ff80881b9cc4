package retry

import (
	"context"
	"testing"
	"time"
)

func TestBackoffDoublesUpToMax(t *testing.T) {
	b := NewBackoff(100*time.Millisecond, time.Second)
	b.random = func() float64 { return 0 }
	want := []time.Duration{100, 200, 400, 800, 1000, 1000}
	for i, w := range want {
		if got := b.Next(); got != w*time.Millisecond {
			t.Errorf("delay %d = %v, want %v", i, got, w*time.Millisecond)
		}
	}
	b.Reset()
	if got := b.Next(); got != 100*time.Millisecond {
		t.Errorf("delay after reset = %v, want 100ms", got)
	}
}

func TestBackoffJitterShortensAtMostByHalf(t *testing.T) {
	b := NewBackoff(time.Second, time.Second)
	b.random = func() float64 { return 0.999999 }
	got := b.Next()
	if got <= 500*time.Millisecond || got > time.Second {
		t.Errorf("delay with maximal jitter = %v, want in (500ms, 1s]", got)
	}
	b.random = func() float64 { return 0.5 }
	if got := b.Next(); got != 750*time.Millisecond {
		t.Errorf("delay with jitter 0.5*0.5 = %v, want 750ms", got)
	}
}

func TestMaxBelowInitialIsRaised(t *testing.T) {
	b := NewBackoff(time.Minute, time.Second)
	b.random = func() float64 { return 0 }
	b.Next()
	if got := b.Next(); got != time.Minute {
		t.Errorf("second delay = %v, want 1m", got)
	}
}

func TestSleepEndsWithTheContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if Sleep(ctx, time.Hour) {
		t.Error("Sleep returned true for a cancelled context")
	}
	if !Sleep(context.Background(), time.Millisecond) {
		t.Error("Sleep returned false for a live context")
	}
}
