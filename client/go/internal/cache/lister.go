package cache

import (
	"github.com/informerd/informerd/client/go/informerdv1"
	"k8s.io/apimachinery/pkg/labels"
)

// Lister reads an informer's cache. Implementations are safe for concurrent
// use. The objects returned are shared with the cache and with event
// handlers: treat them as read-only (decode or proto.Clone to modify).
// Lists are sorted by key.
type Lister interface {
	// Get returns the object namespace/name; namespace is "" for
	// cluster-scoped resources.
	Get(namespace, name string) (*informerdv1.Object, bool)
	// List returns the objects whose labels match selector (nil: all).
	List(selector labels.Selector) []*informerdv1.Object
	// ListNamespace returns the objects of one namespace whose labels match
	// selector (nil: all).
	ListNamespace(namespace string, selector labels.Selector) []*informerdv1.Object
	// ByIndex returns the objects for which the index function indexName
	// returned value. Fails if no such index exists.
	ByIndex(indexName, value string) ([]*informerdv1.Object, error)
	// Keys returns every key, sorted.
	Keys() []string
	// Len returns how many objects the cache holds.
	Len() int
}
