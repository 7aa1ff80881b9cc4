package io.informerd.client;

import static io.informerd.client.TestObjects.event;
import static io.informerd.client.TestObjects.initialEventsEnd;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import io.grpc.Status;
import io.informerd.v1.WatchEvent;
import io.informerd.v1.WatchRequest;
import java.time.Duration;
import java.util.List;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;

public class RemoteInformerTest {
  private FakeCacheServer server;
  private Connection connection;
  private final RecordingHandler handler = new RecordingHandler();
  private RemoteInformer informer;

  @Before
  public void setUp() throws Exception {
    server = new FakeCacheServer();
    connection = Connection.builder().target(server.address()).build();
    informer =
        RemoteInformer.builder(connection, ResourceRef.parse("configmaps"))
            .namespace("ns")
            .labelSelector("app=web")
            .addEventHandler(handler)
            .backoff(Duration.ofMillis(1), Duration.ofMillis(5))
            .build();
  }

  @After
  public void tearDown() throws Exception {
    informer.close();
    connection.close();
    server.close();
  }

  @Test
  public void syncsResumesAndRelistsByDiff() throws Exception {
    server.addScript(new FakeCacheServer.Script(List.of(
        event(WatchEvent.Type.ADDED, "ns", "a", "10"),
        event(WatchEvent.Type.ADDED, "ns", "b", "9"),
        initialEventsEnd("10"),
        event(WatchEvent.Type.MODIFIED, "ns", "a", "11")),
        Status.UNAVAILABLE.withDescription("server shutting down")));
    server.addScript(new FakeCacheServer.Script(List.of(
        event(WatchEvent.Type.ADDED, "ns", "c", "12")),
        Status.RESOURCE_EXHAUSTED.withDescription("watcher fell behind")));
    server.addScript(new FakeCacheServer.Script(List.of(
        event(WatchEvent.Type.ADDED, "ns", "c", "12"),
        event(WatchEvent.Type.ADDED, "ns", "a", "13"),
        event(WatchEvent.Type.ADDED, "ns", "d", "14"),
        initialEventsEnd("15")), null));

    assertFalse(informer.hasSynced());
    informer.start();

    assertEquals(List.of("ADD ns/a 10", "ADD ns/b 9", "SYNCED"), handler.next(3));
    assertTrue(informer.hasSynced());
    WatchRequest first = server.nextWatchRequest();
    assertTrue(first.getSendInitialEvents());
    assertTrue(first.getAllowBookmarks());
    assertEquals("ns", first.getNamespace());
    assertEquals("app=web", first.getLabelSelector());
    assertEquals("configmaps", first.getResource().getResource());

    assertEquals(List.of("UPDATE ns/a 10 11"), handler.next(1));
    WatchRequest resume = server.nextWatchRequest();
    assertFalse(resume.getSendInitialEvents());
    assertEquals("11", resume.getResourceVersion());

    assertEquals(List.of("ADD ns/c 12"), handler.next(1));
    WatchRequest relist = server.nextWatchRequest();
    assertTrue(relist.getSendInitialEvents());
    assertEquals("", relist.getResourceVersion());

    // The relist shows b gone, a changed, d new and c unchanged: only the
    // difference reaches the handler, and SYNCED is not repeated.
    assertEquals(
        List.of("DELETE ns/b 9 final-state-unknown", "UPDATE ns/a 11 13", "ADD ns/d 14"),
        handler.next(3));
    assertEquals(List.of("ns/a", "ns/c", "ns/d"), informer.lister().keys());
    assertEquals("15", informer.lastResourceVersion());
    informer.close();
    assertEquals(List.of(), handler.drain());
  }

  @Test
  public void streamBrokenDuringInitialEventsRelistsFromScratch() throws Exception {
    server.addScript(new FakeCacheServer.Script(List.of(
        event(WatchEvent.Type.ADDED, "ns", "a", "1")), Status.UNAVAILABLE));
    server.addScript(new FakeCacheServer.Script(List.of(
        event(WatchEvent.Type.ADDED, "ns", "a", "1"),
        event(WatchEvent.Type.ADDED, "ns", "b", "2"),
        initialEventsEnd("2")), null));
    informer.start();

    assertEquals(List.of("ADD ns/a 1", "ADD ns/b 2", "SYNCED"), handler.next(3));
    assertTrue(server.nextWatchRequest().getSendInitialEvents());
    assertTrue(server.nextWatchRequest().getSendInitialEvents());
  }

  @Test
  public void tooOldResumePointRelistsWithoutWaitingTheBackoff() throws Exception {
    // A backoff far longer than the test may take: only an immediate relist
    // lets it see the second Watch in time.
    RemoteInformer slow =
        RemoteInformer.builder(connection, ResourceRef.parse("configmaps"))
            .addEventHandler(handler)
            .backoff(Duration.ofMinutes(5), Duration.ofMinutes(5))
            .build();
    for (Status.Code code : List.of(Status.Code.OUT_OF_RANGE, Status.Code.RESOURCE_EXHAUSTED)) {
      server.addScript(new FakeCacheServer.Script(
          List.of(event(WatchEvent.Type.ADDED, "ns", "a", "1"), initialEventsEnd("1")),
          Status.fromCode(code).withDescription("too old resource version")));
    }
    server.addScript(new FakeCacheServer.Script(List.of(initialEventsEnd("3")), null));
    try {
      slow.start();
      assertTrue(server.nextWatchRequest().getSendInitialEvents());
      assertTrue(server.nextWatchRequest().getSendInitialEvents());
      assertTrue(server.nextWatchRequest().getSendInitialEvents());
      assertEquals(
          List.of("ADD ns/a 1", "SYNCED", "DELETE ns/a 1 final-state-unknown"), handler.next(3));
    } finally {
      slow.close();
    }
  }

  @Test
  public void closeStopsAnOpenWatch() throws Exception {
    server.addScript(new FakeCacheServer.Script(List.of(initialEventsEnd("1")), null));
    informer.start();
    assertTrue(informer.awaitSynced(Duration.ofSeconds(10)));
    informer.close();
    assertEquals(List.of("SYNCED"), handler.drain());
  }
}
