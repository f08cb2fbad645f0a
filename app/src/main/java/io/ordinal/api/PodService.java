package io.ordinal.api;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Endpoints;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.micronaut.transaction.TransactionOperations;
import io.ordinal.api.core.ClaimStorage;
import io.ordinal.api.core.PodStorage;
import io.ordinal.api.core.PodStrategy;
import io.ordinal.api.log.LogOptions;
import io.ordinal.api.log.LogReader;
import io.ordinal.api.registry.GenericStore;
import io.ordinal.api.registry.NamespaceLifecycle;
import io.ordinal.apimachinery.ApiException;
import io.ordinal.auth.Authorization;
import io.ordinal.driver.DriverPod;
import io.ordinal.driver.DriverRegistry;
import io.ordinal.driver.ExecRefusedException;
import io.ordinal.driver.PodDriver;
import io.ordinal.kube.StatefulSetFields;
import io.ordinal.node.ThisNode;
import io.ordinal.pods.PodLifecycle;
import io.ordinal.store.NodeStore;
import io.ordinal.store.PodRow;
import io.ordinal.store.PodStore;
import io.ordinal.store.StatefulSetStore;
import io.ordinal.temporal.SetSignals;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;

/**
 * What the API does with the pods of sets beyond reading them: metadata updates and deletion by a
 * user (on the generic store: {@link PodStrategy}), claims' deletion, logs, exec, Endpoints.
 */
@Singleton
public class PodService {
  private final PodStore pods;
  private final StatefulSetStore sets;
  private final DriverRegistry drivers;
  private final ThisNode node;
  private final NodeStore nodes;
  private final GenericStore<Pod> podStore;
  private final GenericStore<PersistentVolumeClaim> claimStore;

  public PodService(PodStore pods, StatefulSetStore sets, PodLifecycle lifecycle, SetSignals signals,
      DriverRegistry drivers, ThisNode node, NodeStore nodes, TransactionOperations<Connection> tx,
      NamespaceLifecycle namespaces, Authorization authorization) {
    this.node = node;
    this.nodes = nodes;
    this.pods = pods;
    this.sets = sets;
    this.drivers = drivers;
    this.podStore = new GenericStore<>(new PodStrategy(pods, signals), new PodStorage(pods, lifecycle), tx, namespaces, authorization);
    this.claimStore = new GenericStore<>(ClaimStorage.strategy(pods, signals), new ClaimStorage(pods, lifecycle), tx, namespaces,
        authorization);
  }

  /** The store of pods, which the generic routes write through (metadata only: sets make pods). */
  public GenericStore<Pod> pods() {
    return podStore;
  }

  /** The store of claims: a user may delete one. */
  public GenericStore<PersistentVolumeClaim> claims() {
    return claimStore;
  }

  /** A container's log: the text, or a stream that follows it while the pod lives. */
  public sealed interface PodLog {
    record Text(byte[] text) implements PodLog {}

    record Following(InputStream stream) implements PodLog {}
  }

  /** kubectl logs: {@code container} may be omitted for a single-container pod. */
  public PodLog log(String namespace, String name, String container, LogOptions options, boolean previous,
      boolean follow) throws IOException {
    PodRow row = pods.find(namespace, name).orElseThrow(() -> ApiException.notFound("pods", name));
    requireOnThisNode(row, "its logs are");
    String chosen = container(PodStore.toObject(row), container);
    Path file = drivers.find(row.driver()).flatMap(driver -> driver.logFile(namespace, name, chosen, previous))
        .orElse(null);
    if (file == null || !Files.exists(file)) {
      if (previous) {
        throw ApiException.badRequest("previous terminated container \"" + chosen + "\" in pod \"" + name + "\" not found");
      }
      return new PodLog.Text(new byte[0]);
    }
    if (follow && !previous) {
      String uid = row.uid();
      return new PodLog.Following(LogReader.follow(file, options,
          () -> pods.find(namespace, name).filter(p -> p.uid().equals(uid) && !p.terminating()).isPresent(),
          Duration.ofHours(1)));
    }
    return new PodLog.Text(LogReader.read(file, options));
  }

  /** Where an exec runs: the pod's driver, the pod, and the container chosen. */
  public record ExecTarget(PodDriver driver, DriverPod pod, String container) {}

  /**
   * kubectl exec, checked before the connection is upgraded: the pod exists (404), the container is
   * one of its own or the only one (400, upstream's words), and its driver can run a command there
   * now (400: not running, or a driver without processes).
   */
  public ExecTarget execTarget(String namespace, String name, String container) {
    PodRow row = pods.find(namespace, name).orElseThrow(() -> ApiException.notFound("pods", name));
    requireOnThisNode(row, "a command in it is");
    DriverPod pod = DriverPod.of(row);
    String chosen = container(pod.object(), container);
    PodDriver driver = drivers.find(row.driver()).orElseThrow(() -> ApiException.badRequest(
        "pod " + name + " is run by driver " + row.driver() + ", which this service does not have"));
    try {
      driver.checkExec(pod, chosen);
    } catch (ExecRefusedException e) {
      throw ApiException.badRequest(e.getMessage());
    }
    return new ExecTarget(driver, pod, chosen);
  }

  /**
   * The logs and processes of a local or sim pod are on its node. This instance does not proxy to
   * another one (the API server's proxy to the kubelet has no counterpart here yet): it says where to go.
   */
  private void requireOnThisNode(PodRow row, String what) {
    String podNode = ThisNode.of(row);
    if (drivers.nodeBound(row.driver()) && podNode != null && !node.is(podNode)) {
      throw ApiException.of(503, "ServiceUnavailable", "pod " + row.name() + " runs on node " + podNode
          + nodes.address(podNode).map(address -> " (" + address + ")").orElse("") + ": " + what
          + " served by that instance's API, not by this one (node " + node.name() + ")");
    }
  }

  private static String container(Pod pod, String requested) {
    List<String> names = pod.getSpec().getContainers().stream().map(Container::getName).toList();
    if (requested == null) {
      if (names.size() != 1) {
        throw ApiException.badRequest("a container name must be specified for pod " + pod.getMetadata().getName()
            + ", choose one of: " + names);
      }
      return names.getFirst();
    }
    boolean init = StatefulSetFields.nullSafe(pod.getSpec().getInitContainers()).stream()
        .anyMatch(c -> c.getName().equals(requested));
    if (!names.contains(requested) && !init) {
      throw ApiException.badRequest("container " + requested + " is not valid for pod " + pod.getMetadata().getName());
    }
    return requested;
  }
}
