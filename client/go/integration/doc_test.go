// Package integration tests the Go client against a real informerd and a
// real kube-apiserver (hack/control-plane.sh). A missing environment is a
// failure, never a skip.
//
//	hack/control-plane.sh up && eval "$(hack/control-plane.sh env)"
//	INFORMERD_BIN=bazel-bin/server/informerd client/go/run-tests.sh
package integration
