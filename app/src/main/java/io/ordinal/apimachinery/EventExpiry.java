package io.ordinal.apimachinery;

import io.micronaut.context.annotation.Value;
import io.micronaut.scheduling.annotation.Scheduled;
import io.ordinal.store.EventRecorder;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes events last seen more than {@code ordinal.events.ttl} ago (one hour, the API server's
 * {@code --event-ttl} default), as etcd's lease removes upstream's: watchers see them DELETED.
 */
@Singleton
public class EventExpiry {
  private static final Logger log = LoggerFactory.getLogger(EventExpiry.class);
  private final EventRecorder events;
  private final Duration ttl;

  public EventExpiry(EventRecorder events, @Value("${ordinal.events.ttl:1h}") Duration ttl) {
    this.events = events;
    this.ttl = ttl;
  }

  @Scheduled(fixedDelay = "${ordinal.events.expiry-interval:1m}", initialDelay = "${ordinal.events.expiry-interval:1m}")
  void expire() {
    try {
      int expired = events.expire(Instant.now().minus(ttl));
      if (expired > 0) {
        log.debug("expired {} events last seen over {} ago", expired, ttl);
      }
    } catch (RuntimeException e) {
      log.warn("event expiry: {}", e.toString());
    }
  }
}
