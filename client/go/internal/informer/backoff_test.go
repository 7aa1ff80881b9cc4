package informer

import (
	"testing"
	"time"
)

func TestBackoffDefaults(t *testing.T) {
	initial, max := backoffBounds(0, 0)
	if initial != DefaultInitialBackoff || max != DefaultMaxBackoff {
		t.Errorf("defaults = %v, %v", initial, max)
	}
	if initial, max := backoffBounds(time.Minute, time.Second); initial != time.Minute || max != time.Second {
		t.Errorf("explicit bounds changed: %v, %v", initial, max)
	}
}
