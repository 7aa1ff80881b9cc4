package io.informerd.client;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Recursive-descent parser for label selector text. Single use, not
 * thread-safe; {@link LabelSelector#parse} is the public entry point.
 */
final class LabelSelectorParser {
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
      String key = parseWord("label key");
      return new LabelRequirement(key, LabelRequirement.Operator.NOT_EXISTS, Set.of());
    }
    String key = parseWord("label key");
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
      values.add(parseWord("value"));
      skipSpaces();
      if (peek(')')) {
        pos++;
        return values;
      }
      expect(',');
    }
  }

  /** A value after '=' or '!=', which Kubernetes allows to be empty. */
  private String parseOptionalWord() {
    skipSpaces();
    int start = pos;
    while (pos < text.length() && isWordChar(text.charAt(pos))) {
      pos++;
    }
    return text.substring(start, pos);
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
