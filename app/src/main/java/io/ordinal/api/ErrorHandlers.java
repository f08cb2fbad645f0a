package io.ordinal.api;

import io.ordinal.apimachinery.KubeCodec;
import io.ordinal.apimachinery.ApiException;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.micronaut.core.convert.exceptions.ConversionErrorException;
import io.micronaut.data.connection.exceptions.ConnectionException;
import io.micronaut.data.connection.jdbc.exceptions.CannotGetJdbcConnectionException;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Error;
import io.micronaut.http.exceptions.ContentLengthExceededException;
import io.micronaut.web.router.exceptions.UnsatisfiedRouteException;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransientConnectionException;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Every error leaves as a Kubernetes Status object, never as a bare 500. */
@Controller
public class ErrorHandlers {
  private static final Logger log = LoggerFactory.getLogger(ErrorHandlers.class);

  @Error(global = true, exception = ApiException.class)
  public HttpResponse<String> api(HttpRequest<?> request, ApiException e) {
    return KubeCodec.respond(request, e.code(), e.status());
  }

  @Error(global = true, status = HttpStatus.NOT_FOUND)
  public HttpResponse<String> notFound(HttpRequest<?> request) {
    return KubeCodec.respond(request, 404, ApiException.of(404, "NotFound",
        "the server could not find the requested resource " + request.getPath()).status());
  }

  @Error(global = true, status = HttpStatus.METHOD_NOT_ALLOWED)
  public HttpResponse<String> methodNotAllowed(HttpRequest<?> request) {
    return KubeCodec.respond(request, 405, ApiException.of(405, "MethodNotAllowed",
        "the server does not allow this method on the requested resource").status());
  }

  @Error(global = true, status = HttpStatus.UNSUPPORTED_MEDIA_TYPE)
  public HttpResponse<String> unsupportedMediaType(HttpRequest<?> request) {
    String type = request.getContentType().map(Object::toString).orElse(null);
    List<String> accepted = request.getMethodName().equals("PATCH")
        ? KubeCodec.PATCH_TYPES : KubeCodec.BODY_TYPES;
    return KubeCodec.respond(request, 415, ApiException.unsupportedMediaType(type, accepted).status());
  }

  @Error(global = true, exception = ContentLengthExceededException.class)
  public HttpResponse<String> tooLarge(HttpRequest<?> request, ContentLengthExceededException e) {
    return KubeCodec.respond(request, 413, ApiException.of(413, "RequestEntityTooLarge", e.getMessage()).status());
  }

  @Error(global = true, exception = UnsatisfiedRouteException.class)
  public HttpResponse<String> unsatisfied(HttpRequest<?> request, UnsatisfiedRouteException e) {
    return KubeCodec.respond(request, 400, ApiException.badRequest(e.getMessage()).status());
  }

  /** A query or path parameter that does not convert (say {@code tailLines=2147483648}). */
  @Error(global = true, exception = ConversionErrorException.class)
  public HttpResponse<String> unconvertible(HttpRequest<?> request,
      ConversionErrorException e) {
    return KubeCodec.respond(request, 400, ApiException.badRequest(e.getMessage()).status());
  }

  @Error(global = true, exception = Exception.class)
  public HttpResponse<String> unexpected(HttpRequest<?> request, Exception e) {
    String unavailable = unavailableDependency(e);
    if (unavailable != null) {
      // A restart of PostgreSQL or Temporal is an outage, not a bug: 503 tells clients to retry.
      log.warn("{} {}: {} is unavailable: {}", request.getMethodName(), request.getPath(), unavailable, e.toString());
      return KubeCodec.respond(request, 503, ApiException.of(503, "ServiceUnavailable",
          unavailable + " is unavailable, retry shortly").status()).header("Retry-After", "1");
    }
    log.error("unexpected error on {} {}", request.getMethodName(), request.getPath(), e);
    return KubeCodec.respond(request, 500, ApiException.of(500, "InternalError",
        "an internal error occurred: " + e.getClass().getSimpleName()).status());
  }

  /**
   * "the database" or "Temporal" when the error, or one of its causes, is a lost or refused
   * connection to it; null for anything else. PostgreSQL says so with SQLSTATE class 08
   * (connection exception) or 57P (operator intervention: shutdown, cannot connect now).
   */
  static String unavailableDependency(Throwable error) {
    Throwable t = error;
    for (int depth = 0; t != null && depth < 32; depth++, t = t.getCause()) {
      // Micronaut Data's: a connection could not be obtained or set up (say Hikari handed out one
      // that a shutdown had just closed, whose SQLException carries no SQLSTATE).
      if (t instanceof ConnectionException || t instanceof CannotGetJdbcConnectionException
          || t instanceof SQLTransientConnectionException || t instanceof SQLNonTransientConnectionException) {
        return "the database";
      }
      if (t instanceof SQLException sql && sql.getSQLState() != null
          && (sql.getSQLState().startsWith("08") || sql.getSQLState().startsWith("57P"))) {
        return "the database";
      }
      if (t instanceof StatusRuntimeException grpc && (grpc.getStatus().getCode() == Status.Code.UNAVAILABLE
          || grpc.getStatus().getCode() == Status.Code.DEADLINE_EXCEEDED)) {
        return "Temporal";
      }
    }
    return null;
  }
}
