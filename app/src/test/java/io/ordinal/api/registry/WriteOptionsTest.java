package io.ordinal.api.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.http.HttpRequest;
import io.micronaut.http.MutableHttpRequest;
import io.ordinal.apimachinery.ApiException;
import io.ordinal.apimachinery.KubeCodec;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class WriteOptionsTest {
  private static final String SET = "/apis/apps/v1/namespaces/default/statefulsets/web";

  /** The query parameters of a request the server decoded ("a=b&c=d"; values percent-decoded). */
  private static MutableHttpRequest<?> query(MutableHttpRequest<?> request, String query) {
    for (String pair : query.split("&")) {
      String[] kv = pair.split("=", 2);
      request.getParameters().add(kv[0], URLDecoder.decode(kv[1], StandardCharsets.UTF_8));
    }
    return request;
  }

  @Test
  void theFieldManagerIsTheParameterElseTheUserAgentUpToItsFirstSlash() {
    MutableHttpRequest<?> request = query(HttpRequest.PUT(SET, ""), "fieldManager=deployer")
        .header("User-Agent", "kubectl/v1.32.0 (linux/amd64) kubernetes/70d3cc9");
    assertEquals("deployer", WriteOptions.of(request).fieldManager());
    assertEquals("kubectl", WriteOptions.of(HttpRequest.PUT(SET, "")
        .header("User-Agent", "kubectl/v1.32.0 (linux/amd64) kubernetes/70d3cc9")).fieldManager());
    assertEquals("", WriteOptions.of(HttpRequest.PUT(SET, "")).fieldManager());
  }

  @Test
  void anApplyNeedsAFieldManagerAndOnlyAnApplyMayForce() {
    ApiException missing = assertThrows(ApiException.class, () -> WriteOptions.ofPatch(HttpRequest.PATCH(SET, "")
        .contentType(KubeCodec.APPLY_PATCH)));
    assertEquals(422, missing.code());
    assertEquals("PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply patch",
        missing.getMessage());

    ApiException forced = assertThrows(ApiException.class, () -> WriteOptions.ofPatch(query(HttpRequest.PATCH(SET, ""), "force=true")
        .contentType(KubeCodec.MERGE_PATCH)));
    assertTrue(forced.getMessage().contains("force: Forbidden: may not be specified for non-apply patch"), forced.getMessage());

    WriteOptions apply = WriteOptions.ofPatch(query(HttpRequest.PATCH(SET, ""), "fieldManager=me&force=true")
        .contentType(KubeCodec.APPLY_PATCH));
    assertTrue(apply.force());
    assertFalse(WriteOptions.ofPatch(query(HttpRequest.PATCH(SET, ""), "fieldManager=me").contentType(KubeCodec.APPLY_PATCH)).force());
  }

  @Test
  void aFieldManagerIsAtMost128PrintableCharacters() {
    String tooLong = "m".repeat(129);
    ApiException long_ = assertThrows(ApiException.class,
        () -> WriteOptions.of(query(HttpRequest.PUT(SET, ""), "fieldManager=" + tooLong)));
    assertTrue(long_.getMessage().contains("fieldManager: Too long"), long_.getMessage());
    ApiException control = assertThrows(ApiException.class,
        () -> WriteOptions.of(query(HttpRequest.PUT(SET, ""), "fieldManager=a%07b")));
    assertTrue(control.getMessage().contains("invalid character U+0007 (at position 1)"), control.getMessage());
  }
}
