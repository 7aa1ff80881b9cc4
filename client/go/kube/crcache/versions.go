package crcache

import (
	"context"
	"strconv"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informerd/informerd/client/go/kube"
)

// seenVersions is, per resource, the highest resourceVersion this cache
// has received from informerd (a List, an event's object, a bookmark): the
// "not older than" of every read of that resource in the no-copy mode. An
// event reaches the informer's store and handlers only after it was
// received, so a read that follows a handler's call is answered at that
// event's version or later. Safe for concurrent use.
type seenVersions struct {
	mu   sync.Mutex
	seen map[schema.GroupVersionResource]uint64
	// The hot cache (nil when off) and what decides whether it may be
	// used: the watches of each resource running now, and how often an
	// informer of it restarted or a watch ended.
	hot      *hotCache
	watching map[schema.GroupVersionResource]int
	restarts map[schema.GroupVersionResource]uint64
}

func newSeenVersions(hot *hotCache) *seenVersions {
	return &seenVersions{
		seen:     map[schema.GroupVersionResource]uint64{},
		hot:      hot,
		watching: map[schema.GroupVersionResource]int{},
		restarts: map[schema.GroupVersionResource]uint64{},
	}
}

// observe notes a version received for gvr; key is the changed object's
// "namespace/name", empty for a bookmark or a list.
func (s *seenVersions) observe(gvr schema.GroupVersionResource, resourceVersion string, key string) {
	v, err := strconv.ParseUint(resourceVersion, 10, 64)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err == nil && v > s.seen[gvr] {
		s.seen[gvr] = v
	}
	if s.hot != nil && key != "" {
		s.hot.invalidate(gvr, key)
	}
}

// restarted notes that an informer of gvr lists anew: changes made since
// its last watch may never arrive as events (an object deleted during the
// gap), so every hot entry of gvr goes.
func (s *seenVersions) restarted(gvr schema.GroupVersionResource) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.restarts[gvr]++
	if s.hot != nil {
		s.hot.dropResource(gvr)
	}
}

// watchStarted and watchEnded bracket a watch of gvr: the hot cache is
// used for gvr only while one runs.
func (s *seenVersions) watchStarted(gvr schema.GroupVersionResource) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.watching[gvr]++
	s.restarts[gvr]++
	if s.hot != nil {
		s.hot.dropResource(gvr)
	}
}

func (s *seenVersions) watchEnded(gvr schema.GroupVersionResource) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.watching[gvr]--
	s.restarts[gvr]++
	if s.hot != nil {
		s.hot.dropResource(gvr)
	}
}

// hotTicket is what a miss of the hot cache hands to hotOffer.
type hotTicket struct {
	ok       bool // the hot cache may be used for this read
	restarts uint64
}

// hotGet is the hot cache's copy of k, or on a miss a ticket to offer
// what informerd answers.
func (s *seenVersions) hotGet(k hotKey) (runtime.Object, hotTicket) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hot == nil || s.watching[k.gvr] == 0 {
		return nil, hotTicket{}
	}
	if obj, ok := s.hot.get(k); ok {
		return obj, hotTicket{}
	}
	return nil, hotTicket{ok: true, restarts: s.restarts[k.gvr]}
}

// hotOffer holds obj, read at informerd version cacheVersion on the
// ticket's miss, unless something newer than cacheVersion was received for
// the resource or an informer of it restarted since: an event of obj
// newer than what was read may have been received (and invalidated
// nothing) while the read was in flight.
func (s *seenVersions) hotOffer(k hotKey, t hotTicket, obj runtime.Object, cacheVersion string) {
	if !t.ok {
		return
	}
	v, err := strconv.ParseUint(cacheVersion, 10, 64)
	if err != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.watching[k.gvr] == 0 || s.restarts[k.gvr] != t.restarts || s.seen[k.gvr] > v {
		return
	}
	s.hot.put(k, obj)
}

// minimum is the "not older than" of a read of gvr: "" (informerd's latest
// state) when nothing was received yet.
func (s *seenVersions) minimum(gvr schema.GroupVersionResource) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v := s.seen[gvr]; v > 0 {
		return strconv.FormatUint(v, 10)
	}
	return ""
}

// trackingListerWatcher is a kube.ListerWatcher whose lists and events are
// noted in seen before the informer gets them.
type trackingListerWatcher struct {
	*kube.ListerWatcher
	gvr  schema.GroupVersionResource
	seen *seenVersions
}

func (t *trackingListerWatcher) List(options metav1.ListOptions) (runtime.Object, error) {
	return t.ListWithContext(context.Background(), options)
}

func (t *trackingListerWatcher) Watch(options metav1.ListOptions) (watch.Interface, error) {
	return t.WatchWithContext(context.Background(), options)
}

func (t *trackingListerWatcher) ListWithContext(ctx context.Context, options metav1.ListOptions) (runtime.Object, error) {
	t.seen.restarted(t.gvr)
	list, err := t.ListerWatcher.ListWithContext(ctx, options)
	if err != nil {
		return nil, err
	}
	if accessor, err := meta.ListAccessor(list); err == nil {
		t.seen.observe(t.gvr, accessor.GetResourceVersion(), "")
	}
	return list, nil
}

func (t *trackingListerWatcher) WatchWithContext(ctx context.Context, options metav1.ListOptions) (watch.Interface, error) {
	inner, err := t.ListerWatcher.WatchWithContext(ctx, options)
	if err != nil {
		return nil, err
	}
	w := &trackingWatch{inner: inner, result: make(chan watch.Event), stop: make(chan struct{})}
	t.seen.watchStarted(t.gvr)
	go w.run(t)
	return w, nil
}

// trackingWatch forwards a watch's events, noting each before it is
// forwarded.
type trackingWatch struct {
	inner    watch.Interface
	result   chan watch.Event
	stop     chan struct{}
	stopOnce sync.Once
}

func (w *trackingWatch) Stop() {
	w.stopOnce.Do(func() { close(w.stop) })
	w.inner.Stop()
}

func (w *trackingWatch) ResultChan() <-chan watch.Event { return w.result }

func (w *trackingWatch) run(t *trackingListerWatcher) {
	defer close(w.result)
	defer t.seen.watchEnded(t.gvr)
	for ev := range w.inner.ResultChan() {
		if accessor, err := meta.Accessor(ev.Object); err == nil && ev.Type != watch.Error {
			key := ""
			if ev.Type != watch.Bookmark {
				key = objectKey(accessor.GetNamespace(), accessor.GetName())
			}
			t.seen.observe(t.gvr, accessor.GetResourceVersion(), key)
		}
		select {
		case w.result <- ev:
		case <-w.stop:
			return
		}
	}
}

func objectKey(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}
