// Package informer provides RemoteInformer, a client-go style informer fed by
// an informerd server instead of the kube-apiserver.
//
// Protocol. The first stream is a Watch with send_initial_events and
// allow_bookmarks: the initial ADDED events are collected until the BOOKMARK
// with initial_events_end, reconciled against the cache, and then HasSynced
// becomes true. Live events follow: an ADDED for a key already cached is
// delivered as an update, a DELETED for an unknown key is ignored. When a
// stream breaks the informer resumes from the last resource_version it saw;
// if the server answers OUT_OF_RANGE (too old) or RESOURCE_EXHAUSTED (this
// watcher fell behind), it lists again the same way and delivers only the
// differences: adds, updates, and deletes of vanished objects with
// finalStateUnknown set; that relist starts at once. Other failures are
// retried after a jittered exponential backoff, reset whenever an event
// arrives.
//
// Slow handlers. Handlers run on the informer's goroutine, one at a time, in
// stream order, so a slow handler slows the reading of the stream. Nothing
// is buffered on the client beyond one relist; the server bounds what a slow
// reader costs by cutting it off with RESOURCE_EXHAUSTED, after which the
// informer resynchronises by diff. Handlers that do real work should only
// enqueue keys and let workers read the current state from the Lister (see
// the package example).
package informer
