// Command informerd-clientgo-bench measures a client-go SharedIndexInformer's
// cold sync: the time from start to HasSynced, the process's CPU seconds
// until then, and its peak and steady resident memory, for one resource. It is the
// client-go side of the cold-sync table in docs/BENCHMARKS.md. With --decode
// it instead measures how fast client-go's codec decodes one object as the
// apiserver sent it (JSON or protobuf), the anchor of the ingest table.
//
// client-go is today's (go.mod), used as a controller uses it: typed
// objects, managedFields dropped by SetTransform, and the Reflector's own
// choice of streaming list (WatchListClient, on by default since 1.35) or
// paged LIST, so both caches hold the same data. Its typed clients ask for
// protobuf for built-in types; --content-type=json makes them read JSON,
// as every client of a CRD does and as informerd does.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
)

var (
	kubeconfig = flag.String("kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig file")
	resource   = flag.String("resource", "configmaps", "configmaps or pods (core v1)")
	namespace  = flag.String("namespace", "", "namespace to list and watch; empty = all")
	steadyWait = flag.Duration("steady", 5*time.Second,
		"wait after sync before reading steady RSS (after a forced GC that returns freed memory to the OS)")
	decodeFile = flag.String("decode", "",
		"a Pod as the apiserver sent it (JSON or protobuf): decode it for --decode-seconds and print bytes/s per core")
	decodeSeconds = flag.Duration("decode-seconds", 3*time.Second, "how long --decode runs")
	contentType   = flag.String("content-type", "",
		"the wire format asked of the apiserver: empty for client-go's default (protobuf for built-in types), or json")
)

// stripManagedFields drops metadata.managedFields, as controllers' transforms do.
func stripManagedFields(object interface{}) (interface{}, error) {
	if accessor, err := meta.Accessor(object); err == nil {
		accessor.SetManagedFields(nil)
	}
	return object, nil
}

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
	data, err := os.ReadFile("/proc/self/status")
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
	if *decodeFile != "" {
		os.Exit(decode(*decodeFile, *decodeSeconds))
	}
	start := time.Now()

	config, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fmt.Fprintln(os.Stderr, "kubeconfig:", err)
		os.Exit(1)
	}
	switch *contentType {
	case "":
	case "json":
		config.ContentType = "application/json"
	default:
		fmt.Fprintln(os.Stderr, "content-type: want json or nothing, got", *contentType)
		os.Exit(2)
	}
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		fmt.Fprintln(os.Stderr, "client:", err)
		os.Exit(1)
	}
	// Typed objects, as a controller's informer factory would hold them.
	var listWatch *cache.ListWatch
	var example apiruntime.Object
	switch *resource {
	case "configmaps":
		typed := client.CoreV1().ConfigMaps(*namespace)
		listWatch = typedListWatch(typed.List, typed.Watch)
		example = &corev1.ConfigMap{}
	case "pods":
		typed := client.CoreV1().Pods(*namespace)
		listWatch = typedListWatch(typed.List, typed.Watch)
		example = &corev1.Pod{}
	default:
		fmt.Fprintln(os.Stderr, "resource: want configmaps or pods, got", *resource)
		os.Exit(2)
	}
	informer := cache.NewSharedIndexInformer(listWatch, example, 0,
		cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	if err := informer.SetTransform(stripManagedFields); err != nil {
		fmt.Fprintln(os.Stderr, "transform:", err)
		os.Exit(1)
	}
	stop := make(chan struct{})
	go informer.Run(stop)
	// Polled every millisecond: cache.WaitForCacheSync polls every 100 ms,
	// which would round the time up by as much as the sync of 10k objects.
	for !informer.HasSynced() {
		if time.Since(start) > 10*time.Minute {
			fmt.Fprintln(os.Stderr, "cache did not sync in 10 minutes")
			os.Exit(1)
		}
		time.Sleep(time.Millisecond)
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

// typedListWatch is the ListWatch of a typed client's List and Watch.
func typedListWatch[L apiruntime.Object](
	list func(context.Context, metav1.ListOptions) (L, error),
	watchFunc func(context.Context, metav1.ListOptions) (watch.Interface, error),
) *cache.ListWatch {
	return &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (apiruntime.Object, error) {
			return list(ctx, o)
		},
		WatchFuncWithContext: watchFunc,
	}
}

// decode decodes the object in file with client-go's own deserializer (the
// one its typed clients use, JSON or protobuf by the bytes) for the given
// time, on this thread, and prints "bytes=N decodes=M cpu_seconds=S
// mb_per_cpu_second=X".
func decode(file string, duration time.Duration) int {
	data, err := os.ReadFile(file)
	if err != nil {
		fmt.Fprintln(os.Stderr, "decode:", err)
		return 1
	}
	deserializer := scheme.Codecs.UniversalDeserializer()
	if _, _, err := deserializer.Decode(data, nil, nil); err != nil {
		fmt.Fprintln(os.Stderr, "decode:", file, err)
		return 1
	}
	runtime.LockOSThread()
	cpuBefore := cpuSeconds()
	start := time.Now()
	decodes := 0
	for time.Since(start) < duration {
		for i := 0; i < 100; i++ {
			if _, _, err := deserializer.Decode(data, nil, nil); err != nil {
				fmt.Fprintln(os.Stderr, "decode:", err)
				return 1
			}
		}
		decodes += 100
	}
	cpu := cpuSeconds() - cpuBefore
	fmt.Printf("bytes=%d decodes=%d cpu_seconds=%.2f mb_per_cpu_second=%.1f\n",
		len(data), decodes, cpu, float64(len(data))*float64(decodes)/cpu/1e6)
	return 0
}
