// Package integration tests the Go client against a real informerd and a
// real kube-apiserver (hack/control-plane.sh). It skips unless INFORMERD_E2E
// is set; when it is set, a missing environment is a failure.
//
//	hack/control-plane.sh up && eval "$(hack/control-plane.sh env)"
//	INFORMERD_E2E=1 INFORMERD_BIN=bazel-bin/server/informerd client/go/run-tests.sh
package integration
