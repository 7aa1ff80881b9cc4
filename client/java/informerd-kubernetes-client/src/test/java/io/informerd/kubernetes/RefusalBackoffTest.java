package io.informerd.kubernetes;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.time.Duration;
import org.junit.Test;

public class RefusalBackoffTest {
  private static void assertWaitWithin(RefusalBackoff backoff, Duration base) {
    for (int i = 0; i < 100; i++) {
      Duration wait = backoff.nextWait();
      assertTrue(wait + " >= " + base, wait.compareTo(base) >= 0);
      assertTrue(wait + " <= 2 x " + base, wait.compareTo(base.multipliedBy(2)) <= 0);
    }
  }

  @Test
  public void noWaitUntilRefused() {
    assertEquals(Duration.ZERO, new RefusalBackoff().nextWait());
  }

  @Test
  public void doublesFromInitialToMaxThenResetsWhenServed() {
    RefusalBackoff backoff = new RefusalBackoff();
    Duration expected = RefusalBackoff.INITIAL;
    for (int i = 0; i < 10; i++) {
      backoff.refused();
      assertWaitWithin(backoff, expected);
      expected = expected.multipliedBy(2).compareTo(RefusalBackoff.MAX) > 0
          ? RefusalBackoff.MAX : expected.multipliedBy(2);
    }
    assertWaitWithin(backoff, RefusalBackoff.MAX);
    backoff.served();
    assertEquals(Duration.ZERO, backoff.nextWait());
  }
}
