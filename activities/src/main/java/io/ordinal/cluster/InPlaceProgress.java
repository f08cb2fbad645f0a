package io.ordinal.cluster;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.ordinal.kube.Labels;
import io.ordinal.pods.PodUpdatePolicy;
import io.ordinal.store.KubeJson;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What a pod updated in place in a cluster waits for before it counts as Ready again: a container
 * whose image changed must have been restarted by the kubelet (its restart count up, or a new
 * container id), one whose resources changed must report them applied (its status' resources, with
 * no resize pending or in progress). Until then the cluster's Ready condition is the old container's.
 * Noted on the pod's row ({@link #ANNOTATION}) when the update is stored, from the cluster's status
 * at that moment, so that it survives a restart of the service.
 *
 * @param containers by name, the changed containers as they were
 * @param notedAtMillis when the update was stored
 */
record InPlaceProgress(Map<String, Before> containers, long notedAtMillis) {
  static final String ANNOTATION = "ordinal.io/in-place-update";
  private static final List<String> RESIZING = List.of("PodResizePending", "PodResizeInProgress");

  /** @param restarts its image changed: the kubelet restarts it; else only its resources, resized */
  record Before(int restartCount, String containerId, boolean restarts) {}

  /** The progress to wait for when {@code actual}, the pod in the cluster now, becomes {@code updated}. */
  static InPlaceProgress of(Pod actual, Pod updated) {
    Map<String, Before> changed = new LinkedHashMap<>();
    for (Container next : updated.getSpec().getContainers()) {
      Optional<Container> now = container(actual, next.getName());
      boolean restarts = now.isEmpty() || !Objects.equals(now.get().getImage(), next.getImage());
      if (restarts || !PodUpdatePolicy.resourcesApplied(next.getResources(), now.get().getResources())) {
        Optional<ContainerStatus> status = status(actual, next.getName());
        changed.put(next.getName(), new Before(status.map(ContainerStatus::getRestartCount).orElse(0),
            status.map(ContainerStatus::getContainerID).orElse(""), restarts));
      }
    }
    return new InPlaceProgress(changed, System.currentTimeMillis());
  }

  /** Notes this progress on {@code pod}. */
  void noteOn(Pod pod) {
    Map<String, String> annotations = new LinkedHashMap<>(Labels.annotations(pod.getMetadata()));
    annotations.put(ANNOTATION, KubeJson.write(this));
    pod.getMetadata().setAnnotations(annotations);
  }

  /**
   * Whether {@code actual}, the pod in the cluster now, has caught up with its row's pod
   * ({@code rowPodJson}): true when the row was never updated in place, else when the cluster's pod
   * has the row's images and resources and the kubelet has applied them.
   */
  static boolean caughtUp(String rowPodJson, Pod actual) {
    Optional<Pod> wanted = updatedInPlace(rowPodJson);
    if (wanted.isEmpty()) {
      return true;
    }
    for (Container container : wanted.get().getSpec().getContainers()) {
      Optional<Container> now = container(actual, container.getName());
      if (now.isEmpty() || !Objects.equals(now.get().getImage(), container.getImage())
          || !PodUpdatePolicy.resourcesApplied(container.getResources(), now.get().getResources())) {
        return false; // not patched yet
      }
    }
    return noted(wanted.get()).applied(actual);
  }

  /**
   * When a pod that has just caught up became Ready: its Ready condition's time, unless that is from
   * before the update (a kubelet that did not flip it while restarting): then now, so that
   * minReadySeconds counts from the update, as for a new pod.
   */
  static Instant readySince(String rowPodJson, Instant conditionSince) {
    return updatedInPlace(rowPodJson).map(InPlaceProgress::noted)
        .filter(progress -> conditionSince.isBefore(Instant.ofEpochMilli(progress.notedAtMillis())))
        .map(progress -> Instant.now()).orElse(conditionSince);
  }

  /** A row's pod (its stored JSON) if it was updated in place; parsed only then. */
  static Optional<Pod> updatedInPlace(String rowPodJson) {
    if (!rowPodJson.contains(ANNOTATION)) {
      return Optional.empty();
    }
    Pod pod = KubeJson.read(rowPodJson, Pod.class);
    return Labels.annotation(pod.getMetadata(), ANNOTATION) == null ? Optional.empty() : Optional.of(pod);
  }

  private static InPlaceProgress noted(Pod updatedInPlace) {
    return KubeJson.read(Labels.annotation(updatedInPlace.getMetadata(), ANNOTATION), InPlaceProgress.class);
  }

  /** Whether the kubelet has done what the update asked of {@code actual}, the pod in the cluster now. */
  private boolean applied(Pod actual) {
    if (actual.getStatus() != null && actual.getStatus().getConditions() != null && actual.getStatus().getConditions()
        .stream().anyMatch(c -> RESIZING.contains(c.getType()) && "True".equals(c.getStatus()))) {
      return false;
    }
    for (var entry : containers.entrySet()) {
      Optional<ContainerStatus> status = status(actual, entry.getKey());
      Before before = entry.getValue();
      if (status.isEmpty()) {
        return false;
      }
      String id = Objects.requireNonNullElse(status.get().getContainerID(), "");
      // Restarted since the update was noted (a crash restart before it does not count), and running.
      var running = status.get().getState() == null ? null : status.get().getState().getRunning();
      boolean runningSinceNoted = running != null && running.getStartedAt() != null && !KubeJson.instant(
          running.getStartedAt()).isBefore(Instant.ofEpochMilli(notedAtMillis).truncatedTo(ChronoUnit.SECONDS));
      boolean restarted = runningSinceNoted && (status.get().getRestartCount() != null
          && status.get().getRestartCount() > before.restartCount()
          || !before.containerId().isEmpty() && !id.isEmpty() && !id.equals(before.containerId()));
      boolean resized = container(actual, entry.getKey()).map(c -> status.get().getResources() != null
          && PodUpdatePolicy.resourcesApplied(c.getResources(), status.get().getResources())).orElse(false);
      if (before.restarts() ? !restarted : !resized) {
        return false;
      }
    }
    return true;
  }

  private static Optional<Container> container(Pod pod, String name) {
    return pod.getSpec().getContainers().stream().filter(c -> c.getName().equals(name)).findFirst();
  }

  private static Optional<ContainerStatus> status(Pod pod, String name) {
    return pod.getStatus() == null || pod.getStatus().getContainerStatuses() == null ? Optional.empty()
        : pod.getStatus().getContainerStatuses().stream().filter(s -> name.equals(s.getName())).findFirst();
  }
}
