package cache

import (
	"reflect"
	"strings"
	"testing"

	"github.com/informerd/informerd/client/go/informerdv1"
	"k8s.io/apimachinery/pkg/labels"
)

func object(namespace, name, rv string, labels map[string]string) *informerdv1.Object {
	return &informerdv1.Object{Namespace: namespace, Name: name, ResourceVersion: rv, Labels: labels}
}

func keys(objs []*informerdv1.Object) []string {
	out := []string{}
	for _, obj := range objs {
		out = append(out, ObjectKey(obj))
	}
	return out
}

func byOwner(obj *informerdv1.Object) []string {
	if owner, ok := obj.GetLabels()["owner"]; ok {
		return []string{owner}
	}
	return nil
}

func TestKeyRoundTrip(t *testing.T) {
	for _, c := range []struct{ namespace, name, key string }{
		{"ns", "a", "ns/a"},
		{"", "node-1", "node-1"},
	} {
		if got := Key(c.namespace, c.name); got != c.key {
			t.Errorf("Key(%q, %q) = %q, want %q", c.namespace, c.name, got, c.key)
		}
		if ns, name := SplitKey(c.key); ns != c.namespace || name != c.name {
			t.Errorf("SplitKey(%q) = %q, %q", c.key, ns, name)
		}
	}
}

func TestPutGetDelete(t *testing.T) {
	s := NewStore(nil)
	if _, existed := s.Put(object("ns", "a", "1", nil)); existed {
		t.Error("first Put reported an old object")
	}
	old, existed := s.Put(object("ns", "a", "2", nil))
	if !existed || old.GetResourceVersion() != "1" {
		t.Errorf("second Put returned %v, %v; want the rv 1 object", old, existed)
	}
	if got, ok := s.Get("ns", "a"); !ok || got.GetResourceVersion() != "2" {
		t.Errorf("Get = %v, %v; want rv 2", got, ok)
	}
	if _, ok := s.Get("other", "a"); ok {
		t.Error("Get found an object in the wrong namespace")
	}
	if old, existed := s.Delete("ns/a"); !existed || old.GetResourceVersion() != "2" {
		t.Errorf("Delete = %v, %v; want the rv 2 object", old, existed)
	}
	if _, existed := s.Delete("ns/a"); existed {
		t.Error("second Delete found the object")
	}
	if s.Len() != 0 {
		t.Errorf("Len = %d after deleting everything", s.Len())
	}
}

func TestListWithSelectorIsSorted(t *testing.T) {
	s := NewStore(nil)
	s.Put(object("b", "x", "1", map[string]string{"app": "web"}))
	s.Put(object("a", "y", "1", map[string]string{"app": "web"}))
	s.Put(object("a", "x", "1", map[string]string{"app": "db"}))
	if got, want := keys(s.List(nil)), []string{"a/x", "a/y", "b/x"}; !reflect.DeepEqual(got, want) {
		t.Errorf("List(nil) = %v, want %v", got, want)
	}
	sel, err := labels.Parse("app=web")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := keys(s.List(sel)), []string{"a/y", "b/x"}; !reflect.DeepEqual(got, want) {
		t.Errorf("List(app=web) = %v, want %v", got, want)
	}
	if got, want := keys(s.ListNamespace("a", sel)), []string{"a/y"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ListNamespace(a, app=web) = %v, want %v", got, want)
	}
	if got, want := s.Keys(), []string{"a/x", "a/y", "b/x"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Keys() = %v, want %v", got, want)
	}
}

func TestIndexesFollowUpdatesAndDeletes(t *testing.T) {
	s := NewStore(Indexers{"owner": byOwner})
	s.Put(object("ns", "a", "1", map[string]string{"owner": "alice"}))
	s.Put(object("ns", "b", "1", map[string]string{"owner": "alice"}))
	s.Put(object("ns", "a", "2", map[string]string{"owner": "bob"}))

	check := func(value string, want []string) {
		t.Helper()
		got, err := s.ByIndex("owner", value)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(keys(got), want) {
			t.Errorf("ByIndex(owner, %s) = %v, want %v", value, keys(got), want)
		}
	}
	check("alice", []string{"ns/b"})
	check("bob", []string{"ns/a"})
	s.Delete("ns/b")
	check("alice", []string{})

	got, err := s.ByIndex(NamespaceIndex, "ns")
	if err != nil || !reflect.DeepEqual(keys(got), []string{"ns/a"}) {
		t.Errorf("ByIndex(namespace, ns) = %v, %v", keys(got), err)
	}
}

func TestByIndexUnknownIndexFails(t *testing.T) {
	_, err := NewStore(nil).ByIndex("nope", "x")
	if err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("ByIndex(nope) error = %v, want one naming the index", err)
	}
}
