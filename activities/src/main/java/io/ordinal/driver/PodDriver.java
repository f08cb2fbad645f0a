package io.ordinal.driver;

import io.fabric8.kubernetes.api.model.Pod;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * What actually runs pods: the kubelet and storage provisioner of Ordinal. A driver reports every
 * change of a pod's phase, readiness or existence by updating the pod's row and calling
 * {@link PodEvents#podChanged}. Every method is idempotent.
 */
public interface PodDriver {

  /** The value of the {@code ordinal.io/driver} annotation that selects this driver. */
  String name();

  /**
   * True when a pod of this driver lives on the node that started it (a process, a simulation in that
   * instance's memory), so its set is placed on one node and that node acts on its pods; false when
   * any instance can (pods in a cluster).
   */
  default boolean nodeBound() {
    return true;
  }

  /** Starts a pod that was just stored in phase Pending. */
  void start(DriverPod pod);

  /** Terminates a pod already marked for deletion; its row is removed once it is gone. */
  void stop(DriverPod pod);

  /**
   * Whether this driver can update a pod in place: restart its containers at new images and
   * resources while the pod (its uid, address and volumes) stays ({@link #updateInPlace}).
   */
  default boolean updatesInPlace() {
    return false;
  }

  /**
   * Updates a running pod in place to {@code updated}, the same pod whose containers' images or
   * resources changed: {@code commit} stores the pod it is given ({@code updated}, with what the
   * driver notes on it), unready, and returns false when the pod changed meanwhile (then nothing
   * else is done); the changed containers are then restarted or resized at their new spec, and the
   * pod is Ready again once they are. Returns what {@code commit} returned.
   */
  default boolean updateInPlace(DriverPod pod, Pod updated, Predicate<Pod> commit) {
    throw new UnsupportedOperationException("the " + name() + " driver does not update pods in place");
  }

  /** At service start: resumes supervision of every pod this driver runs. */
  void recover();

  /** The file a container's log is kept in (the previous instance's with {@code previous}), if this driver keeps logs. */
  default Optional<Path> logFile(String namespace, String pod, String container, boolean previous) {
    return Optional.empty();
  }

  /**
   * Checks that a command could run in {@code container} of {@code pod} now, before a client's
   * connection is upgraded for it; throws {@link ExecRefusedException} with the reason if not.
   */
  default void checkExec(DriverPod pod, String container) {
    throw new ExecRefusedException("exec is not supported for pods of the " + name() + " driver");
  }

  /** Starts a command in a running container (kubectl exec); {@link ExecRefusedException} if it cannot run there. */
  default ExecProcess exec(ExecRequest request) throws IOException {
    checkExec(request.pod(), request.container());
    throw new ExecRefusedException("exec is not supported for pods of the " + name() + " driver");
  }

  /** The stable address of a pod identity, allocated if it has none yet; empty for drivers without one. */
  default Optional<String> stableAddress(String namespace, String setName, String podName) {
    return Optional.empty();
  }

  /**
   * Why this driver cannot hold a claim's volume to its requested size, to be said plainly; empty
   * when it can, or keeps no volumes.
   */
  default Optional<String> volumeSizeNotEnforced(String namespace, String claimName) {
    return Optional.empty();
  }

  /**
   * A claim is deleted and no pod uses it: removes its volume and the data in it. Idempotent; a
   * driver that keeps no volumes has nothing to do.
   */
  default void deleteVolume(String namespace, String claimName) throws IOException {}

  /** A set is gone (its pods are): releases what the driver kept for it, such as the local driver's addresses. */
  default void setRemoved(String namespace, String setName) {}
}
