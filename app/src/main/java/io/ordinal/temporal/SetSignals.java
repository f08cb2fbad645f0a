package io.ordinal.temporal;

import io.micronaut.scheduling.annotation.Scheduled;
import io.opentelemetry.context.Context;
import io.ordinal.audit.AuditContext;
import io.ordinal.driver.PodEvents;
import io.ordinal.model.SetKey;
import io.ordinal.store.Repositories;
import io.ordinal.store.StatefulSetStore;
import io.ordinal.tracing.Tracing;
import io.ordinal.workflow.ControllerInput;
import io.ordinal.workflow.Operation;
import io.ordinal.workflow.OperationWorkflow;
import io.ordinal.workflow.OrdinalSearchAttributes;
import io.ordinal.workflow.StatefulSetControllerWorkflow;
import io.temporal.client.BatchRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.client.WorkflowOptions;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wakes a set's controller workflow, starting it when it is not running (signal-with-start). A spec
 * change is not signalled by the request that wrote it: the write queues it in the controller outbox
 * in its own transaction ({@link #queueSpecChange}) and {@link ControllerOutboxDrain} signals it
 * after the commit. {@link #resync} and the start-up nudge remain the nets for anything else.
 */
@Singleton
public class SetSignals implements PodEvents {
  private static final Logger log = LoggerFactory.getLogger(SetSignals.class);
  private static final Duration PAUSE_FENCE_TIMEOUT = Duration.ofSeconds(10);
  /** Each fence runs in the trace of the request that paused (the Temporal client's interceptor reads it). */
  private static final ExecutorService FENCES = Context.taskWrapping(Executors.newVirtualThreadPerTaskExecutor());
  private static final ExecutorService WAKERS = Executors.newVirtualThreadPerTaskExecutor();
  /** Pod names are never empty: the value of a set whose wake is in flight with no change since. */
  private static final String NOTHING_PENDING = "";
  /** The sets with a driver's wake in flight, each with the last pod that changed since it was sent. */
  private final ConcurrentHashMap<SetKey, String> wakes = new ConcurrentHashMap<>();
  private final WorkflowClient client;
  private final StatefulSetStore sets;
  private final Repositories.ControllerOutbox outbox;
  private final Tracing tracing;

  public SetSignals(WorkflowClient client, StatefulSetStore sets, Repositories.ControllerOutbox outbox, Tracing tracing) {
    this.client = client;
    this.sets = sets;
    this.outbox = outbox;
    this.tracing = tracing;
  }

  /**
   * Queues the news of a spec change for the set's controller, with who made it and the request's
   * trace: call it inside the transaction of the change, so that both commit or neither does.
   */
  public void queueSpecChange(SetKey key, long generation) {
    outbox.enqueue(key.namespace(), key.name(), generation, AuditContext.currentUser().orElse(null),
        tracing.traceparent());
    audited(key.controllerWorkflowId(), "specChanged");
  }

  /** Tells the controller of a spec change made by {@code requestedBy}; false when Temporal did not take it. */
  public boolean specChanged(SetKey key, long generation, String requestedBy) {
    return signal(key, true, generation, null, requestedBy);
  }

  /** A signal to {@code workflowId} on behalf of the current request: noted in its audit event. */
  private static void audited(String workflowId, String signal) {
    AuditContext.signalled(workflowId, signal);
  }

  /**
   * A driver's news that a pod changed: the set is woken from another thread, so that a driver's
   * own threads never wait for Temporal (a synchronous signal per pod transition capped the sim
   * driver at a few dozen transitions a second under load). Changes that arrive while a wake of the
   * set is in flight are folded into one more wake after it: none is lost, none is sent twice.
   */
  @Override
  public void podChanged(String namespace, String setName, String podName) {
    SetKey key = new SetKey(namespace, setName);
    boolean[] first = {false};
    wakes.compute(key, (k, pending) -> {
      first[0] = pending == null;
      return first[0] ? NOTHING_PENDING : podName;
    });
    if (first[0]) {
      WAKERS.execute(() -> wakeUntilQuiet(key, podName));
    }
  }

  private void wakeUntilQuiet(SetKey key, String podName) {
    String next = podName;
    try {
      while (next != null) {
        try {
          wake(key.namespace(), key.name(), next);
        } catch (RuntimeException e) {
          log.warn("could not wake {} (a running operation observes again within its safety poll): {}", key, e.toString());
        }
        String[] again = {null};
        wakes.compute(key, (k, pending) -> {
          if (pending.equals(NOTHING_PENDING)) {
            return null;
          }
          again[0] = pending;
          return NOTHING_PENDING;
        });
        next = again[0];
      }
    } finally {
      if (next != null) {
        wakes.remove(key); // thrown out of the loop: the set's next change starts a wake of its own
      }
    }
  }

  /**
   * Wakes the set's running operation directly (saving the controller's forwarding hop, which is
   * most of the readiness-to-next-step latency), or the controller when no operation runs. The API
   * calls it on the request's thread, so that the request's audit event names the signal.
   */
  public void wake(String namespace, String setName, String podName) {
    Optional<String> operation = sets.activeOperation(namespace, setName);
    if (operation.isPresent()) {
      try {
        client.newWorkflowStub(OperationWorkflow.class, operation.get()).wake();
        audited(operation.get(), "wake");
        return;
      } catch (WorkflowNotFoundException e) {
        // that operation has ended: the controller decides whether another one is needed
      } catch (RuntimeException e) {
        log.debug("could not wake {}: {}", operation.get(), e.toString());
      }
    }
    signal(new SetKey(namespace, setName), false, 0, podName, null);
  }

  /**
   * Fences a pause that was just stored: if a rollout is running, waits (bounded) until it has
   * accepted the pause, after which it touches no further pod. Without a running rollout there is
   * nothing to fence: the next operation reads the stored pause before it acts.
   */
  public void pauseRollout(SetKey key) {
    Optional<String> operation = sets.activeOperation(key.namespace(), key.name());
    if (operation.isEmpty() || !operation.flatMap(Operation::ofWorkflowId).map(Operation::isRollout).orElse(false)) {
      return;
    }
    // Read on this thread: the fence's thread serves no request.
    String requestedBy = AuditContext.currentUser().orElse(null);
    audited(operation.get(), "pause");
    var update = CompletableFuture.runAsync(
        () -> client.newWorkflowStub(OperationWorkflow.class, operation.get()).pause(requestedBy),
        FENCES);
    try {
      update.get(PAUSE_FENCE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      log.debug("{} did not take the pause update (it has ended): {}", operation.get(), e.getCause().toString());
    } catch (TimeoutException e) {
      log.warn("{} did not accept the pause within {}; it applies at its next observation", operation.get(),
          PAUSE_FENCE_TIMEOUT);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Signals every set once, so that work a crash interrupted resumes. */
  public void nudgeAll() {
    sets.list(null).forEach(set -> signal(
        new SetKey(set.getMetadata().getNamespace(), set.getMetadata().getName()), true,
        set.getMetadata().getGeneration(), null, null));
  }

  /** Safety net for a signal lost between a write and its signal: wake sets the controller is behind on. */
  @Scheduled(fixedDelay = "${ordinal.resync-interval:30s}", initialDelay = "${ordinal.resync-interval:30s}")
  void resync() {
    for (var set : sets.list(null)) {
      Long observed = set.getStatus() == null ? null : set.getStatus().getObservedGeneration();
      boolean behind = observed == null || observed < set.getMetadata().getGeneration();
      if (behind || set.getMetadata().getDeletionTimestamp() != null) {
        signal(new SetKey(set.getMetadata().getNamespace(), set.getMetadata().getName()), true,
            set.getMetadata().getGeneration(), null, null);
      }
    }
  }

  /** @param requestedBy who changed the spec, for the controller's history; null for the service's own nudges */
  private boolean signal(SetKey key, boolean spec, long generation, String podName, String requestedBy) {
    try {
      StatefulSetControllerWorkflow controller = client.newWorkflowStub(StatefulSetControllerWorkflow.class,
          WorkflowOptions.newBuilder()
              .setWorkflowId(key.controllerWorkflowId())
              .setTaskQueue(StatefulSetControllerWorkflow.TASK_QUEUE)
              .setTypedSearchAttributes(OrdinalSearchAttributes.ofController(key))
              .setStaticSummary("controller of StatefulSet " + key)
              .build());
      BatchRequest request = client.newSignalWithStartRequest();
      request.add(controller::run, ControllerInput.start(key));
      if (spec) {
        // Who wrote the spec goes with the signal, so the controller's history shows it.
        request.add(controller::specChanged, generation, requestedBy);
      } else {
        request.add(controller::podChanged, podName);
      }
      client.signalWithStart(request);
      if (!spec) {
        audited(key.controllerWorkflowId(), "podChanged");
      }
      return true;
    } catch (RuntimeException e) {
      log.warn("could not signal the controller of {} (it catches up on resync): {}", key, e.toString());
      return false;
    }
  }
}
