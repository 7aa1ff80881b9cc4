package informer

import (
	"context"
	"sync"

	"google.golang.org/grpc"

	"github.com/informerd/informerd/client/go/informerdv1"
)

// script is what one Watch call returns: its events, then err. A nil err
// leaves the stream open and idle, as a live stream without changes.
type script struct {
	events []*informerdv1.WatchEvent
	err    error
}

// fakeClient answers Watch calls from scripts in order. Once they are used
// up, Watch (or the idle stream of a script without error) blocks until the
// caller's context is done, and exhausted is closed: the informer has then
// applied every scripted event, since it handles each event before reading
// the next.
type fakeClient struct {
	informerdv1.CacheClient // unused methods panic

	mu            sync.Mutex
	scripts       []script
	requests      []*informerdv1.WatchRequest
	exhausted     chan struct{}
	exhaustedOnce sync.Once
}

func (c *fakeClient) markExhausted() { c.exhaustedOnce.Do(func() { close(c.exhausted) }) }

func newFakeClient(scripts ...script) *fakeClient {
	return &fakeClient{scripts: scripts, exhausted: make(chan struct{})}
}

func (c *fakeClient) Watch(ctx context.Context, req *informerdv1.WatchRequest, _ ...grpc.CallOption) (informerdv1.Cache_WatchClient, error) {
	c.mu.Lock()
	c.requests = append(c.requests, req)
	if len(c.scripts) == 0 {
		c.mu.Unlock()
		c.markExhausted()
		<-ctx.Done()
		return nil, ctx.Err()
	}
	s := c.scripts[0]
	c.scripts = c.scripts[1:]
	last := len(c.scripts) == 0
	c.mu.Unlock()
	return &fakeStream{ctx: ctx, client: c, script: s, last: last}, nil
}

func (c *fakeClient) watchRequests() []*informerdv1.WatchRequest {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*informerdv1.WatchRequest(nil), c.requests...)
}

type fakeStream struct {
	grpc.ClientStream // unused methods panic
	ctx               context.Context
	client            *fakeClient
	script            script
	last              bool
}

func (s *fakeStream) Recv() (*informerdv1.WatchEvent, error) {
	if len(s.script.events) == 0 {
		if s.script.err != nil {
			return nil, s.script.err
		}
		if s.last {
			s.client.markExhausted()
		}
		<-s.ctx.Done()
		return nil, s.ctx.Err()
	}
	event := s.script.events[0]
	s.script.events = s.script.events[1:]
	return event, nil
}

// recorder is an EventHandler that writes down each call as a line.
type recorder struct {
	mu    sync.Mutex
	calls []string
}

func (r *recorder) record(line string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, line)
}

func (r *recorder) OnAdd(obj *informerdv1.Object) {
	r.record("add " + obj.Name + " " + obj.ResourceVersion)
}

func (r *recorder) OnUpdate(oldObj, newObj *informerdv1.Object) {
	r.record("update " + newObj.Name + " " + oldObj.ResourceVersion + "->" + newObj.ResourceVersion)
}

func (r *recorder) OnDelete(obj *informerdv1.Object, finalStateUnknown bool) {
	line := "delete " + obj.Name + " " + obj.ResourceVersion
	if finalStateUnknown {
		line += " final-state-unknown"
	}
	r.record(line)
}

func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	calls := r.calls
	r.calls = nil
	return calls
}

func added(name, rv string) *informerdv1.WatchEvent {
	return &informerdv1.WatchEvent{Type: informerdv1.WatchEvent_ADDED, Object: obj("ns", name, rv), ResourceVersion: rv}
}

func modified(name, rv string) *informerdv1.WatchEvent {
	return &informerdv1.WatchEvent{Type: informerdv1.WatchEvent_MODIFIED, Object: obj("ns", name, rv), ResourceVersion: rv}
}

func deleted(name, rv string) *informerdv1.WatchEvent {
	return &informerdv1.WatchEvent{Type: informerdv1.WatchEvent_DELETED, Object: obj("ns", name, rv), ResourceVersion: rv}
}

func bookmark(rv string) *informerdv1.WatchEvent {
	return &informerdv1.WatchEvent{Type: informerdv1.WatchEvent_BOOKMARK, Object: &informerdv1.Object{ResourceVersion: rv}, ResourceVersion: rv}
}

func initialEventsEnd(rv string) *informerdv1.WatchEvent {
	e := bookmark(rv)
	e.InitialEventsEnd = true
	return e
}
