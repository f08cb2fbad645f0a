package io.ordinal.api;

import io.ordinal.apimachinery.ApiException;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Options;
import io.micronaut.http.annotation.Post;
import io.ordinal.workflow.LargePayloadCodec;
import io.swagger.v3.oas.annotations.Hidden;
import io.temporal.api.common.v1.Payload;
import io.temporal.api.common.v1.Payloads;
import io.temporal.payload.codec.PayloadCodec;
import io.temporal.payload.codec.PayloadCodecException;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

/**
 * A Temporal codec server (the remote codec protocol: POST {@code /codec/decode} and
 * {@code /codec/encode} with a JSON {@code Payloads}), so that the Web UI and the CLI
 * ({@code --codec-endpoint}) show the compressed observations of large sets as JSON. The Web UI calls
 * it from the browser, so it answers CORS requests from local origins.
 *
 * <p>The Web UI sends no credentials (the dev server's UI has no login, and {@code temporal server
 * start-dev} sets only the codec's URL, not {@code includeCredentials}), so decoding is open to
 * callers on this machine ({@code AuthenticationFilter}); it returns nothing the caller did not send,
 * compressed. Encoding is for authenticated users whom RBAC allows. Either is bounded: the decoded
 * payloads of one request come to at most {@link #MAX_DECODED_BYTES} (413 beyond, found out by an
 * inflating read that stops there), and {@link #CONCURRENT} requests are worked on at a time, so
 * a few kilobytes that would inflate to gigabytes cost the heap no more than that.
 */
@Controller("/codec")
@Hidden
public class PayloadCodecApi {
  /** Per request, every payload together: a set of some 30 000 pods, where Ordinal's largest payloads come from. */
  static final int MAX_DECODED_BYTES = 4 << 20;
  /** Each request holds its body, the decoded payloads and their JSON (about 30 MiB at most). */
  private static final int CONCURRENT = 2;
  /** The Web UI runs on this machine; no other site may use the codec through a user's browser. */
  private static final Pattern LOCAL_ORIGIN = Pattern.compile("https?://(localhost|127\\.0\\.0\\.1|\\[::1\\])(:\\d+)?");
  private final PayloadCodec codec = new LargePayloadCodec();
  private final Semaphore working = new Semaphore(CONCURRENT, true);

  @Post(value = "/decode", consumes = MediaType.APPLICATION_JSON, produces = MediaType.APPLICATION_JSON)
  public HttpResponse<String> decode(HttpRequest<?> request, @Body @Nullable String body) {
    return transcode(request, body, payloads -> LargePayloadCodec.decode(payloads, MAX_DECODED_BYTES));
  }

  @Post(value = "/encode", consumes = MediaType.APPLICATION_JSON, produces = MediaType.APPLICATION_JSON)
  public HttpResponse<String> encode(HttpRequest<?> request, @Body @Nullable String body) {
    return transcode(request, body, codec::encode);
  }

  /** CORS preflight of the Web UI's requests. */
  @Options("/{operation}")
  public HttpResponse<?> preflight(HttpRequest<?> request, String operation) {
    return allowOrigin(request, HttpResponse.noContent())
        .header("Access-Control-Allow-Methods", "POST, OPTIONS")
        .header("Access-Control-Allow-Headers", "Content-Type, X-Namespace")
        .header("Access-Control-Max-Age", "600");
  }

  private HttpResponse<String> transcode(HttpRequest<?> request, String body, UnaryOperator<List<Payload>> code) {
    if (body == null || body.isBlank()) {
      throw ApiException.badRequest("the request body is empty");
    }
    try {
      if (!working.tryAcquire(10, TimeUnit.SECONDS)) {
        throw ApiException.of(429, "TooManyRequests", "the codec is busy with other requests; try again");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw ApiException.of(503, "ServiceUnavailable", "interrupted while waiting for the codec");
    }
    try {
      Payloads.Builder in = Payloads.newBuilder();
      JsonFormat.parser().ignoringUnknownFields().merge(body, in);
      Payloads out = Payloads.newBuilder().addAllPayloads(code.apply(in.getPayloadsList())).build();
      return allowOrigin(request, HttpResponse.ok(JsonFormat.printer().print(out)).contentType(MediaType.APPLICATION_JSON));
    } catch (InvalidProtocolBufferException e) {
      throw ApiException.badRequest("the body is not a JSON Payloads message: " + e.getMessage());
    } catch (LargePayloadCodec.PayloadTooLargeException e) {
      throw ApiException.of(413, "RequestEntityTooLarge", "the decoded payloads would exceed " + (e.limit() >> 20)
          + " MiB (" + e.limit() + " bytes), the most the codec returns for one request: decode fewer or smaller payloads at a time");
    } catch (PayloadCodecException e) {
      throw ApiException.badRequest("a payload could not be decoded: " + e.getMessage());
    } finally {
      working.release();
    }
  }

  private static <T> MutableHttpResponse<T> allowOrigin(HttpRequest<?> request, MutableHttpResponse<T> response) {
    String origin = request.getHeaders().get("Origin");
    if (origin != null && LOCAL_ORIGIN.matcher(origin).matches()) {
      response.header("Access-Control-Allow-Origin", origin).header("Vary", "Origin");
    }
    return response;
  }
}
