"""Kubernetes label selectors, parsed and matched on the client.

The syntax is the apiserver's: ``a=b,c==d,e!=f,g in (h,i),j notin (k),l,!m``
plus ``n>1`` and ``n<5`` (integer comparisons). Requirements are ANDed; the
empty selector matches everything. ``!=`` and ``notin`` also match objects
without the label, as in Kubernetes. Parsed selectors are immutable and
thread-safe.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from typing import FrozenSet, List, Mapping, Optional, Tuple


class SelectorError(ValueError):
    """A selector that does not parse; the message names the position."""


class Operator(enum.Enum):
    EQUALS = "="
    NOT_EQUALS = "!="
    IN = "in"
    NOT_IN = "notin"
    EXISTS = "exists"
    DOES_NOT_EXIST = "!"
    GREATER_THAN = ">"
    LESS_THAN = "<"


@dataclass(frozen=True)
class Requirement:
    key: str
    operator: Operator
    values: FrozenSet[str] = frozenset()

    def matches(self, labels: Mapping[str, str]) -> bool:
        value = labels.get(self.key)
        if self.operator is Operator.EXISTS:
            return value is not None
        if self.operator is Operator.DOES_NOT_EXIST:
            return value is None
        if self.operator in (Operator.EQUALS, Operator.IN):
            return value is not None and value in self.values
        if self.operator in (Operator.NOT_EQUALS, Operator.NOT_IN):
            return value is None or value not in self.values
        if value is None:
            return False
        try:
            have = int(value)
        except ValueError:
            return False
        (limit,) = self.values
        if self.operator is Operator.GREATER_THAN:
            return have > int(limit)
        return have < int(limit)


@dataclass(frozen=True)
class LabelSelector:
    requirements: Tuple[Requirement, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        return all(r.matches(labels) for r in self.requirements)

    def empty(self) -> bool:
        return not self.requirements


EVERYTHING = LabelSelector()

_NAME = r"[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?"
_NAME_RE = re.compile(_NAME + r"\Z")
_DNS_SUBDOMAIN_RE = re.compile(
    r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\Z")
_INTEGER_RE = re.compile(r"-?[0-9]+\Z")
# Operators and punctuation, longest first so "==" is not read as "=" "=".
_SYMBOLS = ("==", "!=", "=", "!", "(", ")", ",", "<", ">")
_WORD_END = frozenset(" \t\n,=!()<>")


@dataclass(frozen=True)
class _Token:
    text: str
    position: int
    is_word: bool


def _tokenize(text: str) -> List[_Token]:
    tokens = []
    i = 0
    while i < len(text):
        if text[i].isspace():
            i += 1
            continue
        symbol = next((s for s in _SYMBOLS if text.startswith(s, i)), None)
        if symbol is not None:
            tokens.append(_Token(symbol, i, False))
            i += len(symbol)
            continue
        start = i
        while i < len(text) and text[i] not in _WORD_END:
            i += 1
        tokens.append(_Token(text[start:i], start, True))
    return tokens


def _check_key(token: _Token) -> str:
    prefix, slash, name = token.text.rpartition("/")
    valid = _NAME_RE.match(name) is not None and (
        not slash or (len(prefix) <= 253
                      and _DNS_SUBDOMAIN_RE.match(prefix) is not None))
    if not valid:
        raise SelectorError("label_selector: invalid label key %r at %d"
                            % (token.text, token.position))
    return token.text


def _check_value(token: _Token) -> str:
    if _NAME_RE.match(token.text) is None:
        raise SelectorError("label_selector: invalid label value %r at %d"
                            % (token.text, token.position))
    return token.text


class _Parser:
    def __init__(self, text: str) -> None:
        self._text = text
        self._tokens = _tokenize(text)
        self._next = 0

    def _peek(self) -> Optional[_Token]:
        if self._next < len(self._tokens):
            return self._tokens[self._next]
        return None

    def _take(self) -> Optional[_Token]:
        token = self._peek()
        if token is not None:
            self._next += 1
        return token

    def _unexpected(self, token: Optional[_Token],
                    wanted: str) -> SelectorError:
        if token is None:
            return SelectorError("label_selector: expected %s at %d, found end"
                                 % (wanted, len(self._text)))
        return SelectorError("label_selector: unexpected %r at %d, expected %s"
                             % (token.text, token.position, wanted))

    def _word(self, wanted: str) -> _Token:
        token = self._take()
        if token is None or not token.is_word:
            raise self._unexpected(token, wanted)
        return token

    def _expect(self, symbol: str) -> None:
        token = self._take()
        if token is None or token.is_word or token.text != symbol:
            raise self._unexpected(token, repr(symbol))

    def parse(self) -> LabelSelector:
        if self._peek() is None:
            return EVERYTHING
        requirements = [self._requirement()]
        while self._peek() is not None:
            self._expect(",")
            requirements.append(self._requirement())
        return LabelSelector(tuple(requirements))

    def _at_requirement_end(self) -> bool:
        token = self._peek()
        return token is None or (not token.is_word and token.text == ",")

    def _requirement(self) -> Requirement:
        token = self._peek()
        if token is not None and not token.is_word and token.text == "!":
            self._take()
            key = _check_key(self._word("a label key"))
            return Requirement(key, Operator.DOES_NOT_EXIST)
        key = _check_key(self._word("a label key"))
        operator = self._peek()
        if operator is None or (not operator.is_word and operator.text == ","):
            return Requirement(key, Operator.EXISTS)
        self._take()
        if operator.is_word and operator.text in ("in", "notin"):
            kind = Operator.IN if operator.text == "in" else Operator.NOT_IN
            return Requirement(key, kind, self._value_set())
        if not operator.is_word and operator.text in ("=", "==", "!="):
            kind = (Operator.NOT_EQUALS if operator.text == "!="
                    else Operator.EQUALS)
            value = "" if self._at_requirement_end() else _check_value(
                self._word("a label value"))
            return Requirement(key, kind, frozenset((value,)))
        if not operator.is_word and operator.text in (">", "<"):
            kind = (Operator.GREATER_THAN if operator.text == ">"
                    else Operator.LESS_THAN)
            value = self._word("an integer")
            # The apiserver wants a label value as well as an integer, so
            # "n>-5" is refused (tests/conformance/selectors.json).
            _check_value(value)
            if _INTEGER_RE.match(value.text) is None:
                raise SelectorError(
                    "label_selector: %r at %d is not an integer"
                    % (value.text, value.position))
            return Requirement(key, kind, frozenset((value.text,)))
        raise self._unexpected(operator, "an operator")

    def _value_set(self) -> FrozenSet[str]:
        self._expect("(")
        values = set()
        expecting_value = True
        while True:
            token = self._take()
            if token is None:
                raise self._unexpected(token, "')'")
            if token.is_word:
                if not expecting_value:
                    raise self._unexpected(token, "',' or ')'")
                values.add(_check_value(token))
                expecting_value = False
            elif token.text == ",":
                if expecting_value:
                    values.add("")
                expecting_value = True
            elif token.text == ")":
                if expecting_value:
                    values.add("")
                return frozenset(values)
            else:
                raise self._unexpected(token, "a label value, ',' or ')'")


def parse_label_selector(text: str) -> LabelSelector:
    """The selector ``text`` denotes. Raises SelectorError naming the
    position of the first syntax error."""
    return _Parser(text).parse()
