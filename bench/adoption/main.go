// Command informerd-adoption-bench is one controller of bench/adoption.sh:
// what a Go controller pays in its own process to sync and follow pods,
// reading them from the kube-apiserver directly or through informerd via
// the adapters of client/go/kube.
//
//	informerd-adoption-bench controller --namespace NS --kind controller-runtime|client-go
//	    --shape typed|metadata|masked|nocopy [--server ADDR]
//	informerd-adoption-bench update --namespace NS --rate 100 --seconds 10
//	informerd-adoption-bench agents --namespace NS --nodes 100 [--server ADDR]
//
// controller builds one cache as a controller would and prints, once the
// cache has synced,
//
//	synced objects=N synced_seconds=S cpu_seconds=C hwm_kib=K rss_kib=R heap_inuse_bytes=H encoding=E
//
// (seconds from the start of main; CPU user+system of the process from
// getrusage; the Go heap in use after a forced collection, taken after the
// CPU reading so that the collection is not counted), then one line
//
//	mark updates=U reconciles=Q cpu_seconds=C rss_kib=R hwm_kib=K
//
// each time it receives SIGUSR1, and "heap heap_inuse_bytes=H" (after a
// forced collection) each time it receives SIGUSR2, until SIGTERM. With
// --cpuprofile FILE, SIGHUP starts a CPU profile into FILE and the next
// one stops it (bench/adoption.sh ADOPTION_PROFILE: the update window).
// bench/adoption.sh marks before and after a window of updates; the
// difference is the CPU the window cost. E names the encoding the objects arrived in: the apiserver's
// response Content-Type (direct), or, through informerd, the encoding the
// adapter asked for and the fields the objects came in (json or protobuf),
// read off the gRPC messages whatever the adapter's version.
//
// controller-runtime: a manager (metrics and probes off) with one controller
// For the pods whose reconciler reads the pod from the cache; through
// informerd, manager.Options.NewCache = crcache.NewCacheFunc and
// MapperProvider = crcache.MapperProvider. client-go: a SharedIndexInformer
// on the typed clientset (or the metadata informer) directly, or on
// kube.NewListerWatcher (kube.NewMetadataListerWatcher). Both drop
// managedFields with a transform, as bench/clientgo does (informerd drops
// them upstream).
//
// update patches an annotation of the namespace's pods, round robin, at
// RATE patches/s for SECONDS, and prints "updates=N errors=E seconds=S".
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	crcachepkg "sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/go-logr/logr"
	"github.com/informerd/informerd/client/go/connection"
	"github.com/informerd/informerd/client/go/informerdv1"
	"github.com/informerd/informerd/client/go/kube"
	"github.com/informerd/informerd/client/go/kube/crcache"
)

var start = time.Now()

// cpuProfile: where SIGHUP writes a CPU profile (--cpuprofile).
var cpuProfile string

var podsGVR = corev1.SchemeGroupVersion.WithResource("pods")

func main() {
	if len(os.Args) < 2 {
		fail("usage: informerd-adoption-bench controller|update|agents [flags]")
	}
	flags := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	kubeconfig := flags.String("kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig file")
	namespace := flags.String("namespace", "", "the pods' namespace")
	kind := flags.String("kind", "controller-runtime", "controller: controller-runtime or client-go")
	shape := flags.String("shape", "typed", "controller: typed (corev1.Pod), metadata (PartialObjectMetadata), masked (typed, crcache.WithFields: pods of maskedFields only) or nocopy (typed, crcache.NoCopy: reads from informerd, metadata-only events)")
	server := flags.String("server", "", "controller, agents: informerd's gRPC address; empty: the apiserver directly")
	nodes := flags.Int("nodes", 100, "agents: one watch per node, node-0 .. node-<nodes-1>")
	rate := flags.Int("rate", 100, "update: patches per second")
	seconds := flags.Float64("seconds", 10, "update: how long to patch")
	flags.StringVar(&cpuProfile, "cpuprofile", "", "controller: the file SIGHUP starts a CPU profile into (the next SIGHUP stops it)")
	flags.Parse(os.Args[2:])
	if *namespace == "" {
		fail("--namespace is required")
	}
	config, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fail("kubeconfig: %v", err)
	}
	config.QPS, config.Burst = 1000, 2000
	switch os.Args[1] {
	case "controller":
		throughOnly := *shape == "nocopy" || *shape == "masked"
		if (*kind != "controller-runtime" && *kind != "client-go") || (*shape != "typed" && *shape != "metadata" && !throughOnly) ||
			(throughOnly && (*kind != "controller-runtime" || *server == "")) {
			fail("--kind is controller-runtime or client-go; --shape is typed or metadata, or masked or nocopy (controller-runtime through informerd: crcache.WithFields, crcache.NoCopy)")
		}
		err = runController(config, *namespace, *kind, *shape, *server)
	case "agents":
		err = runAgents(config, *namespace, *nodes, *server)
	case "update":
		err = update(config, *namespace, *rate, time.Duration(*seconds*float64(time.Second)))
	default:
		fail("unknown command %q", os.Args[1])
	}
	if err != nil {
		fail("%v", err)
	}
}

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "informerd-adoption-bench: "+format+"\n", args...)
	os.Exit(1)
}

// counters are what the marks report.
type counters struct {
	updates    atomic.Int64
	reconciles atomic.Int64
}

func runController(config *rest.Config, namespace, kind, shape, server string) error {
	log.SetLogger(logr.Discard())
	enc := &encodingObserver{}
	var cc informerdv1.CacheClient
	if server != "" {
		conn, err := connection.Dial(context.Background(), connection.Options{Addresses: []string{server}},
			grpc.WithChainUnaryInterceptor(enc.unary), grpc.WithChainStreamInterceptor(enc.stream))
		if err != nil {
			return err
		}
		defer conn.Close()
		cc = informerdv1.NewCacheClient(conn)
	} else {
		config.Wrap(enc.wrapTransport)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var c counters
	countUpdates := toolscache.ResourceEventHandlerFuncs{
		UpdateFunc: func(_, _ interface{}) { c.updates.Add(1) },
	}
	var informer syncedInformer
	var objectCount func() (int, error)
	var probe func() string
	if kind == "controller-runtime" {
		var err error
		informer, objectCount, probe, err = startManager(ctx, config, cc, namespace, shape, &c)
		if err != nil {
			return err
		}
	} else {
		shared, err := newClientGoInformer(config, cc, namespace, shape)
		if err != nil {
			return err
		}
		go shared.Run(ctx.Done())
		informer = shared
		objectCount = func() (int, error) { return len(shared.GetStore().ListKeys()), nil }
	}
	if _, err := informer.AddEventHandler(countUpdates); err != nil {
		return err
	}
	// Polled every millisecond, as bench/clientgo does: WaitForCacheSync
	// polls every 100 ms, which would round the time up.
	for !informer.HasSynced() {
		if time.Since(start) > 15*time.Minute {
			return fmt.Errorf("the cache did not sync in 15 minutes")
		}
		time.Sleep(time.Millisecond)
	}
	synced := time.Since(start)
	cpu := cpuSeconds()
	hwm, rss := statusKiB("VmHWM"), statusKiB("VmRSS")
	heap := heapInuse()
	objects, err := objectCount()
	if err != nil {
		return err
	}
	if kind == "client-go" {
		// No reconciler: every object counts as handled once synced.
		c.reconciles.Store(int64(objects))
	}
	fmt.Printf("synced objects=%d synced_seconds=%.3f cpu_seconds=%.3f hwm_kib=%d rss_kib=%d heap_inuse_bytes=%d encoding=%s\n",
		objects, synced.Seconds(), cpu, hwm, rss, heap, enc.describe())

	signals := make(chan os.Signal, 4)
	signal.Notify(signals, syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGHUP, syscall.SIGTTIN, syscall.SIGTERM, syscall.SIGINT)
	var profile *os.File
	defer func() {
		if profile != nil {
			pprof.StopCPUProfile()
			profile.Close()
		}
	}()
	for s := range signals {
		if s == syscall.SIGUSR2 {
			fmt.Printf("heap heap_inuse_bytes=%d\n", heapInuse())
			continue
		}
		if s == syscall.SIGTTIN {
			if probe == nil {
				fmt.Println("reads none")
			} else {
				fmt.Println(probe())
			}
			continue
		}
		if s == syscall.SIGHUP {
			if profile, err = toggleProfile(profile, cpuProfile); err != nil {
				return err
			}
			continue
		}
		if s != syscall.SIGUSR1 {
			return nil
		}
		fmt.Printf("mark updates=%d reconciles=%d cpu_seconds=%.3f rss_kib=%d hwm_kib=%d\n",
			c.updates.Load(), c.reconciles.Load(), cpuSeconds(), statusKiB("VmRSS"), statusKiB("VmHWM"))
	}
	return nil
}

// toggleProfile starts a CPU profile into path when none runs (open is nil)
// and stops the running one otherwise; it returns the profile's file, nil
// once stopped.
func toggleProfile(open *os.File, path string) (*os.File, error) {
	if open != nil {
		pprof.StopCPUProfile()
		fmt.Printf("profile stopped path=%s\n", path)
		return nil, open.Close()
	}
	if path == "" {
		return nil, fmt.Errorf("SIGHUP: no --cpuprofile to write to")
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	fmt.Printf("profile started path=%s\n", path)
	return f, nil
}

// syncedInformer is what both kinds' informers offer that is used here.
type syncedInformer interface {
	AddEventHandler(toolscache.ResourceEventHandler) (toolscache.ResourceEventHandlerRegistration, error)
	HasSynced() bool
}

// readProbe is a reconciler's reads, timed: 1,000 Gets of random pods and
// 100 Lists of one shard label (1/64 of the pods, 156 of 10k), through the
// manager's client (its local cache, or informerd with NoCopy). One line:
// "reads get_p50_ms=.. get_p99_ms=.. list_p50_ms=.. list_p99_ms=.. list_items=.. errors=..".
func readProbe(ctx context.Context, reader client.Reader, namespace string, names client.ObjectList, newObject func() client.Object, newList func() client.ObjectList) string {
	if err := reader.List(ctx, names, client.InNamespace(namespace)); err != nil {
		return fmt.Sprintf("reads errors=1 error=%q", err.Error())
	}
	var keys []string
	_ = meta.EachListItem(names, func(o apiruntime.Object) error {
		if m, err := meta.Accessor(o); err == nil {
			keys = append(keys, m.GetName())
		}
		return nil
	})
	if len(keys) == 0 {
		return "reads errors=1 error=\"no pods\""
	}
	random := rand.New(rand.NewSource(1))
	errors := 0
	gets := make([]float64, 0, 1000)
	for i := 0; i < 1000; i++ {
		began := time.Now()
		if err := reader.Get(ctx, client.ObjectKey{Namespace: namespace, Name: keys[random.Intn(len(keys))]}, newObject()); err != nil {
			errors++
		}
		gets = append(gets, float64(time.Since(began).Microseconds())/1000)
	}
	lists := make([]float64, 0, 100)
	items := 0
	for i := 0; i < 100; i++ {
		list := newList()
		began := time.Now()
		if err := reader.List(ctx, list, client.InNamespace(namespace), client.MatchingLabels{"shard": strconv.Itoa(random.Intn(64))}); err != nil {
			errors++
		}
		lists = append(lists, float64(time.Since(began).Microseconds())/1000)
		items += meta.LenList(list)
	}
	return fmt.Sprintf("reads get_p50_ms=%.3f get_p99_ms=%.3f list_p50_ms=%.3f list_p99_ms=%.3f list_items=%d errors=%d",
		quantile(gets, 0.5), quantile(gets, 0.99), quantile(lists, 0.5), quantile(lists, 0.99), items/100, errors)
}

// quantile of samples (sorted in place), nearest rank.
func quantile(samples []float64, q float64) float64 {
	sort.Float64s(samples)
	i := int(math.Ceil(q*float64(len(samples)))) - 1
	if i < 0 {
		i = 0
	}
	return samples[i]
}

// maskedFields is the masked shape's mask: what a controller that
// schedules or reports on pods reads (its key, owners and generation are
// in metadata).
var maskedFields = []string{"metadata", "spec.nodeName", "spec.containers.image", "status.phase", "status.podIP"}

// startManager starts a controller-runtime manager with one controller
// For the namespace's pods and returns the pods' informer and a count of
// the objects its cache holds.
func startManager(ctx context.Context, config *rest.Config, cc informerdv1.CacheClient, namespace, shape string, c *counters) (syncedInformer, func() (int, error), func() string, error) {
	options := manager.Options{
		Cache: crcachepkg.Options{
			DefaultNamespaces: map[string]crcachepkg.Config{namespace: {}},
			DefaultTransform:  crcachepkg.TransformStripManagedFields(),
		},
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
	}
	if cc != nil {
		var cacheOptions []crcache.Option
		switch shape {
		case "nocopy":
			cacheOptions = append(cacheOptions, crcache.NoCopy(crcache.NoCopyOptions{}))
		case "masked":
			cacheOptions = append(cacheOptions, crcache.WithFields(&corev1.Pod{}, maskedFields...))
		}
		options.NewCache = crcache.NewCacheFunc(cc, cacheOptions...)
		options.MapperProvider = crcache.MapperProvider(cc)
	}
	mgr, err := ctrl.NewManager(config, options)
	if err != nil {
		return nil, nil, nil, err
	}
	var obj client.Object = &corev1.Pod{}
	var list client.ObjectList = &corev1.PodList{}
	var typedList client.ObjectList = &corev1.PodList{}
	var forOptions []builder.ForOption
	if shape == "metadata" {
		m := &metav1.PartialObjectMetadata{}
		m.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Pod"))
		l := &metav1.PartialObjectMetadataList{}
		l.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("PodList"))
		obj, list, typedList, forOptions = m, l, l, []builder.ForOption{builder.OnlyMetadata}
	}
	if shape == "nocopy" {
		// Counting is a List RPC here: of metadata, not a typed copy of
		// every pod in the controller's process.
		l := &metav1.PartialObjectMetadataList{}
		l.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("PodList"))
		list = l
	}
	reader := mgr.GetClient()
	newObject := func() client.Object { return obj.DeepCopyObject().(client.Object) }
	err = builder.ControllerManagedBy(mgr).For(obj, forOptions...).
		Complete(reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
			c.reconciles.Add(1)
			return reconcile.Result{}, client.IgnoreNotFound(reader.Get(ctx, req.NamespacedName, newObject()))
		}))
	if err != nil {
		return nil, nil, nil, err
	}
	informer, err := mgr.GetCache().GetInformer(ctx, obj, crcachepkg.BlockUntilSynced(false))
	if err != nil {
		return nil, nil, nil, err
	}
	go func() {
		if err := mgr.Start(ctx); err != nil {
			fail("manager: %v", err)
		}
	}()
	count := func() (int, error) {
		if err := mgr.GetCache().List(ctx, list); err != nil {
			return 0, err
		}
		return meta.LenList(list), nil
	}
	probe := func() string {
		return readProbe(ctx, reader, namespace, list, newObject, func() client.ObjectList { return typedList.DeepCopyObject().(client.ObjectList) })
	}
	return informer, count, probe, nil
}

// newClientGoInformer is a SharedIndexInformer on the pods, typed or
// metadata-only, from the apiserver (cc nil) or informerd.
func newClientGoInformer(config *rest.Config, cc informerdv1.CacheClient, namespace, shape string) (toolscache.SharedIndexInformer, error) {
	indexers := toolscache.Indexers{toolscache.NamespaceIndex: toolscache.MetaNamespaceIndexFunc}
	var informer toolscache.SharedIndexInformer
	switch {
	case cc == nil && shape == "typed":
		cs, err := kubernetes.NewForConfig(config)
		if err != nil {
			return nil, err
		}
		pods := cs.CoreV1().Pods(namespace)
		informer = toolscache.NewSharedIndexInformer(&toolscache.ListWatch{
			ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (apiruntime.Object, error) {
				return pods.List(ctx, o)
			},
			WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
				return pods.Watch(ctx, o)
			},
		}, &corev1.Pod{}, 0, indexers)
	case cc == nil:
		mc, err := metadata.NewForConfig(config)
		if err != nil {
			return nil, err
		}
		informer = metadatainformer.NewFilteredMetadataInformer(mc, podsGVR, namespace, 0, indexers, nil).Informer()
	case shape == "typed":
		lw, err := kube.NewListerWatcher(cc, podsGVR, &corev1.Pod{}, kube.WithNamespace(namespace))
		if err != nil {
			return nil, err
		}
		informer = toolscache.NewSharedIndexInformer(lw, &corev1.Pod{}, 0, indexers)
	default:
		lw, err := kube.NewMetadataListerWatcher(cc, podsGVR, "Pod", kube.WithNamespace(namespace))
		if err != nil {
			return nil, err
		}
		informer = toolscache.NewSharedIndexInformer(lw, &metav1.PartialObjectMetadata{}, 0, indexers)
	}
	err := informer.SetTransform(func(object interface{}) (interface{}, error) {
		if accessor, err := meta.Accessor(object); err == nil {
			accessor.SetManagedFields(nil)
		}
		return object, nil
	})
	return informer, err
}

// encodingObserver records which encoding the objects of the pods arrived in.
type encodingObserver struct {
	mu           sync.Mutex
	contentTypes map[string]int // direct: response Content-Type of pod reads
	requested    map[string]int // informerd: the requests' encoding field
	json, pb     atomic.Int64   // informerd: objects with json / protobuf set
}

func (e *encodingObserver) wrapTransport(rt http.RoundTripper) http.RoundTripper {
	return roundTripper(func(req *http.Request) (*http.Response, error) {
		resp, err := rt.RoundTrip(req)
		if err == nil && strings.Contains(req.URL.Path, "/pods") {
			contentType := resp.Header.Get("Content-Type")
			if i := strings.IndexByte(contentType, ';'); i >= 0 {
				contentType = contentType[:i]
			}
			e.mu.Lock()
			if e.contentTypes == nil {
				e.contentTypes = map[string]int{}
			}
			e.contentTypes[contentType]++
			e.mu.Unlock()
		}
		return resp, err
	})
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// request records a List or Watch request's encoding field by name, so
// that this works against adapters with and without the field.
func (e *encodingObserver) request(m interface{}) {
	pm, ok := m.(proto.Message)
	if !ok {
		return
	}
	msg := pm.ProtoReflect()
	name := msg.Descriptor().FullName()
	if name != "informerd.v1.ListRequest" && name != "informerd.v1.WatchRequest" {
		return
	}
	value := "unset(JSON)" // an adapter without the field
	if fd := msg.Descriptor().Fields().ByName("encoding"); fd != nil && fd.Enum() != nil {
		number := msg.Get(fd).Enum()
		value = strconv.Itoa(int(number))
		if ev := fd.Enum().Values().ByNumber(number); ev != nil {
			value = string(ev.Name())
		}
	}
	e.mu.Lock()
	if e.requested == nil {
		e.requested = map[string]int{}
	}
	e.requested[value]++
	e.mu.Unlock()
}

// reply counts the objects of a ListResponse or WatchEvent by the field
// that carries them.
func (e *encodingObserver) reply(m interface{}) {
	pm, ok := m.(proto.Message)
	if !ok {
		return
	}
	msg := pm.ProtoReflect()
	fields := msg.Descriptor().Fields()
	if fd := fields.ByName("items"); fd != nil && fd.IsList() && fd.Message() != nil {
		list := msg.Get(fd).List()
		for i := 0; i < list.Len(); i++ {
			e.object(list.Get(i).Message())
		}
	}
	if fd := fields.ByName("object"); fd != nil && fd.Message() != nil && msg.Has(fd) {
		e.object(msg.Get(fd).Message())
	}
}

func (e *encodingObserver) object(obj protoreflect.Message) {
	if fd := obj.Descriptor().Fields().ByName("protobuf"); fd != nil && obj.Has(fd) {
		e.pb.Add(1)
	} else if fd := obj.Descriptor().Fields().ByName("json"); fd != nil && obj.Has(fd) {
		e.json.Add(1)
	}
}

func (e *encodingObserver) unary(ctx context.Context, method string, req, reply interface{}, cc *grpc.ClientConn,
	invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	e.request(req)
	err := invoker(ctx, method, req, reply, cc, opts...)
	if err == nil {
		e.reply(reply)
	}
	return err
}

func (e *encodingObserver) stream(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string,
	streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
	s, err := streamer(ctx, desc, cc, method, opts...)
	if err != nil {
		return nil, err
	}
	return &observedStream{ClientStream: s, e: e}, nil
}

type observedStream struct {
	grpc.ClientStream
	e *encodingObserver
}

func (s *observedStream) SendMsg(m interface{}) error {
	s.e.request(m)
	return s.ClientStream.SendMsg(m)
}

func (s *observedStream) RecvMsg(m interface{}) error {
	err := s.ClientStream.RecvMsg(m)
	if err == nil {
		s.e.reply(m)
	}
	return err
}

// describe is one word-free token for the synced line: e.g.
// "apiserver:application/vnd.kubernetes.protobuf" or
// "informerd:requested=ENCODING_PROTOBUF,objects=protobuf:10000/json:0".
func (e *encodingObserver) describe() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	join := func(m map[string]int) string {
		parts := []string{}
		for k := range m {
			parts = append(parts, k)
		}
		return strings.ReplaceAll(strings.Join(parts, "+"), " ", "_")
	}
	if e.requested == nil && e.contentTypes != nil {
		return "apiserver:" + join(e.contentTypes)
	}
	return fmt.Sprintf("informerd:requested=%s,objects=protobuf:%d/json:%d", join(e.requested), e.pb.Load(), e.json.Load())
}

// update patches the namespace's pods round robin at rate per second for
// the duration, from 8 concurrent clients.
func update(config *rest.Config, namespace string, rate int, duration time.Duration) error {
	ctx := context.Background()
	mc, err := metadata.NewForConfig(config)
	if err != nil {
		return err
	}
	list, err := mc.Resource(podsGVR).Namespace(namespace).List(ctx, metav1.ListOptions{ResourceVersion: "0"})
	if err != nil {
		return err
	}
	if len(list.Items) == 0 {
		return fmt.Errorf("no pods in %s", namespace)
	}
	cs, err := kubernetes.NewForConfig(config)
	if err != nil {
		return err
	}
	work := make(chan string, rate)
	var done, errors atomic.Int64
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for name := range work {
				patch := fmt.Sprintf(`{"metadata":{"annotations":{"bench.informerd.io/tick":"%d"}}}`, time.Now().UnixNano())
				if _, err := cs.CoreV1().Pods(namespace).Patch(ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
					errors.Add(1)
				} else {
					done.Add(1)
				}
			}
		}()
	}
	began := time.Now()
	total := int(float64(rate) * duration.Seconds())
	for i := 0; i < total; i++ {
		// Paced from the start, not from the previous send, so the rate
		// holds whatever a send cost.
		if wait := time.Until(began.Add(time.Duration(i) * time.Second / time.Duration(rate))); wait > 0 {
			time.Sleep(wait)
		}
		work <- list.Items[i%len(list.Items)].Name
	}
	close(work)
	wg.Wait()
	fmt.Printf("updates=%d errors=%d seconds=%.3f\n", done.Load(), errors.Load(), time.Since(began).Seconds())
	return nil
}

// heapInuse is the Go heap in use after a forced collection.
func heapInuse() uint64 {
	runtime.GC()
	var mem runtime.MemStats
	runtime.ReadMemStats(&mem)
	return mem.HeapInuse
}

// cpuSeconds is user + system time of this process (getrusage).
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
			if fields := strings.Fields(line); len(fields) >= 2 {
				value, _ := strconv.ParseInt(fields[1], 10, 64)
				return value
			}
		}
	}
	return 0
}
