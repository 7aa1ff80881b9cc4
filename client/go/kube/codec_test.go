package kube

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/informerd/informerd/client/go/informerdv1"
)

// Built-in types ask informerd for protobuf; others stay JSON.
func TestTypedCodecAsksForProtobufForBuiltInTypes(t *testing.T) {
	for _, c := range []struct {
		name    string
		codec   func() (*codec, error)
		want    informerdv1.Encoding
		decoder bool
	}{
		{"pods", func() (*codec, error) {
			return typedCodec(scheme.Scheme, corev1.SchemeGroupVersion.WithResource("pods"), &corev1.Pod{})
		}, informerdv1.Encoding_ENCODING_PROTOBUF, true},
		{"deployments", func() (*codec, error) {
			return typedCodec(scheme.Scheme, appsv1.SchemeGroupVersion.WithResource("deployments"), &appsv1.Deployment{})
		}, informerdv1.Encoding_ENCODING_PROTOBUF, true},
		{"unstructured", func() (*codec, error) {
			return unstructuredCodec(corev1.SchemeGroupVersion.WithKind("Pod")), nil
		}, informerdv1.Encoding_ENCODING_JSON, false},
		{"metadata", func() (*codec, error) {
			return metadataCodec(corev1.SchemeGroupVersion.WithKind("Pod")), nil
		}, informerdv1.Encoding_ENCODING_JSON, false},
	} {
		c2, err := c.codec()
		if err != nil {
			t.Fatal(err)
		}
		if c2.encoding != c.want || (c2.protobuf != nil) != c.decoder {
			t.Errorf("%s: encoding %v, decoder %v; want %v, %v", c.name, c2.encoding, c2.protobuf != nil, c.want, c.decoder)
		}
	}
}
