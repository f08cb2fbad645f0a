package io.ordinal.e2e;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ordinal.store.KubeJson;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/** Test manifests, derived from the documentation example in deploy/examples/web.yaml or a test resource. */
final class Manifests {
  private Manifests() {}

  /** The StatefulSet of the Kubernetes docs' example as shipped (sim driver), as a mutable JSON tree. */
  static ObjectNode web() {
    try {
      return (ObjectNode) KubeJson.YAML.readTree(Files.readString(Path.of("..", "deploy", "examples", "web.yaml")));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The example renamed, with its own app label, replica count, minReadySeconds and sim behaviour env. */
  static ObjectNode web(String name, int replicas, int minReadySeconds, Map<String, String> simEnv) {
    ObjectNode set = web();
    ((ObjectNode) set.get("metadata")).put("name", name);
    ObjectNode spec = (ObjectNode) set.get("spec");
    spec.put("replicas", replicas);
    spec.put("minReadySeconds", minReadySeconds);
    ((ObjectNode) spec.at("/selector/matchLabels")).put("app", name);
    ((ObjectNode) spec.at("/template/metadata/labels")).put("app", name);
    ObjectNode container = (ObjectNode) spec.at("/template/spec/containers/0");
    ArrayNode env = container.putArray("env");
    simEnv.forEach((key, value) -> env.addObject().put("name", key).put("value", value));
    return set;
  }

  /** The python HTTP server set of src/test/resources/manifests/http-local.yaml, renamed. */
  static ObjectNode httpSet(String name, int replicas) throws IOException {
    ObjectNode set = (ObjectNode) KubeJson.YAML.readTree(Manifests.class.getResourceAsStream("/manifests/http-local.yaml"));
    ((ObjectNode) set.get("metadata")).put("name", name);
    ((ObjectNode) set.get("spec")).put("replicas", replicas).put("serviceName", name);
    ((ObjectNode) set.at("/spec/selector/matchLabels")).put("app", name);
    ((ObjectNode) set.at("/spec/template/metadata/labels")).put("app", name);
    return set;
  }

  /** A one-container local set running {@code command}. */
  static ObjectNode commandSet(String name, int replicas, String... command) {
    ObjectNode set = web(name, replicas, 0, Map.of());
    ((ObjectNode) set.get("metadata")).putObject("annotations").put("ordinal.io/driver", "local");
    ObjectNode container = (ObjectNode) set.at("/spec/template/spec/containers/0");
    ArrayNode argv = container.putArray("command");
    for (String part : command) {
      argv.add(part);
    }
    container.remove("ports");
    ((ObjectNode) set.at("/spec/template/spec")).put("terminationGracePeriodSeconds", 2);
    return set;
  }

  /** A local set each of whose pods writes a random id to its volume unless one is there, and prints it. */
  static ObjectNode volumeIdSet(String name, int replicas) {
    return commandSet(name, replicas, "/bin/sh", "-c",
        "[ -f /usr/share/nginx/html/id ] || od -An -N8 -tx8 /dev/urandom > /usr/share/nginx/html/id; "
            + "cat /usr/share/nginx/html/id; exec sleep 600");
  }

  /** A JSON patch that replaces the image of a set's first container. */
  static String imagePatch(String image) {
    return "[{\"op\":\"replace\",\"path\":\"/spec/template/spec/containers/0/image\",\"value\":\"" + image + "\"}]";
  }

  static String json(Object tree) {
    return KubeJson.write(tree);
  }
}
