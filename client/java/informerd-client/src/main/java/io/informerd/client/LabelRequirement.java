package io.informerd.client;

import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/** One comma-separated term of a {@link LabelSelector}. Immutable. */
final class LabelRequirement {
  enum Operator {
    EXISTS,
    NOT_EXISTS,
    EQUALS,
    NOT_EQUALS,
    IN,
    NOT_IN
  }

  private final String key;
  private final Operator operator;
  private final Set<String> values;

  LabelRequirement(String key, Operator operator, Set<String> values) {
    this.key = key;
    this.operator = operator;
    this.values = Collections.unmodifiableSet(new TreeSet<>(values));
  }

  boolean matches(Map<String, String> labels) {
    String value = labels.get(key);
    switch (operator) {
      case EXISTS:
        return value != null;
      case NOT_EXISTS:
        return value == null;
      case EQUALS:
      case IN:
        return value != null && values.contains(value);
      case NOT_EQUALS:
      case NOT_IN:
        return value == null || !values.contains(value);
    }
    throw new AssertionError("unhandled operator " + operator);
  }

  @Override
  public String toString() {
    switch (operator) {
      case EXISTS:
        return key;
      case NOT_EXISTS:
        return "!" + key;
      case EQUALS:
        return key + "=" + values.iterator().next();
      case NOT_EQUALS:
        return key + "!=" + values.iterator().next();
      case IN:
        return key + " in (" + String.join(",", values) + ")";
      case NOT_IN:
        return key + " notin (" + String.join(",", values) + ")";
    }
    throw new AssertionError("unhandled operator " + operator);
  }
}
