package io.ordinal.api.openapi;

import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.ordinal.apimachinery.ApiException;
import io.ordinal.api.discovery.DiscoveryApi;
import io.ordinal.api.openapi.OpenApiDocuments.Document;
import io.ordinal.api.openapi.OpenApiDocuments.Documents;
import io.swagger.v3.oas.annotations.Hidden;
import java.net.URI;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * The OpenAPI documents kubectl downloads: {@code /openapi/v3} (an index of one document per
 * group version, each URL carrying its hash), {@code /openapi/v3/api/v1},
 * {@code /openapi/v3/apis/{group}/{version}} and {@code /openapi/v2}. They are served as JSON only;
 * a client that accepts only protobuf (client-go asks v2 so) gets 406 and falls back.
 * Caching as upstream's kube-openapi handler does it: an ETag on every document, and a URL whose
 * hash is the current one is immutable (another hash redirects to the current URL).
 */
@Controller
@Hidden
public class KubeOpenApiController {
  private static final String ALL = "*/*";
  private final Documents documents = OpenApiDocuments.generate(DiscoveryApi.gitVersion());

  @Get(value = "/openapi/v3", produces = {MediaType.APPLICATION_JSON, ALL})
  public HttpResponse<String> v3Index(HttpRequest<?> request) {
    return serve(request, documents.v3Index());
  }

  @Get(value = "/openapi/v3/api/{version}", produces = {MediaType.APPLICATION_JSON, ALL})
  public HttpResponse<String> v3Core(HttpRequest<?> request, String version) {
    return groupVersion(request, "api/" + version);
  }

  @Get(value = "/openapi/v3/apis/{group}/{version}", produces = {MediaType.APPLICATION_JSON, ALL})
  public HttpResponse<String> v3Group(HttpRequest<?> request, String group, String version) {
    return groupVersion(request, "apis/" + group + "/" + version);
  }

  @Get(value = "/openapi/v2", produces = {MediaType.APPLICATION_JSON, ALL})
  public HttpResponse<String> v2(HttpRequest<?> request) {
    acceptJson(request);
    return serve(request, documents.v2());
  }

  private HttpResponse<String> groupVersion(HttpRequest<?> request, String path) {
    Document document = documents.v3().get(path);
    if (document == null) {
      throw ApiException.of(404, "NotFound", "the server has no OpenAPI document for " + path);
    }
    acceptJson(request);
    String hash = request.getParameters().get("hash");
    if (hash != null && !hash.isEmpty() && !hash.equals(document.hash())) {
      // An old URL (from a cached index): send the client to the document as it is now.
      return HttpResponse.<String>status(HttpStatus.MOVED_PERMANENTLY)
          .headers(h -> h.location(URI.create("/openapi/v3/" + path + "?hash=" + document.hash())));
    }
    MutableHttpResponse<String> response = serve(request, document);
    if (hash != null && !hash.isEmpty()) {
      // This URL names these bytes for good: clients may keep them (a year, as upstream says).
      response.header("Cache-Control", "public, immutable")
          .header("Expires", DateTimeFormatter.RFC_1123_DATE_TIME.format(
              ZonedDateTime.now(ZoneOffset.UTC).plusYears(1)));
    }
    return response;
  }

  private static MutableHttpResponse<String> serve(HttpRequest<?> request, Document document) {
    String etag = "\"" + document.hash() + "\"";
    MutableHttpResponse<String> response = notModified(request, etag)
        ? HttpResponse.status(HttpStatus.NOT_MODIFIED)
        : HttpResponse.ok(document.json()).contentType(MediaType.APPLICATION_JSON);
    return response.header("ETag", etag).header("Vary", "Accept");
  }

  private static boolean notModified(HttpRequest<?> request, String etag) {
    for (String header : request.getHeaders().getAll("If-None-Match")) {
      for (String tag : header.split(",")) {
        String t = tag.trim();
        if (t.equals("*") || t.equals(etag) || t.equals("W/" + etag)) {
          return true;
        }
      }
    }
    return false;
  }

  /** 406 unless the request's Accept admits JSON (no Accept admits anything). */
  private static void acceptJson(HttpRequest<?> request) {
    if (!acceptsJson(String.join(",", request.getHeaders().getAll("Accept")))) {
      throw ApiException.of(406, "NotAcceptable",
          "the server was unable to respond with a content type that the client supports (only application/json)");
    }
  }

  /**
   * Whether an Accept header admits {@code application/json}: the type itself,
   * {@code application/*} or {@code *}{@code /*}, unless at q=0.
   */
  static boolean acceptsJson(String accept) {
    if (accept == null || accept.isBlank()) {
      return true;
    }
    for (String range : accept.split(",")) {
      String[] parts = range.split(";");
      String type = parts[0].trim().toLowerCase(Locale.ROOT);
      boolean refused = false;
      for (int i = 1; i < parts.length; i++) {
        String[] kv = parts[i].trim().split("=", 2);
        if (kv.length == 2 && kv[0].trim().equals("q") && kv[1].trim().matches("0(\\.0*)?")) {
          refused = true;
        }
      }
      if (!refused && (type.equals(MediaType.APPLICATION_JSON) || type.equals("application/*") || type.equals(ALL))) {
        return true;
      }
    }
    return false;
  }
}
