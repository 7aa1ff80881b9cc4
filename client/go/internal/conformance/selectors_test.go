package conformance

import (
	"reflect"
	"sort"
	"testing"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
)

// The Go client's selectors are apimachinery's (client-go's informers over
// kube.NewListerWatcher, and the internal informer's Lister): they must give
// the verdicts the apiserver gave.
func TestLabelSelectorVectors(t *testing.T) {
	vectors, err := LoadSelectors()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range vectors.LabelSelectors {
		selector, err := labels.Parse(c.Selector)
		check(t, "label", c, err, func(o SelectorObject) bool { return selector.Matches(labels.Set(o.Labels)) }, vectors.Objects)
	}
}

func TestFieldSelectorVectors(t *testing.T) {
	vectors, err := LoadSelectors()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range vectors.FieldSelectors {
		selector, err := fields.ParseSelector(c.Selector)
		check(t, "field", c, err, func(o SelectorObject) bool { return selector.Matches(fields.Set(vectors.Fields(o))) }, vectors.Objects)
	}
}

func check(t *testing.T, kind string, c SelectorCase, parseErr error, matches func(SelectorObject) bool, objects []SelectorObject) {
	t.Helper()
	if (parseErr == nil) != c.Valid {
		t.Errorf("%s selector %q: parse error %v, but the apiserver says valid=%v", kind, c.Selector, parseErr, c.Valid)
		return
	}
	if parseErr != nil {
		return
	}
	got := []string{}
	for _, o := range objects {
		if matches(o) {
			got = append(got, o.Name)
		}
	}
	sort.Strings(got)
	if want := append([]string{}, c.Matches...); !reflect.DeepEqual(got, want) {
		t.Errorf("%s selector %q selects %v, the apiserver %v", kind, c.Selector, got, want)
	}
}
