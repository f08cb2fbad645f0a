package io.ordinal.workflow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import io.ordinal.model.PodSnapshot;
import io.temporal.api.common.v1.Payload;
import io.temporal.common.converter.DataConverter;
import io.temporal.common.converter.DefaultDataConverter;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.List;
import java.util.stream.IntStream;
import java.util.zip.DeflaterOutputStream;
import org.junit.jupiter.api.Test;

class LargePayloadCodecTest {
  final DataConverter converter = LargePayloadCodec.dataConverter();

  static List<PodSnapshot> pods(int count) {
    return IntStream.range(0, count).mapToObj(i -> new PodSnapshot(i, "web-" + i, "web-6c8f7d9b5",
        PodSnapshot.RUNNING, true, 1_795_000_000_000L + i, false)).toList();
  }

  static String encoding(Payload payload) {
    return payload.getMetadataOrThrow("encoding").toStringUtf8();
  }

  @Test
  void aSmallPayloadStaysPlainJson() {
    Payload payload = converter.toPayload(pods(3)).orElseThrow();
    assertEquals("json/plain", encoding(payload));
  }

  @Test
  void aThousandPodObservationIsCompressedAndReadBackUnchanged() {
    List<PodSnapshot> pods = pods(1000);
    Payload plain = DefaultDataConverter.STANDARD_INSTANCE.toPayload(pods).orElseThrow();
    Payload payload = converter.toPayload(pods).orElseThrow();

    assertEquals("binary/zlib", encoding(payload));
    assertTrue(payload.getSerializedSize() * 5 < plain.getSerializedSize(),
        plain.getSerializedSize() + " bytes compressed to only " + payload.getSerializedSize());
    PodSnapshot[] back = converter.fromPayload(payload, PodSnapshot[].class, PodSnapshot[].class);
    assertEquals(pods, List.of(back));
  }

  @Test
  void aPlainPayloadWrittenWithoutTheCodecIsStillRead() {
    Payload plain = DefaultDataConverter.STANDARD_INSTANCE.toPayload(pods(1000)).orElseThrow();
    assertEquals(1000, converter.fromPayload(plain, PodSnapshot[].class, PodSnapshot[].class).length);
  }

  /**
   * A payload as ZlibPayloadCodec writes it whose inner payload's data is {@code size} zero bytes,
   * compressed as it is written: about a thousandth of {@code size}, and never held whole here.
   */
  static Payload zlibBomb(long size) throws IOException {
    ByteArrayOutputStream compressed = new ByteArrayOutputStream();
    try (DeflaterOutputStream deflater = new DeflaterOutputStream(compressed)) {
      CodedOutputStream inner = CodedOutputStream.newInstance(deflater);
      inner.writeTag(Payload.DATA_FIELD_NUMBER, com.google.protobuf.WireFormat.WIRETYPE_LENGTH_DELIMITED);
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

  @Test
  void decodingStopsAtTheLimitInsteadOfInflatingABomb() throws IOException {
    Payload bomb = zlibBomb(1L << 30); // 1 GiB of zeros: about 1 MB compressed
    assertTrue(bomb.getSerializedSize() < 2 << 20, bomb.getSerializedSize() + " bytes");
    var refused = assertThrows(LargePayloadCodec.PayloadTooLargeException.class,
        () -> LargePayloadCodec.decode(List.of(bomb), 4 << 20));
    assertEquals(4 << 20, refused.limit());
    // The worker's own decoding is bounded as well.
    assertThrows(LargePayloadCodec.PayloadTooLargeException.class, () -> new LargePayloadCodec().decode(List.of(bomb)));
  }

  @Test
  void theLimitIsForThePayloadsTogether() throws IOException {
    Payload threeMiB = zlibBomb(3 << 20);
    assertEquals(1, LargePayloadCodec.decode(List.of(threeMiB), 4 << 20).size());
    assertThrows(LargePayloadCodec.PayloadTooLargeException.class,
        () -> LargePayloadCodec.decode(List.of(threeMiB, threeMiB), 4 << 20));
  }

  @Test
  void withinTheLimitItDecodesAsTemporalsZlibCodec() {
    Payload compressed = converter.toPayload(pods(1000)).orElseThrow();
    Payload plain = DefaultDataConverter.STANDARD_INSTANCE.toPayload(pods(3)).orElseThrow();
    List<Payload> payloads = List.of(compressed, plain);
    assertEquals(new io.temporal.payload.codec.ZlibPayloadCodec().decode(payloads), LargePayloadCodec.decode(payloads, 4 << 20));
  }
}
