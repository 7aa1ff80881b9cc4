// Package kube lets client-go and controller-runtime read from informerd
// instead of the kube-apiserver: a ListerWatcher speaks client-go's own types
// (metav1.ListOptions in, typed lists and watch.Interface events out) over
// informerd's List and Watch, so that
//
//	lw, err := kube.NewListerWatcher(informerdv1.NewCacheClient(conn),
//		corev1.SchemeGroupVersion.WithResource("pods"), &corev1.Pod{})
//	informer := cache.NewSharedIndexInformer(lw, &corev1.Pod{}, 0, cache.Indexers{})
//
// runs unchanged on informerd. Writes still go to the apiserver. Package
// kube/factory builds client-go's shared informer factory on this
// ListerWatcher; kube/crcache plugs it into controller-runtime.
//
// What the Reflector relies on is kept:
//   - every decoded object carries the resource's apiVersion and kind,
//     whatever the server sent;
//   - WatchList (sendInitialEvents with resourceVersionMatch=NotOlderThan)
//     ends its initial events with a bookmark annotated
//     "k8s.io/initial-events-end": "true";
//   - bookmarks carry an object of the informer's type with only
//     resourceVersion set, as the apiserver's do;
//   - a resume point or continue token older than informerd's history
//     (OUT_OF_RANGE), and a watcher cut off for falling behind
//     (RESOURCE_EXHAUSTED), become 410 Expired, on which the Reflector
//     relists; other gRPC codes become the apiserver's equivalents;
//   - UNAVAILABLE (a restarting informerd) is retried inside the adapter,
//     within about a second of the server being back: a watch resumes from
//     its last resourceVersion without the Reflector noticing (for up to
//     30s); a List retries for 2s.
//
// Failures reach the Reflector's WatchErrorHandler: calls do not wait for a
// server that cannot be reached, so a List against a wrong address, a
// server that is not gRPC, a failed TLS handshake or a refused token ends
// with an error that says why (and, on a connection from connection.Dial,
// names the address), and the Reflector retries with its own backoff.
package kube
