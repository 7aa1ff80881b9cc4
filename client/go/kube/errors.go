package kube

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// The op of a watch whose stream had delivered events when it failed.
const opWatchRunning = "watch"

// apiError turns an error from an informerd call into what the apiserver
// would have answered, so that client-go's error handling (the Reflector's
// relist on 410 Expired above all) applies unchanged. Context errors pass
// through so that callers can tell their own cancellation apart.
func apiError(op string, resource schema.GroupResource, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	st, ok := status.FromError(err)
	if !ok {
		return apierrors.NewInternalError(err)
	}
	msg := fmt.Sprintf("informerd %s %s: %s", op, resource.String(), st.Message())
	switch st.Code() {
	case codes.OutOfRange:
		// A too old resourceVersion or continue token: relist.
		return apierrors.NewResourceExpired(msg)
	case codes.ResourceExhausted:
		// A running watch cut off (it fell behind the history, or stopped
		// reading) has lost its resume point: relist. A call refused
		// before it started (the caller's rate, concurrency or
		// initial-events budget) is the apiserver's 429: client-go backs
		// off before it tries again, where a 410 would make it relist at
		// once, and be refused again, many times a second.
		if op == opWatchRunning {
			return apierrors.NewResourceExpired(msg)
		}
		return apierrors.NewTooManyRequests(msg, 1)
	case codes.NotFound:
		return &apierrors.StatusError{ErrStatus: metav1.Status{
			Status: metav1.StatusFailure, Code: http.StatusNotFound, Reason: metav1.StatusReasonNotFound,
			Details: &metav1.StatusDetails{Group: resource.Group, Kind: resource.Resource},
			Message: msg,
		}}
	case codes.PermissionDenied:
		return apierrors.NewForbidden(resource, "", errors.New(msg))
	case codes.Unauthenticated:
		return apierrors.NewUnauthorized(msg)
	case codes.InvalidArgument:
		return apierrors.NewBadRequest(msg)
	case codes.Unavailable:
		return apierrors.NewServiceUnavailable(msg)
	case codes.DeadlineExceeded:
		return apierrors.NewTimeoutError(msg, 1)
	case codes.Canceled:
		return context.Canceled
	}
	return apierrors.NewInternalError(errors.New(msg + " (gRPC " + st.Code().String() + ")"))
}

// transient reports whether a failed call is worth retrying as it is: the
// server is unreachable, restarting or not yet synced.
func transient(err error) bool {
	return status.Code(err) == codes.Unavailable
}

func badRequest(msg string) error { return apierrors.NewBadRequest("informerd adapter: " + msg) }
