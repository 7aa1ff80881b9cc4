package labels

import "fmt"

type tokenKind int

const (
	tokenEnd tokenKind = iota
	tokenWord
	tokenComma
	tokenOpen
	tokenClose
	tokenNot
	tokenEquals // "=" or "=="
	tokenNotEquals
	tokenInvalid
)

type token struct {
	kind tokenKind
	text string
	pos  int // byte offset in the selector
}

func (t token) describe() string {
	switch t.kind {
	case tokenEnd:
		return "the end"
	case tokenInvalid:
		return fmt.Sprintf("invalid character %q", t.text)
	}
	return fmt.Sprintf("%q", t.text)
}

// scanner splits a selector into tokens. Words are runs of the characters
// keys and values may contain; "in" and "notin" are words too, recognised
// by the parser where an operator is expected.
type scanner struct {
	input string
	pos   int
}

func (s *scanner) next() token {
	for s.pos < len(s.input) && isSpace(s.input[s.pos]) {
		s.pos++
	}
	start := s.pos
	if start == len(s.input) {
		return token{kind: tokenEnd, pos: start}
	}
	c := s.input[start]
	switch {
	case isWordChar(c):
		for s.pos < len(s.input) && isWordChar(s.input[s.pos]) {
			s.pos++
		}
		return token{kind: tokenWord, text: s.input[start:s.pos], pos: start}
	case c == '!' && s.peek(1) == '=':
		s.pos += 2
		return token{kind: tokenNotEquals, text: "!=", pos: start}
	case c == '=' && s.peek(1) == '=':
		s.pos += 2
		return token{kind: tokenEquals, text: "==", pos: start}
	}
	s.pos++
	text := s.input[start:s.pos]
	switch c {
	case ',':
		return token{kind: tokenComma, text: text, pos: start}
	case '(':
		return token{kind: tokenOpen, text: text, pos: start}
	case ')':
		return token{kind: tokenClose, text: text, pos: start}
	case '!':
		return token{kind: tokenNot, text: text, pos: start}
	case '=':
		return token{kind: tokenEquals, text: text, pos: start}
	}
	return token{kind: tokenInvalid, text: text, pos: start}
}

func (s *scanner) peek(offset int) byte {
	if s.pos+offset < len(s.input) {
		return s.input[s.pos+offset]
	}
	return 0
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func isWordChar(c byte) bool {
	return isAlphanumeric(c) || c == '-' || c == '_' || c == '.' || c == '/'
}

func isAlphanumeric(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}
