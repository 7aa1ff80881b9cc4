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
