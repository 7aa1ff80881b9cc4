// A client-go SharedIndexInformer and a dynamic informer, unmodified
// client-go, against whatever server the kubeconfig names (informerd's
// Kubernetes API port in tests/ecosystem/run.sh), over one namespace's
// ConfigMaps, with client-go's default content negotiation (protobuf
// preferred, JSON accepted) and its default list strategy.
//
// Usage: client-go-informer KUBECONFIG NAMESPACE CLIENT_NAME
// Prints "SYNCED" once both informers have synced and this client has
// written its own ConfigMap through the typed client (the write passes
// through informerd to the apiserver); when the ConfigMap named "done" is
// in both caches it checks that they agree and prints
// "CACHE {name: resourceVersion}" (the typed cache's) and exits 0.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
)

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	os.Exit(1)
}

// versions is a cache's {name: resourceVersion}, or nil before "done".
func versions(objects []any) map[string]string {
	out := map[string]string{}
	for _, o := range objects {
		meta, err := metaOf(o)
		if err != nil {
			fail("%v", err)
		}
		out[meta.GetName()] = meta.GetResourceVersion()
	}
	if _, ok := out["done"]; !ok {
		return nil
	}
	return out
}

func metaOf(o any) (metav1.Object, error) {
	switch v := o.(type) {
	case *corev1.ConfigMap:
		return v, nil
	case *unstructured.Unstructured:
		return v, nil
	}
	return nil, fmt.Errorf("unexpected object %T in a cache", o)
}

func main() {
	if len(os.Args) != 4 {
		fail("usage: client-go-informer KUBECONFIG NAMESPACE CLIENT_NAME")
	}
	kubeconfig, namespace, name := os.Args[1], os.Args[2], os.Args[3]
	config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		fail("kubeconfig: %v", err)
	}
	typed := kubernetes.NewForConfigOrDie(config)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	changed := make(chan struct{}, 1)
	notify := cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { poke(changed) },
		UpdateFunc: func(any, any) { poke(changed) },
		DeleteFunc: func(any) { poke(changed) },
	}
	factory := informers.NewSharedInformerFactoryWithOptions(typed, 0, informers.WithNamespace(namespace))
	typedInformer := factory.Core().V1().ConfigMaps().Informer()
	if _, err := typedInformer.AddEventHandler(notify); err != nil {
		fail("%v", err)
	}
	dynamicFactory := dynamicinformer.NewFilteredDynamicSharedInformerFactory(
		dynamic.NewForConfigOrDie(config), 0, namespace, nil)
	dynamicInformer := dynamicFactory.ForResource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Informer()
	if _, err := dynamicInformer.AddEventHandler(notify); err != nil {
		fail("%v", err)
	}
	factory.Start(ctx.Done())
	dynamicFactory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), typedInformer.HasSynced, dynamicInformer.HasSynced) {
		fail("the informers did not sync")
	}
	own := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "written-by-" + name},
		Data:       map[string]string{"client": name},
	}
	if _, err := typed.CoreV1().ConfigMaps(namespace).Create(ctx, own, metav1.CreateOptions{}); err != nil {
		fail("create through informerd: %v", err)
	}
	fmt.Println("SYNCED")

	for {
		select {
		case <-ctx.Done():
			fail("no \"done\" in both caches: %v", ctx.Err())
		case <-changed:
		}
		typedCache, dynamicCache := versions(typedInformer.GetStore().List()), versions(dynamicInformer.GetStore().List())
		if typedCache == nil || dynamicCache == nil {
			continue
		}
		a, _ := json.Marshal(typedCache)
		b, _ := json.Marshal(dynamicCache)
		if string(a) != string(b) {
			continue // the other informer has not had the last events yet
		}
		fmt.Printf("CACHE %s\n", a)
		return
	}
}

func poke(changed chan struct{}) {
	select {
	case changed <- struct{}{}:
	default:
	}
}
