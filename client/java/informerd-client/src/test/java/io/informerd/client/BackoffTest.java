package io.informerd.client;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.time.Duration;
import java.util.Random;
import org.junit.Test;

public class BackoffTest {
  private static void assertWithin(Duration delay, long minMillis, long maxMillis) {
    assertTrue(delay + " < " + minMillis + "ms", delay.toMillis() >= minMillis);
    assertTrue(delay + " > " + maxMillis + "ms", delay.toMillis() <= maxMillis);
  }

  @Test
  public void growsToMaxWithJitterAndResets() {
    Backoff backoff = new Backoff(Duration.ofMillis(100), Duration.ofMillis(350), new Random(1));
    assertWithin(backoff.nextDelay(), 50, 100);
    assertWithin(backoff.nextDelay(), 100, 200);
    assertWithin(backoff.nextDelay(), 175, 350);
    assertWithin(backoff.nextDelay(), 175, 350);
    backoff.reset();
    assertWithin(backoff.nextDelay(), 50, 100);
  }

  @Test
  public void jitterSpreadsDelays() {
    Backoff a = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(1), new Random(1));
    Backoff b = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(1), new Random(2));
    assertTrue(!a.nextDelay().equals(b.nextDelay()));
  }

  @Test
  public void zeroRandomGivesHalfTheCeiling() {
    Random zero = new Random() {
      @Override
      public double nextDouble() {
        return 0;
      }
    };
    Backoff backoff = new Backoff(Duration.ofMillis(100), Duration.ofSeconds(1), zero);
    assertEquals(Duration.ofMillis(50), backoff.nextDelay());
    assertEquals(Duration.ofMillis(100), backoff.nextDelay());
  }
}
