package io.ordinal.workflow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ordinal.model.PodSnapshot;
import io.temporal.api.common.v1.Payload;
import io.temporal.common.converter.DataConverter;
import io.temporal.common.converter.DefaultDataConverter;
import java.util.List;
import java.util.stream.IntStream;
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
}
