package io.ordinal.node;

import io.fabric8.kubernetes.api.model.Pod;
import io.micronaut.context.annotation.Value;
import io.ordinal.store.KubeJson;
import io.ordinal.store.PodRow;
import io.ordinal.workflow.StatefulSetControllerWorkflow;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node this instance is ({@code ordinal.node.name}, {@code ORDINAL_NODE_NAME}; else the name it
 * had before, kept in the data dir; else the host's name). Several instances share one Temporal
 * namespace and one database; each needs a name of its own, kept across restarts, because the pods
 * of the local and sim drivers are where their node is: a host renamed later must not strand them.
 */
@Singleton
public class ThisNode {
  private static final Logger log = LoggerFactory.getLogger(ThisNode.class);
  /** A DNS-1123 subdomain, as a Kubernetes node name: it also names a task queue and an annotation value. */
  private static final Pattern NAME = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

  private final String name;

  public ThisNode(@Value("${ordinal.node.name:}") String configured, @Value("${ordinal.data-dir:var}") String dataDir)
      throws IOException {
    Path file = Path.of(dataDir).resolve("node-name");
    String kept = Files.exists(file) ? Files.readString(file).trim() : "";
    String chosen = configured != null && !configured.isBlank() ? configured : !kept.isEmpty() ? kept : hostName();
    if (chosen.length() > 253 || !NAME.matcher(chosen).matches()) {
      throw new IllegalStateException("node name \"" + chosen + "\" (ORDINAL_NODE_NAME, else the host's name) must be"
          + " a DNS-1123 subdomain: lower case letters, digits, '-' and '.', at most 253 characters");
    }
    if (!kept.isEmpty() && !kept.equals(chosen)) {
      log.warn("this instance was node {} and is now node {} (ORDINAL_NODE_NAME): the local and sim sets placed on {}"
          + " wait for an instance of that name", kept, chosen, kept);
    }
    if (!chosen.equals(kept)) {
      Files.createDirectories(file.getParent());
      Files.writeString(file, chosen + "\n");
    }
    this.name = chosen;
  }

  private static String hostName() {
    try {
      return InetAddress.getLocalHost().getHostName().toLowerCase(Locale.ROOT);
    } catch (UnknownHostException e) {
      return "localhost";
    }
  }

  public String name() {
    return name;
  }

  /** The task queue this node's worker polls for the pod activities of the sets placed on it. */
  public String taskQueue() {
    return StatefulSetControllerWorkflow.nodeTaskQueue(name);
  }

  /** The node a pod runs on ({@code spec.nodeName}); null for pods no node holds. */
  public static String of(PodRow row) {
    var spec = KubeJson.read(row.object(), Pod.class).getSpec();
    return spec == null ? null : spec.getNodeName();
  }

  /** True when {@code node} is this node. */
  public boolean is(String node) {
    return name.equals(node);
  }
}
