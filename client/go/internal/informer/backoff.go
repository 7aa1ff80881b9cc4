package informer

import (
	"time"

	"github.com/informerd/informerd/client/go/internal/retry"
)

// newBackoff is retry.NewBackoff with the informer's defaults for zero
// values.
func newBackoff(initial, max time.Duration) *retry.Backoff {
	initial, max = backoffBounds(initial, max)
	return retry.NewBackoff(initial, max)
}

func backoffBounds(initial, max time.Duration) (time.Duration, time.Duration) {
	if initial <= 0 {
		initial = DefaultInitialBackoff
	}
	if max <= 0 {
		max = DefaultMaxBackoff
	}
	return initial, max
}
