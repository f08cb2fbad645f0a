package io.ordinal.cluster;

import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import io.fabric8.kubernetes.api.model.HasMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Level-triggered reconciliation of objects by namespace and name, as client-go's workqueue: a key added many times while it
 * waits is reconciled once; a key is never reconciled by two workers at once (added while it runs,
 * it runs again after); a failed key is retried with a back-off that doubles up to 30 s and is
 * forgotten after a success.
 */
public final class WorkQueue implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(WorkQueue.class);
  private static final Duration FIRST_RETRY = Duration.ofMillis(500);
  private static final Duration LAST_RETRY = Duration.ofSeconds(30);

  private final String name;
  private final Reconciler reconciler;
  private final Set<String> queued = new LinkedHashSet<>();
  private final Set<String> running = new HashSet<>();
  private final Set<String> dirty = new HashSet<>();
  private final Map<String, Duration> backOff = new HashMap<>();
  private final ScheduledExecutorService retries;
  private final Thread[] workers;
  private volatile boolean closed;

  /** Brings the object of that namespace and name (which may not exist) to what it should be; throws to be retried. */
  @FunctionalInterface
  public interface Reconciler {
    void reconcile(String namespace, String name);
  }

  public WorkQueue(String name, int workers, Reconciler reconciler) {
    this.name = name;
    this.reconciler = reconciler;
    this.retries = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name(name + "-retry").factory());
    this.workers = new Thread[workers];
    for (int i = 0; i < workers; i++) {
      this.workers[i] = Thread.ofPlatform().daemon().name(name + "-" + i).start(this::work);
    }
  }

  public void add(HasMetadata object) {
    add(object.getMetadata().getNamespace(), object.getMetadata().getName());
  }

  public void add(String namespace, String name) {
    add(namespace + "/" + name);
  }

  private synchronized void add(String key) {
    if (running.contains(key)) {
      dirty.add(key);
    } else if (queued.add(key)) {
      notify();
    }
  }

  private synchronized String take() throws InterruptedException {
    while (queued.isEmpty()) {
      wait();
    }
    String key = queued.iterator().next();
    queued.remove(key);
    running.add(key);
    return key;
  }

  private synchronized void done(String key) {
    running.remove(key);
    if (dirty.remove(key) && queued.add(key)) {
      notify();
    }
  }

  private void work() {
    while (!closed) {
      String key;
      try {
        key = take();
      } catch (InterruptedException e) {
        return;
      }
      try {
        int slash = key.indexOf('/');
        reconciler.reconcile(key.substring(0, slash), key.substring(slash + 1));
        synchronized (this) {
          backOff.remove(key);
        }
      } catch (RuntimeException e) {
        retryLater(key, e);
      } finally {
        done(key);
      }
    }
  }

  private void retryLater(String key, RuntimeException e) {
    Duration delay;
    synchronized (this) {
      delay = backOff.merge(key, FIRST_RETRY, (last, first) -> last.multipliedBy(2).compareTo(LAST_RETRY) > 0
          ? LAST_RETRY : last.multipliedBy(2));
    }
    log.warn("{} {}: {}; retrying in {} ms", name, key, e.toString(), delay.toMillis());
    if (!closed) {
      retries.schedule(() -> add(key), delay.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  @Override
  public void close() {
    closed = true;
    retries.shutdownNow();
    for (Thread worker : workers) {
      worker.interrupt();
    }
  }
}
