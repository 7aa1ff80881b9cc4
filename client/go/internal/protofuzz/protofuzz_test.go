// Package protofuzz checks informerd's Kubernetes protobuf encoder
// (server/kube_proto) over random valid objects of every built-in kind:
// objects made by Kubernetes' own fuzzer (randfill with apimachinery's
// metadata fuzz functions), serialized to JSON as the apiserver would, sent
// through the encoder (the kube_proto_encode tool), and decoded by
// client-go's protobuf serializer, must deep-equal the object decoded from
// the same JSON, and the bytes must be client-go's own protobuf encoding of
// that object (what the apiserver would send).
package protofuzz

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/apitesting/fuzzer"
	"k8s.io/apimachinery/pkg/api/equality"
	metafuzzer "k8s.io/apimachinery/pkg/apis/meta/fuzzer"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	runtimeserializer "k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/util/diff"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/randfill"
)

// The kinds the issue names get more objects; every other built-in kind a few.
var named = map[schema.GroupVersionKind]bool{
	{Version: "v1", Kind: "Pod"}:                           true,
	{Version: "v1", Kind: "ConfigMap"}:                     true,
	{Group: "apps", Version: "v1", Kind: "Deployment"}:     true,
	{Version: "v1", Kind: "Service"}:                       true,
	{Version: "v1", Kind: "Node"}:                          true,
	{Version: "v1", Kind: "Event"}:                         true,
	{Group: "events.k8s.io", Version: "v1", Kind: "Event"}: true,
}

const (
	perNamedKind = 100
	perOtherKind = 5
)

func TestRandomObjectsDecodeAlike(t *testing.T) {
	seed := int64(20261203)
	if s := os.Getenv("INFORMERD_FUZZ_SEED"); s != "" {
		fmt.Sscan(s, &seed)
	}
	t.Logf("seed %d (INFORMERD_FUZZ_SEED to repeat)", seed)
	enc := startEncoder(t)
	filler := fuzzer.FuzzerFor(fuzzer.MergeFuzzerFuncs(metafuzzer.Funcs, extraFuncs), rand.NewSource(seed), scheme.Codecs).
		NilChance(0.3).NumElements(0, 2).MaxDepth(12)
	deserializer := scheme.Codecs.UniversalDeserializer()

	var kinds []schema.GroupVersionKind
	for gvk, goType := range scheme.Scheme.AllKnownTypes() {
		// metav1's kinds (WatchEvent, options) are registered in every group
		// but are no objects of it.
		if gvk.Version == k8sruntime.APIVersionInternal || strings.HasSuffix(gvk.Kind, "List") ||
			strings.HasPrefix(goType.PkgPath(), "k8s.io/apimachinery/") {
			continue
		}
		kinds = append(kinds, gvk)
	}
	sort.Slice(kinds, func(i, j int) bool { return kinds[i].String() < kinds[j].String() })
	covered, objects, exact := 0, 0, 0
	protoEncoder := protobuf.NewSerializer(scheme.Scheme, scheme.Scheme)
	for _, gvk := range kinds {
		n := perOtherKind
		if named[gvk] {
			n = perNamedKind
		}
		for i := 0; i < n; i++ {
			obj, err := scheme.Scheme.New(gvk)
			if err != nil {
				t.Fatal(err)
			}
			filler.Fill(obj)
			obj.GetObjectKind().SetGroupVersionKind(gvk)
			data, err := json.Marshal(obj)
			if err != nil {
				continue // the fuzzer made a value JSON cannot hold; nothing to encode
			}
			status, payload := enc.encode(t, data)
			if status == "NOTFOUND" {
				if named[gvk] {
					t.Fatalf("%v: no protobuf schema: %s", gvk, payload)
				}
				break // not a top-level object kind (options, reviews without metadata)
			}
			if status != "OK" {
				t.Errorf("%v #%d: the encoder refused the apiserver-shaped JSON: %s\n%s", gvk, i, payload, data)
				continue
			}
			if i == 0 {
				covered++
			}
			objects++
			raw, err := base64.StdEncoding.DecodeString(payload)
			if err != nil {
				t.Fatal(err)
			}
			fromJSON, _, err := deserializer.Decode(data, nil, nil)
			if err != nil {
				t.Fatalf("%v: decoding the JSON: %v", gvk, err)
			}
			fromProto, _, err := deserializer.Decode(raw, nil, nil)
			if err != nil {
				t.Errorf("%v #%d: decoding informerd's protobuf: %v\n%s", gvk, i, err, data)
				continue
			}
			var goBytes bytes.Buffer
			if err := protoEncoder.Encode(fromJSON, &goBytes); err != nil {
				t.Fatalf("%v: client-go's protobuf encoding: %v", gvk, err)
			}
			if bytes.Equal(goBytes.Bytes(), raw) {
				exact++
			} else {
				t.Errorf("%v #%d: bytes differ from client-go's encoding of the same object\n informerd %q\n client-go %q", gvk, i, raw, goBytes.Bytes())
			}
			if !equality.Semantic.DeepEqual(fromJSON, fromProto) {
				t.Errorf("%v #%d: decodes differently from protobuf than from JSON (-json +protobuf):\n%s\nJSON: %s",
					gvk, i, diff.Diff(fromJSON, fromProto), data)
			}
		}
	}
	t.Logf("%d random objects of %d kinds; informerd's bytes equal client-go's encoding for %d of them", objects, covered, exact)
	if covered < 50 {
		t.Errorf("only %d kinds encoded; want the built-in kinds (>= 50)", covered)
	}
}

// extraFuncs make values that are valid in the API where randfill's are not.
func extraFuncs(codecs runtimeserializer.CodecFactory) []interface{} {
	return []interface{}{
		func(i *intstr.IntOrString, c randfill.Continue) {
			if c.Bool() {
				*i = intstr.FromInt32(c.Int31())
			} else {
				*i = intstr.FromString(c.String(0))
			}
		},
		// randfill's raw bytes are no JSON (json.Marshal refuses them, and
		// the object was skipped): embedded JSON of every kind instead, so
		// the encoder's re-writing of it (and its depth count) is fuzzed.
		func(r *k8sruntime.RawExtension, c randfill.Continue) {
			raw, err := json.Marshal(randomJSON(c, 1+c.Intn(6)))
			if err != nil {
				panic(err)
			}
			r.Raw = raw
		},
	}
}

// randomJSON is a JSON value nested at most `depth` levels: objects,
// arrays, strings with characters Go escapes, integers, booleans, null.
// Floats are left out: the encoder may spell one differently.
func randomJSON(c randfill.Continue, depth int) interface{} {
	kind := c.Intn(6)
	if depth <= 1 && kind < 2 {
		kind += 2
	}
	switch kind {
	case 0:
		object := map[string]interface{}{}
		for n := c.Intn(3); n >= 0; n-- {
			object[randomString(c)] = randomJSON(c, depth-1)
		}
		return object
	case 1:
		array := []interface{}{}
		for n := c.Intn(3); n >= 0; n-- {
			array = append(array, randomJSON(c, depth-1))
		}
		return array
	case 2:
		return randomString(c)
	case 3:
		return c.Int63() - c.Int63()
	case 4:
		return c.Bool()
	default:
		return nil
	}
}

func randomString(c randfill.Continue) string {
	const alphabet = "abcXYZ019 <>&\"\\\n\t\u2028\u00e9\x01"
	runes := []rune(alphabet)
	out := make([]rune, c.Intn(8))
	for i := range out {
		out[i] = runes[c.Intn(len(runes))]
	}
	return string(out)
}

type encoder struct {
	in  io.WriteCloser
	out *bufio.Reader
}

func startEncoder(t *testing.T) *encoder {
	t.Helper()
	bin := os.Getenv("INFORMERD_KUBE_PROTO_ENCODE")
	if bin == "" {
		_, file, _, _ := runtime.Caller(0)
		if resolved, err := filepath.EvalSymlinks(file); err == nil {
			file = resolved
		}
		bin = filepath.Join(filepath.Dir(file), "..", "..", "..", "..", "bazel-bin", "server", "kube_proto", "kube_proto_encode")
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("the encoder tool (INFORMERD_KUBE_PROTO_ENCODE): %v; run bazel build //server/kube_proto:kube_proto_encode", err)
	}
	cmd := exec.Command(bin)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); cmd.Wait() })
	return &encoder{in: in, out: bufio.NewReaderSize(out, 1<<20)}
}

func (e *encoder) encode(t *testing.T, data []byte) (status, payload string) {
	t.Helper()
	if _, err := e.in.Write(append(data, '\n')); err != nil {
		t.Fatal(err)
	}
	line, err := e.out.ReadString('\n')
	if err != nil {
		t.Fatalf("the encoder tool: %v", err)
	}
	status, payload, _ = strings.Cut(strings.TrimSuffix(line, "\n"), " ")
	return status, payload
}

// Embedded JSON counts against the encoder's nesting limit (100 levels with
// the messages around it): deeper is an error naming the field, never a
// recursion as deep as the document (the parse admits 20,000 levels).
func TestDeepRawExtensionIsRefused(t *testing.T) {
	enc := startEncoder(t)
	for _, levels := range []int{90, 101, 19990} {
		data := fmt.Sprintf(`{"apiVersion":"apps/v1","kind":"ControllerRevision","metadata":{"name":"r"},"revision":1,"data":%s%s}`,
			strings.Repeat("[", levels), strings.Repeat("]", levels))
		status, payload := enc.encode(t, []byte(data))
		if len(payload) > 120 {
			payload = payload[:120] + "..."
		}
		if levels < 100 {
			if status != "OK" {
				t.Errorf("%d levels: %s %s, want OK", levels, status, payload)
			}
			continue
		}
		if status != "ERROR" || !strings.Contains(payload, "data: nested too deeply") {
			t.Errorf("%d levels: %s %s, want ERROR naming data: nested too deeply", levels, status, payload)
		}
	}
}
