// Package labels evaluates Kubernetes label selectors on the client, for
// listing an informer's cache. The syntax is the apiserver's equality- and
// set-based one: "a=b,c==d,e!=f,g in (h,i),j notin (k),l,!m". A selector is
// the conjunction of its requirements. The numeric operators '<' and '>'
// are not supported. Selectors are immutable and safe for concurrent use.
package labels

import "strings"

// Selector matches label sets.
type Selector interface {
	// Matches reports whether labels satisfy every requirement.
	Matches(labels map[string]string) bool
	// Empty reports whether the selector has no requirements, so it matches
	// everything.
	Empty() bool
	// String returns the selector in the syntax Parse accepts.
	String() string
}

// Everything returns the selector that matches every label set.
func Everything() Selector { return requirements(nil) }

// Operator is how a requirement compares a label with its values.
type Operator int

const (
	// Equals: the label exists and has the one value ("k=v", "k==v").
	Equals Operator = iota
	// NotEquals: the label is absent or has another value ("k!=v").
	NotEquals
	// In: the label exists and has one of the values ("k in (a,b)").
	In
	// NotIn: the label is absent or has none of the values ("k notin (a)").
	NotIn
	// Exists: the label exists, whatever its value ("k").
	Exists
	// DoesNotExist: the label is absent ("!k").
	DoesNotExist
)

// Requirement is one comma-separated term of a selector.
type Requirement struct {
	Key      string
	Operator Operator
	// Values has one element for Equals and NotEquals, at least one for In
	// and NotIn, and none for Exists and DoesNotExist.
	Values []string
}

// Matches reports whether labels satisfy the requirement.
func (r Requirement) Matches(labels map[string]string) bool {
	value, exists := labels[r.Key]
	switch r.Operator {
	case Equals, In:
		return exists && r.hasValue(value)
	case NotEquals, NotIn:
		return !exists || !r.hasValue(value)
	case Exists:
		return exists
	case DoesNotExist:
		return !exists
	}
	return false
}

func (r Requirement) hasValue(value string) bool {
	for _, v := range r.Values {
		if v == value {
			return true
		}
	}
	return false
}

// String returns the requirement in selector syntax.
func (r Requirement) String() string {
	switch r.Operator {
	case Equals:
		return r.Key + "=" + r.Values[0]
	case NotEquals:
		return r.Key + "!=" + r.Values[0]
	case In:
		return r.Key + " in (" + strings.Join(r.Values, ",") + ")"
	case NotIn:
		return r.Key + " notin (" + strings.Join(r.Values, ",") + ")"
	case Exists:
		return r.Key
	case DoesNotExist:
		return "!" + r.Key
	}
	return ""
}

type requirements []Requirement

func (rs requirements) Matches(labels map[string]string) bool {
	for _, r := range rs {
		if !r.Matches(labels) {
			return false
		}
	}
	return true
}

func (rs requirements) Empty() bool { return len(rs) == 0 }

func (rs requirements) String() string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = r.String()
	}
	return strings.Join(parts, ",")
}

// SelectorFromSet returns the selector "k1=v1,k2=v2,..." that matches label
// sets containing every pair of set.
func SelectorFromSet(set map[string]string) Selector {
	rs := make(requirements, 0, len(set))
	for k, v := range set {
		rs = append(rs, Requirement{Key: k, Operator: Equals, Values: []string{v}})
	}
	sortRequirements(rs)
	return rs
}
