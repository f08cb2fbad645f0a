package io.ordinal.api;

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
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

/**
 * A Temporal codec server (the remote codec protocol: POST {@code /codec/decode} and
 * {@code /codec/encode} with a JSON {@code Payloads}), so that the Web UI and the CLI
 * ({@code --codec-endpoint}) show the compressed observations of large sets as JSON. The Web UI calls
 * it from the browser, so it answers CORS requests from local origins.
 */
@Controller("/codec")
@Hidden
public class PayloadCodecApi {
  /** The Web UI runs on this machine; no other site may use the codec through a user's browser. */
  private static final Pattern LOCAL_ORIGIN = Pattern.compile("https?://(localhost|127\\.0\\.0\\.1|\\[::1\\])(:\\d+)?");
  private final PayloadCodec codec = new LargePayloadCodec();

  @Post(value = "/decode", consumes = MediaType.APPLICATION_JSON, produces = MediaType.APPLICATION_JSON)
  public HttpResponse<String> decode(HttpRequest<?> request, @Body @Nullable String body) {
    return transcode(request, body, codec::decode);
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

  private static HttpResponse<String> transcode(HttpRequest<?> request, String body, UnaryOperator<List<Payload>> code) {
    if (body == null || body.isBlank()) {
      throw ApiException.badRequest("the request body is empty");
    }
    Payloads.Builder in = Payloads.newBuilder();
    try {
      JsonFormat.parser().ignoringUnknownFields().merge(body, in);
      Payloads out = Payloads.newBuilder().addAllPayloads(code.apply(in.getPayloadsList())).build();
      return allowOrigin(request, HttpResponse.ok(JsonFormat.printer().print(out)).contentType(MediaType.APPLICATION_JSON));
    } catch (InvalidProtocolBufferException e) {
      throw ApiException.badRequest("the body is not a JSON Payloads message: " + e.getMessage());
    } catch (PayloadCodecException e) {
      throw ApiException.badRequest("a payload could not be decoded: " + e.getMessage());
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
