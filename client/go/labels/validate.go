package labels

import "strings"

// The rules the apiserver applies to label keys and values, so a selector
// that could never match a valid label is rejected here as it is there.
const (
	maxNameLength   = 63
	maxPrefixLength = 253
)

// invalidKey returns why key is not a valid label key, or "" if it is.
// A key is [prefix/]name: prefix a DNS subdomain, name a label name.
func invalidKey(key string) string {
	name := key
	if i := strings.IndexByte(key, '/'); i >= 0 {
		prefix := key[:i]
		name = key[i+1:]
		if reason := invalidDNSSubdomain(prefix); reason != "" {
			return "prefix " + reason
		}
	}
	if name == "" {
		return "name must not be empty"
	}
	return invalidName(name)
}

// invalidValue returns why value is not a valid label value, or "" if it
// is. The empty value is valid.
func invalidValue(value string) string {
	if value == "" {
		return ""
	}
	return invalidName(value)
}

func invalidName(name string) string {
	if len(name) > maxNameLength {
		return "must be at most 63 characters"
	}
	if !isAlphanumeric(name[0]) || !isAlphanumeric(name[len(name)-1]) {
		return "must begin and end with a letter or digit"
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !isAlphanumeric(c) && c != '-' && c != '_' && c != '.' {
			return "may contain only letters, digits, '-', '_' and '.'"
		}
	}
	return ""
}

func invalidDNSSubdomain(prefix string) string {
	if prefix == "" {
		return "must not be empty"
	}
	if len(prefix) > maxPrefixLength {
		return "must be at most 253 characters"
	}
	for _, part := range strings.Split(prefix, ".") {
		if part == "" || !isLowerAlphanumeric(part[0]) || !isLowerAlphanumeric(part[len(part)-1]) {
			return "must be a DNS subdomain (lower case letters, digits, '-' and '.')"
		}
		for i := 0; i < len(part); i++ {
			if !isLowerAlphanumeric(part[i]) && part[i] != '-' {
				return "must be a DNS subdomain (lower case letters, digits, '-' and '.')"
			}
		}
	}
	return ""
}

func isLowerAlphanumeric(c byte) bool { return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' }
