package io.ordinal.workflow;

import io.temporal.api.common.v1.Payload;
import io.temporal.common.converter.CodecDataConverter;
import io.temporal.common.converter.DataConverter;
import io.temporal.common.converter.DefaultDataConverter;
import io.temporal.payload.codec.PayloadCodec;
import io.temporal.payload.codec.ZlibPayloadCodec;
import java.util.List;

/**
 * Compresses large payloads with zlib and leaves the rest as plain JSON. A big set's observations
 * dominate its history (every pod, about 130 bytes each, on every observation) and compress about
 * tenfold; inputs, results, summaries and small sets stay readable in the Web UI and the CLI.
 * Decoding accepts both forms, so histories written before or without compression replay.
 */
public final class LargePayloadCodec implements PayloadCodec {
  /** Payloads from this size up are compressed: a set of about 250 pods. */
  static final int THRESHOLD_BYTES = 32 * 1024;
  private final ZlibPayloadCodec zlib = new ZlibPayloadCodec();

  /** The data converter of every Ordinal client, worker and replayer. */
  public static DataConverter dataConverter() {
    return new CodecDataConverter(DefaultDataConverter.STANDARD_INSTANCE, List.of(new LargePayloadCodec()));
  }

  @Override
  public List<Payload> encode(List<Payload> payloads) {
    return payloads.stream()
        .map(p -> p.getSerializedSize() < THRESHOLD_BYTES ? p : zlib.encode(List.of(p)).getFirst())
        .toList();
  }

  @Override
  public List<Payload> decode(List<Payload> payloads) {
    return zlib.decode(payloads);
  }
}
