package crcache

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var configMaps = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}

func configMapAt(name, rv string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv}}
}

func hotKeyOf(name string) hotKey {
	return hotKey{gvr: configMaps, shape: readTyped, key: "ns/" + name}
}

// read is one Get through the hot cache: the hit, or the miss's offer of
// what informerd answered at cacheVersion.
func read(s *seenVersions, name, rv, cacheVersion string) (hit bool) {
	obj, ticket := s.hotGet(hotKeyOf(name))
	if obj != nil {
		return true
	}
	s.hotOffer(hotKeyOf(name), ticket, configMapAt(name, rv), cacheVersion)
	return false
}

func TestHotCacheIsBoundedAndUsedOnlyWhileWatched(t *testing.T) {
	s := newSeenVersions(newHotCache(2))
	if read(s, "a", "5", "10"); read(s, "a", "5", "10") {
		t.Fatal("a hit with no watch running: nothing would invalidate the entry")
	}
	s.watchStarted(configMaps)
	read(s, "a", "5", "10")
	if !read(s, "a", "5", "10") {
		t.Fatal("no hit for an object read while watched")
	}
	read(s, "b", "6", "10")
	read(s, "c", "7", "10") // evicts a, the least recently used
	if s.hot.len() != 2 {
		t.Errorf("%d entries, want the bound 2", s.hot.len())
	}
	if read(s, "a", "5", "10") {
		t.Error("a was evicted but hit")
	}
	s.watchEnded(configMaps)
	if s.hot.len() != 0 {
		t.Errorf("%d entries after the watch ended, want 0", s.hot.len())
	}
}

func TestHotCacheInvalidation(t *testing.T) {
	s := newSeenVersions(newHotCache(10))
	s.watchStarted(configMaps)
	read(s, "a", "5", "10")
	read(s, "b", "6", "10")
	s.observe(configMaps, "11", "ns/a")
	if read(s, "a", "5", "11") {
		t.Error("a hit after an event of a")
	}
	if !read(s, "b", "6", "10") {
		t.Error("no hit of b after an event of another object")
	}

	// A read in flight while a newer event arrives is not kept: the event
	// found nothing to invalidate.
	_, ticket := s.hotGet(hotKeyOf("c"))
	s.observe(configMaps, "12", "ns/c")
	s.hotOffer(hotKeyOf("c"), ticket, configMapAt("c", "7"), "11")
	if read(s, "c", "12", "12") {
		t.Error("an object read at 11 was kept though an event at 12 had been received")
	}

	// Nor across a relist: a delete during the gap is never an event.
	_, ticket = s.hotGet(hotKeyOf("d"))
	s.restarted(configMaps)
	s.hotOffer(hotKeyOf("d"), ticket, configMapAt("d", "8"), "12")
	if obj, _ := s.hotGet(hotKeyOf("d")); obj != nil {
		t.Error("an object read across a relist was kept")
	}
	if obj, _ := s.hotGet(hotKeyOf("b")); obj != nil {
		t.Error("b survived a relist")
	}

	// A hit is a copy.
	read(s, "e", "9", "12")
	obj, _ := s.hotGet(hotKeyOf("e"))
	obj.(*corev1.ConfigMap).Name = "changed"
	if again, _ := s.hotGet(hotKeyOf("e")); again.(*corev1.ConfigMap).Name != "e" {
		t.Error("changing a hit changed the cached object")
	}
}
