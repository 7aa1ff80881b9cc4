package kube

import (
	"errors"
	"fmt"
	"reflect"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/informerd/informerd/client/go/informerdv1"
)

// codec makes objects of one kind in one of three shapes (typed, unstructured,
// metadata only) from informerd's JSON or, for typed built-in objects, from
// the Kubernetes protobuf encoding informerd sends when asked for it.
type codec struct {
	gvk        schema.GroupVersionKind
	projection informerdv1.Projection
	// ENCODING_PROTOBUF for types client-go decodes from protobuf. informerd
	// still sends JSON for objects it has no protobuf form of; decode takes
	// whichever field is set.
	encoding informerdv1.Encoding
	// protobuf decodes the Kubernetes protobuf encoding into obj, a fresh
	// newObject(); nil unless encoding is ENCODING_PROTOBUF.
	protobuf  runtime.Decoder
	newObject func() runtime.Object
	newList   func() runtime.Object
	listGVK   schema.GroupVersionKind
	// unmarshal fills obj, a fresh newObject(), from data.
	unmarshal func(data []byte, obj runtime.Object) error
}

func typedCodec(scheme *runtime.Scheme, gvr schema.GroupVersionResource, example runtime.Object) (*codec, error) {
	kinds, _, err := scheme.ObjectKinds(example)
	if err != nil {
		return nil, fmt.Errorf("kube: the example object's kind: %w", err)
	}
	var gvk schema.GroupVersionKind
	for _, k := range kinds {
		if k.Group == gvr.Group && k.Version == gvr.Version {
			gvk = k
			break
		}
	}
	if gvk.Kind == "" {
		return nil, fmt.Errorf("kube: example object %T is %v, not of the resource's group and version %v", example, kinds, gvr.GroupVersion())
	}
	listGVK := gvk.GroupVersion().WithKind(gvk.Kind + "List")
	if _, err := scheme.New(listGVK); err != nil {
		return nil, fmt.Errorf("kube: the list type of %v: %w", gvk, err)
	}
	objType := reflect.TypeOf(example).Elem()
	encoding, decoder := informerdv1.Encoding_ENCODING_JSON, runtime.Decoder(nil)
	// Built-in types carry generated protobuf code (client-go reads them as
	// protobuf from the apiserver); custom types do not.
	if _, ok := example.(protoUnmarshaler); ok {
		encoding = informerdv1.Encoding_ENCODING_PROTOBUF
		decoder = protobuf.NewSerializer(scheme, scheme)
	}
	return &codec{
		gvk:       gvk,
		encoding:  encoding,
		protobuf:  decoder,
		newObject: func() runtime.Object { return reflect.New(objType).Interface().(runtime.Object) },
		newList: func() runtime.Object {
			list, _ := scheme.New(listGVK) // checked above
			return list
		},
		listGVK: listGVK,
		unmarshal: func(data []byte, obj runtime.Object) error {
			return utiljson.Unmarshal(data, obj)
		},
	}, nil
}

func unstructuredCodec(gvk schema.GroupVersionKind) *codec {
	return &codec{
		gvk:       gvk,
		newObject: func() runtime.Object { return &unstructured.Unstructured{} },
		newList:   func() runtime.Object { return &unstructured.UnstructuredList{} },
		listGVK:   gvk.GroupVersion().WithKind(gvk.Kind + "List"),
		unmarshal: func(data []byte, obj runtime.Object) error {
			// Not Unstructured.UnmarshalJSON: it insists on a kind in the
			// JSON, which LIST-ingested objects of older servers lack.
			var content map[string]interface{}
			if err := utiljson.Unmarshal(data, &content); err != nil {
				return err
			}
			obj.(*unstructured.Unstructured).Object = content
			return nil
		},
	}
}

func metadataCodec(gvk schema.GroupVersionKind) *codec {
	return &codec{
		gvk:        gvk,
		projection: informerdv1.Projection_PROJECTION_METADATA,
		newObject:  func() runtime.Object { return &metav1.PartialObjectMetadata{} },
		newList:    func() runtime.Object { return &metav1.PartialObjectMetadataList{} },
		listGVK:    metav1.SchemeGroupVersion.WithKind("PartialObjectMetadataList"),
		unmarshal: func(data []byte, obj runtime.Object) error {
			// A server that ignores the projection sends whole objects;
			// their metadata decodes the same.
			return utiljson.Unmarshal(data, obj)
		},
	}
}

// metadataOnly is c asking for PROJECTION_METADATA, which informerd sends
// as JSON; the shape (typed, unstructured) stays c's.
func (c *codec) metadataOnly() *codec {
	m := *c
	m.projection = informerdv1.Projection_PROJECTION_METADATA
	m.encoding, m.protobuf = informerdv1.Encoding_ENCODING_JSON, nil
	return &m
}

// decode makes an object from informerd's JSON. Its GVK is the resource's
// whatever the JSON said: client-go's caches key and check by it, and a
// metadata-only object must say which kind it is the metadata of, as
// controller-runtime expects.
func (c *codec) decode(obj *informerdv1.Object) (runtime.Object, error) {
	if data := obj.GetProtobuf(); len(data) > 0 && c.protobuf != nil {
		out := c.newObject()
		if _, _, err := c.protobuf.Decode(data, nil, out); err != nil {
			return nil, fmt.Errorf("kube: decoding %v %s/%s from protobuf: %w", c.gvk.Kind, obj.GetNamespace(), obj.GetName(), err)
		}
		out.GetObjectKind().SetGroupVersionKind(c.gvk)
		return out, nil
	}
	if len(obj.GetJson()) == 0 {
		return nil, fmt.Errorf("kube: object %s/%s has no json", obj.GetNamespace(), obj.GetName())
	}
	out := c.newObject()
	if err := c.unmarshal(obj.GetJson(), out); err != nil {
		return nil, fmt.Errorf("kube: decoding %v %s/%s: %w", c.gvk.Kind, obj.GetNamespace(), obj.GetName(), err)
	}
	out.GetObjectKind().SetGroupVersionKind(c.gvk)
	return out, nil
}

// bookmark is what the apiserver sends as a BOOKMARK's object: an empty
// object of the watched type with only resourceVersion (and possibly the
// initial-events-end annotation) set.
func (c *codec) bookmark(resourceVersion string, initialEventsEnd bool) (runtime.Object, error) {
	out := c.newObject()
	out.GetObjectKind().SetGroupVersionKind(c.gvk)
	accessor, err := meta.Accessor(out)
	if err != nil {
		return nil, err
	}
	accessor.SetResourceVersion(resourceVersion)
	if initialEventsEnd {
		accessor.SetAnnotations(map[string]string{metav1.InitialEventsAnnotationKey: "true"})
	}
	return out, nil
}

// list makes the list object of a ListResponse.
func (c *codec) list(resp *informerdv1.ListResponse) (runtime.Object, error) {
	items := make([]runtime.Object, 0, len(resp.GetItems()))
	for _, item := range resp.GetItems() {
		obj, err := c.decode(item)
		if err != nil {
			return nil, err
		}
		items = append(items, obj)
	}
	list := c.newList()
	if err := meta.SetList(list, items); err != nil {
		return nil, fmt.Errorf("kube: filling %T: %w", list, err)
	}
	list.GetObjectKind().SetGroupVersionKind(c.listGVK)
	listMeta, err := meta.ListAccessor(list)
	if err != nil {
		return nil, err
	}
	listMeta.SetResourceVersion(resp.GetResourceVersion())
	listMeta.SetContinue(resp.GetContinueToken())
	if n := resp.GetRemainingItemCount(); n > 0 {
		listMeta.SetRemainingItemCount(&n)
	}
	return list, nil
}

// protoUnmarshaler is what client-go's protobuf serializer needs of a type,
// and what the generated protobuf code of the Kubernetes built-in types
// implements (their ProtoMessage methods are gone since 1.33).
type protoUnmarshaler interface {
	Reset()
	Unmarshal(data []byte) error
}

var errNoKind = errors.New("has no kind; set apiVersion and kind on it")
