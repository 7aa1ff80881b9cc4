// Command controller-runtime-memory measures what a controller-runtime
// manager's cache costs in Go heap per object: full objects or metadata only
// (builder.OnlyMetadata), fed by informerd (crcache.NewCacheFunc) or by the
// stock apiserver informers. One configuration per process, so that the
// heaps do not mix; bench/controller-runtime-memory/run.sh runs all four.
//
//	controller-runtime-memory populate -n NS --kind configmaps|pods --count N
//	controller-runtime-memory measure -n NS --kind configmaps|pods [--metadata] [--server ADDR] [--strip-managed-fields]
//	controller-runtime-memory cleanup -n NS
//
// measure prints one JSON line: objects, heap bytes before and after the
// informer synced (after GC), and their difference per object.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"runtime"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/informerd/informerd/client/go/connection"
	"github.com/informerd/informerd/client/go/informerdv1"
	"github.com/informerd/informerd/client/go/kube/crcache"
)

func main() {
	if len(os.Args) < 2 {
		log.Fatal("usage: controller-runtime-memory populate|measure [flags]")
	}
	flags := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	namespace := flags.String("n", "", "namespace")
	kind := flags.String("kind", "configmaps", "configmaps or pods")
	count := flags.Int("count", 1000, "populate: objects to create")
	metadata := flags.Bool("metadata", false, "measure: metadata-only cache (PartialObjectMetadata)")
	server := flags.String("server", "", "measure: informerd address; empty: the stock cache on the apiserver")
	strip := flags.Bool("strip-managed-fields", false, "measure: cache.TransformStripManagedFields on the stock cache (informerd cuts managedFields itself)")
	flags.Parse(os.Args[2:])
	if *namespace == "" || (*kind != "configmaps" && *kind != "pods") {
		log.Fatal("-n is required; --kind is configmaps or pods")
	}
	config, err := clientcmd.BuildConfigFromFlags("", os.Getenv("KUBECONFIG"))
	if err != nil {
		log.Fatal(err)
	}
	config.QPS, config.Burst = 500, 1000
	ctx := context.Background()
	switch os.Args[1] {
	case "populate":
		err = populate(ctx, kubernetes.NewForConfigOrDie(config), *namespace, *kind, *count)
	case "cleanup":
		err = kubernetes.NewForConfigOrDie(config).CoreV1().Namespaces().Delete(ctx, *namespace, metav1.DeleteOptions{})
	case "measure":
		err = measure(ctx, config, *namespace, *kind, *metadata, *server, *strip)
	default:
		log.Fatalf("unknown command %q", os.Args[1])
	}
	if err != nil {
		log.Fatal(err)
	}
}

// populate creates count objects of a realistic size: labels, annotations,
// and (configmaps) 1 KiB of data or (pods) a two-container spec.
func populate(ctx context.Context, cs kubernetes.Interface, namespace, kind string, count int) error {
	_, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	meta := func(i int) metav1.ObjectMeta {
		return metav1.ObjectMeta{
			Name:        fmt.Sprintf("obj-%05d", i),
			Labels:      map[string]string{"app": "bench", "tier": "backend", "shard": fmt.Sprint(i % 16)},
			Annotations: map[string]string{"example.com/owner": "team-bench", "example.com/revision": fmt.Sprint(i)},
		}
	}
	for i := 0; i < count; i++ {
		var err error
		if kind == "configmaps" {
			_, err = cs.CoreV1().ConfigMaps(namespace).Create(ctx, &corev1.ConfigMap{
				ObjectMeta: meta(i),
				Data:       map[string]string{"config.yaml": strings.Repeat("k: value\n", 114)},
			}, metav1.CreateOptions{})
		} else {
			container := func(name string, port int32) corev1.Container {
				return corev1.Container{
					Name: name, Image: "registry.example/bench/" + name + ":1.0",
					Args:  []string{"--port=8080", "--verbose"},
					Env:   []corev1.EnvVar{{Name: "MODE", Value: "bench"}, {Name: "SHARD", Value: fmt.Sprint(i % 16)}},
					Ports: []corev1.ContainerPort{{ContainerPort: port, Name: fmt.Sprintf("p%d", port)}},
				}
			}
			_, err = cs.CoreV1().Pods(namespace).Create(ctx, &corev1.Pod{
				ObjectMeta: meta(i),
				Spec:       corev1.PodSpec{Containers: []corev1.Container{container("app", 8080), container("sidecar", 9090)}},
			}, metav1.CreateOptions{})
		}
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	return nil
}

type result struct {
	Source         string  `json:"source"`
	Kind           string  `json:"kind"`
	Shape          string  `json:"shape"`
	Objects        int     `json:"objects"`
	HeapBefore     uint64  `json:"heap_before"`
	HeapAfter      uint64  `json:"heap_after"`
	BytesPerObject float64 `json:"bytes_per_object"`
	SyncSeconds    float64 `json:"sync_seconds"`
}

func measure(ctx context.Context, config *rest.Config, namespace, kind string, metadata bool, server string, strip bool) error {
	opts := cache.Options{DefaultNamespaces: map[string]cache.Config{namespace: {}}}
	newCache, source := cache.New, "apiserver"
	if strip {
		opts.DefaultTransform = cache.TransformStripManagedFields()
		source = "apiserver-strip"
	}
	if server != "" {
		conn, err := connection.Dial(ctx, connection.Options{Addresses: []string{server}})
		if err != nil {
			return err
		}
		defer conn.Close()
		newCache, source = crcache.NewCacheFunc(informerdv1.NewCacheClient(conn)), "informerd"
	}
	c, err := newCache(config, opts)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go c.Start(ctx)

	gvk := corev1.SchemeGroupVersion.WithKind(map[string]string{"configmaps": "ConfigMap", "pods": "Pod"}[kind])
	var obj client.Object
	var list client.ObjectList
	shape := "full"
	switch {
	case metadata:
		m := &metav1.PartialObjectMetadata{}
		m.SetGroupVersionKind(gvk)
		l := &metav1.PartialObjectMetadataList{}
		l.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		obj, list, shape = m, l, "metadata"
	case kind == "configmaps":
		obj, list = &corev1.ConfigMap{}, &corev1.ConfigMapList{}
	default:
		obj, list = &corev1.Pod{}, &corev1.PodList{}
	}
	before := heap()
	start := time.Now()
	informer, err := c.GetInformer(ctx, obj)
	if err != nil {
		return err
	}
	syncCtx, syncCancel := context.WithTimeout(ctx, 5*time.Minute)
	defer syncCancel()
	if !c.WaitForCacheSync(syncCtx) || !informer.HasSynced() {
		return fmt.Errorf("cache did not sync")
	}
	synced := time.Since(start)
	after := heap()
	if err := c.List(ctx, list); err != nil {
		return err
	}
	n := meta.LenList(list)
	if n == 0 {
		return fmt.Errorf("the cache holds no objects")
	}
	return json.NewEncoder(os.Stdout).Encode(result{
		Source: source, Kind: kind, Shape: shape, Objects: n,
		HeapBefore: before, HeapAfter: after,
		BytesPerObject: float64(int64(after)-int64(before)) / float64(n),
		SyncSeconds:    synced.Seconds(),
	})
}

// heap is the live heap after a full collection.
func heap() uint64 {
	var m runtime.MemStats
	for i := 0; i < 3; i++ {
		runtime.GC()
	}
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
