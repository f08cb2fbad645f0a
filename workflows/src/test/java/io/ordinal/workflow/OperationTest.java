package io.ordinal.workflow;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.ordinal.model.SetKey;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class OperationTest {
  @Test
  void theOperationIsReadBackFromItsWorkflowId() {
    SetKey key = new SetKey("team-a", "web-2");
    assertEquals("statefulset/team-a/web-2/rollout-12", Operation.ROLLOUT.workflowId(key, 12));
    for (Operation operation : Operation.values()) {
      assertEquals(Optional.of(operation), Operation.ofWorkflowId(operation.workflowId(key, 3)));
    }
    assertEquals(Optional.empty(), Operation.ofWorkflowId(key.controllerWorkflowId()));
  }

  @Test
  void operationInputsKeepTheLowerCaseNamesOfEarlierHistories() throws Exception {
    ObjectMapper json = new ObjectMapper();
    assertEquals("\"rollback\"", json.writeValueAsString(Operation.ROLLBACK));
    assertEquals(Operation.SCALE, json.readValue("\"scale\"", Operation.class));
  }
}
