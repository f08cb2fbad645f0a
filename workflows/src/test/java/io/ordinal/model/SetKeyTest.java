package io.ordinal.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class SetKeyTest {
  @Test
  void theOperationIsReadBackFromItsWorkflowId() {
    SetKey key = new SetKey("team-a", "web-2");
    assertEquals("rollout", SetKey.operationOf(key.operationWorkflowId("rollout", 12)));
    assertEquals("rollback", SetKey.operationOf(key.operationWorkflowId("rollback", 3)));
    assertEquals("scale", SetKey.operationOf(key.operationWorkflowId("scale", 1)));
  }
}
