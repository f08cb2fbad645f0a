package io.ordinal.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

class WorkQueueTest {

  @Test
  void aKeyAddedWhileItRunsRunsOnceMoreAfterAndNeverTwiceAtOnce() throws Exception {
    AtomicInteger running = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    AtomicInteger runs = new AtomicInteger();
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    try (WorkQueue queue = new WorkQueue("test", 4, (namespace, name) -> {
      most.accumulateAndGet(running.incrementAndGet(), Math::max);
      if (runs.incrementAndGet() == 1) {
        started.countDown();
        await(release);
      }
      running.decrementAndGet();
    })) {
      queue.add("ns", "web-0");
      assertTrue(started.await(5, TimeUnit.SECONDS));
      for (int i = 0; i < 10; i++) {
        queue.add("ns", "web-0"); // while it runs: folded into one more run
      }
      release.countDown();
      waitFor(() -> runs.get() == 2);
      Thread.sleep(100);
      assertEquals(2, runs.get());
      assertEquals(1, most.get());
    }
  }

  @Test
  void aFailedKeyIsRetriedUntilItSucceeds() throws Exception {
    List<String> calls = new CopyOnWriteArrayList<>();
    try (WorkQueue queue = new WorkQueue("test", 1, (namespace, name) -> {
      calls.add(namespace + "/" + name);
      if (calls.size() < 3) {
        throw new IllegalStateException("not yet");
      }
    })) {
      queue.add("ns", "web-1");
      waitFor(() -> calls.size() == 3);
      Thread.sleep(1_200);
      assertEquals(List.of("ns/web-1", "ns/web-1", "ns/web-1"), calls);
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void waitFor(BooleanSupplier condition) throws InterruptedException {
    for (int i = 0; i < 200 && !condition.getAsBoolean(); i++) {
      Thread.sleep(25);
    }
    assertTrue(condition.getAsBoolean());
  }
}
