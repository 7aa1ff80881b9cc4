// Package decode turns cached objects into the caller's own Go types.
package decode

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/informerd/informerd/client/go/informerdv1"
	"github.com/informerd/informerd/client/go/internal/cache"
)

// Into unmarshals obj's JSON (the object as the apiserver served it) into v
// with encoding/json, so v may be any struct with json tags, such as the
// Kubernetes API types or a struct with just the fields the caller needs.
// Errors name the object.
func Into(obj *informerdv1.Object, v interface{}) error {
	if obj == nil {
		return errors.New("decode: nil object")
	}
	if len(obj.GetJson()) == 0 {
		return fmt.Errorf("decode %s: the object has no JSON", cache.ObjectKey(obj))
	}
	if err := json.Unmarshal(obj.GetJson(), v); err != nil {
		return fmt.Errorf("decode %s: %w", cache.ObjectKey(obj), err)
	}
	return nil
}

// Decode unmarshals obj's JSON into a new T; see Into.
func Decode[T any](obj *informerdv1.Object) (*T, error) {
	out := new(T)
	if err := Into(obj, out); err != nil {
		return nil, err
	}
	return out, nil
}
