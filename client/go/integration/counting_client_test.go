package integration

import (
	"context"
	"sync"
	"time"

	"google.golang.org/grpc"

	"github.com/informerd/informerd/client/go/informerdv1"
)

// countingClient passes calls through to informerd, counting the Watch
// (by projection) and List calls that reach it, and noting when each watch
// event arrived, by its object's resourceVersion.
type countingClient struct {
	informerdv1.CacheClient
	mu       sync.Mutex
	watches  map[informerdv1.Projection]int
	lists    int
	received map[string]time.Time
}

func newCountingClient(conn grpc.ClientConnInterface) *countingClient {
	return &countingClient{
		CacheClient: informerdv1.NewCacheClient(conn),
		watches:     map[informerdv1.Projection]int{},
		received:    map[string]time.Time{},
	}
}

func (c *countingClient) Watch(ctx context.Context, req *informerdv1.WatchRequest, opts ...grpc.CallOption) (informerdv1.Cache_WatchClient, error) {
	c.mu.Lock()
	c.watches[req.GetProjection()]++
	c.mu.Unlock()
	stream, err := c.CacheClient.Watch(ctx, req, opts...)
	if err != nil {
		return nil, err
	}
	return timedStream{stream, c}, nil
}

func (c *countingClient) List(ctx context.Context, req *informerdv1.ListRequest, opts ...grpc.CallOption) (*informerdv1.ListResponse, error) {
	c.mu.Lock()
	c.lists++
	c.mu.Unlock()
	return c.CacheClient.List(ctx, req, opts...)
}

func (c *countingClient) count(p informerdv1.Projection) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.watches[p]
}

// calls is the number of Watch calls (all projections) and List calls.
func (c *countingClient) calls() (watches, lists int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, n := range c.watches {
		watches += n
	}
	return watches, c.lists
}

// receivedAt is when the watch event of resourceVersion rv arrived.
func (c *countingClient) receivedAt(rv string) (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	at, ok := c.received[rv]
	return at, ok
}

type timedStream struct {
	informerdv1.Cache_WatchClient
	c *countingClient
}

func (s timedStream) Recv() (*informerdv1.WatchEvent, error) {
	ev, err := s.Cache_WatchClient.Recv()
	if err == nil && ev.GetObject() != nil {
		now := time.Now()
		s.c.mu.Lock()
		s.c.received[ev.GetObject().GetResourceVersion()] = now
		s.c.mu.Unlock()
	}
	return ev, err
}
