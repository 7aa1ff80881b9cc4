// Package cache holds an informer's local copy of one resource: a store of
// objects keyed by namespace/name with secondary indexes, and the read-only
// Lister view that informers hand to users.
package cache

import (
	"strings"

	"github.com/informerd/informerd/client/go/informerdv1"
)

// Key returns "namespace/name", or "name" for a cluster-scoped object, the
// key objects are stored under (client-go's MetaNamespaceKeyFunc).
func Key(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

// ObjectKey returns Key(obj.Namespace, obj.Name).
func ObjectKey(obj *informerdv1.Object) string {
	return Key(obj.GetNamespace(), obj.GetName())
}

// SplitKey is the inverse of Key.
func SplitKey(key string) (namespace, name string) {
	if i := strings.IndexByte(key, '/'); i >= 0 {
		return key[:i], key[i+1:]
	}
	return "", key
}
