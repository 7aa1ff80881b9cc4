package io.informerd.client;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * A Kubernetes label selector, matched locally against cached objects.
 *
 * <p>Supports the equality-based and set-based forms: {@code k=v},
 * {@code k==v}, {@code k!=v}, {@code k}, {@code !k}, {@code k in (a,b)},
 * {@code k notin (a,b)} and the integer comparisons {@code k>5} and
 * {@code k<5}, comma-separated and all required to match. As in Kubernetes,
 * {@code k!=v} and {@code k notin (...)} also match objects without the
 * label, and the empty selector matches everything. Keys and values are
 * checked as the apiserver checks them: what it rejects, this rejects
 * (tests/conformance/selectors.json holds its verdicts).
 *
 * <p>Immutable and thread-safe.
 */
public final class LabelSelector {
  private static final LabelSelector EVERYTHING = new LabelSelector(List.of());

  private final List<LabelRequirement> requirements;

  private LabelSelector(List<LabelRequirement> requirements) {
    this.requirements = Collections.unmodifiableList(requirements);
  }

  /** The selector that matches every object. */
  public static LabelSelector everything() {
    return EVERYTHING;
  }

  /**
   * Parses Kubernetes selector syntax.
   *
   * @throws IllegalArgumentException naming the position (0-based) and the
   *     reason, e.g. {@code label selector: expected '(' after 'in' at 5}
   */
  public static LabelSelector parse(String text) {
    List<LabelRequirement> parsed = new LabelSelectorParser(text).parse();
    return parsed.isEmpty() ? EVERYTHING : new LabelSelector(parsed);
  }

  public boolean matches(Map<String, String> labels) {
    for (LabelRequirement requirement : requirements) {
      if (!requirement.matches(labels)) {
        return false;
      }
    }
    return true;
  }

  public boolean isEverything() {
    return requirements.isEmpty();
  }

  /** The selector in canonical syntax, suitable for sending to a server. */
  @Override
  public String toString() {
    List<String> parts = new ArrayList<>();
    for (LabelRequirement requirement : requirements) {
      parts.add(requirement.toString());
    }
    return String.join(",", parts);
  }
}
