package crcache

import (
	"container/list"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// hotCache is the no-copy mode's optional bounded cache of objects read by
// Get (NoCopyOptions.LocalCacheObjects), least recently used out first.
// It is only consulted for resources an informer of this cache watches,
// since the watch is what invalidates it. Not safe for concurrent use:
// seenVersions holds it under its lock, so that a change received and the
// entry it invalidates move together.
//
// An entry is the object read at informerd version v (the cache's version
// when it answered). It is inserted only when nothing newer than v had
// been received for the resource and no informer of it restarted since the
// read was sent, and dropped when any event of its object is received,
// when an informer of its resource lists or watches anew (what changed in
// between may never arrive as an event), and when a watch of it ends. So
// while an entry is held, no change to its object after v has been
// received: the object is the state at every version received so far,
// which is what read-your-events asks.
type hotCache struct {
	capacity int
	order    *list.List // of *hotEntry, most recently used first
	entries  map[hotKey]*list.Element
}

type hotKey struct {
	gvr   schema.GroupVersionResource
	shape readShape
	key   string // namespace/name
}

type hotEntry struct {
	key hotKey
	obj runtime.Object
}

func newHotCache(capacity int) *hotCache {
	return &hotCache{capacity: capacity, order: list.New(), entries: map[hotKey]*list.Element{}}
}

// get returns a copy of the entry for k, if any.
func (h *hotCache) get(k hotKey) (runtime.Object, bool) {
	e, ok := h.entries[k]
	if !ok {
		return nil, false
	}
	h.order.MoveToFront(e)
	return e.Value.(*hotEntry).obj.DeepCopyObject(), true
}

// put holds obj (the cache keeps it; the caller must not change it),
// evicting the least recently used entry past capacity.
func (h *hotCache) put(k hotKey, obj runtime.Object) {
	if e, ok := h.entries[k]; ok {
		e.Value.(*hotEntry).obj = obj
		h.order.MoveToFront(e)
		return
	}
	h.entries[k] = h.order.PushFront(&hotEntry{key: k, obj: obj})
	for h.order.Len() > h.capacity {
		last := h.order.Back()
		h.order.Remove(last)
		delete(h.entries, last.Value.(*hotEntry).key)
	}
}

// invalidate drops every shape of one object.
func (h *hotCache) invalidate(gvr schema.GroupVersionResource, key string) {
	for _, shape := range []readShape{readTyped, readUnstructured, readMetadata} {
		k := hotKey{gvr: gvr, shape: shape, key: key}
		if e, ok := h.entries[k]; ok {
			h.order.Remove(e)
			delete(h.entries, k)
		}
	}
}

// dropResource drops every entry of gvr: O(entries), on an informer's
// (re)start or a watch's end, which are rare.
func (h *hotCache) dropResource(gvr schema.GroupVersionResource) {
	for k, e := range h.entries {
		if k.gvr == gvr {
			h.order.Remove(e)
			delete(h.entries, k)
		}
	}
}

func (h *hotCache) len() int { return h.order.Len() }
