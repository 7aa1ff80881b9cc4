package labels

import (
	"strings"
	"testing"
)

func TestParseAndMatch(t *testing.T) {
	labels := map[string]string{"app": "web", "tier": "front", "example.com/team": "a"}
	cases := []struct {
		selector string
		want     bool
	}{
		{"", true},
		{"app=web", true},
		{"app==web", true},
		{"app=db", false},
		{"app!=db", true},
		{"app!=web", false},
		{"missing!=x", true},
		{"app in (db,web)", true},
		{"app in (db)", false},
		{"missing in (x)", false},
		{"app notin (db)", true},
		{"app notin (db,web)", false},
		{"missing notin (x)", true},
		{"app", true},
		{"missing", false},
		{"!missing", true},
		{"!app", false},
		{"example.com/team=a", true},
		{"app=web,tier=front", true},
		{"app=web,tier=back", false},
		{" app = web , tier in ( front , back ) ", true},
		{"app=", false},
		{"missing=", false},
		{"missing!=", true},
	}
	for _, c := range cases {
		sel, err := Parse(c.selector)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.selector, err)
			continue
		}
		if got := sel.Matches(labels); got != c.want {
			t.Errorf("Parse(%q).Matches(%v) = %v, want %v", c.selector, labels, got, c.want)
		}
	}
}

func TestEmptyValueMatchesEmptyLabel(t *testing.T) {
	sel, err := Parse("k=")
	if err != nil {
		t.Fatal(err)
	}
	if !sel.Matches(map[string]string{"k": ""}) {
		t.Error(`"k=" does not match k=""`)
	}
}

func TestParseErrorsNamePosition(t *testing.T) {
	cases := []struct {
		selector string
		wantErr  string
	}{
		{",", "expected a key at 0"},
		{"a=b,", "expected a key at 4"},
		{"a=b c", "expected ',' or the end at 4"},
		{"a in b", "expected '(' at 5"},
		{"a in (b", "expected ',' or ')' at 7"},
		{"a in ()", "expected a value at 6"},
		{"a=(", "expected a value at 2"},
		{"a > 1", "invalid character \">\""},
		{"!", "expected a key at 1"},
		{"-a=b", "invalid key \"-a\" at 0"},
		{"a/b/c", "invalid key"},
		{"Example.com/a", "prefix must be a DNS subdomain"},
		{"a=" + strings.Repeat("v", 64), "at most 63 characters"},
	}
	for _, c := range cases {
		_, err := Parse(c.selector)
		if err == nil {
			t.Errorf("Parse(%q) succeeded, want error containing %q", c.selector, c.wantErr)
			continue
		}
		if !strings.Contains(err.Error(), c.wantErr) {
			t.Errorf("Parse(%q) error %q, want it to contain %q", c.selector, err, c.wantErr)
		}
	}
}

func TestStringRoundTrips(t *testing.T) {
	for _, s := range []string{"a=b,c!=d,e in (f,g),h notin (i),j,!k", ""} {
		sel, err := Parse(s)
		if err != nil {
			t.Fatalf("Parse(%q): %v", s, err)
		}
		if sel.String() != s {
			t.Errorf("Parse(%q).String() = %q", s, sel.String())
		}
	}
}

func TestSelectorFromSet(t *testing.T) {
	sel := SelectorFromSet(map[string]string{"b": "2", "a": "1"})
	if sel.String() != "a=1,b=2" {
		t.Errorf("String() = %q, want a=1,b=2", sel.String())
	}
	if !sel.Matches(map[string]string{"a": "1", "b": "2", "c": "3"}) {
		t.Error("does not match a superset")
	}
	if sel.Matches(map[string]string{"a": "1"}) {
		t.Error("matches a set missing b")
	}
}

func TestEverything(t *testing.T) {
	if !Everything().Empty() || !Everything().Matches(nil) {
		t.Error("Everything() must be empty and match a nil label set")
	}
}
