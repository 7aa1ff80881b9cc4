package decode

import (
	"strings"
	"testing"

	"github.com/informerd/informerd/client/go/informerdv1"
)

type configMap struct {
	Metadata struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Data map[string]string `json:"data"`
}

func TestDecodeIntoUserType(t *testing.T) {
	obj := &informerdv1.Object{
		Namespace: "ns", Name: "cm",
		Json: []byte(`{"kind":"ConfigMap","metadata":{"name":"cm","namespace":"ns"},"data":{"k":"v"}}`),
	}
	cm, err := Decode[configMap](obj)
	if err != nil {
		t.Fatal(err)
	}
	if cm.Metadata.Name != "cm" || cm.Data["k"] != "v" {
		t.Errorf("decoded %+v", cm)
	}
}

func TestDecodeErrorsNameTheObject(t *testing.T) {
	cases := []struct {
		obj     *informerdv1.Object
		wantErr string
	}{
		{nil, "nil object"},
		{&informerdv1.Object{Namespace: "ns", Name: "empty"}, "decode ns/empty: the object has no JSON"},
		{&informerdv1.Object{Namespace: "ns", Name: "bad", Json: []byte(`{"data":1}`)}, "decode ns/bad: json: cannot unmarshal"},
	}
	for _, c := range cases {
		_, err := Decode[configMap](c.obj)
		if err == nil || !strings.Contains(err.Error(), c.wantErr) {
			t.Errorf("Decode(%v) error = %v, want one containing %q", c.obj, err, c.wantErr)
		}
	}
}
