package integration

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// testEnv is what the integration tests need from the environment.
type testEnv struct {
	informerdBin   string
	kubeconfig     string
	apiserverURL   string
	adminTokenFile string
	caFile         string
}

// requireEnv skips when INFORMERD_E2E is unset or "0", and fails when it is
// set but the environment is incomplete: CI must not pass by skipping.
func requireEnv(t *testing.T) testEnv {
	t.Helper()
	if e2e := os.Getenv("INFORMERD_E2E"); e2e == "" || e2e == "0" {
		t.Skip("INFORMERD_E2E is not set")
	}
	env := testEnv{
		informerdBin:   os.Getenv("INFORMERD_BIN"),
		kubeconfig:     os.Getenv("KUBECONFIG"),
		apiserverURL:   os.Getenv("INFORMERD_APISERVER_URL"),
		adminTokenFile: os.Getenv("INFORMERD_ADMIN_TOKEN_FILE"),
		caFile:         os.Getenv("INFORMERD_CA_FILE"),
	}
	if env.informerdBin == "" {
		env.informerdBin = defaultInformerdBin()
	}
	for _, v := range []struct{ name, value string }{
		{"KUBECONFIG", env.kubeconfig},
		{"INFORMERD_APISERVER_URL", env.apiserverURL},
		{"INFORMERD_ADMIN_TOKEN_FILE", env.adminTokenFile},
		{"INFORMERD_CA_FILE", env.caFile},
	} {
		if v.value == "" {
			t.Errorf(`INFORMERD_E2E is set but %s is not; run eval "$(hack/control-plane.sh env)"`, v.name)
		}
	}
	if _, err := os.Stat(env.informerdBin); err != nil {
		t.Errorf("informerd binary (INFORMERD_BIN): %v; run bazel build //server:informerd", err)
	}
	if t.Failed() {
		t.FailNow()
	}
	return env
}

// defaultInformerdBin is bazel-bin/server/informerd in the repository that
// holds this file, found through the GOPATH symlink if there is one.
func defaultInformerdBin() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return ""
	}
	if resolved, err := filepath.EvalSymlinks(file); err == nil {
		file = resolved
	}
	root := filepath.Join(filepath.Dir(file), "..", "..", "..")
	return filepath.Join(root, "bazel-bin", "server", "informerd")
}
