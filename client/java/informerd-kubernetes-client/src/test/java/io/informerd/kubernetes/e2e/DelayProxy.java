package io.informerd.kubernetes.e2e;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Fault injection for the no-copy oracle: a loopback TCP proxy between an
 * informerd replica and the kube-apiserver (bytes untouched, TLS included)
 * that delays every forwarded chunk by a random 0..delayMillis, or holds
 * every chunk while stalled, so the replica's cache trails the apiserver.
 * The Java twin of tests/chaos/fault_proxy.py's set_delay and set_stalled.
 * Thread-safe.
 */
final class DelayProxy implements AutoCloseable {
  private final ServerSocket listener;
  private final InetSocketAddress target;
  private final List<Socket> sockets = new ArrayList<>(); // guarded by this
  private volatile int delayMillis;
  private boolean stalled; // guarded by this
  private volatile boolean closed;

  DelayProxy(String targetHost, int targetPort) throws IOException {
    this.target = new InetSocketAddress(targetHost, targetPort);
    this.listener = new ServerSocket(0, 64, InetAddress.getLoopbackAddress());
    Thread accept = new Thread(this::acceptLoop, "delay-proxy-accept");
    accept.setDaemon(true);
    accept.start();
  }

  int port() {
    return listener.getLocalPort();
  }

  void setDelayMillis(int millis) {
    delayMillis = millis;
  }

  synchronized void setStalled(boolean stall) {
    stalled = stall;
    notifyAll();
  }

  private synchronized void awaitFlowing() throws InterruptedException {
    while (stalled && !closed) {
      wait();
    }
  }

  private void acceptLoop() {
    while (!closed) {
      try {
        Socket client = listener.accept();
        Socket upstream = new Socket(target.getAddress(), target.getPort());
        synchronized (this) {
          sockets.add(client);
          sockets.add(upstream);
        }
        pump(client, upstream);
        pump(upstream, client);
      } catch (IOException e) {
        if (!closed) {
          System.err.println("delay proxy: " + e);
        }
      }
    }
  }

  private void pump(Socket from, Socket to) {
    Thread thread = new Thread(() -> {
      byte[] buffer = new byte[64 * 1024];
      try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
        int n;
        while ((n = in.read(buffer)) >= 0) {
          awaitFlowing();
          int delay = delayMillis;
          if (delay > 0) {
            Thread.sleep(ThreadLocalRandom.current().nextInt(delay + 1)); // the injected fault
          }
          out.write(buffer, 0, n);
          out.flush();
        }
      } catch (IOException | InterruptedException e) {
        // One side closed: close both below.
      } finally {
        closeQuietly(from);
        closeQuietly(to);
      }
    }, "delay-proxy-pump");
    thread.setDaemon(true);
    thread.start();
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException ignored) {
      // Closing anyway.
    }
  }

  @Override
  public void close() throws IOException {
    closed = true;
    setStalled(false);
    listener.close();
    synchronized (this) {
      for (Socket socket : sockets) {
        closeQuietly(socket);
      }
    }
  }
}
