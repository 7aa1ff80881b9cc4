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
    NOT_IN,
    // One decimal integer value; objects whose label is not an integer do
    // not match.
    GREATER_THAN,
    LESS_THAN
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
      case GREATER_THAN:
      case LESS_THAN:
        if (value == null) {
          return false;
        }
        long have;
        try {
          have = Long.parseLong(value);
        } catch (NumberFormatException e) {
          return false;
        }
        long limit = Long.parseLong(values.iterator().next());
        return operator == Operator.GREATER_THAN ? have > limit : have < limit;
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
      case GREATER_THAN:
        return key + ">" + values.iterator().next();
      case LESS_THAN:
        return key + "<" + values.iterator().next();
    }
    throw new AssertionError("unhandled operator " + operator);
  }
}
