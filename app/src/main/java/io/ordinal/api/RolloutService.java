package io.ordinal.api;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.ordinal.api.registry.WriteOptions;
import io.ordinal.api.statefulset.RolloutStatus;
import io.ordinal.apimachinery.ApiException;
import io.ordinal.apimachinery.FieldError;
import io.ordinal.kube.Labels;
import io.ordinal.kube.RolloutControls;
import io.ordinal.kube.StatefulSetFields;
import io.ordinal.store.ControllerRevisionRow;
import io.ordinal.store.EventRecorder;
import io.ordinal.store.HookWaitStore;
import io.ordinal.store.KubeJson;
import io.ordinal.store.RevisionStore;
import jakarta.inject.Singleton;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Rollout control: pause, resume, undo, restart, status and history. Every verb is a write of the
 * set's spec (so it is durable, survives restarts and shows in the object) through the same
 * defaulting, validation and signalling as a PUT; a pause is also fenced into the running rollout.
 */
@Singleton
public class RolloutService {
  private final StatefulSetService sets;
  private final RevisionStore revisions;
  private final EventRecorder events;
  private final HookWaitStore hookWaits;

  public RolloutService(StatefulSetService sets, RevisionStore revisions, EventRecorder events, HookWaitStore hookWaits) {
    this.sets = sets;
    this.revisions = revisions;
    this.events = events;
    this.hookWaits = hookWaits;
  }

  /** One entry of {@code rollout history}. */
  public record HistoryEntry(long revision, String name, String changeCause, String time) {}

  public record History(String kind, String statefulSet, List<HistoryEntry> revisions) {}

  /** Body of {@code POST undo}; without toRevision (or 0) the previous revision. */
  public record UndoRequest(Long toRevision) {}

  /**
   * Body of {@code POST complete}: the member whose asynchronous hook finished, whether it succeeded
   * (default true), and what it says (in the hook's result and event).
   */
  public record HookCompletion(String member, Boolean succeeded, String message) {}

  /** What {@code POST complete} completed. */
  public record CompletedHook(String member, String hook, boolean succeeded, String message) {}

  /**
   * Reports the completion of the asynchronous membership hook a member's operation waits for
   * ({@code completionDeadlineSeconds}): the waiting hook takes it within a second.
   */
  public CompletedHook completeHook(String namespace, String name, HookCompletion completion) {
    sets.get(namespace, name); // 404 for no set
    if (completion == null || completion.member() == null || completion.member().isBlank()) {
      throw ApiException.invalid(StatefulSetService.GROUP, "HookCompletion", name,
          List.of(FieldError.required("member", "the pod whose hook finished")));
    }
    boolean succeeded = completion.succeeded() == null || completion.succeeded();
    String message = completion.message() == null ? "" : completion.message();
    HookWaitStore.Wait waiting = hookWaits.pending(namespace, name, completion.member()).orElseThrow(() ->
        ApiException.of(404, "NotFound", "no hook of member " + completion.member() + " of statefulset " + name
            + " waits for its completion"));
    if (!hookWaits.complete(namespace, name, completion.member(), waiting.hook(), succeeded, message)) {
      throw ApiException.of(409, "Conflict", "the hook of member " + completion.member() + " stopped waiting meanwhile");
    }
    return new CompletedHook(completion.member(), waiting.hook(), succeeded, message);
  }

  public StatefulSet pause(String namespace, String name, WriteOptions options) {
    requireRollingUpdate(sets.get(namespace, name), "pause");
    return sets.patch(namespace, name, options, set -> {
      RolloutControls.setPaused(set, true);
      return set;
    });
  }

  /** Resumes a paused rollout, and membership changes held by a failed hook (any update strategy). */
  public StatefulSet resume(String namespace, String name, WriteOptions options) {
    StatefulSet current = sets.get(namespace, name);
    if (Labels.annotation(current.getMetadata(), Labels.HELD_HOOK_ANNOTATION) == null) {
      requireRollingUpdate(current, "resume");
    }
    return sets.patch(namespace, name, options, set -> {
      RolloutControls.setPaused(set, false);
      if (set.getMetadata().getAnnotations() != null) {
        Map<String, String> annotations = new LinkedHashMap<>(set.getMetadata().getAnnotations());
        annotations.remove(Labels.HELD_HOOK_ANNOTATION);
        set.getMetadata().setAnnotations(annotations);
      }
      return set;
    });
  }

  /** Like {@code kubectl rollout restart}: a new template annotation, so every pod is replaced in order. */
  public StatefulSet restart(String namespace, String name, WriteOptions options) {
    String now = KubeJson.timestamp(Instant.now());
    return sets.patch(namespace, name, options, set -> {
      var template = set.getSpec().getTemplate();
      if (template.getMetadata() == null) {
        template.setMetadata(new ObjectMeta());
      }
      Map<String, String> annotations = new LinkedHashMap<>(Labels.annotations(template.getMetadata()));
      annotations.put(Labels.RESTARTED_AT_ANNOTATION, now);
      template.getMetadata().setAnnotations(annotations);
      return set;
    });
  }

  /**
   * Like {@code kubectl rollout undo}: puts back the template of {@code toRevision}, or of the
   * revision before the newest. Pods created from the abandoned revision are replaced by the
   * rollout that follows, broken ones first, with nobody deleting them by hand.
   */
  public StatefulSet undo(String namespace, String name, UndoRequest request, WriteOptions options) {
    StatefulSet set = sets.get(namespace, name);
    long wanted = request == null || request.toRevision() == null ? 0 : request.toRevision();
    // The spec's template gets its revision now if the controller has not observed it yet, so that
    // "previous" means the one before what the spec asks for.
    revisions.ensure(set);
    List<ControllerRevisionRow> history = revisions.history(namespace, name);
    if (wanted < 0) {
      throw invalid(name, new FieldError("FieldValueInvalid", "toRevision",
          "Invalid value: " + wanted + ": must be greater than or equal to 0"));
    }
    ControllerRevisionRow target;
    if (wanted == 0) {
      if (history.size() < 2) {
        throw ApiException.badRequest("no rollout history found for statefulset \"" + name + "\": nothing to undo");
      }
      target = history.get(history.size() - 2);
    } else {
      target = history.stream().filter(r -> r.revision() == wanted).findFirst().orElseThrow(() -> invalid(name,
          new FieldError("FieldValueNotFound", "toRevision", "Not found: " + wanted + ": no such revision in history ("
              + history.stream().map(r -> Long.toString(r.revision())).toList() + ")")));
    }
    StatefulSet reverted = sets.patch(namespace, name, options, current -> RevisionStore.revertedTo(current, target));
    if (!reverted.getMetadata().getGeneration().equals(set.getMetadata().getGeneration())) {
      events.record(namespace, "StatefulSet", name, set.getMetadata().getUid(), EventRecorder.NORMAL, "RollingBack",
          "rollout undo: rolling back to revision " + target.revision() + " (" + target.name() + ")");
    }
    return reverted;
  }

  public RolloutStatus status(String namespace, String name) {
    return status(sets.get(namespace, name));
  }

  /** The rollout state of a set already read. */
  public RolloutStatus status(StatefulSet set) {
    String namespace = set.getMetadata().getNamespace();
    String update = set.getStatus() == null ? null : set.getStatus().getUpdateRevision();
    boolean rollingBack = update != null && revisions.find(namespace, update).map(ControllerRevisionRow::rolledBack).orElse(false);
    return RolloutStatus.of(set, rollingBack);
  }

  public History history(String namespace, String name) {
    sets.get(namespace, name); // 404 for an unknown set
    return new History("RolloutHistory", name, revisions.history(namespace, name).stream()
        .map(r -> new HistoryEntry(r.revision(), r.name(), r.changeCause(), KubeJson.timestamp(r.updatedAt())))
        .toList());
  }

  private static void requireRollingUpdate(StatefulSet set, String verb) {
    if (!StatefulSetFields.ROLLING_UPDATE.equals(set.getSpec().getUpdateStrategy().getType())) {
      throw ApiException.badRequest("cannot " + verb + " the rollout of statefulset \"" + set.getMetadata().getName()
          + "\": spec.updateStrategy.type is " + set.getSpec().getUpdateStrategy().getType()
          + "; only RollingUpdate rollouts can be paused");
    }
  }

  private static ApiException invalid(String name, FieldError error) {
    return ApiException.invalid(StatefulSetService.GROUP, "RolloutUndo", name, List.of(error));
  }
}
