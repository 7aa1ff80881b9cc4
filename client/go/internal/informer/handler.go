package informer

import "github.com/informerd/informerd/client/go/informerdv1"

// EventHandler receives the changes an informer applies to its cache, as
// client-go's ResourceEventHandler does. The objects are shared with the
// cache: treat them as read-only.
type EventHandler interface {
	OnAdd(obj *informerdv1.Object)
	OnUpdate(oldObj, newObj *informerdv1.Object)
	// finalStateUnknown: the delete was learnt from a relist, so obj is the
	// last state the informer saw, not necessarily the state the object had
	// when it was deleted (client-go's DeletedFinalStateUnknown).
	OnDelete(obj *informerdv1.Object, finalStateUnknown bool)
}

// EventHandlerFuncs adapts functions to EventHandler; nil functions are
// skipped.
type EventHandlerFuncs struct {
	AddFunc    func(obj *informerdv1.Object)
	UpdateFunc func(oldObj, newObj *informerdv1.Object)
	DeleteFunc func(obj *informerdv1.Object, finalStateUnknown bool)
}

// OnAdd calls AddFunc if set.
func (f EventHandlerFuncs) OnAdd(obj *informerdv1.Object) {
	if f.AddFunc != nil {
		f.AddFunc(obj)
	}
}

// OnUpdate calls UpdateFunc if set.
func (f EventHandlerFuncs) OnUpdate(oldObj, newObj *informerdv1.Object) {
	if f.UpdateFunc != nil {
		f.UpdateFunc(oldObj, newObj)
	}
}

// OnDelete calls DeleteFunc if set.
func (f EventHandlerFuncs) OnDelete(obj *informerdv1.Object, finalStateUnknown bool) {
	if f.DeleteFunc != nil {
		f.DeleteFunc(obj, finalStateUnknown)
	}
}
