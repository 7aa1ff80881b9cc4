// A controller-runtime manager with its default options, unmodified
// controller-runtime, against whatever server the kubeconfig names
// (informerd's Kubernetes API port in tests/ecosystem/run.sh): one
// controller For ConfigMaps, whose reconciler reads each from the manager's
// client (its cache), as the controller-runtime book's first controller
// does. The only option set is the metrics listener, off, so that
// concurrent runs do not contend for its default port.
//
// Usage: controller-runtime KUBECONFIG NAMESPACE CLIENT_NAME
// Prints "SYNCED" once the cache has synced and this client has written its
// own ConfigMap through the manager's client (the write passes through
// informerd to the apiserver); once the ConfigMap named "done" has been
// reconciled it prints "CACHE {name: resourceVersion}" of the namespace's
// ConfigMaps in the cache and exits 0.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	os.Exit(1)
}

func main() {
	if len(os.Args) != 4 {
		fail("usage: controller-runtime KUBECONFIG NAMESPACE CLIENT_NAME")
	}
	kubeconfig, namespace, name := os.Args[1], os.Args[2], os.Args[3]
	ctrl.SetLogger(logr.Discard())
	config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		fail("kubeconfig: %v", err)
	}
	mgr, err := ctrl.NewManager(config, ctrl.Options{Metrics: metricsserver.Options{BindAddress: "0"}})
	if err != nil {
		fail("manager: %v", err)
	}
	reconciledDone := make(chan struct{})
	err = ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}).
		Complete(reconcile.Func(func(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
			if req.Namespace != namespace {
				return ctrl.Result{}, nil
			}
			var cm corev1.ConfigMap
			if err := mgr.GetClient().Get(ctx, req.NamespacedName, &cm); err != nil {
				return ctrl.Result{}, client.IgnoreNotFound(err)
			}
			if cm.Name == "done" { // one worker (the default): closed once
				close(reconciledDone)
			}
			return ctrl.Result{}, nil
		}))
	if err != nil {
		fail("controller: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	managerDone := make(chan error, 1)
	go func() { managerDone <- mgr.Start(ctx) }()
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		fail("the cache did not sync")
	}
	own := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "written-by-" + name, Namespace: namespace},
		Data:       map[string]string{"client": name},
	}
	if err := mgr.GetClient().Create(ctx, own); err != nil && !apierrors.IsAlreadyExists(err) {
		fail("create through informerd: %v", err)
	}
	fmt.Println("SYNCED")

	select {
	case <-reconciledDone:
	case err := <-managerDone:
		fail("the manager stopped: %v", err)
	case <-ctx.Done():
		fail("\"done\" was never reconciled: %v", ctx.Err())
	}
	// The cache has every event up to "done"'s; it is the last write.
	var list corev1.ConfigMapList
	if err := mgr.GetClient().List(ctx, &list, client.InNamespace(namespace)); err != nil {
		fail("list from the cache: %v", err)
	}
	out := map[string]string{}
	for _, cm := range list.Items {
		out[cm.Name] = cm.ResourceVersion
	}
	printed, _ := json.Marshal(out)
	fmt.Printf("CACHE %s\n", printed)
}
