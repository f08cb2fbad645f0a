package io.ordinal.api.openapi;

import com.fasterxml.jackson.databind.JsonNode;
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
import io.ordinal.store.KubeJson;
import io.swagger.v3.oas.annotations.Hidden;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.zip.GZIPOutputStream;

/**
 * The OpenAPI documents kubectl downloads: {@code /openapi/v3} (an index of one document per
 * group version, each URL carrying its hash), {@code /openapi/v3/api/v1},
 * {@code /openapi/v3/apis/{group}/{version}} and {@code /openapi/v2}. The v3 documents are JSON;
 * {@code /openapi/v2} is JSON or, to a client that asks for it, gnostic's {@code openapi_v2.Document}
 * in protobuf ({@link OpenApiV2Protobuf}): client-go's {@code OpenAPISchema()} asks for nothing
 * else, and kubectl uses it when a kind is missing from v3 or v3 is turned off. The type is chosen
 * as upstream's kube-openapi handler chooses it, gzipped as it gzips.
 * Caching as that handler does it: an ETag on every document, Last-Modified (the documents are
 * made once, at start), and a URL whose hash is the current one is immutable (another hash
 * redirects to the current URL).
 */
@Controller
@Hidden
public class KubeOpenApiController {
  private static final String ALL = "*/*";
  /** What client-go's OpenAPISchema() asks for; kube-openapi answers it with {@link #PROTOBUF}. */
  static final String PROTOBUF_DEPRECATED = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";
  static final String PROTOBUF = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";
  /** kube-openapi's offers, in its order: the first an Accept clause admits is served. */
  private static final List<String> V2_TYPES = List.of(MediaType.APPLICATION_JSON, PROTOBUF_DEPRECATED, PROTOBUF);
  /** gziphandler's default: smaller answers are sent as they are. */
  private static final int GZIP_MIN_SIZE = 1400;

  private final Documents documents = OpenApiDocuments.generate(DiscoveryApi.gitVersion());
  private final Protobuf v2Protobuf = Protobuf.of(OpenApiV2Protobuf.encode(
      KubeJson.read(documents.v2().json(), JsonNode.class)));
  /** When the documents were made: they do not change while the process runs. */
  private final ZonedDateTime lastModified = ZonedDateTime.now(ZoneOffset.UTC).withNano(0);

  /** The v2 document in protobuf, gzipped, and the ETag of the protobuf bytes. */
  private record Protobuf(byte[] bytes, byte[] gzipped, String etag) {
    static Protobuf of(byte[] bytes) {
      return new Protobuf(bytes, gzip(bytes), "\"" + OpenApiDocuments.sha512(bytes) + "\"");
    }
  }

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

  @Get(value = "/openapi/v2", produces = {MediaType.APPLICATION_JSON, PROTOBUF_DEPRECATED, PROTOBUF, ALL})
  public HttpResponse<?> v2(HttpRequest<?> request) {
    String type = negotiate(String.join(",", request.getHeaders().getAll("Accept")), V2_TYPES);
    if (type == null) {
      throw ApiException.of(406, "NotAcceptable", "the server was unable to respond with a content type that the "
          + "client supports (application/json, " + PROTOBUF_DEPRECATED + ", " + PROTOBUF + ")");
    }
    if (type.equals(MediaType.APPLICATION_JSON)) {
      return serve(request, documents.v2());
    }
    if (notModified(request, v2Protobuf.etag())) {
      return cached(HttpResponse.status(HttpStatus.NOT_MODIFIED), v2Protobuf.etag()).header("Vary", "Accept-Encoding");
    }
    boolean gzip = v2Protobuf.bytes().length >= GZIP_MIN_SIZE
        && acceptsGzip(String.join(",", request.getHeaders().getAll("Accept-Encoding")));
    MutableHttpResponse<byte[]> response = HttpResponse.ok(gzip ? v2Protobuf.gzipped() : v2Protobuf.bytes())
        .contentType(PROTOBUF);
    if (gzip) {
      // Set, it keeps the server's own compression (which would not pick a protobuf type) off too.
      response.header("Content-Encoding", "gzip");
    }
    return cached(response, v2Protobuf.etag()).header("Vary", "Accept-Encoding");
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

  private MutableHttpResponse<String> serve(HttpRequest<?> request, Document document) {
    String etag = "\"" + document.hash() + "\"";
    MutableHttpResponse<String> response = notModified(request, etag)
        ? HttpResponse.status(HttpStatus.NOT_MODIFIED)
        : HttpResponse.ok(document.json()).contentType(MediaType.APPLICATION_JSON);
    return cached(response, etag);
  }

  private <T> MutableHttpResponse<T> cached(MutableHttpResponse<T> response, String etag) {
    return response.header("ETag", etag).header("Vary", "Accept")
        .header("Last-Modified", DateTimeFormatter.RFC_1123_DATE_TIME.format(lastModified));
  }

  /** If-None-Match names the ETag; or, without one, If-Modified-Since is not before the documents (as Go's ServeContent). */
  private boolean notModified(HttpRequest<?> request, String etag) {
    List<String> noneMatch = request.getHeaders().getAll("If-None-Match");
    for (String header : noneMatch) {
      for (String tag : header.split(",")) {
        String t = tag.trim();
        if (t.equals("*") || t.equals(etag) || t.equals("W/" + etag)) {
          return true;
        }
      }
    }
    String since = request.getHeaders().get("If-Modified-Since");
    if (noneMatch.isEmpty() && since != null) {
      try {
        return !lastModified.isAfter(ZonedDateTime.parse(since.trim(), DateTimeFormatter.RFC_1123_DATE_TIME));
      } catch (DateTimeParseException e) {
        return false; // not a date: ignored, as Go ignores it
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
    return negotiate(accept, List.of(MediaType.APPLICATION_JSON)) != null;
  }

  /**
   * The offer to serve, as kube-openapi's handler picks it (goautoneg): the Accept clauses by q,
   * highest first, a concrete type before a wildcard; the first offer the first clause admits.
   * No Accept is {@code *}{@code /*}. Unlike goautoneg, a clause at q=0 refuses rather than admits.
   * Null if nothing is admitted.
   */
  static String negotiate(String accept, List<String> offers) {
    record Clause(String type, String subtype, double q) {}
    List<Clause> clauses = new ArrayList<>();
    for (String range : (accept == null || accept.isBlank() ? ALL : accept).split(",")) {
      String[] parts = range.split(";");
      String[] type = parts[0].trim().toLowerCase(Locale.ROOT).split("/", -1);
      if (type.length > 2 || (type.length == 1 && !type[0].equals("*"))) {
        continue; // not a media range: goautoneg skips it too
      }
      double q = 1;
      for (int i = 1; i < parts.length; i++) {
        String[] kv = parts[i].trim().split("=", 2);
        if (kv.length == 2 && kv[0].trim().equals("q")) {
          try {
            q = Double.parseDouble(kv[1].trim());
          } catch (NumberFormatException e) {
            q = 0; // as Go's ParseFloat failing leaves it
          }
        }
      }
      if (q > 0) {
        clauses.add(new Clause(type[0].trim(), type.length == 2 ? type[1].trim() : "*", q));
      }
    }
    clauses.sort(Comparator.comparingDouble((Clause c) -> -c.q())
        .thenComparing(c -> c.type().equals("*"))
        .thenComparing(c -> c.subtype().equals("*")));
    for (Clause clause : clauses) {
      for (String offer : offers) {
        String[] type = offer.split("/", 2);
        if ((clause.type().equals("*") || clause.type().equals(type[0]))
            && (clause.subtype().equals("*") || clause.subtype().equals(type[1]))) {
          return offer;
        }
      }
    }
    return null;
  }

  /** Whether Accept-Encoding admits gzip (by name or *), not at q=0. */
  static boolean acceptsGzip(String acceptEncoding) {
    for (String coding : acceptEncoding.split(",")) {
      String[] parts = coding.split(";");
      String name = parts[0].trim().toLowerCase(Locale.ROOT);
      boolean refused = false;
      for (int i = 1; i < parts.length; i++) {
        String[] kv = parts[i].trim().split("=", 2);
        if (kv.length == 2 && kv[0].trim().equals("q") && kv[1].trim().matches("0(\\.0*)?")) {
          refused = true;
        }
      }
      if (!refused && (name.equals("gzip") || name.equals("*"))) {
        return true;
      }
    }
    return false;
  }

  private static byte[] gzip(byte[] bytes) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream gzip = new GZIPOutputStream(out)) {
      gzip.write(bytes);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }
}
