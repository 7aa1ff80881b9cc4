package cache

import (
	"fmt"
	"sort"
	"sync"

	"github.com/informerd/informerd/client/go/informerdv1"
	"k8s.io/apimachinery/pkg/labels"
)

// Store is a thread-safe map from key (see Key) to object with indexes kept
// up to date on every change. It implements Lister; Put and Delete are for
// the informer that owns it. Objects are stored by pointer and never
// modified by the store.
type Store struct {
	mu       sync.RWMutex
	objects  map[string]*informerdv1.Object
	indexers Indexers
	indexes  map[string]index
}

// NewStore returns an empty store with the namespace index and the given
// extra indexes.
//
// REQUIRES: indexers does not name NamespaceIndex.
func NewStore(indexers Indexers) *Store {
	s := &Store{
		objects:  make(map[string]*informerdv1.Object),
		indexers: Indexers{NamespaceIndex: namespaceIndexFunc},
		indexes:  map[string]index{NamespaceIndex: {}},
	}
	for name, fn := range indexers {
		s.indexers[name] = fn
		s.indexes[name] = index{}
	}
	return s
}

// Put stores obj under its key and returns the object it replaced, if any.
func (s *Store) Put(obj *informerdv1.Object) (old *informerdv1.Object, existed bool) {
	key := ObjectKey(obj)
	s.mu.Lock()
	defer s.mu.Unlock()
	old, existed = s.objects[key]
	if existed {
		s.unindex(key, old)
	}
	s.objects[key] = obj
	for name, fn := range s.indexers {
		for _, value := range fn(obj) {
			s.indexes[name].add(value, key)
		}
	}
	return old, existed
}

// Delete removes the object under key and returns it, if it was there.
func (s *Store) Delete(key string) (old *informerdv1.Object, existed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	old, existed = s.objects[key]
	if existed {
		s.unindex(key, old)
		delete(s.objects, key)
	}
	return old, existed
}

// REQUIRES: s.mu held for writing.
func (s *Store) unindex(key string, obj *informerdv1.Object) {
	for name, fn := range s.indexers {
		for _, value := range fn(obj) {
			s.indexes[name].remove(value, key)
		}
	}
}

// GetByKey returns the object under key.
func (s *Store) GetByKey(key string) (*informerdv1.Object, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	obj, ok := s.objects[key]
	return obj, ok
}

// Get implements Lister.
func (s *Store) Get(namespace, name string) (*informerdv1.Object, bool) {
	return s.GetByKey(Key(namespace, name))
}

// List implements Lister.
func (s *Store) List(selector labels.Selector) []*informerdv1.Object {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []*informerdv1.Object
	for _, obj := range s.objects {
		if selector == nil || selector.Matches(labels.Set(obj.GetLabels())) {
			out = append(out, obj)
		}
	}
	sortByKey(out)
	return out
}

// ListNamespace implements Lister.
func (s *Store) ListNamespace(namespace string, selector labels.Selector) []*informerdv1.Object {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []*informerdv1.Object
	for key := range s.indexes[NamespaceIndex][namespace] {
		obj := s.objects[key]
		if selector == nil || selector.Matches(labels.Set(obj.GetLabels())) {
			out = append(out, obj)
		}
	}
	sortByKey(out)
	return out
}

// ByIndex implements Lister.
func (s *Store) ByIndex(indexName, value string) ([]*informerdv1.Object, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	ix, ok := s.indexes[indexName]
	if !ok {
		return nil, fmt.Errorf("cache: index %q does not exist", indexName)
	}
	out := make([]*informerdv1.Object, 0, len(ix[value]))
	for key := range ix[value] {
		out = append(out, s.objects[key])
	}
	sortByKey(out)
	return out, nil
}

// Keys implements Lister.
func (s *Store) Keys() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	keys := make([]string, 0, len(s.objects))
	for key := range s.objects {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	return keys
}

// Len implements Lister.
func (s *Store) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.objects)
}

func sortByKey(objs []*informerdv1.Object) {
	sort.Slice(objs, func(i, j int) bool { return ObjectKey(objs[i]) < ObjectKey(objs[j]) })
}
