package io.ordinal.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Ordinal names a template's revision as upstream's StatefulSet controller does: the table was
 * recorded from kube-controller-manager on the real control plane (deploy/kube/revision-hashes),
 * one apps/v1 set per template, with the revision it made and the data it hashed.
 */
class RevisionHashParityTest {

  private static JsonNode table() throws IOException {
    try (InputStream in = RevisionHashParityTest.class.getResourceAsStream("upstream-revisions.json")) {
      return KubeJson.JSON.readTree(in);
    }
  }

  /** Where two trees differ, by JSON pointer: upstream's value, then Ordinal's. */
  private static void diff(String path, JsonNode upstream, JsonNode ours, List<String> out) {
    if (upstream.isContainerNode() && ours.isContainerNode() && upstream.getNodeType() == ours.getNodeType()) {
      Set<String> names = new TreeSet<>();
      if (upstream.isObject()) {
        upstream.fieldNames().forEachRemaining(names::add);
        ours.fieldNames().forEachRemaining(names::add);
      } else {
        for (int i = 0; i < Math.max(upstream.size(), ours.size()); i++) {
          names.add(Integer.toString(i));
        }
      }
      for (String name : names) {
        JsonNode a = upstream.isObject() ? upstream.get(name) : upstream.get(Integer.parseInt(name));
        JsonNode b = ours.isObject() ? ours.get(name) : ours.get(Integer.parseInt(name));
        diff(path + "/" + name, a == null ? MissingNode.getInstance() : a, b == null ? MissingNode.getInstance() : b, out);
      }
    } else if (!upstream.equals(ours)) {
      out.add(path + " upstream " + upstream + " ordinal " + ours);
    }
  }

  @Test
  void everyTemplateGetsTheRevisionDataAndNameUpstreamGaveIt() throws IOException {
    JsonNode table = table();
    List<String> wrong = new ArrayList<>();
    for (JsonNode c : table.path("cases")) {
      PodTemplateSpec template = KubeJson.read(c.path("template").toString(), PodTemplateSpec.class);
      String data = RevisionStore.data(template);
      JsonNode ours = KubeJson.JSON.readTree(new String(RevisionStore.patch(data, null), StandardCharsets.UTF_8));
      if (!ours.equals(c.path("data"))) {
        List<String> differences = new ArrayList<>();
        diff("", c.path("data"), ours, differences);
        wrong.add(c.path("name").asText() + ": " + String.join("; ", differences));
      } else if (!RevisionStore.name(c.path("name").asText(), data, null, 0).equals(c.path("revision").asText())) {
        wrong.add(c.path("name").asText() + ": upstream " + c.path("revision").asText() + ", ordinal "
            + RevisionStore.name(c.path("name").asText(), data, null, 0) + " (the same data written differently)");
      }
    }
    assertTrue(table.path("cases").size() >= 20, "the table was read");
    assertEquals("", String.join("\n", wrong), table.path("recordedWith").asText());
  }
}
