package informerdv1

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGeneratedCodeIsUpToDate regenerates the code into a temporary
// directory with gen_proto.sh (which installs the pinned Go plugins itself)
// and compares it with the committed files. Without protoc the test skips,
// unless INFORMERD_REQUIRE_PROTOC is set (run-tests.sh sets it).
func TestGeneratedCodeIsUpToDate(t *testing.T) {
	if _, err := exec.LookPath("protoc"); err != nil {
		if os.Getenv("INFORMERD_REQUIRE_PROTOC") != "" {
			t.Fatalf("protoc not found and INFORMERD_REQUIRE_PROTOC is set (Debian: apt-get install -y protobuf-compiler)")
		}
		t.Skipf("protoc not found; cannot check the generated code")
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
