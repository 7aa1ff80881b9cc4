package informer

import (
	"reflect"
	"testing"

	"github.com/informerd/informerd/client/go/informerdv1"
	"github.com/informerd/informerd/client/go/internal/cache"
)

func obj(namespace, name, rv string) *informerdv1.Object {
	return &informerdv1.Object{Namespace: namespace, Name: name, ResourceVersion: rv}
}

func describe(changes []change) []string {
	var out []string
	for _, c := range changes {
		switch c.kind {
		case changeAdd:
			out = append(out, "add "+cache.ObjectKey(c.newObj)+" "+c.newObj.ResourceVersion)
		case changeUpdate:
			out = append(out, "update "+cache.ObjectKey(c.newObj)+" "+c.oldObj.ResourceVersion+"->"+c.newObj.ResourceVersion)
		case changeDelete:
			out = append(out, "delete "+cache.ObjectKey(c.oldObj)+" "+c.oldObj.ResourceVersion)
		}
	}
	return out
}

func TestDiffListingReportsOnlyDifferences(t *testing.T) {
	store := cache.NewStore(nil)
	store.Put(obj("ns", "same", "1"))
	store.Put(obj("ns", "changed", "2"))
	store.Put(obj("ns", "gone-b", "3"))
	store.Put(obj("ns", "gone-a", "4"))
	listed := []*informerdv1.Object{
		obj("ns", "new", "9"),
		obj("ns", "changed", "8"),
		obj("ns", "same", "1"),
	}
	got := describe(diffListing(store, listed))
	want := []string{
		"add ns/new 9",
		"update ns/changed 2->8",
		"delete ns/gone-a 4",
		"delete ns/gone-b 3",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("diffListing = %v, want %v", got, want)
	}
}

func TestDiffListingEmptyStoreIsAllAdds(t *testing.T) {
	got := describe(diffListing(cache.NewStore(nil), []*informerdv1.Object{obj("", "a", "1"), obj("", "b", "2")}))
	if want := []string{"add a 1", "add b 2"}; !reflect.DeepEqual(got, want) {
		t.Errorf("diffListing = %v, want %v", got, want)
	}
}

func TestDiffListingLaterDuplicateWins(t *testing.T) {
	got := describe(diffListing(cache.NewStore(nil), []*informerdv1.Object{obj("ns", "a", "1"), obj("ns", "a", "2")}))
	if want := []string{"add ns/a 2"}; !reflect.DeepEqual(got, want) {
		t.Errorf("diffListing = %v, want %v", got, want)
	}
}

func TestDiffListingEmptyListingDeletesAll(t *testing.T) {
	store := cache.NewStore(nil)
	store.Put(obj("ns", "a", "1"))
	if got, want := describe(diffListing(store, nil)), []string{"delete ns/a 1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("diffListing = %v, want %v", got, want)
	}
}
