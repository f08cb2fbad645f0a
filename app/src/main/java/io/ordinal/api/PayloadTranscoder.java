package io.ordinal.api;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import io.ordinal.apimachinery.ApiException;
import io.ordinal.workflow.LargePayloadCodec;
import io.temporal.api.common.v1.Payload;
import io.temporal.api.common.v1.Payloads;
import io.temporal.payload.codec.PayloadCodec;
import io.temporal.payload.codec.PayloadCodecException;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/**
 * The codec's work on a JSON {@code Payloads} body (the remote codec protocol), bounded, for both of
 * its listeners: the API's {@code /codec} ({@link PayloadCodecApi}) and the Web UI's loopback one
 * ({@link LoopbackCodecListener}). The decoded payloads of one request come to at most
 * {@link #MAX_DECODED_BYTES} (413 beyond, found out by an inflating read that stops there), and
 * {@link #CONCURRENT} requests are worked on at a time, the two listeners together, so a few
 * kilobytes that would inflate to gigabytes cost the heap no more than that.
 */
@Singleton
public class PayloadTranscoder {
  /** Per request, every payload together: a set of some 30 000 pods, where Ordinal's largest payloads come from. */
  static final int MAX_DECODED_BYTES = 4 << 20;
  /** Each request holds its body, the decoded payloads and their JSON (about 30 MiB at most). */
  private static final int CONCURRENT = 2;
  /** The headers the Web UI's codec requests carry (its data-encoder service): a CORS preflight must allow them. */
  static final String ALLOWED_HEADERS = "Content-Type, X-Namespace";
  private final PayloadCodec codec = new LargePayloadCodec();
  private final Semaphore working = new Semaphore(CONCURRENT, true);

  /** A request's body, read once a permit is held (so that requests waiting for one hold no body). */
  @FunctionalInterface
  public interface Body {
    String read() throws IOException;
  }

  public String decode(Body body) {
    return transcode(body, payloads -> LargePayloadCodec.decode(payloads, MAX_DECODED_BYTES));
  }

  public String encode(Body body) {
    return transcode(body, codec::encode);
  }

  private String transcode(Body body, UnaryOperator<List<Payload>> code) {
    try {
      if (!working.tryAcquire(10, TimeUnit.SECONDS)) {
        throw ApiException.of(429, "TooManyRequests", "the codec is busy with other requests; try again");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw ApiException.of(503, "ServiceUnavailable", "interrupted while waiting for the codec");
    }
    try {
      String json = body.read();
      if (json == null || json.isBlank()) {
        throw ApiException.badRequest("the request body is empty");
      }
      Payloads.Builder in = Payloads.newBuilder();
      JsonFormat.parser().ignoringUnknownFields().merge(json, in);
      return JsonFormat.printer().print(Payloads.newBuilder().addAllPayloads(code.apply(in.getPayloadsList())).build());
    } catch (InvalidProtocolBufferException e) {
      throw ApiException.badRequest("the body is not a JSON Payloads message: " + e.getMessage());
    } catch (LargePayloadCodec.PayloadTooLargeException e) {
      throw ApiException.of(413, "RequestEntityTooLarge", "the decoded payloads would exceed " + (e.limit() >> 20)
          + " MiB (" + e.limit() + " bytes), the most the codec returns for one request: decode fewer or smaller payloads at a time");
    } catch (PayloadCodecException e) {
      throw ApiException.badRequest("a payload could not be decoded: " + e.getMessage());
    } catch (IOException e) {
      throw ApiException.badRequest("the request body could not be read: " + e.getMessage());
    } finally {
      working.release();
    }
  }
}
