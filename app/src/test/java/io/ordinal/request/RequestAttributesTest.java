package io.ordinal.request;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class RequestAttributesTest {
  private static final String SET = "/apis/apps/v1/namespaces/ns/statefulsets/web";

  @Test
  void ordinalsRolloutActionsAreVerbsOnStatefulsetsSlashRollout() {
    for (String action : new String[] {"pause", "resume", "restart", "undo"}) {
      RequestAttributes attributes = RequestAttributes.of("POST", SET + "/rollout/" + action, null, null);
      assertEquals(action, attributes.verb());
      assertEquals("statefulsets/rollout", attributes.resourcePath());
      assertEquals("web", attributes.name());
    }
    assertEquals("get", RequestAttributes.of("GET", SET + "/rollout/status", null, null).verb());
    assertEquals("get", RequestAttributes.of("GET", SET + "/rollout/history", null, null).verb());
    assertEquals("create", RequestAttributes.of("POST", SET + "/rollout/other", null, null).verb());
  }
}
