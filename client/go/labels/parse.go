package labels

import (
	"fmt"
	"sort"
)

// Parse parses a label selector. The empty string selects everything.
// Errors name the byte offset of the problem, e.g.
// `label selector: expected a key at 4, found ","`.
func Parse(selector string) (Selector, error) {
	p := parser{scanner: scanner{input: selector}}
	p.next()
	var rs requirements
	if p.tok.kind == tokenEnd {
		return rs, nil
	}
	for {
		r, err := p.requirement()
		if err != nil {
			return nil, err
		}
		rs = append(rs, r)
		switch p.tok.kind {
		case tokenEnd:
			return rs, nil
		case tokenComma:
			p.next()
		default:
			return nil, p.unexpected("',' or the end")
		}
	}
}

type parser struct {
	scanner scanner
	tok     token
}

func (p *parser) next() { p.tok = p.scanner.next() }

func (p *parser) unexpected(expected string) error {
	return fmt.Errorf("label selector: expected %s at %d, found %s",
		expected, p.tok.pos, p.tok.describe())
}

func (p *parser) requirement() (Requirement, error) {
	if p.tok.kind == tokenNot {
		p.next()
		key, err := p.key()
		if err != nil {
			return Requirement{}, err
		}
		return Requirement{Key: key, Operator: DoesNotExist}, nil
	}
	key, err := p.key()
	if err != nil {
		return Requirement{}, err
	}
	switch {
	case p.tok.kind == tokenEnd || p.tok.kind == tokenComma:
		return Requirement{Key: key, Operator: Exists}, nil
	case p.tok.kind == tokenEquals || p.tok.kind == tokenNotEquals:
		op := Equals
		if p.tok.kind == tokenNotEquals {
			op = NotEquals
		}
		p.next()
		value, err := p.value(true)
		if err != nil {
			return Requirement{}, err
		}
		return Requirement{Key: key, Operator: op, Values: []string{value}}, nil
	case p.tok.kind == tokenWord && (p.tok.text == "in" || p.tok.text == "notin"):
		op := In
		if p.tok.text == "notin" {
			op = NotIn
		}
		p.next()
		values, err := p.valueSet()
		if err != nil {
			return Requirement{}, err
		}
		return Requirement{Key: key, Operator: op, Values: values}, nil
	}
	return Requirement{}, p.unexpected("'=', '==', '!=', 'in', 'notin', ',' or the end")
}

func (p *parser) key() (string, error) {
	if p.tok.kind != tokenWord {
		return "", p.unexpected("a key")
	}
	return p.checkedWord("key", invalidKey)
}

// value parses a label value; empty values are allowed only where the next
// token shows the value was left out on purpose ("k=" or "k=,j").
func (p *parser) value(allowEmpty bool) (string, error) {
	if p.tok.kind != tokenWord {
		if allowEmpty && (p.tok.kind == tokenEnd || p.tok.kind == tokenComma) {
			return "", nil
		}
		return "", p.unexpected("a value")
	}
	return p.checkedWord("value", invalidValue)
}

// checkedWord takes the current word token as a `what` ("key" or "value"),
// which invalid (the reason it is not one, or "") must accept.
func (p *parser) checkedWord(what string, invalid func(string) string) (string, error) {
	word, pos := p.tok.text, p.tok.pos
	if reason := invalid(word); reason != "" {
		return "", fmt.Errorf("label selector: invalid %s %q at %d: %s", what, word, pos, reason)
	}
	p.next()
	return word, nil
}

func (p *parser) valueSet() ([]string, error) {
	if p.tok.kind != tokenOpen {
		return nil, p.unexpected("'('")
	}
	p.next()
	var values []string
	for {
		value, err := p.value(false)
		if err != nil {
			return nil, err
		}
		values = append(values, value)
		switch p.tok.kind {
		case tokenClose:
			p.next()
			return values, nil
		case tokenComma:
			p.next()
		default:
			return nil, p.unexpected("',' or ')'")
		}
	}
}

func sortRequirements(rs requirements) {
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].Key < rs[j].Key })
}
