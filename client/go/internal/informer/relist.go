package informer

import (
	"github.com/informerd/informerd/client/go/informerdv1"
	"github.com/informerd/informerd/client/go/internal/cache"
)

type changeKind int

const (
	changeAdd changeKind = iota
	changeUpdate
	changeDelete
)

// change is one difference between the cache and a fresh listing: an add
// (newObj), an update (oldObj to newObj) or a delete (oldObj).
type change struct {
	kind   changeKind
	oldObj *informerdv1.Object
	newObj *informerdv1.Object
}

// diffListing returns what turns the store's content into listed: adds and
// updates in listing order, then deletes in key order. Objects whose
// resource_version did not change are not reported. When listed names a key
// twice, the later object wins. A key whose uid changed was deleted and
// recreated while the watch was down: a delete, then an add, never an update
// between two different objects (as informerd itself reports it).
func diffListing(store *cache.Store, listed []*informerdv1.Object) []change {
	latest := make(map[string]*informerdv1.Object, len(listed))
	for _, obj := range listed {
		latest[cache.ObjectKey(obj)] = obj
	}
	var changes []change
	for _, obj := range listed {
		key := cache.ObjectKey(obj)
		if latest[key] != obj {
			continue
		}
		old, existed := store.GetByKey(key)
		switch {
		case !existed:
			changes = append(changes, change{kind: changeAdd, newObj: obj})
		case old.GetUid() != "" && old.GetUid() != obj.GetUid():
			changes = append(changes, change{kind: changeDelete, oldObj: old}, change{kind: changeAdd, newObj: obj})
		case old.GetResourceVersion() != obj.GetResourceVersion():
			changes = append(changes, change{kind: changeUpdate, oldObj: old, newObj: obj})
		}
	}
	for _, key := range store.Keys() {
		if _, listed := latest[key]; !listed {
			old, _ := store.GetByKey(key)
			changes = append(changes, change{kind: changeDelete, oldObj: old})
		}
	}
	return changes
}
