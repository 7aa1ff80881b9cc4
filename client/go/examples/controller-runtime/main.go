// Command controller-runtime is an ordinary controller-runtime controller (a
// Reconciler over ConfigMaps, built with builder.ControllerManagedBy) whose
// informers come from informerd. It differs from its stock version by two
// manager options, NewCache and MapperProvider (marked below).
//
// It also speaks the uniform example contract of hack/example.sh, so the e2e
// suite can drive it:
//
//	controller-runtime --server ADDR --resource configmaps [-n NS]
//	                   [-l SELECTOR] [--token-file F] [--ca-file F]
//
// Kube credentials come from KUBECONFIG (as for any controller). Stdout gets
// SYNCED, ADD ns/name rv, UPDATE ns/name oldrv newrv, DELETE ns/name rv
// [final-state-unknown] from an event handler on the manager's informer,
// RECONCILED ns/name rv|absent from the Reconciler (which reads the object
// through the manager's client, i.e. from the cache), and on SIGTERM the
// manager's cache as sorted CACHE ns/name rv lines. Logs go to stderr.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"sort"
	"strings"
	"sync"
	"syscall"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	toolscache "k8s.io/client-go/tools/cache"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/informerd/informerd/client/go/connection"
	"github.com/informerd/informerd/client/go/informerdv1"
	"github.com/informerd/informerd/client/go/kube/crcache"
	"github.com/informerd/informerd/client/go/kube/mapper"
)

func main() {
	server := flag.String("server", "", "informerd gRPC address (host:port), or several comma-separated (replicas, balanced round robin)")
	resource := flag.String("resource", "", "resource to watch; this controller reconciles configmaps")
	namespace := flag.String("n", "", "namespace (default: all)")
	selector := flag.String("l", "", "label selector")
	tokenFile := flag.String("token-file", "", "file holding a bearer token for informerd, re-read on every call")
	caFile := flag.String("ca-file", "", "PEM CA certificates to verify informerd's TLS certificate with; empty: plaintext")
	flag.Parse()
	if *server == "" || *resource != "configmaps" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: controller-runtime --server ADDR --resource configmaps [-n NS] [-l SELECTOR] [--token-file F] [--ca-file F]")
		os.Exit(2)
	}
	ctrl.SetLogger(zap.New(zap.WriteTo(os.Stderr)))
	if err := run(*server, *namespace, *selector, *tokenFile, *caFile); err != nil {
		log.Fatal(err)
	}
}

func run(server, namespace, selector, tokenFile, caFile string) error {
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer cancel()

	options := connection.Options{
		Addresses: strings.Split(server, ","),
		TokenFile: tokenFile,
	}
	if caFile != "" {
		options.TLS = &connection.TLSOptions{CAFile: caFile}
	} else {
		// Without --ca-file the example talks to a local server (the e2e
		// suites); in a pod it is given the chart's CA.
		options.AllowTokenWithoutTLS = true
	}
	conn, err := connection.Dial(ctx, options)
	if err != nil {
		return err
	}
	defer conn.Close()

	cacheOptions := cache.Options{}
	if namespace != "" {
		cacheOptions.DefaultNamespaces = map[string]cache.Config{namespace: {}}
	}
	if selector != "" {
		parsed, err := labels.Parse(selector)
		if err != nil {
			return fmt.Errorf("-l: %w", err)
		}
		cacheOptions.DefaultLabelSelector = parsed
	}
	cc := informerdv1.NewCacheClient(conn)
	mgr, err := ctrl.NewManager(ctrl.GetConfigOrDie(), ctrl.Options{
		Cache:   cacheOptions,
		Metrics: metricsserver.Options{BindAddress: "0"},
		// The two lines that make this an informerd controller: the
		// manager's informers list and watch through informerd, and kinds
		// are mapped from informerd's ListResources (the namespace, for a
		// token allowed only there), so reads need no apiserver discovery.
		// Without them, this is the stock controller reading from the
		// apiserver.
		NewCache:       crcache.NewCacheFunc(cc),
		MapperProvider: crcache.MapperProviderWithOptions(cc, mapper.Options{Namespace: namespace}),
	})
	if err != nil {
		return err
	}

	out := &printer{}
	informer, err := mgr.GetCache().GetInformer(ctx, &corev1.ConfigMap{})
	if err != nil {
		return err
	}
	registration, err := informer.AddEventHandler(out.handlers())
	if err != nil {
		return err
	}
	out.registration = registration

	err = builder.ControllerManagedBy(mgr).
		For(&corev1.ConfigMap{}).
		Complete(&reconciler{client: mgr.GetClient()})
	if err != nil {
		return err
	}

	go func() {
		if toolscache.WaitForCacheSync(ctx.Done(), registration.HasSynced) {
			out.synced()
		}
	}()
	// Start returns once ctx is done (SIGTERM) and the controllers stopped.
	if err := mgr.Start(ctx); err != nil {
		return err
	}
	// The cache outlives Start's return: list it as the final state.
	var list corev1.ConfigMapList
	if err := mgr.GetClient().List(context.Background(), &list); err != nil {
		return fmt.Errorf("listing the cache: %w", err)
	}
	var lines []string
	for _, cm := range list.Items {
		lines = append(lines, fmt.Sprintf("CACHE %s/%s %s", cm.Namespace, cm.Name, cm.ResourceVersion))
	}
	sort.Strings(lines)
	for _, line := range lines {
		emit(line)
	}
	return nil
}

// reconciler is what a controller's Reconciler looks like: it reads the
// current state of the key from the cache and acts on it (here: says what
// it saw).
type reconciler struct {
	client client.Client
}

func (r *reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var cm corev1.ConfigMap
	err := r.client.Get(ctx, req.NamespacedName, &cm)
	switch {
	case apierrors.IsNotFound(err):
		emit(fmt.Sprintf("RECONCILED %s absent", req.NamespacedName))
		return reconcile.Result{}, nil
	case err != nil:
		return reconcile.Result{}, err
	}
	emit(fmt.Sprintf("RECONCILED %s/%s %s", cm.Namespace, cm.Name, cm.ResourceVersion))
	return reconcile.Result{}, nil
}

// printer prints the handler calls. SYNCED must come after the initial adds
// and before any live event: the handler's registration is synced once the
// initial adds were delivered to it, so a handler call that sees it synced
// is live and prints SYNCED first (once), and a goroutine prints it when no
// live event comes.
type printer struct {
	registration toolscache.ResourceEventHandlerRegistration
	once         sync.Once
}

func (p *printer) synced() { p.once.Do(func() { emit("SYNCED") }) }

func (p *printer) syncedIfLive() {
	if p.registration != nil && p.registration.HasSynced() {
		p.synced()
	}
}

func (p *printer) handlers() toolscache.ResourceEventHandlerFuncs {
	return toolscache.ResourceEventHandlerFuncs{
		AddFunc: func(obj interface{}) {
			p.syncedIfLive()
			cm := obj.(*corev1.ConfigMap)
			emit(fmt.Sprintf("ADD %s/%s %s", cm.Namespace, cm.Name, cm.ResourceVersion))
		},
		UpdateFunc: func(oldObj, newObj interface{}) {
			p.syncedIfLive()
			oldCM, newCM := oldObj.(*corev1.ConfigMap), newObj.(*corev1.ConfigMap)
			// A relist re-delivers unchanged objects as updates; they are
			// not changes.
			if oldCM.ResourceVersion == newCM.ResourceVersion {
				return
			}
			emit(fmt.Sprintf("UPDATE %s/%s %s %s", newCM.Namespace, newCM.Name, oldCM.ResourceVersion, newCM.ResourceVersion))
		},
		DeleteFunc: func(obj interface{}) {
			p.syncedIfLive()
			suffix := ""
			if tombstone, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
				obj, suffix = tombstone.Obj, " final-state-unknown"
			}
			cm, ok := obj.(*corev1.ConfigMap)
			if !ok {
				log.Printf("delete of a %T", obj)
				return
			}
			emit(fmt.Sprintf("DELETE %s/%s %s%s", cm.Namespace, cm.Name, cm.ResourceVersion, suffix))
		},
	}
}

var emitMu sync.Mutex

// emit writes one line with a single write; handlers and reconciles run on
// several goroutines.
func emit(line string) {
	emitMu.Lock()
	defer emitMu.Unlock()
	if _, err := os.Stdout.WriteString(line + "\n"); err != nil {
		log.Fatalf("writing stdout: %v", err)
	}
}
