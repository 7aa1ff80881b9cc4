// Package retry spaces the retries of a transient failure, for the informer
// and the client-go adapter alike.
package retry

import (
	"context"
	"math/rand/v2"
	"time"
)

// Backoff yields retry delays that double from initial up to max, each
// shortened by a random fraction of at most half, so that clients cut off
// together do not come back together. Not safe for concurrent use.
type Backoff struct {
	initial time.Duration
	max     time.Duration
	random  func() float64 // in [0, 1)
	current time.Duration  // the undisturbed last delay; 0 before the first
}

// NewBackoff returns a Backoff from initial to max (raised to initial when
// lower). initial must be positive.
func NewBackoff(initial, max time.Duration) *Backoff {
	if max < initial {
		max = initial
	}
	return &Backoff{initial: initial, max: max, random: rand.Float64}
}

// Next returns the delay before the next attempt.
func (b *Backoff) Next() time.Duration {
	if b.current == 0 {
		b.current = b.initial
	} else if b.current < b.max {
		b.current = min(2*b.current, b.max)
	}
	return b.current - time.Duration(0.5*b.random()*float64(b.current))
}

// Reset makes the next delay the initial one again; called once the other
// side has proven healthy.
func (b *Backoff) Reset() { b.current = 0 }

// Wait sleeps the next delay; false when ctx ended first.
func (b *Backoff) Wait(ctx context.Context) bool { return Sleep(ctx, b.Next()) }

// Sleep waits for d; false when ctx ended first.
func Sleep(ctx context.Context, d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}
