package crcache

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
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
		"a field mask":         {NoCopyOptions{EventFields: []string{"spec.nodeName"}}, `EventFields ["spec.nodeName"]`},
		"metadata and more":    {NoCopyOptions{EventFields: []string{"metadata", "status.phase"}}, "EventFields"},
		"negative local cache": {NoCopyOptions{LocalCacheObjects: -1}, "LocalCacheObjects is -1"},
	} {
		_, err := NewCacheFunc(nil, NoCopy(c.opts))(&rest.Config{Host: "https://127.0.0.1:1"}, cache.Options{Mapper: meta.NewDefaultRESTMapper(nil)})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", name, err, c.want)
		}
	}
	for _, fields := range [][]string{nil, {"metadata"}, {"*"}} {
		if _, err := NewCacheFunc(nil, NoCopy(NoCopyOptions{EventFields: fields}))(&rest.Config{Host: "https://127.0.0.1:1"}, cache.Options{Mapper: meta.NewDefaultRESTMapper(nil)}); err != nil {
			t.Errorf("EventFields %q: %v", fields, err)
		}
	}
}
