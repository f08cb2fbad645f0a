package io.ordinal.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class GoJsonTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static JsonNode json(String text) throws IOException {
    return JSON.readTree(text);
  }

  @Test
  void aSpecPutBackAsAGetWroteItIsTheSameButOrdinalsOwnFieldsStillCount() throws IOException {
    JsonNode stored = json("{\"template\":{\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"limits\":{\"cpu\":\"0.5\"}}}]}}}");
    JsonNode fromGet = json("{\"serviceName\":\"\",\"updateStrategy\":{},\"template\":{\"metadata\":{},\"spec\":"
        + "{\"containers\":[{\"name\":\"c\",\"args\":[],\"resources\":{\"limits\":{\"cpu\":\"500m\"}}}]}}}");
    assertTrue(GoJson.same(stored, fromGet, GoTypes.STATEFUL_SET_SPEC));
    JsonNode paused = json("{\"updateStrategy\":{\"rollingUpdate\":{\"paused\":true}}}");
    JsonNode running = json("{\"updateStrategy\":{\"rollingUpdate\":{}}}");
    assertFalse(GoJson.same(paused, running, GoTypes.STATEFUL_SET_SPEC), "paused is Ordinal's: it counts");
    assertEquals("{}", GoJson.decodeEncode(paused, GoTypes.STATEFUL_SET_SPEC).at("/updateStrategy/rollingUpdate")
        .toString(), "as Go reads it (what upstream hashes), a field it does not know is gone");
  }

  @Test
  void marshalWritesAsGoWritesAGenericMap() throws IOException {
    JsonNode value = json("{\"b\":1,\"a\":[\"<&>\",\"\\u0008\\f\\u2028\"],\"é\":0.5,\"Z\":1e21,\"s\":1e-7,\"n\":null}");
    assertEquals("{\"Z\":1e+21,\"a\":[\"\\u003c\\u0026\\u003e\",\"\\b\\f\\u2028\"],\"b\":1,\"n\":null,\"s\":1e-7,\"é\":0.5}",
        new String(GoJson.marshal(value), StandardCharsets.UTF_8));
  }

  @Test
  void numbersAreWrittenAsFloat64() {
    assertEquals("30", GoJson.float64(new BigDecimal("30")));
    assertEquals("100000000000000000000", GoJson.float64(new BigDecimal("1e20")));
    assertEquals("9223372036854775807".length(), GoJson.float64(new BigDecimal("9223372036854775807")).length());
    assertEquals("0.000001", GoJson.float64(new BigDecimal("0.000001")));
    assertEquals("-2.5e-7", GoJson.float64(new BigDecimal("-0.00000025")));
  }
}
