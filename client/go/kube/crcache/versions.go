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
}

func newSeenVersions() *seenVersions {
	return &seenVersions{seen: map[schema.GroupVersionResource]uint64{}}
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
}

// restarted notes that an informer of gvr lists or starts a watch anew:
// changes made meanwhile may never arrive as events (an object deleted
// during the gap), so every hot entry of gvr goes.
func (s *seenVersions) restarted(gvr schema.GroupVersionResource) {}

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
	t.seen.restarted(t.gvr)
	inner, err := t.ListerWatcher.WatchWithContext(ctx, options)
	if err != nil {
		return nil, err
	}
	w := &trackingWatch{inner: inner, result: make(chan watch.Event), stop: make(chan struct{})}
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
