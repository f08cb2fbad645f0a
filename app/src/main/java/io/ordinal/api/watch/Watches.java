package io.ordinal.api.watch;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.http.MediaType;
import io.micronaut.http.server.types.files.StreamedFile;
import io.ordinal.apimachinery.ApiException;
import io.ordinal.apimachinery.ChangeFeed;
import io.ordinal.apimachinery.GoFields;
import io.ordinal.store.KubeJson;
import io.ordinal.store.WatchLog.Change;
import io.ordinal.store.WatchLog;
import jakarta.inject.Singleton;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.BufferOverflowStrategy;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxSink;
import reactor.core.scheduler.Schedulers;

/**
 * {@code ?watch=true}: a stream of {@code WatchEvent}s (one JSON object a line) for one resource,
 * fed by the {@link ChangeFeed}. Started from a resourceVersion it resumes exactly after it; started
 * without one (or at "0") it first sends the current objects as ADDED, as the API server does.
 */
@Singleton
public class Watches {
  private static final Logger log = LoggerFactory.getLogger(Watches.class);
  /** A watcher this far behind is cut off; its client resumes from the last version it got. */
  private static final int MAX_BACKLOG = 10_000;
  private static final Duration BOOKMARK_INTERVAL = Duration.ofSeconds(30);
  /** The API server's default request timeout for watches is randomised between 30 and 60 minutes. */
  private static final long MIN_TIMEOUT_SECONDS = 1800;

  /**
   * What to watch: one resource (its table), in a namespace or all ({@code null}), the objects the
   * selectors let through, how to list them now, and how an object goes on the wire (as itself or as
   * a Table row; {@code first} tells whether it is the stream's first, which carries the headers).
   */
  public record Target(String resource, String apiVersion, String kind, String namespace,
      Predicate<HasMetadata> selected, Supplier<List<? extends HasMetadata>> current,
      Encoder encoder) {}

  @FunctionalInterface
  public interface Encoder {
    Object encode(HasMetadata object, boolean first);
  }

  private final ChangeFeed feed;
  private final WatchLog watchLog;
  private final MeterRegistry registry;
  private final Map<String, AtomicInteger> openWatches = new ConcurrentHashMap<>();

  public Watches(ChangeFeed feed, WatchLog watchLog, MeterRegistry registry) {
    this.feed = feed;
    this.watchLog = watchLog;
    this.registry = registry;
  }

  /**
   * The gauge of open watches of {@code resource} (a table's name: labelled as the API's resource,
   * {@code controller_revisions} as {@code controllerrevisions}), registered at its first watch.
   */
  private AtomicInteger open(String resource) {
    return openWatches.computeIfAbsent(resource.replace("_", ""), r -> {
      AtomicInteger count = new AtomicInteger();
      Gauge.builder("ordinal.api.watches", count, AtomicInteger::get).description("Open watches, by resource")
          .tag("resource", r).register(registry);
      return count;
    });
  }

  /** The resourceVersion a list answered now carries: a watch from it misses nothing after it. */
  public String listVersion() {
    return Long.toString(watchLog.versions().current());
  }

  /** The watch as a response body: chunked JSON, one event a line, as the API server sends it. */
  public StreamedFile watchBody(Target target, ListOptions options) {
    return new StreamedFile(new StreamBody(watch(target, options)), MediaType.APPLICATION_JSON_TYPE);
  }

  public Flux<byte[]> watch(Target target, ListOptions options) {
    boolean initialEvents = options.sendsInitialEvents();
    long from = initialEvents ? 0 : options.resourceVersionNumber();
    if (!initialEvents) {
      long compacted = watchLog.versions().compacted();
      if (from < compacted) {
        throw ApiException.of(410, "Expired", "too old resource version: " + from + " (" + compacted + ")");
      }
    }
    long timeout = options.timeoutSeconds() != null ? options.timeoutSeconds()
        : ThreadLocalRandom.current().nextLong(MIN_TIMEOUT_SECONDS, 2 * MIN_TIMEOUT_SECONDS);
    Flux<byte[]> events = Flux.<byte[]>create(sink -> {
          Stream stream = new Stream(target, options, sink);
          AtomicInteger open = open(target.resource());
          open.incrementAndGet();
          sink.onDispose(() -> {
            feed.unsubscribe(stream);
            open.decrementAndGet();
          });
          feed.subscribe(stream); // first, so that nothing committed from now on is missed
          try {
            stream.start(from, initialEvents);
          } catch (RuntimeException e) {
            // The 200 is on the wire already: the failure goes as an ERROR event, as upstream's do.
            log.warn("watch of {} failed: {}", target.resource(), e.toString());
            stream.fail(e instanceof ApiException api ? api
                : ApiException.of(500, "InternalError", "the watch failed: " + e.getClass().getSimpleName()));
          }
        }, FluxSink.OverflowStrategy.BUFFER)
        .subscribeOn(Schedulers.boundedElastic())
        .onBackpressureBuffer(MAX_BACKLOG, BufferOverflowStrategy.ERROR);
    return timeout > 0 ? events.take(Duration.ofSeconds(timeout)) : events;
  }

  /** One client's watch: what it has been sent, so that nothing is sent twice or out of order. */
  private final class Stream implements ChangeFeed.Subscriber {
    private final Target target;
    private final ListOptions options;
    private final FluxSink<byte[]> sink;
    /** Changes handed over by the feed while the stream was still listing or catching up. */
    private List<Change> pending = new ArrayList<>();
    /** The newest resourceVersion sent (or covered by the initial list). */
    private long cursor;
    /** Per object (namespace/name): the resourceVersion of it in the initial list. */
    private final Map<String, Long> listed = new HashMap<>();
    /** Per object: whether the selectors let it through at its last change (absent: not known). */
    private final Map<String, Boolean> matched = new HashMap<>();
    private boolean first = true;
    private Instant lastBookmark = Instant.now();

    Stream(Target target, ListOptions options, FluxSink<byte[]> sink) {
      this.target = target;
      this.options = options;
      this.sink = sink;
    }

    void start(long from, boolean initialEvents) {
      if (initialEvents) {
        cursor = watchLog.versions().current();
        for (HasMetadata object : target.current().get()) {
          if (target.selected().test(object)) {
            String key = key(object);
            listed.put(key, Long.parseLong(object.getMetadata().getResourceVersion()));
            matched.put(key, true);
            send("ADDED", object);
          }
        }
        if (Boolean.TRUE.equals(options.sendInitialEvents())) {
          bookmark(cursor, true);
        }
      } else {
        cursor = from;
        List<Change> missed;
        do {
          missed = watchLog.since(cursor, 500);
          synchronized (this) {
            missed.forEach(this::process);
          }
        } while (!missed.isEmpty());
      }
      synchronized (this) {
        pending.forEach(this::process);
        pending = null;
        if (!initialEvents && options.allowWatchBookmarks()) {
          // A watch resumed from a resourceVersion learns at once that it has caught up with the log:
          // its client resumes from here next time, not from before everything it skipped.
          bookmark(cursor, false);
        }
      }
    }

    @Override
    public synchronized void changed(List<Change> changes) {
      if (pending != null) {
        pending.addAll(changes);
      } else {
        changes.forEach(this::process);
      }
    }

    @Override
    public synchronized void caughtUp(long resourceVersion) {
      if (pending == null && options.allowWatchBookmarks() && resourceVersion > cursor
          && Instant.now().isAfter(lastBookmark.plus(BOOKMARK_INTERVAL))) {
        bookmark(resourceVersion, false);
      }
    }

    private void process(Change change) {
      if (change.resourceVersion() <= cursor) {
        return;
      }
      cursor = change.resourceVersion();
      if (!change.resource().equals(target.resource())
          || (target.namespace() != null && !target.namespace().equals(change.namespace()))) {
        return;
      }
      String key = change.namespace() + "/" + change.name();
      if (listed.getOrDefault(key, -1L) >= change.resourceVersion()) {
        return; // the initial list showed it at this version or later
      }
      boolean matches = target.selected().test(change.object());
      Boolean before = matched.get(key);
      if (change.type().equals("DELETED")) {
        matched.remove(key);
        if (matches || Boolean.TRUE.equals(before)) {
          send("DELETED", change.object());
        }
        return;
      }
      matched.put(key, matches);
      if (matches) {
        // An object the selectors start letting through is new to this watcher.
        send(Boolean.FALSE.equals(before) ? "ADDED" : change.type(), change.object());
      } else if (Boolean.TRUE.equals(before)) {
        send("DELETED", change.object()); // it left the selection
      }
    }

    synchronized void fail(ApiException error) {
      emit("ERROR", error.status());
      sink.complete();
    }

    private void send(String type, HasMetadata object) {
      if (target.encoder() == AS_OBJECTS) {
        // Every watcher of the object sends the same JSON: written once, not once per watcher.
        emitJson(type, objectJson(object));
        return;
      }
      Object encoded = target.encoder().encode(object, first);
      first = false;
      emit(type, encoded);
    }

    private void bookmark(long resourceVersion, boolean initialEventsEnd) {
      Map<String, Object> metadata = new LinkedHashMap<>();
      metadata.put("resourceVersion", Long.toString(resourceVersion));
      if (initialEventsEnd) {
        metadata.put("annotations", Map.of("k8s.io/initial-events-end", "true"));
      }
      Map<String, Object> object = new LinkedHashMap<>();
      object.put("kind", target.kind());
      object.put("apiVersion", target.apiVersion());
      object.put("metadata", metadata);
      cursor = Math.max(cursor, resourceVersion);
      lastBookmark = Instant.now();
      emit("BOOKMARK", object);
    }

    private void emitJson(String type, String objectJson) {
      sink.next(("{\"type\":\"" + type + "\",\"object\":" + objectJson + "}\n").getBytes(StandardCharsets.UTF_8));
    }

    private void emit(String type, Object object) {
      Map<String, Object> event = new LinkedHashMap<>();
      event.put("type", type);
      event.put("object", object);
      sink.next((KubeJson.write(event) + "\n").getBytes(StandardCharsets.UTF_8));
    }
  }

  /**
   * The JSON of recently sent objects, by resourceVersion (one counter for all objects, so it names
   * one state of one object): a change watched by many is written once, not once per watcher.
   */
  private final Map<String, String> recentJson = Collections.synchronizedMap(new LinkedHashMap<>(256, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
      return size() > 4096;
    }
  });

  private String objectJson(HasMetadata object) {
    String version = object.getMetadata().getResourceVersion();
    return version == null ? json(object) : recentJson.computeIfAbsent(version, v -> json(object));
  }

  /** An object as upstream writes it: with the fields its Go type always has. */
  private static String json(HasMetadata object) {
    return KubeJson.write(GoFields.tree(object));
  }

  private static String key(HasMetadata object) {
    return object.getMetadata().getNamespace() + "/" + object.getMetadata().getName();
  }

  /** Plain objects on the wire. */
  public static final Encoder AS_OBJECTS = (object, first) -> object;

}
