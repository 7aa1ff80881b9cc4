package integration

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"google.golang.org/grpc"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/event"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/informerd/informerd/client/go/connection"
	"github.com/informerd/informerd/client/go/informerdv1"
	"github.com/informerd/informerd/client/go/kube/crcache"
)

// splitClient sends Watch calls to one informerd and every other call to
// another: the two replicas a round-robin connection spreads a
// controller's calls over, made deterministic.
type splitClient struct {
	informerdv1.CacheClient // reads: Get, List, ListResources
	watches                 informerdv1.CacheClient
}

func (s splitClient) Watch(ctx context.Context, req *informerdv1.WatchRequest, opts ...grpc.CallOption) (informerdv1.Cache_WatchClient, error) {
	return s.watches.Watch(ctx, req, opts...)
}

// readYourEvents is the oracle: every reconcile's Get returns the object at
// the resourceVersion of the newest event that had triggered it, or later.
type readYourEvents struct {
	mu sync.Mutex
	// triggered: key -> the highest resourceVersion of the events that
	// passed the controller's predicate, noted before the request is
	// enqueued.
	triggered map[string]uint64
	// deleted: keys the writer deleted (noted before the delete is sent);
	// names are never reused, so NotFound is right only for these.
	deleted map[string]bool
	// read: key -> the resourceVersion of the last successful Get.
	read map[string]uint64
	// answered: key -> the highest trigger version of a reconcile whose
	// Get returned (an object, NotFound or an error).
	answered         map[string]uint64
	reconciles       int
	failedReads      int
	eventsWithData   int
	violations       []string
	reconcilesByTime []time.Time
}

func newReadYourEvents() *readYourEvents {
	return &readYourEvents{triggered: map[string]uint64{}, deleted: map[string]bool{}, read: map[string]uint64{}, answered: map[string]uint64{}}
}

func parseRV(t *testing.T, rv string) uint64 {
	v, err := strconv.ParseUint(rv, 10, 64)
	if err != nil {
		t.Errorf("resourceVersion %q: %v", rv, err)
	}
	return v
}

// event notes a handler's event; the object is what the informer holds.
func (o *readYourEvents) event(t *testing.T, obj client.Object) {
	cm, ok := obj.(*corev1.ConfigMap)
	o.mu.Lock()
	defer o.mu.Unlock()
	if !ok || cm.Data != nil || cm.BinaryData != nil {
		o.eventsWithData++
	}
	key := obj.GetNamespace() + "/" + obj.GetName()
	if rv := parseRV(t, obj.GetResourceVersion()); rv > o.triggered[key] {
		o.triggered[key] = rv
	}
}

func (o *readYourEvents) predicate(t *testing.T) predicate.Funcs {
	return predicate.Funcs{
		CreateFunc:  func(e event.CreateEvent) bool { o.event(t, e.Object); return true },
		UpdateFunc:  func(e event.UpdateEvent) bool { o.event(t, e.ObjectNew); return true },
		DeleteFunc:  func(e event.DeleteEvent) bool { o.event(t, e.Object); return true },
		GenericFunc: func(e event.GenericEvent) bool { return true },
	}
}

func (o *readYourEvents) reconciler(t *testing.T, reader client.Reader) reconcile.Func {
	return func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		key := req.Namespace + "/" + req.Name
		o.mu.Lock()
		want := o.triggered[key]
		o.reconciles++
		o.mu.Unlock()
		var cm corev1.ConfigMap
		err := reader.Get(ctx, req.NamespacedName, &cm)
		o.mu.Lock()
		defer o.mu.Unlock()
		if want > o.answered[key] {
			o.answered[key] = want
		}
		switch {
		case apierrors.IsNotFound(err):
			if !o.deleted[key] {
				o.violations = append(o.violations, fmt.Sprintf("%s: NotFound after an event at %d, never deleted", key, want))
			}
			return reconcile.Result{}, nil
		case err != nil:
			// Not stale, just not answered (a replica that stays behind
			// past informerd's wait): the request is retried.
			o.failedReads++
			return reconcile.Result{}, err
		}
		got := parseRV(t, cm.ResourceVersion)
		if got < want {
			o.violations = append(o.violations, fmt.Sprintf("%s: read at %d after an event at %d", key, got, want))
		}
		if cm.Data == nil {
			o.violations = append(o.violations, fmt.Sprintf("%s: the read object at %d has no data (a metadata-only read)", key, got))
		}
		o.read[key] = got
		return reconcile.Result{}, nil
	}
}

// TestNoCopyReadYourEvents: a controller-runtime manager whose cache is
// crcache's no-copy mode reconciles ConfigMaps while they are written; its
// watches go to one informerd (A) and its reads to another (B), as a
// round-robin connection to two replicas would. The oracle: every
// reconcile's Get (through mgr.GetClient()) returns the object at the
// version of the event that triggered it or later (NotFound only for
// deleted objects), through three phases: writes going on; B held behind
// the apiserver (a proxy stalls its upstream) while A delivers events, where
// the same read without the minimum version is shown to return older
// objects; A killed and restarted; B killed and restarted. Handlers see metadata-only objects;
// reads return whole ones. At the end every object's last read equals the
// apiserver's state.
//
// It runs without and with a local cache (LocalCacheObjects), whose hits
// must keep the same guarantee.
func TestNoCopyReadYourEvents(t *testing.T) {
	// The manager's own log is not the test's output.
	ctrl.SetLogger(logr.Discard())
	t.Run("reads from informerd", func(t *testing.T) { testReadYourEvents(t, crcache.NoCopyOptions{}) })
	t.Run("local cache of 4 objects", func(t *testing.T) { testReadYourEvents(t, crcache.NoCopyOptions{LocalCacheObjects: 4}) })
}

func testReadYourEvents(t *testing.T, noCopy crcache.NoCopyOptions) {
	lc := newLiveCluster(t, "go-nocopy", 8, time.Now().UnixNano(), connection.Options{})
	env, api, namespace, churn, ctx := lc.env, lc.api, lc.namespace, lc.churn, lc.ctx

	proxy := newStallProxy(t, apiserverAddress(t, env))
	behind := newInformerd(t, env)
	behind.kubeconfig = kubeconfigThrough(t, env, proxy)
	behind.start(t)
	behindConn, err := connection.Dial(ctx, connection.Options{Addresses: []string{behind.grpcAddress}})
	if err != nil {
		t.Fatal(err)
	}
	defer behindConn.Close()
	reads := informerdv1.NewCacheClient(behindConn)
	split := splitClient{CacheClient: reads, watches: informerdv1.NewCacheClient(lc.conn)}

	restConfig, err := clientcmd.BuildConfigFromFlags("", env.kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	// Eight workers, as a controller with more than a few keys runs: with
	// one, every other key whose read waits out B's version wait (3 s)
	// holds the key under test back by 3 s more, past phase 2's bound.
	mgr, err := ctrl.NewManager(restConfig, ctrl.Options{
		Cache:          cache.Options{DefaultNamespaces: map[string]cache.Config{namespace: {}}},
		Metrics:        metricsserver.Options{BindAddress: "0"},
		Controller:     config.Controller{SkipNameValidation: ptr.To(true), MaxConcurrentReconciles: 8},
		NewCache:       crcache.NewCacheFunc(split, crcache.NoCopy(noCopy)),
		MapperProvider: crcache.MapperProvider(split),
	})
	if err != nil {
		t.Fatal(err)
	}
	oracle := newReadYourEvents()
	if err := builder.ControllerManagedBy(mgr).
		Named("nocopy-read-your-events").
		For(&corev1.ConfigMap{}, builder.WithPredicates(oracle.predicate(t))).
		Complete(oracle.reconciler(t, mgr.GetClient())); err != nil {
		t.Fatal(err)
	}
	mgrCtx, stopMgr := context.WithCancel(ctx)
	mgrDone := make(chan error, 1)
	go func() { mgrDone <- mgr.Start(mgrCtx) }()
	defer func() {
		stopMgr()
		if err := <-mgrDone; err != nil {
			t.Errorf("manager: %v", err)
		}
	}()
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		t.Fatal("the manager's cache did not sync")
	}

	// step is the churner's mix of creates, patches and deletes, each
	// delete noted in the oracle before it is sent.
	step := func(n int) {
		t.Helper()
		for i := 0; i < n; i++ {
			var err error
			switch r := churn.random.Intn(10); {
			case len(churn.existing) < 5 || (r < 4 && len(churn.existing) < 40):
				err = churn.create()
			case r < 8:
				name := churn.existing[churn.random.Intn(len(churn.existing))]
				err = api.patchConfigMap(namespace, name, map[string]string{"n": fmt.Sprint(churn.random.Int())})
			default:
				name := churn.existing[churn.random.Intn(len(churn.existing))]
				oracle.mu.Lock()
				oracle.deleted[namespace+"/"+name] = true
				oracle.mu.Unlock()
				for j, existing := range churn.existing {
					if existing == name {
						churn.existing = append(churn.existing[:j], churn.existing[j+1:]...)
						break
					}
				}
				err = api.deleteConfigMap(namespace, name)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}

	// Phase 1: writes going on.
	step(40)

	// Phase 2: B behind. A's events trigger reconciles whose reads go to
	// B; each must wait for B (or fail and be retried), never answer older.
	proxy.stall()
	name := churn.existing[0]
	if err := api.patchConfigMap(namespace, name, map[string]string{"n": "behind"}); err != nil {
		t.Fatal(err)
	}
	written, err := api.listConfigMaps(namespace)
	if err != nil {
		t.Fatal(err)
	}
	step(10)
	// The reconcile of that write reads from B while B is behind: it waits
	// and fails (informerd's bounded wait, then UNAVAILABLE), to be
	// retried; a read without the minimum would return at once, older.
	var triggered uint64
	if !waitFor(30*time.Second, func() bool {
		oracle.mu.Lock()
		defer oracle.mu.Unlock()
		triggered = oracle.triggered[namespace+"/"+name]
		return oracle.answered[namespace+"/"+name] >= parseRV(t, written[name])
	}) {
		t.Fatalf("no reconcile of %s at %s was answered within 30s of the write", name, written[name])
	}
	// The control: B, asked without a minimum, answers older than the
	// event A delivered.
	resp, err := reads.Get(ctx, &informerdv1.GetRequest{
		Resource: &informerdv1.ResourceName{Version: "v1", Resource: "configmaps"}, Namespace: namespace, Name: name,
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := parseRV(t, resp.GetObject().GetResourceVersion()); got >= triggered {
		t.Fatalf("control: B answered %s at %d without a minimum while held behind, want older than the event at %d; the stall did not hold B behind", name, got, triggered)
	}
	oracle.mu.Lock()
	if oracle.failedReads == 0 {
		t.Errorf("no read failed while B was behind: the reconcile of %s at %d was answered by B without waiting for it", name, triggered)
	}
	oracle.mu.Unlock()
	proxy.resume()

	// Phase 3: A restarted under writes; the watch resumes from its last
	// version on the new process.
	step(10)
	lc.server.kill(t)
	step(10)
	lc.server.start(t)
	step(10)
	// And B, which answers the reads, restarted: reads fail (retried)
	// until it has listed again, at a version not older than any event.
	behind.kill(t)
	step(5)
	behind.start(t)
	step(10)

	// Convergence: each object's last read is the apiserver's state.
	final, err := api.listConfigMaps(namespace)
	if err != nil {
		t.Fatal(err)
	}
	converged := waitFor(60*time.Second, func() bool {
		oracle.mu.Lock()
		defer oracle.mu.Unlock()
		for n, rv := range final {
			if oracle.read[namespace+"/"+n] != parseRV(t, rv) {
				return false
			}
		}
		return true
	})
	oracle.mu.Lock()
	defer oracle.mu.Unlock()
	if !converged {
		t.Errorf("the last reads did not reach the apiserver's state within 60s:\n read %v\n want %v", oracle.read, final)
	}
	for _, v := range oracle.violations {
		t.Errorf("read older than its event: %s", v)
	}
	if oracle.eventsWithData > 0 {
		t.Errorf("%d events carried data: the informers must hold metadata only", oracle.eventsWithData)
	}
	t.Logf("%d reconciles, %d reads not answered (B behind or restarting; retried), %d objects", oracle.reconciles, oracle.failedReads, len(final))
}
