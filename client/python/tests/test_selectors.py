import pytest

from informerd import SelectorError, parse_label_selector

LABELS = {"app": "web", "tier": "front", "size": "3"}


@pytest.mark.parametrize("selector, expected", [
    ("", True),
    ("app=web", True),
    ("app==web", True),
    ("app=db", False),
    ("app!=db", True),
    ("app!=web", False),
    ("missing!=x", True),
    ("app", True),
    ("missing", False),
    ("!missing", True),
    ("!app", False),
    ("app in (web,db)", True),
    ("app in (db)", False),
    ("app notin (db)", True),
    ("app notin (web, db)", False),
    ("missing notin (x)", True),
    ("missing in (x)", False),
    ("app=web,tier=front", True),
    ("app=web,tier=back", False),
    ("size>2", True),
    ("size>3", False),
    ("size<4", True),
    ("app>1", False),
    ("missing<1", False),
    ("example.com/role", False),
    ("  app = web ,  tier in ( front ) ", True),
    ("app=", False),
])
def test_matches(selector, expected):
    assert parse_label_selector(selector).matches(LABELS) is expected


def test_empty_value_matches_empty_label():
    assert parse_label_selector("a=").matches({"a": ""})
    assert parse_label_selector("a in ()").matches({"a": ""})
    assert parse_label_selector("a in (,x)").matches({"a": "x"})


def test_prefixed_key():
    selector = parse_label_selector("app.kubernetes.io/name=web")
    assert selector.matches({"app.kubernetes.io/name": "web"})


@pytest.mark.parametrize("selector, message", [
    (",", "unexpected ',' at 0"),
    ("app=web,", "expected a label key at 8, found end"),
    ("app=web,,x", "unexpected ',' at 8"),
    ("app in web", "unexpected 'web' at 7, expected '('"),
    ("app in (a", "expected ')' at 9, found end"),
    ("app in (a b)", "unexpected 'b' at 10"),
    ("app web", "unexpected 'web' at 4, expected an operator"),
    ("-app=x", "invalid label key '-app' at 0"),
    ("app=-x", "invalid label value '-x' at 4"),
    ("a" * 64, "invalid label key"),
    ("Bad_Prefix/x=y", "invalid label key"),
    ("size>x", "'x' at 5 is not an integer"),
    ("!", "expected a label key at 1, found end"),
    ("a=(b)", "unexpected '(' at 2"),
])
def test_errors_name_the_position(selector, message):
    with pytest.raises(SelectorError) as error:
        parse_label_selector(selector)
    assert "label_selector: " in str(error.value)
    assert message in str(error.value)
