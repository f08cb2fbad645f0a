package io.ordinal.api;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Options;
import io.micronaut.http.annotation.Post;
import io.swagger.v3.oas.annotations.Hidden;
import java.util.regex.Pattern;

/**
 * A Temporal codec server (the remote codec protocol: POST {@code /codec/decode} and
 * {@code /codec/encode} with a JSON {@code Payloads}) on the API's port, so that the CLI
 * ({@code --codec-endpoint}) and a Web UI that trusts the service's CA show the compressed
 * observations of large sets as JSON. The embedded Web UI uses the plain-HTTP loopback listener
 * ({@link LoopbackCodecListener}) instead, which a browser reaches with no certificate to trust; this
 * one still answers CORS requests from local origins.
 *
 * <p>Decoding is open to callers on this machine ({@code AuthorizationFilter}); it returns nothing the
 * caller did not send, compressed. Encoding is for authenticated users whom RBAC allows. Either is
 * bounded ({@link PayloadTranscoder}).
 */
@Controller("/codec")
@Hidden
public class PayloadCodecApi {
  /** The Web UI runs on this machine; no other site may use the codec through a user's browser. */
  private static final Pattern LOCAL_ORIGIN = Pattern.compile("https?://(localhost|127\\.0\\.0\\.1|\\[::1\\])(:\\d+)?");
  private final PayloadTranscoder transcoder;

  public PayloadCodecApi(PayloadTranscoder transcoder) {
    this.transcoder = transcoder;
  }

  @Post(value = "/decode", consumes = MediaType.APPLICATION_JSON, produces = MediaType.APPLICATION_JSON)
  public HttpResponse<String> decode(HttpRequest<?> request, @Body @Nullable String body) {
    return allowOrigin(request, HttpResponse.ok(transcoder.decode(() -> body)).contentType(MediaType.APPLICATION_JSON));
  }

  @Post(value = "/encode", consumes = MediaType.APPLICATION_JSON, produces = MediaType.APPLICATION_JSON)
  public HttpResponse<String> encode(HttpRequest<?> request, @Body @Nullable String body) {
    return allowOrigin(request, HttpResponse.ok(transcoder.encode(() -> body)).contentType(MediaType.APPLICATION_JSON));
  }

  /** CORS preflight of the Web UI's requests. */
  @Options("/{operation}")
  public HttpResponse<?> preflight(HttpRequest<?> request, String operation) {
    return allowOrigin(request, HttpResponse.noContent())
        .header("Access-Control-Allow-Methods", "POST, OPTIONS")
        .header("Access-Control-Allow-Headers", PayloadTranscoder.ALLOWED_HEADERS)
        .header("Access-Control-Max-Age", "600");
  }

  private static <T> MutableHttpResponse<T> allowOrigin(HttpRequest<?> request, MutableHttpResponse<T> response) {
    String origin = request.getHeaders().get("Origin");
    if (origin != null && LOCAL_ORIGIN.matcher(origin).matches()) {
      response.header("Access-Control-Allow-Origin", origin).header("Vary", "Origin");
    }
    return response;
  }
}
