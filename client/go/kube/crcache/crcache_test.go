package crcache

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

func TestUnsupportedOptionsAreRefusedByName(t *testing.T) {
	mapper := meta.NewDefaultRESTMapper(nil)
	for name, c := range map[string]struct {
		opts cache.Options
		want string
	}{
		"two namespaces": {
			opts: cache.Options{DefaultNamespaces: map[string]cache.Config{"a": {}, "b": {}}},
			want: "DefaultNamespaces names 2 namespaces",
		},
		"ByObject namespaces": {
			opts: cache.Options{ByObject: map[client.Object]cache.ByObject{
				&corev1.ConfigMap{}: {Namespaces: map[string]cache.Config{"a": {}}},
			}},
			want: "ByObject[/v1, Kind=ConfigMap].Namespaces",
		},
		"own NewInformer": {
			opts: cache.Options{NewInformer: toolscache.NewSharedIndexInformer},
			want: "cache.Options.NewInformer is set",
		},
	} {
		c.opts.Mapper = mapper
		_, err := NewCacheFunc(nil)(&rest.Config{Host: "https://127.0.0.1:1"}, c.opts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", name, err, c.want)
		}
	}
}

func TestNoCopyOptionsAreCheckedByName(t *testing.T) {
	for name, c := range map[string]struct {
		opts NoCopyOptions
		want string
	}{
		"star beside paths":    {NoCopyOptions{EventFields: []string{"metadata", "*"}}, `EventFields[1] is "*" beside other paths`},
		"an empty path":        {NoCopyOptions{EventFields: []string{"metadata", ""}}, "EventFields[1] is empty"},
		"negative local cache": {NoCopyOptions{LocalCacheObjects: -1}, "LocalCacheObjects is -1"},
	} {
		_, err := NewCacheFunc(nil, NoCopy(c.opts))(&rest.Config{Host: "https://127.0.0.1:1"}, cache.Options{Mapper: meta.NewDefaultRESTMapper(nil)})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", name, err, c.want)
		}
	}
	for _, fields := range [][]string{nil, {"metadata"}, {"*"}, {"spec.nodeName"}, {"metadata", "status.phase"}} {
		if _, err := NewCacheFunc(nil, NoCopy(NoCopyOptions{EventFields: fields}))(&rest.Config{Host: "https://127.0.0.1:1"}, cache.Options{Mapper: meta.NewDefaultRESTMapper(nil)}); err != nil {
			t.Errorf("EventFields %q: %v", fields, err)
		}
	}
}

func TestWithFieldsIsCheckedByName(t *testing.T) {
	for name, c := range map[string]struct {
		option Option
		want   string
	}{
		"no paths":      {WithFields(&corev1.Pod{}), "WithFields(/v1, Kind=Pod): no paths"},
		"an empty path": {WithFields(&corev1.Pod{}, "spec.nodeName", ""), "WithFields(/v1, Kind=Pod)[1] is empty"},
		"unknown type":  {WithFields(&unknownKind{}, "spec"), "WithFields: no kind is registered"},
	} {
		_, err := NewCacheFunc(nil, c.option)(&rest.Config{Host: "https://127.0.0.1:1"}, cache.Options{Mapper: meta.NewDefaultRESTMapper(nil)})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", name, err, c.want)
		}
	}
	if _, err := NewCacheFunc(nil, WithFields(&corev1.Pod{}, "metadata", "spec.nodeName"))(&rest.Config{Host: "https://127.0.0.1:1"}, cache.Options{Mapper: meta.NewDefaultRESTMapper(nil)}); err != nil {
		t.Errorf("a pod mask: %v", err)
	}
}

// unknownKind is a client.Object no scheme knows.
type unknownKind struct{ corev1.ConfigMap }

func (u *unknownKind) DeepCopyObject() runtime.Object { return &unknownKind{*u.ConfigMap.DeepCopy()} }
