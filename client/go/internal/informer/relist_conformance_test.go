package informer

import (
	"reflect"
	"testing"

	"github.com/informerd/informerd/client/go/informerdv1"
	"github.com/informerd/informerd/client/go/internal/cache"
	"github.com/informerd/informerd/client/go/internal/conformance"
)

func vectorObject(o conformance.RelistObject) *informerdv1.Object {
	return &informerdv1.Object{Namespace: o.Namespace, Name: o.Name, ResourceVersion: o.ResourceVersion, Uid: o.UID}
}

func rv(o *informerdv1.Object) *string {
	if o == nil {
		return nil
	}
	return &o.ResourceVersion
}

// The shared relist vectors: diffListing gives exactly their events.
func TestRelistVectors(t *testing.T) {
	vectors, err := conformance.LoadRelist()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range vectors.Cases {
		store := cache.NewStore(nil)
		for _, o := range c.Before {
			store.Put(vectorObject(o))
		}
		var listed []*informerdv1.Object
		for _, o := range c.After {
			listed = append(listed, vectorObject(o))
		}
		var got []conformance.RelistEvent
		for _, ch := range diffListing(store, listed) {
			e := conformance.RelistEvent{Type: map[changeKind]string{changeAdd: "ADD", changeUpdate: "UPDATE", changeDelete: "DELETE"}[ch.kind],
				OldResourceVersion: rv(ch.oldObj), NewResourceVersion: rv(ch.newObj)}
			either := ch.newObj
			if either == nil {
				either = ch.oldObj
			}
			e.Namespace, e.Name = either.Namespace, either.Name
			got = append(got, e)
		}
		if g, w := conformance.PerKey(got), conformance.PerKey(c.Events); !reflect.DeepEqual(g, w) {
			t.Errorf("%s: got %v, want %v", c.Name, g, w)
		}
	}
}
