// Command informerd-clientgo-bench measures a client-go SharedIndexInformer's
// cold sync: the time from start to HasSynced, the process's CPU seconds
// until then, and its peak and steady resident memory, for one resource. It is the
// client-go side of the cold-sync table in docs/BENCHMARKS.md.
//
// client-go 1.20 has no SetTransform, so the ListWatch strips
// metadata.managedFields from every listed and watched object, as informerd
// does by default: both caches then hold the same data.
//
// Built in GOPATH mode inside the Kubernetes source tree so that the
// vendored client-go resolves; see bench/clientgo.sh.
package main

import (
	"context"
	"flag"
	"fmt"
	"io/ioutil"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"

	corev1 "k8s.io/api/core/v1"
)

var (
	kubeconfig = flag.String("kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig file")
	resource   = flag.String("resource", "configmaps", "configmaps or pods (core v1)")
	namespace  = flag.String("namespace", "", "namespace to list and watch; empty = all")
	steadyWait = flag.Duration("steady", 5*time.Second,
		"wait after sync before reading steady RSS (after a forced GC that returns freed memory to the OS)")
)

// stripManagedFields drops metadata.managedFields from an object, a list's
// items, or a watch event's object.
func stripManagedFields(object apiruntime.Object) {
	if meta.IsListType(object) {
		_ = meta.EachListItem(object, func(item apiruntime.Object) error {
			stripManagedFields(item)
			return nil
		})
		return
	}
	if accessor, err := meta.Accessor(object); err == nil {
		accessor.SetManagedFields(nil)
	}
}

type strippingWatch struct {
	inner  watch.Interface
	result chan watch.Event
}

func newStrippingWatch(inner watch.Interface) watch.Interface {
	w := &strippingWatch{inner: inner, result: make(chan watch.Event)}
	go func() {
		defer close(w.result)
		for event := range inner.ResultChan() {
			if event.Object != nil {
				stripManagedFields(event.Object)
			}
			w.result <- event
		}
	}()
	return w
}

func (w *strippingWatch) Stop()                          { w.inner.Stop() }
func (w *strippingWatch) ResultChan() <-chan watch.Event { return w.result }

// cpuSeconds is user + system time of this process.
func cpuSeconds() float64 {
	var usage syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &usage); err != nil {
		return 0
	}
	seconds := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return seconds(usage.Utime) + seconds(usage.Stime)
}

// statusKiB reads a "Key:   N kB" line of /proc/self/status.
func statusKiB(key string) int64 {
	data, err := ioutil.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, key+":") {
			fields := strings.Fields(line)
			if len(fields) >= 2 {
				value, _ := strconv.ParseInt(fields[1], 10, 64)
				return value
			}
		}
	}
	return 0
}

func main() {
	flag.Parse()
	start := time.Now()

	config, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fmt.Fprintln(os.Stderr, "kubeconfig:", err)
		os.Exit(1)
	}
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		fmt.Fprintln(os.Stderr, "client:", err)
		os.Exit(1)
	}
	// Typed objects, as a controller's informer factory would hold them.
	var list func(metav1.ListOptions) (apiruntime.Object, error)
	var watchFrom func(metav1.ListOptions) (watch.Interface, error)
	var example apiruntime.Object
	switch *resource {
	case "configmaps":
		typed := client.CoreV1().ConfigMaps(*namespace)
		list = func(o metav1.ListOptions) (apiruntime.Object, error) { return typed.List(context.TODO(), o) }
		watchFrom = func(o metav1.ListOptions) (watch.Interface, error) { return typed.Watch(context.TODO(), o) }
		example = &corev1.ConfigMap{}
	case "pods":
		typed := client.CoreV1().Pods(*namespace)
		list = func(o metav1.ListOptions) (apiruntime.Object, error) { return typed.List(context.TODO(), o) }
		watchFrom = func(o metav1.ListOptions) (watch.Interface, error) { return typed.Watch(context.TODO(), o) }
		example = &corev1.Pod{}
	default:
		fmt.Fprintln(os.Stderr, "resource: want configmaps or pods, got", *resource)
		os.Exit(2)
	}
	listWatch := &cache.ListWatch{
		ListFunc: func(options metav1.ListOptions) (apiruntime.Object, error) {
			result, err := list(options)
			if err == nil {
				stripManagedFields(result)
			}
			return result, err
		},
		WatchFunc: func(options metav1.ListOptions) (watch.Interface, error) {
			inner, err := watchFrom(options)
			if err != nil {
				return nil, err
			}
			return newStrippingWatch(inner), nil
		},
	}
	informer := cache.NewSharedIndexInformer(listWatch, example, 0,
		cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	stop := make(chan struct{})
	go informer.Run(stop)
	if !cache.WaitForCacheSync(stop, informer.HasSynced) {
		fmt.Fprintln(os.Stderr, "cache did not sync")
		os.Exit(1)
	}
	synced := time.Since(start)
	cpuSynced := cpuSeconds() // since the process started
	objects := len(informer.GetStore().ListKeys())

	time.Sleep(*steadyWait)
	runtime.GC()
	debug.FreeOSMemory()
	steadyKiB := statusKiB("VmRSS")
	peakKiB := statusKiB("VmHWM")
	// One line of key=value pairs; bench/coldsync.sh makes the table.
	fmt.Printf("objects=%d synced_seconds=%.3f cpu_seconds=%.2f peak_kib=%d steady_kib=%d\n",
		objects, synced.Seconds(), cpuSynced, peakKiB, steadyKiB)
	close(stop)
}
