package kube

import (
	"context"
	"math/rand/v2"
	"time"
)

// backoff spaces retries of a transient failure: doubling from initial to
// max, each delay shortened by up to half at random so that clients cut off
// together do not return together. The cap is low (1s) so that a restarted
// informerd is used within about a second of being ready.
type backoff struct {
	initial, max, next time.Duration
}

func newBackoff(initial, max time.Duration) *backoff {
	return &backoff{initial: initial, max: max, next: initial}
}

// wait sleeps the next delay; false when ctx ended first.
func (b *backoff) wait(ctx context.Context) bool {
	d := b.next - time.Duration(rand.Float64()*0.5*float64(b.next))
	if b.next *= 2; b.next > b.max {
		b.next = b.max
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// reset makes the next delay the initial one; called on progress.
func (b *backoff) reset() { b.next = b.initial }
