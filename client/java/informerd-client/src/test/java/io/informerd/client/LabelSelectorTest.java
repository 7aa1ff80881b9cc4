package io.informerd.client;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.util.Map;
import org.junit.Test;

public class LabelSelectorTest {
  private static final Map<String, String> WEB_PROD = Map.of("app", "web", "env", "prod");
  private static final Map<String, String> NONE = Map.of();

  @Test
  public void emptySelectorMatchesEverything() {
    assertTrue(LabelSelector.parse("").matches(NONE));
    assertTrue(LabelSelector.parse("  ").isEverything());
  }

  @Test
  public void equality() {
    assertTrue(LabelSelector.parse("app=web").matches(WEB_PROD));
    assertTrue(LabelSelector.parse("app==web").matches(WEB_PROD));
    assertFalse(LabelSelector.parse("app=db").matches(WEB_PROD));
    assertFalse(LabelSelector.parse("app=web").matches(NONE));
  }

  @Test
  public void inequalityMatchesMissingLabel() {
    assertFalse(LabelSelector.parse("app!=web").matches(WEB_PROD));
    assertTrue(LabelSelector.parse("app!=db").matches(WEB_PROD));
    assertTrue(LabelSelector.parse("app!=web").matches(NONE));
  }

  @Test
  public void existence() {
    assertTrue(LabelSelector.parse("app").matches(WEB_PROD));
    assertFalse(LabelSelector.parse("app").matches(NONE));
    assertFalse(LabelSelector.parse("!app").matches(WEB_PROD));
    assertTrue(LabelSelector.parse("!app").matches(NONE));
  }

  @Test
  public void setBased() {
    assertTrue(LabelSelector.parse("env in (dev, prod)").matches(WEB_PROD));
    assertFalse(LabelSelector.parse("env in (dev)").matches(WEB_PROD));
    assertFalse(LabelSelector.parse("env in (prod)").matches(NONE));
    assertFalse(LabelSelector.parse("env notin (prod,qa)").matches(WEB_PROD));
    assertTrue(LabelSelector.parse("env notin (qa)").matches(WEB_PROD));
    assertTrue(LabelSelector.parse("env notin (qa)").matches(NONE));
  }

  @Test
  public void allRequirementsMustMatch() {
    assertTrue(LabelSelector.parse("app=web,env in (prod),!debug").matches(WEB_PROD));
    assertFalse(LabelSelector.parse("app=web,env=dev").matches(WEB_PROD));
  }

  @Test
  public void emptyValueMatchesEmptyLabel() {
    assertTrue(LabelSelector.parse("tier=").matches(Map.of("tier", "")));
    assertFalse(LabelSelector.parse("tier=").matches(Map.of("tier", "x")));
  }

  @Test
  public void canonicalForm() {
    assertEquals(
        "app=web,env in (dev,prod),!x,y,z notin (a)",
        LabelSelector.parse(" app == web , env in (prod,dev), !x, y, z notin (a)").toString());
  }

  @Test
  public void syntaxErrorsNamePosition() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> LabelSelector.parse("a=b,"));
    assertEquals("label selector: expected label key, found end of input at 4 in \"a=b,\"",
        e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> LabelSelector.parse("a in b"));
    assertTrue(e.getMessage(), e.getMessage().contains("expected '(' after 'in'"));
    e = assertThrows(IllegalArgumentException.class, () -> LabelSelector.parse("a foo (b)"));
    assertTrue(e.getMessage(), e.getMessage().contains("unknown operator 'foo'"));
    e = assertThrows(IllegalArgumentException.class, () -> LabelSelector.parse("a in (b,-c)"));
    assertTrue(e.getMessage(), e.getMessage().contains("invalid label value '-c'"));
    assertTrue(e.getMessage(), e.getMessage().contains(" at 8 "));
    e = assertThrows(IllegalArgumentException.class, () -> LabelSelector.parse("a>x"));
    assertTrue(e.getMessage(), e.getMessage().contains("'x' is not an integer label value"));
    assertThrows(IllegalArgumentException.class, () -> LabelSelector.parse("a b"));
    assertThrows(IllegalArgumentException.class, () -> LabelSelector.parse("a in (b"));
    assertThrows(IllegalArgumentException.class, () -> LabelSelector.parse("!"));
  }
}
