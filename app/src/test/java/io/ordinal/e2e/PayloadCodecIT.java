package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.WireFormat;
import com.google.protobuf.util.JsonFormat;
import io.temporal.api.common.v1.Payload;
import io.temporal.api.common.v1.Payloads;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import java.util.zip.DeflaterOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * The Temporal Web UI's codec ({@code /codec}). The UI sends no credentials, so decoding is open to
 * this machine, where pods of the local driver run too: what it may cost is bounded.
 */
@E2eTest
// Alone: the bomb test bounds what the shared service's JVM allocates while it runs (under 1 GiB),
// which counts whatever the classes beside it would make that service do meanwhile.
@Isolated("measures the shared service's allocations")
class PayloadCodecIT {
  static OrdinalService service;
  static Api api;

  /**
   * About 1 MB that inflates to 1 GiB, twice the service's heap: refused with 413, eight at once,
   * without the service allocating anything like it, and it stays healthy.
   */
  @Test
  void aPayloadThatInflatesBeyondFourMiBIsRefusedWithoutTheHeapHoldingIt() throws Exception {
    String bomb = JsonFormat.printer().print(Payloads.newBuilder().addPayloads(zlibBomb(1L << 30)).build());
    assertTrue(bomb.length() < 3 << 20, "under the request size limit: " + bomb.length());
    Api anonymous = api.as(null);
    double allocatedBefore = allocatedBytes();

    List<CompletableFuture<Api.Reply>> replies = IntStream.range(0, 8)
        .mapToObj(i -> CompletableFuture.supplyAsync(() -> anonymous.post("/codec/decode", "application/json", bomb)))
        .toList();
    for (CompletableFuture<Api.Reply> reply : replies) {
      Api.Reply refused = reply.join();
      assertEquals(413, refused.code(), refused.body());
      assertEquals("RequestEntityTooLarge", refused.json().path("reason").asText());
      assertTrue(refused.json().path("message").asText().startsWith("the decoded payloads would exceed 4 MiB"), refused.body());
    }

    assertEquals(200, api.get("/health").code());
    double allocated = allocatedBytes() - allocatedBefore;
    // Inflating them whole would have taken 8 GiB; each stops at 4 MiB.
    assertTrue(allocated < 1L << 30, "allocated " + (long) allocated + " bytes meanwhile");
    assertFalse(Files.readString(service.dataDir.resolve("ordinal.log")).contains("OutOfMemoryError"));
    // An honest payload still decodes.
    Payload small = zlibBomb(1 << 20);
    Api.Reply decoded = anonymous.post("/codec/decode", "application/json",
        JsonFormat.printer().print(Payloads.newBuilder().addPayloads(small).build()));
    assertEquals(200, decoded.code(), decoded.body());
  }

  /** The browser's CORS preflight carries no credentials either. */
  @Test
  void theWebUisPreflightNeedsNoToken() {
    Api.Reply preflight = api.as(null).send("OPTIONS", "/codec/decode", null, null, null,
        "Origin", "http://localhost:8233", "Access-Control-Request-Method", "POST");
    assertTrue(preflight.code() < 300, preflight.code() + " " + preflight.body());
    assertEquals("http://localhost:8233", preflight.headers().firstValue("Access-Control-Allow-Origin").orElse(null));
  }

  /** Encoding is no part of what the Web UI needs to show a history: only for users RBAC allows. */
  @Test
  void encodingWantsAnAuthorizedUser() {
    Api.Reply anonymous = api.as(null).post("/codec/encode", "application/json", "{}");
    assertEquals(403, anonymous.code(), anonymous.body());
    assertEquals(200, api.post("/codec/encode", "application/json", "{}").code());
  }

  /** The JVM's allocations so far, as Micrometer counts them at each collection. */
  private static double allocatedBytes() {
    String metrics = api.get("/metrics").body();
    Matcher line = Pattern.compile("(?m)^jvm_gc_memory_allocated_bytes_total(?:\\{[^}]*\\})? (\\S+)$").matcher(metrics);
    assertTrue(line.find(), "jvm_gc_memory_allocated_bytes_total in /metrics");
    return Double.parseDouble(line.group(1));
  }

  /**
   * A payload as Temporal's ZlibPayloadCodec writes it whose inner payload holds {@code size} zero
   * bytes, compressed as it is written (about a thousandth of {@code size}, never held whole).
   */
  static Payload zlibBomb(long size) throws IOException {
    ByteArrayOutputStream compressed = new ByteArrayOutputStream();
    try (DeflaterOutputStream deflater = new DeflaterOutputStream(compressed)) {
      CodedOutputStream inner = CodedOutputStream.newInstance(deflater);
      inner.writeTag(Payload.DATA_FIELD_NUMBER, WireFormat.WIRETYPE_LENGTH_DELIMITED);
      inner.writeUInt64NoTag(size);
      byte[] zeros = new byte[64 * 1024];
      for (long written = 0; written < size; written += zeros.length) {
        inner.writeRawBytes(zeros, 0, (int) Math.min(zeros.length, size - written));
      }
      inner.flush();
    }
    return Payload.newBuilder().putMetadata("encoding", ByteString.copyFromUtf8("binary/zlib"))
        .setData(ByteString.copyFrom(compressed.toByteArray())).build();
  }
}
