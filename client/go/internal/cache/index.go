package cache

import "github.com/informerd/informerd/client/go/informerdv1"

// IndexFunc returns the values under which an object is indexed; an object
// may have none or several. It must be deterministic: the store calls it
// again on the old object to unindex it.
type IndexFunc func(obj *informerdv1.Object) []string

// Indexers names index functions.
type Indexers map[string]IndexFunc

// NamespaceIndex is the index every Store has: objects by namespace.
const NamespaceIndex = "namespace"

func namespaceIndexFunc(obj *informerdv1.Object) []string {
	return []string{obj.GetNamespace()}
}

// index maps an index value to the keys of the objects indexed under it.
type index map[string]map[string]struct{}

func (ix index) add(value, key string) {
	keys := ix[value]
	if keys == nil {
		keys = make(map[string]struct{})
		ix[value] = keys
	}
	keys[key] = struct{}{}
}

func (ix index) remove(value, key string) {
	keys := ix[value]
	delete(keys, key)
	if len(keys) == 0 {
		delete(ix, value)
	}
}
