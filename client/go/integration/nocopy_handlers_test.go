package integration

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/informerd/informerd/client/go/connection"
	"github.com/informerd/informerd/client/go/informerdv1"
	"github.com/informerd/informerd/client/go/kube/crcache"
)

// verdicts records what a predicate decided for each update, by the new
// object's resourceVersion.
type verdicts struct {
	mu sync.Mutex
	by map[string]bool
}

func (v *verdicts) wrap(p predicate.Predicate) predicate.Funcs {
	return predicate.Funcs{
		CreateFunc: p.Create,
		DeleteFunc: p.Delete,
		UpdateFunc: func(e event.UpdateEvent) bool {
			verdict := p.Update(e)
			v.mu.Lock()
			v.by[e.ObjectNew.GetResourceVersion()] = verdict
			v.mu.Unlock()
			return verdict
		},
		GenericFunc: p.Generic,
	}
}

func (v *verdicts) of(rv string) (verdict, ok bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	verdict, ok = v.by[rv]
	return verdict, ok
}

// requests counts reconcile requests by name.
type requests struct {
	mu sync.Mutex
	by map[string]int
}

func (r *requests) reconciler() reconcile.Func {
	return func(_ context.Context, req reconcile.Request) (reconcile.Result, error) {
		r.mu.Lock()
		r.by[req.Name]++
		r.mu.Unlock()
		return reconcile.Result{}, nil
	}
}

func (r *requests) count(name string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.by[name]
}

// TestNoCopyHandlersOnMetadata: controller-runtime's stock handlers and
// predicates work on the metadata-only objects of the no-copy mode's
// informers (typed objects with only metadata set): GenerationChanged on a
// Deployment passes a spec change and drops a label-only change;
// LabelChanged on a ConfigMap passes a label change and drops a data-only
// change; EnqueueRequestForOwner maps a ConfigMap to the Deployment that
// controls it.
func TestNoCopyHandlersOnMetadata(t *testing.T) {
	ctrl.SetLogger(logr.Discard())
	env := requireEnv(t)
	api, err := newAPIServer(env)
	if err != nil {
		t.Fatal(err)
	}
	namespace := fmt.Sprintf("go-nocopy-handlers-%d", time.Now().UnixNano())
	if err := api.createNamespace(namespace); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { api.call("DELETE", "/api/v1/namespaces/"+namespace, "", nil, nil) })
	server := newInformerd(t, env)
	server.resources = "configmaps,deployments.apps"
	server.start(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	conn, err := connection.Dial(ctx, connection.Options{Addresses: []string{server.grpcAddress}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	cc := informerdv1.NewCacheClient(conn)

	restConfig, err := clientcmd.BuildConfigFromFlags("", env.kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := ctrl.NewManager(restConfig, ctrl.Options{
		Cache:          cache.Options{DefaultNamespaces: map[string]cache.Config{namespace: {}}},
		Metrics:        metricsserver.Options{BindAddress: "0"},
		Controller:     config.Controller{SkipNameValidation: ptr.To(true)},
		NewCache:       crcache.NewCacheFunc(cc, crcache.NoCopy(crcache.NoCopyOptions{})),
		MapperProvider: crcache.MapperProvider(cc),
	})
	if err != nil {
		t.Fatal(err)
	}
	generation := &verdicts{by: map[string]bool{}}
	labelVerdicts := &verdicts{by: map[string]bool{}}
	generationRequests := &requests{by: map[string]int{}}
	labelRequests := &requests{by: map[string]int{}}
	ownerRequests := &requests{by: map[string]int{}}
	if err := builder.ControllerManagedBy(mgr).Named("nocopy-generation").
		For(&appsv1.Deployment{}, builder.WithPredicates(generation.wrap(predicate.GenerationChangedPredicate{}))).
		Complete(generationRequests.reconciler()); err != nil {
		t.Fatal(err)
	}
	if err := builder.ControllerManagedBy(mgr).Named("nocopy-labels").
		For(&corev1.ConfigMap{}, builder.WithPredicates(labelVerdicts.wrap(predicate.LabelChangedPredicate{}))).
		Complete(labelRequests.reconciler()); err != nil {
		t.Fatal(err)
	}
	if err := builder.ControllerManagedBy(mgr).Named("nocopy-owner").
		Watches(&corev1.ConfigMap{}, handler.EnqueueRequestForOwner(mgr.GetScheme(), mgr.GetRESTMapper(), &appsv1.Deployment{}, handler.OnlyControllerOwner())).
		Complete(ownerRequests.reconciler()); err != nil {
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

	writer, err := client.New(restConfig, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	labels := map[string]string{"app": "nocopy"}
	deployment := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "web"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(int32(1)),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}},
		},
	}
	if err := writer.Create(ctx, deployment); err != nil {
		t.Fatal(err)
	}
	child := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "child", Labels: map[string]string{"team": "a"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: "web",
				UID: deployment.UID, Controller: ptr.To(true)}}},
		Data: map[string]string{"n": "0"},
	}
	if err := writer.Create(ctx, child); err != nil {
		t.Fatal(err)
	}

	// The creates reach every controller's handler (each registers its
	// handler when it starts, after the manager's first sync): from here
	// on each change is an update event to each.
	for what, created := range map[string]func() bool{
		"GenerationChanged controller, Deployment web": func() bool { return generationRequests.count("web") > 0 },
		"LabelChanged controller, ConfigMap child":     func() bool { return labelRequests.count("child") > 0 },
		"owner controller, Deployment web":             func() bool { return ownerRequests.count("web") > 0 },
	} {
		if !waitFor(30*time.Second, created) {
			t.Fatalf("%s: no reconcile within 30s of the create", what)
		}
	}
	patch := func(obj client.Object, body string) string {
		t.Helper()
		if err := writer.Patch(ctx, obj, client.RawPatch(types.MergePatchType, []byte(body))); err != nil {
			t.Fatal(err)
		}
		return obj.GetResourceVersion()
	}
	awaitVerdict := func(v *verdicts, rv string, want bool, what string) {
		t.Helper()
		var got, ok bool
		if !waitFor(30*time.Second, func() bool { got, ok = v.of(rv); return ok }) {
			t.Errorf("%s (resourceVersion %s): no update event within 30s", what, rv)
			return
		}
		if got != want {
			t.Errorf("%s (resourceVersion %s): the predicate said %v, want %v", what, rv, got, want)
		}
	}
	// Not an annotation: a Deployment's generation counts those too.
	relabelledDeployment := patch(deployment, `{"metadata":{"labels":{"note":"x"}}}`)
	scaled := patch(deployment, `{"spec":{"replicas":2}}`)
	awaitVerdict(generation, relabelledDeployment, false, "GenerationChangedPredicate on a label change")
	awaitVerdict(generation, scaled, true, "GenerationChangedPredicate on a spec change")
	dataOnly := patch(child, `{"data":{"n":"1"}}`)
	relabelled := patch(child, `{"metadata":{"labels":{"team":"b"}}}`)
	awaitVerdict(labelVerdicts, dataOnly, false, "LabelChangedPredicate on a data change")
	awaitVerdict(labelVerdicts, relabelled, true, "LabelChangedPredicate on a label change")
	if !waitFor(30*time.Second, func() bool { return ownerRequests.count("web") >= 2 }) {
		t.Errorf("EnqueueRequestForOwner: the child's updates made no further request for its owner Deployment web within 30s")
	}
	if n := ownerRequests.count("child"); n != 0 {
		t.Errorf("EnqueueRequestForOwner: %d requests for the ConfigMap itself, want none", n)
	}
}
