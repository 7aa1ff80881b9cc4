// Package conformance loads the vectors of tests/conformance/ that every
// informer runtime (informerd itself and each client library) runs in its
// own tests, so that their selectors and relist diffs cannot drift apart.
package conformance

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// SelectorObject is one of the objects the selectors are matched against.
type SelectorObject struct {
	Name   string            `json:"name"`
	Labels map[string]string `json:"labels"`
}

// SelectorCase is one selector text and the apiserver's verdict: rejected
// (Valid false) or selecting exactly Matches (object names, sorted).
type SelectorCase struct {
	Selector string   `json:"selector"`
	Valid    bool     `json:"valid"`
	Matches  []string `json:"matches"`
}

// Selectors is selectors.json.
type Selectors struct {
	Namespace      string           `json:"namespace"`
	Objects        []SelectorObject `json:"objects"`
	LabelSelectors []SelectorCase   `json:"label_selectors"`
	FieldSelectors []SelectorCase   `json:"field_selectors"`
}

// Fields returns the fields a field selector sees on o.
func (s *Selectors) Fields(o SelectorObject) map[string]string {
	return map[string]string{"metadata.name": o.Name, "metadata.namespace": s.Namespace}
}

// RelistObject is a cached or listed object.
type RelistObject struct {
	Namespace       string `json:"namespace"`
	Name            string `json:"name"`
	ResourceVersion string `json:"resource_version"`
	UID             string `json:"uid"`
}

// RelistEvent is one expected change; a nil version is an absent object.
type RelistEvent struct {
	Type               string  `json:"type"` // ADD, UPDATE or DELETE
	Namespace          string  `json:"namespace"`
	Name               string  `json:"name"`
	OldResourceVersion *string `json:"old_resource_version"`
	NewResourceVersion *string `json:"new_resource_version"`
}

// RelistCase is one relist: the cache before, the LIST after, the events.
type RelistCase struct {
	Name   string         `json:"name"`
	Before []RelistObject `json:"before"`
	After  []RelistObject `json:"after"`
	Events []RelistEvent  `json:"events"`
}

// Relist is relist.json.
type Relist struct {
	Cases []RelistCase `json:"cases"`
}

// PerKey groups events by "namespace/name", keeping their order: the only
// order the vectors fix is the one within a key.
func PerKey(events []RelistEvent) map[string][]string {
	out := map[string][]string{}
	for _, e := range events {
		key := e.Namespace + "/" + e.Name
		out[key] = append(out[key], fmt.Sprintf("%s %s->%s", e.Type, version(e.OldResourceVersion), version(e.NewResourceVersion)))
	}
	return out
}

func version(v *string) string {
	if v == nil {
		return "none"
	}
	return *v
}

// LoadSelectors reads tests/conformance/selectors.json.
func LoadSelectors() (*Selectors, error) {
	var s Selectors
	return &s, load("selectors.json", &s)
}

// LoadRelist reads tests/conformance/relist.json.
func LoadRelist() (*Relist, error) {
	var r Relist
	return &r, load("relist.json", &r)
}

func load(name string, into any) error {
	_, self, _, ok := runtime.Caller(0)
	if !ok {
		return fmt.Errorf("conformance: cannot locate %s", name)
	}
	// This file is client/go/internal/conformance/vectors.go.
	path := filepath.Join(filepath.Dir(self), "..", "..", "..", "..", "tests", "conformance", name)
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, into); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
