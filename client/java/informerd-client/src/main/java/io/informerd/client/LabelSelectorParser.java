package io.informerd.client;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Recursive-descent parser for label selector text. Single use, not
 * thread-safe; {@link LabelSelector#parse} is the public entry point.
 * Keys and values are checked as the apiserver checks them (a name of at
 * most 63 characters, with an optional DNS-subdomain prefix for keys); the
 * verdicts are those of tests/conformance/selectors.json.
 */
final class LabelSelectorParser {
  private static final Pattern NAME =
      Pattern.compile("[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?");
  private static final Pattern DNS_SUBDOMAIN =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
  private static final Pattern INTEGER = Pattern.compile("-?[0-9]+");
  private final String text;
  private int pos;

  LabelSelectorParser(String text) {
    this.text = text;
  }

  /** Returns the requirements in order; empty for blank text. */
  List<LabelRequirement> parse() {
    List<LabelRequirement> requirements = new ArrayList<>();
    skipSpaces();
    if (pos == text.length()) {
      return requirements;
    }
    while (true) {
      requirements.add(parseRequirement());
      skipSpaces();
      if (pos == text.length()) {
        return requirements;
      }
      expect(',');
    }
  }

  private LabelRequirement parseRequirement() {
    skipSpaces();
    if (peek('!')) {
      pos++;
      String key = parseKey();
      return new LabelRequirement(key, LabelRequirement.Operator.NOT_EXISTS, Set.of());
    }
    String key = parseKey();
    skipSpaces();
    if (pos == text.length() || peek(',')) {
      return new LabelRequirement(key, LabelRequirement.Operator.EXISTS, Set.of());
    }
    if (peek('!')) {
      pos++;
      expect('=');
      return new LabelRequirement(
          key, LabelRequirement.Operator.NOT_EQUALS, Set.of(parseOptionalWord()));
    }
    if (peek('=')) {
      pos++;
      if (peek('=')) {
        pos++;
      }
      return new LabelRequirement(
          key, LabelRequirement.Operator.EQUALS, Set.of(parseOptionalWord()));
    }
    if (peek('>') || peek('<')) {
      LabelRequirement.Operator comparison =
          peek('>') ? LabelRequirement.Operator.GREATER_THAN : LabelRequirement.Operator.LESS_THAN;
      pos++;
      skipSpaces();
      int valueStart = pos;
      String value = parseWord("integer");
      // The apiserver wants a label value as well as an integer ("n>-5" is refused).
      if (!NAME.matcher(value).matches() || !INTEGER.matcher(value).matches()) {
        throw error("'" + value + "' is not an integer label value", valueStart);
      }
      return new LabelRequirement(key, comparison, Set.of(value));
    }
    int operatorStart = pos;
    String operator = parseWord("operator");
    if (operator.equals("in")) {
      return new LabelRequirement(key, LabelRequirement.Operator.IN, parseValueSet(operator));
    }
    if (operator.equals("notin")) {
      return new LabelRequirement(key, LabelRequirement.Operator.NOT_IN, parseValueSet(operator));
    }
    throw error("unknown operator '" + operator + "'", operatorStart);
  }

  private Set<String> parseValueSet(String operator) {
    skipSpaces();
    if (!peek('(')) {
      throw error("expected '(' after '" + operator + "'", pos);
    }
    pos++;
    Set<String> values = new HashSet<>();
    while (true) {
      // "in ()" and "in (,a)" hold the empty value, as in Kubernetes.
      values.add(parseOptionalWord());
      skipSpaces();
      if (peek(')')) {
        pos++;
        return values;
      }
      expect(',');
    }
  }

  /** A value after '=' or '!=' or in a set, which Kubernetes allows to be empty. */
  private String parseOptionalWord() {
    skipSpaces();
    int start = pos;
    while (pos < text.length() && isWordChar(text.charAt(pos))) {
      pos++;
    }
    String value = text.substring(start, pos);
    if (!value.isEmpty() && !NAME.matcher(value).matches()) {
      throw error("invalid label value '" + value + "' (at most 63 characters: letters, digits, "
          + "'-', '_' and '.', starting and ending with a letter or digit)", start);
    }
    return value;
  }

  private String parseKey() {
    skipSpaces();
    int start = pos;
    String key = parseWord("label key");
    int slash = key.lastIndexOf('/');
    String prefix = slash < 0 ? null : key.substring(0, slash);
    String name = key.substring(slash + 1);
    boolean valid = NAME.matcher(name).matches()
        && (prefix == null
            || (prefix.length() <= 253 && DNS_SUBDOMAIN.matcher(prefix).matches()));
    if (!valid) {
      throw error("invalid label key '" + key + "' (an optional DNS subdomain prefix and '/', "
          + "then at most 63 characters: letters, digits, '-', '_' and '.', starting and ending "
          + "with a letter or digit)", start);
    }
    return key;
  }

  private String parseWord(String what) {
    skipSpaces();
    int start = pos;
    while (pos < text.length() && isWordChar(text.charAt(pos))) {
      pos++;
    }
    if (start == pos) {
      throw error("expected " + what, pos);
    }
    return text.substring(start, pos);
  }

  private void expect(char c) {
    skipSpaces();
    if (!peek(c)) {
      throw error("expected '" + c + "'", pos);
    }
    pos++;
  }

  private boolean peek(char c) {
    return pos < text.length() && text.charAt(pos) == c;
  }

  private void skipSpaces() {
    while (pos < text.length() && Character.isWhitespace(text.charAt(pos))) {
      pos++;
    }
  }

  private static boolean isWordChar(char c) {
    return !Character.isWhitespace(c) && "!=,()<>".indexOf(c) < 0;
  }

  private IllegalArgumentException error(String reason, int at) {
    String found = at < text.length() ? "found '" + text.charAt(at) + "'" : "found end of input";
    return new IllegalArgumentException(
        "label selector: " + reason + ", " + found + " at " + at + " in \"" + text + "\"");
  }
}
