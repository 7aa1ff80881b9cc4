package informerdv1

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGeneratedCodeIsUpToDate regenerates the code into a temporary
// directory and compares it with the committed files. Without protoc and
// its Go plugins the test skips, unless INFORMERD_REQUIRE_PROTOC is set.
func TestGeneratedCodeIsUpToDate(t *testing.T) {
	for _, tool := range []string{"protoc", "protoc-gen-go", "protoc-gen-go-grpc"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("INFORMERD_REQUIRE_PROTOC") != "" {
				t.Fatalf("%s not found and INFORMERD_REQUIRE_PROTOC is set", tool)
			}
			t.Skipf("%s not found; cannot check the generated code", tool)
		}
	}
	out := t.TempDir()
	cmd := exec.Command(filepath.Join("..", "gen_proto.sh"), out)
	if output, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gen_proto.sh: %v\n%s", err, output)
	}
	for _, name := range []string{"informerd.pb.go", "informerd_grpc.pb.go"} {
		fresh, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		committed, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(fresh, committed) {
			t.Errorf("informerdv1/%s is stale: run client/go/gen_proto.sh", name)
		}
	}
}
