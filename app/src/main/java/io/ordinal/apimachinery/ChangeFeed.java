package io.ordinal.apimachinery;

import io.micronaut.context.annotation.Value;
import io.micronaut.context.event.StartupEvent;
import io.micronaut.runtime.event.annotation.EventListener;
import io.micronaut.scheduling.annotation.Scheduled;
import io.ordinal.store.WatchLog;
import io.ordinal.store.WatchLog.Change;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.postgresql.PGConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One reader of the watch log for every watcher: it wakes on the triggers' NOTIFY (or each second,
 * should a notification be lost), reads what is new once, and hands it to each subscriber in
 * resourceVersion order. A thousand watches cost one query, not a thousand.
 */
@Singleton
public class ChangeFeed {
  private static final Logger log = LoggerFactory.getLogger(ChangeFeed.class);
  private static final int BATCH = 500;
  private static final Duration WAIT = Duration.ofSeconds(1);

  /** What a watch does with the changes handed to it, on the feed's thread: it must not block. */
  public interface Subscriber {
    void changed(List<Change> changes);

    /** Every change up to {@code resourceVersion} has been handed out (for bookmarks). */
    void caughtUp(long resourceVersion);
  }

  private final WatchLog watchLog;
  private final Duration retention;
  private final Set<Subscriber> subscribers = ConcurrentHashMap.newKeySet();
  private Thread reader;
  private volatile long delivered = -1;
  private volatile boolean running = true;

  public ChangeFeed(WatchLog watchLog, @Value("${ordinal.watch.retention:15m}") Duration retention) {
    this.watchLog = watchLog;
    this.retention = retention;
  }

  /** Starts reading once the schema is migrated. */
  @EventListener
  void start(StartupEvent event) {
    reader = Thread.ofPlatform().daemon().name("watch-feed").start(this::run);
  }

  public void subscribe(Subscriber subscriber) {
    subscribers.add(subscriber);
  }

  public void unsubscribe(Subscriber subscriber) {
    subscribers.remove(subscriber);
  }

  /** The newest resourceVersion handed to subscribers; -1 before the first read. */
  public long delivered() {
    return delivered;
  }

  private void run() {
    while (running) {
      try (Connection connection = watchLog.listen()) {
        PGConnection notifications = connection.unwrap(PGConnection.class);
        if (delivered < 0) {
          delivered = watchLog.versions().current();
        }
        while (running) {
          deliver();
          notifications.getNotifications((int) WAIT.toMillis()); // drains them; what is new is read next
        }
      } catch (Exception e) {
        if (running) {
          // PostgreSQL restarting: the log keeps every change, so reading on from `delivered` loses none.
          log.warn("watch feed: {}; retrying in {}", e.toString(), WAIT);
          sleep();
        }
      }
    }
  }

  private void deliver() {
    List<Change> batch;
    do {
      batch = watchLog.since(delivered, BATCH);
      if (!batch.isEmpty()) {
        for (Subscriber subscriber : subscribers) {
          subscriber.changed(batch);
        }
        delivered = batch.getLast().resourceVersion();
      }
    } while (batch.size() == BATCH);
    long upTo = delivered;
    subscribers.forEach(s -> s.caughtUp(upTo));
  }

  /** Drops log entries older than the retention, as etcd compacts its history. */
  @Scheduled(fixedDelay = "1m", initialDelay = "1m")
  void compact() {
    try {
      watchLog.compact(Instant.now().minus(retention));
    } catch (RuntimeException e) {
      log.warn("watch log compaction: {}", e.toString());
    }
  }

  private void sleep() {
    try {
      Thread.sleep(WAIT);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      running = false;
    }
  }

  @PreDestroy
  void stop() {
    running = false;
    if (reader != null) {
      reader.interrupt();
    }
  }
}
