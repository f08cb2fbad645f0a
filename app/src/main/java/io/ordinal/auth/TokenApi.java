package io.ordinal.auth;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Delete;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Post;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import io.ordinal.apimachinery.ApiException;
import io.ordinal.apimachinery.KubeCodec;
import io.ordinal.apimachinery.FieldError;
import io.ordinal.store.ApiTokenRow;
import io.ordinal.store.KubeJson;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.parameters.RequestBody;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * {@code /apis/auth.ordinal.io/v1/tokens}: the API's bearer tokens, issued, listed and revoked
 * without a restart ({@code ./ordinal token ...} wraps it). Only cluster-admin may use it (RBAC:
 * no other default role grants {@code tokens}; {@code system:masters} is bound to cluster-admin). A token's secret is in the answer to its creation and nowhere else.
 */
@Controller("/apis/auth.ordinal.io/v1/tokens")
@ExecuteOn(TaskExecutors.BLOCKING)
@Tag(name = "auth.ordinal.io/v1")
public class TokenApi {
  static final String GROUP = "auth.ordinal.io";
  private static final String API_VERSION = GROUP + "/v1";
  private static final Pattern NAME = Pattern.compile("[^\\p{Cntrl}]{1,253}");
  private static final long MAX_EXPIRATION_SECONDS = Duration.ofDays(3650).toSeconds();

  /** A token as the API shows it; {@code status.token} only in the answer to its creation. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Token(String apiVersion, String kind, Metadata metadata, Spec spec, @Nullable Status status) {}

  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Metadata(@Nullable String name, @Nullable String uid, @Nullable String creationTimestamp) {}

  /** Who the token authenticates, and for how long ({@code expirationSeconds}; none: until revoked). */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Spec(@Nullable String user, @Nullable List<String> groups, @Nullable String description,
      @Nullable Long expirationSeconds, @Nullable String expirationTimestamp) {}

  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Status(@Nullable String token, @Nullable String revocationTimestamp) {}

  public record TokenList(String apiVersion, String kind, List<Token> items) {}

  private final Tokens tokens;

  public TokenApi(Tokens tokens) {
    this.tokens = tokens;
  }

  @Post(consumes = {MediaType.APPLICATION_JSON, KubeCodec.YAML}, produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "Issue a bearer token for spec.user in spec.groups, valid for spec.expirationSeconds (or until revoked)")
  @RequestBody(content = @Content(schema = @Schema(implementation = Token.class)))
  @ApiResponse(responseCode = "201", content = @Content(schema = @Schema(implementation = Token.class)))
  public HttpResponse<String> create(HttpRequest<?> request, @Body @Nullable String body) {
    Token asked = KubeCodec.read(request, body, Token.class);
    Spec spec = asked.spec() == null ? new Spec(null, null, null, null, null) : asked.spec();
    List<FieldError> errors = new ArrayList<>();
    if (spec.user() == null || !NAME.matcher(spec.user()).matches()) {
      errors.add(new FieldError("FieldValueRequired", "spec.user", "Required value: a user name of 1 to 253 printable characters"));
    }
    List<String> groups = spec.groups() == null ? List.of() : spec.groups();
    for (int i = 0; i < groups.size(); i++) {
      if (groups.get(i) == null || !NAME.matcher(groups.get(i)).matches()) {
        errors.add(new FieldError("FieldValueInvalid", "spec.groups[" + i + "]", "Invalid value: a group name of 1 to 253 printable characters"));
      }
    }
    Long seconds = spec.expirationSeconds();
    if (seconds != null && (seconds < 600 || seconds > MAX_EXPIRATION_SECONDS)) {
      errors.add(new FieldError("FieldValueInvalid", "spec.expirationSeconds", "Invalid value: " + seconds
          + ": must be between 600 (10 minutes) and " + MAX_EXPIRATION_SECONDS + " (10 years)"));
    }
    if (!errors.isEmpty()) {
      throw ApiException.invalid("auth.ordinal.io", "Token", "", errors);
    }
    Instant now = Instant.now();
    Tokens.Issued issued = tokens.create(spec.user(), groups,
        spec.description() == null ? "" : spec.description(), seconds == null ? null : now.plusSeconds(seconds), now);
    Token created = view(issued.row());
    return KubeCodec.respond(request, 201, new Token(created.apiVersion(), created.kind(), created.metadata(),
        created.spec(), new Status(issued.token(), null)));
  }

  @Get(produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "List the tokens (revoked ones too), without their secrets")
  @ApiResponse(responseCode = "200", content = @Content(schema = @Schema(implementation = TokenList.class)))
  public HttpResponse<String> list(HttpRequest<?> request) {
    return KubeCodec.ok(request, new TokenList(API_VERSION, "TokenList", tokens.list().stream().map(TokenApi::view).toList()));
  }

  @Get(value = "/{name}", produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "Read a token, without its secret")
  @ApiResponse(responseCode = "200", content = @Content(schema = @Schema(implementation = Token.class)))
  public HttpResponse<String> get(HttpRequest<?> request, String name) {
    return KubeCodec.ok(request, view(tokens.find(name).orElseThrow(() -> ApiException.notFound("tokens.auth.ordinal.io", name))));
  }

  @Delete(value = "/{name}", produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "Revoke a token: it stops working at once")
  @ApiResponse(responseCode = "200", content = @Content(schema = @Schema(implementation = Token.class)))
  public HttpResponse<String> revoke(HttpRequest<?> request, String name) {
    tokens.find(name).orElseThrow(() -> ApiException.notFound("tokens.auth.ordinal.io", name));
    tokens.revoke(name, Instant.now());
    return KubeCodec.ok(request, view(tokens.find(name).orElseThrow()));
  }

  private static Token view(ApiTokenRow row) {
    return new Token(API_VERSION, "Token",
        new Metadata(row.id(), row.uid(), KubeJson.timestamp(row.createdAt())),
        new Spec(row.username(), Tokens.groups(row), row.description(), null,
            row.expiresAt() == null ? null : KubeJson.timestamp(row.expiresAt())),
        row.revokedAt() == null ? null : new Status(null, KubeJson.timestamp(row.revokedAt())));
  }
}
