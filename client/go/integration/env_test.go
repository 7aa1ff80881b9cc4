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

// requireEnv fails, never skips, when the environment is incomplete: an
// integration test that passes by skipping proves nothing. Without a control
// plane, run the unit packages only (see README.md).
func requireEnv(t *testing.T) testEnv {
	t.Helper()
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
			t.Errorf(`%s is not set; run hack/control-plane.sh up and eval "$(hack/control-plane.sh env)"`, v.name)
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
// holds this file (through a symlink to it, if there is one).
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
