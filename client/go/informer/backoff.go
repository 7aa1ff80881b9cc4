package informer

import (
	"math/rand"
	"time"
)

// backoff yields retry delays that double from initial up to max, each
// shortened by a random fraction of at most jitter so that clients cut off
// together do not come back together. Not safe for concurrent use.
type backoff struct {
	initial time.Duration
	max     time.Duration
	jitter  float64        // in [0, 1]
	random  func() float64 // in [0, 1)
	current time.Duration  // the undisturbed next delay; 0 before the first
}

func newBackoff(initial, max time.Duration) *backoff {
	if initial <= 0 {
		initial = DefaultInitialBackoff
	}
	if max <= 0 {
		max = DefaultMaxBackoff
	}
	if max < initial {
		max = initial
	}
	return &backoff{initial: initial, max: max, jitter: 0.5, random: rand.Float64}
}

// next returns the delay before the next attempt.
func (b *backoff) next() time.Duration {
	if b.current == 0 {
		b.current = b.initial
	} else if b.current < b.max {
		b.current *= 2
		if b.current > b.max {
			b.current = b.max
		}
	}
	return b.current - time.Duration(b.jitter*b.random()*float64(b.current))
}

// reset makes the next delay the initial one again; called once a stream
// has proven the server healthy by delivering an event.
func (b *backoff) reset() { b.current = 0 }
