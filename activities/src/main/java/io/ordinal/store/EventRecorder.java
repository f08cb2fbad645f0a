package io.ordinal.store;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import jakarta.inject.Singleton;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Kubernetes Events, stored in PostgreSQL. */
@Singleton
public class EventRecorder {
  public static final String NORMAL = "Normal";
  public static final String WARNING = "Warning";

  /** eventTime is a MicroTime: clients parse exactly six fractional digits (and drop the event otherwise). */
  private static final DateTimeFormatter MICRO_TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'").withZone(ZoneOffset.UTC);

  private static final Logger log = LoggerFactory.getLogger(EventRecorder.class);

  private final Repositories.Events events;

  public EventRecorder(Repositories.Events events) {
    this.events = events;
  }

  public void record(String namespace, String kind, String name, String uid, String type, String reason, String message) {
    // Also a log line, in the context of the step that recorded it (set, pod, operation, workflow ids).
    if (WARNING.equals(type)) {
      log.warn("{} {}/{}: {} {}", kind, namespace, name, reason, message);
    } else {
      log.info("{} {}/{}: {} {}", kind, namespace, name, reason, message);
    }
    Instant now = Instant.now();
    String eventName = name + "." + Long.toHexString(now.toEpochMilli()) + UUID.randomUUID().toString().substring(0, 4);
    events.save(new EventRow(null, namespace, eventName, UUID.randomUUID().toString(), kind, name, uid,
        reason, message, type, now, Repositories.VERSION_ASSIGNED_BY_DATABASE));
  }

  public Optional<Event> find(String namespace, String name) {
    return events.findByNamespaceAndName(namespace, name).map(EventRecorder::toObject);
  }

  /** The events of a namespace, or of all namespaces ({@code null}), oldest first. */
  public List<Event> list(String namespace) {
    return (namespace == null ? events.listOrderById() : events.findByNamespaceOrderById(namespace)).stream()
        .map(EventRecorder::toObject).toList();
  }

  static Event toObject(EventRow row) {
    String time = KubeJson.timestamp(row.eventTime());
    String apiVersion = "StatefulSet".equals(row.involvedKind()) ? "apps/v1" : "v1";
    return new EventBuilder()
        .withApiVersion("v1")
        .withKind("Event")
        .withNewMetadata()
          .withName(row.name()).withNamespace(row.namespace()).withUid(row.uid())
          .withResourceVersion(Long.toString(row.resourceVersion())).withCreationTimestamp(time)
        .endMetadata()
        .withNewInvolvedObject()
          .withApiVersion(apiVersion).withKind(row.involvedKind()).withName(row.involvedName())
          .withNamespace(row.namespace()).withUid(row.involvedUid())
        .endInvolvedObject()
        .withReason(row.reason())
        .withMessage(row.message())
        .withType(row.type())
        .withCount(1)
        .withFirstTimestamp(time)
        .withLastTimestamp(time)
        .withNewEventTime(MICRO_TIME.format(row.eventTime()))
        .withNewSource().withComponent("statefulset-controller").endSource()
        .withReportingComponent("ordinal")
        .build();
  }
}
