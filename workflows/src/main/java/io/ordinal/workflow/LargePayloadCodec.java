package io.ordinal.workflow;

import com.google.protobuf.ByteString;
import io.temporal.api.common.v1.Payload;
import io.temporal.common.converter.CodecDataConverter;
import io.temporal.common.converter.DataConverter;
import io.temporal.common.converter.DefaultDataConverter;
import io.temporal.common.converter.EncodingKeys;
import io.temporal.payload.codec.PayloadCodec;
import io.temporal.payload.codec.PayloadCodecException;
import io.temporal.payload.codec.ZlibPayloadCodec;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.InflaterInputStream;

/**
 * Compresses large payloads with zlib and leaves the rest as plain JSON. A big set's observations
 * dominate its history (every pod, about 130 bytes each, on every observation) and compress about
 * tenfold; inputs, results, summaries and small sets stay readable in the Web UI and the CLI.
 * Decoding accepts both forms, so histories written before or without compression replay.
 *
 * <p>Decoding is bounded: a zlib stream is inflated through a read that stops one byte past what
 * the caller allows, so a small payload that would inflate to gigabytes (zlib reaches about 1000:1)
 * costs at most that much memory and is refused with {@link PayloadTooLargeException}.
 */
public final class LargePayloadCodec implements PayloadCodec {
  /** Payloads from this size up are compressed: a set of about 250 pods. */
  static final int THRESHOLD_BYTES = 32 * 1024;
  /**
   * What the worker's decoding of one batch may produce: far above anything Ordinal writes (Temporal
   * refuses a payload over 2 MB, and observations compress about tenfold), far below the heap.
   */
  static final int WORKER_DECODED_LIMIT = 64 << 20;
  private static final ByteString ZLIB = ByteString.copyFromUtf8("binary/zlib");
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
    return decode(payloads, WORKER_DECODED_LIMIT);
  }

  /**
   * As {@link ZlibPayloadCodec} decodes (a payload whose encoding is {@code binary/zlib} holds a
   * deflated serialized payload; any other is left as it is), refusing once the decoded payloads
   * would come to more than {@code limit} bytes together.
   */
  public static List<Payload> decode(List<Payload> payloads, int limit) {
    List<Payload> decoded = new ArrayList<>(payloads.size());
    long left = limit;
    for (Payload payload : payloads) {
      Payload plain = ZLIB.equals(payload.getMetadataOrDefault(EncodingKeys.METADATA_ENCODING_KEY, ByteString.EMPTY))
          ? inflate(payload.getData(), left, limit) : payload;
      left -= plain.getSerializedSize();
      if (left < 0) {
        throw new PayloadTooLargeException(limit);
      }
      decoded.add(plain);
    }
    return decoded;
  }

  private static Payload inflate(ByteString data, long left, int limit) {
    try (InputStream in = new InflaterInputStream(data.newInput())) {
      // readNBytes fills buffers as the bytes come: nothing is allocated ahead for the bound.
      byte[] bytes = in.readNBytes((int) left + 1);
      if (bytes.length > left) {
        throw new PayloadTooLargeException(limit);
      }
      return Payload.parseFrom(bytes);
    } catch (IOException e) {
      throw new PayloadCodecException(e);
    }
  }

  /** Decoding would produce more than the caller's limit. */
  public static final class PayloadTooLargeException extends PayloadCodecException {
    private final int limit;

    PayloadTooLargeException(int limit) {
      super("the decoded payloads would exceed " + limit + " bytes");
      this.limit = limit;
    }

    public int limit() {
      return limit;
    }
  }
}
