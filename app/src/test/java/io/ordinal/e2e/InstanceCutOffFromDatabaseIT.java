package io.ordinal.e2e;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Two instances on one Temporal and one PostgreSQL (node-a's), node-b reaching the database through a
 * proxy the test cuts, as a network partition would: node-b stops taking Temporal tasks, so the sets'
 * workflows, whichever instance ran them last, carry on on node-a; once the proxy lets it through
 * again, node-b takes work again.
 */
class InstanceCutOffFromDatabaseIT {
  static final Duration TIMEOUT = Duration.ofSeconds(120);
  static final int SETS = 6;

  @Test
  void workflowsOfAnInstanceCutOffFromTheDatabaseFinishOnTheOtherAndItTakesWorkOnceReconnected() throws Exception {
    String ns = "cut-off";
    try (OrdinalService nodeA = new OrdinalService("cut-off-a", Map.of("ORDINAL_NODE_NAME", "node-a"))) {
      nodeA.start();
      try (TcpProxy proxy = new TcpProxy(nodeA.databasePort());
          OrdinalService nodeB = new OrdinalService("cut-off-b", nodeA.sharedInfrastructure())
              .withEnv("ORDINAL_NODE_NAME", "node-b")
              .withEnv("ORDINAL_DB_URL", "jdbc:postgresql://127.0.0.1:" + proxy.port() + "/ordinal")) {
        nodeB.start();
        Api viaA = nodeA.api();
        Api viaB = nodeB.api();
        // Sets of node-a, made through both instances: their workflows' tasks go to either.
        for (int i = 0; i < SETS; i++) {
          (i % 2 == 0 ? viaA : viaB).createSet(ns, onNode("s" + i, "node-a", 1));
        }
        for (int i = 0; i < SETS; i++) {
          viaA.awaitConverged(ns, "s" + i, 1, TIMEOUT);
        }

        proxy.cut();
        for (int i = 0; i < SETS; i++) {
          viaA.patchSet(ns, "s" + i, "{\"spec\":{\"replicas\":3}}");
        }
        nodeB.awaitLogged("taking no Temporal tasks");
        for (int i = 0; i < SETS; i++) {
          viaA.awaitConverged(ns, "s" + i, 3, TIMEOUT);
        }

        proxy.restore();
        nodeB.awaitLogged("taking Temporal tasks again");
        // A set of node-b's: its pods' steps run only there.
        viaB.createSet(ns, onNode("b", "node-b", 2));
        viaB.awaitConverged(ns, "b", 2, TIMEOUT);
      }
    }
  }

  private static ObjectNode onNode(String name, String node, int replicas) {
    ObjectNode set = Manifests.web(name, replicas, 0, Map.of("SIM_READY_DELAY_MS", "300"));
    ((ObjectNode) set.get("metadata")).with("annotations").put("ordinal.io/node", node);
    return set;
  }

}
