package io.ordinal.api;

import io.ordinal.apimachinery.KubeProtobuf;
import io.ordinal.apimachinery.KubeCodec;
import io.ordinal.apimachinery.ApiException;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Post;
import io.ordinal.auth.Authorization;
import io.ordinal.request.RequestAttributes;
import io.ordinal.request.User;
import io.ordinal.apimachinery.FieldError;
import io.ordinal.auth.rbac.Bootstrap;
import io.ordinal.auth.rbac.Policy;
import io.ordinal.auth.rbac.Rbac;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.ArrayList;
import java.util.List;

/**
 * The reviews a user asks about itself: SelfSubjectAccessReview ({@code kubectl auth can-i}),
 * SelfSubjectRulesReview ({@code kubectl auth can-i --list}) and SelfSubjectReview
 * ({@code kubectl auth whoami}). Answered from the in-memory RBAC snapshot, so they run on the event
 * loop. Who may create them is decided like any request (system:basic-user grants them).
 */
@Controller
@Tag(name = "authorization.k8s.io/v1")
public class ReviewApi {
  private static final String AUTHORIZATION = "authorization.k8s.io/v1";
  private static final String AUTHENTICATION = "authentication.k8s.io/v1";

  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record ResourceAttributes(@Nullable String namespace, @Nullable String verb, @Nullable String group,
      @Nullable String version, @Nullable String resource, @Nullable String subresource, @Nullable String name,
      @Nullable JsonNode fieldSelector, @Nullable JsonNode labelSelector) {}

  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record NonResourceAttributes(@Nullable String path, @Nullable String verb) {}

  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record AccessSpec(@Nullable ResourceAttributes resourceAttributes,
      @Nullable NonResourceAttributes nonResourceAttributes) {}

  /** {@code allowed} is always written; the rest only when set, as upstream's omitempty. */
  @JsonInclude(JsonInclude.Include.NON_EMPTY)
  public record AccessStatus(@JsonInclude(JsonInclude.Include.ALWAYS) boolean allowed, @Nullable Boolean denied,
      @Nullable String reason, @Nullable String evaluationError) {}

  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record SelfSubjectAccessReview(@Nullable String apiVersion, @Nullable String kind, @Nullable ObjectMeta metadata,
      @Nullable AccessSpec spec, @Nullable AccessStatus status) {}

  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record RulesSpec(@Nullable String namespace) {}

  public record ResourceRule(List<String> verbs, List<String> apiGroups, List<String> resources,
      List<String> resourceNames) {}

  public record NonResourceRule(List<String> verbs, List<String> nonResourceURLs) {}

  @JsonInclude(JsonInclude.Include.NON_EMPTY)
  public record RulesStatus(@JsonInclude(JsonInclude.Include.ALWAYS) List<ResourceRule> resourceRules,
      @JsonInclude(JsonInclude.Include.ALWAYS) List<NonResourceRule> nonResourceRules,
      @JsonInclude(JsonInclude.Include.ALWAYS) boolean incomplete, @Nullable String evaluationError) {}

  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record SelfSubjectRulesReview(@Nullable String apiVersion, @Nullable String kind, @Nullable ObjectMeta metadata,
      @Nullable RulesSpec spec, @Nullable RulesStatus status) {}

  public record UserInfo(String username, String uid, List<String> groups) {}

  public record ReviewStatus(UserInfo userInfo) {}

  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record SelfSubjectReview(@Nullable String apiVersion, @Nullable String kind, @Nullable ObjectMeta metadata,
      @Nullable ReviewStatus status) {}

  private final Authorization authorization;
  private final Rbac rbac;

  public ReviewApi(Authorization authorization, Rbac rbac) {
    this.authorization = authorization;
    this.rbac = rbac;
  }

  @Post(value = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", consumes = {MediaType.APPLICATION_JSON, KubeCodec.YAML, KubeProtobuf.MEDIA_TYPE}, produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "Whether the caller may do what spec.resourceAttributes or spec.nonResourceAttributes describe")
  public HttpResponse<String> accessReview(HttpRequest<?> request, @Body @Nullable byte[] body) {
    SelfSubjectAccessReview review = KubeProtobuf.read(request, body, SelfSubjectAccessReview.class);
    AccessSpec spec = review.spec() == null ? new AccessSpec(null, null) : review.spec();
    List<FieldError> errors = new ArrayList<>();
    metadataMustBeEmpty(review.metadata(), errors);
    if (spec.resourceAttributes() != null && spec.nonResourceAttributes() != null) {
      errors.add(new FieldError("FieldValueInvalid", "spec.nonResourceAttributes",
          "Invalid value: \"\": cannot be specified in combination with resourceAttributes"));
    } else if (spec.resourceAttributes() == null && spec.nonResourceAttributes() == null) {
      errors.add(new FieldError("FieldValueInvalid", "spec.resourceAttributes",
          "Invalid value: \"null\": exactly one of nonResourceAttributes or resourceAttributes must be specified"));
    }
    if (!errors.isEmpty()) {
      throw ApiException.invalid("authorization.k8s.io", "SelfSubjectAccessReview", "", errors);
    }
    Policy.Decision decision = authorization.decide(user(request), attributes(spec));
    return KubeCodec.respond(request, 201, new SelfSubjectAccessReview(AUTHORIZATION, "SelfSubjectAccessReview",
        new ObjectMeta(), spec, new AccessStatus(decision.allowed(), null,
            decision.reason().isEmpty() ? null : decision.reason(),
            decision.evaluationError().isEmpty() ? null : decision.evaluationError())));
  }

  @Post(value = "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews", consumes = {MediaType.APPLICATION_JSON, KubeCodec.YAML, KubeProtobuf.MEDIA_TYPE}, produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "The rules that apply to the caller in spec.namespace (cluster-wide ones included)")
  public HttpResponse<String> rulesReview(HttpRequest<?> request, @Body @Nullable byte[] body) {
    SelfSubjectRulesReview review = KubeProtobuf.read(request, body, SelfSubjectRulesReview.class);
    String namespace = review.spec() == null || review.spec().namespace() == null ? "" : review.spec().namespace();
    if (namespace.isEmpty()) {
      throw ApiException.badRequest("no namespace on request");
    }
    Policy.RuleSet rules = rbac.policy().rulesFor(user(request), namespace);
    List<ResourceRule> resourceRules = new ArrayList<>();
    List<NonResourceRule> nonResourceRules = new ArrayList<>();
    for (PolicyRule rule : rules.rules()) {
      if (rule.getNonResourceURLs() != null && !rule.getNonResourceURLs().isEmpty()) {
        nonResourceRules.add(new NonResourceRule(rule.getVerbs(), rule.getNonResourceURLs()));
      } else {
        resourceRules.add(new ResourceRule(rule.getVerbs(), list(rule.getApiGroups()), list(rule.getResources()),
            list(rule.getResourceNames())));
      }
    }
    return KubeCodec.respond(request, 201, new SelfSubjectRulesReview(AUTHORIZATION, "SelfSubjectRulesReview",
        new ObjectMeta(), new RulesSpec(namespace), new RulesStatus(resourceRules, nonResourceRules, false,
            rules.errors().isEmpty() ? null : String.join(", ", rules.errors()))));
  }

  @Post(value = "/apis/authentication.k8s.io/v1/selfsubjectreviews", consumes = {MediaType.APPLICATION_JSON, KubeCodec.YAML, KubeProtobuf.MEDIA_TYPE}, produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "Who the caller is: user name, uid and groups")
  public HttpResponse<String> selfReview(HttpRequest<?> request, @Body @Nullable byte[] body) {
    if (body != null && body.length > 0) {
      KubeProtobuf.read(request, body, SelfSubjectReview.class);
    }
    User user = user(request);
    return KubeCodec.respond(request, 201, new SelfSubjectReview(AUTHENTICATION, "SelfSubjectReview", new ObjectMeta(),
        new ReviewStatus(new UserInfo(user.name(), user.uid(), user.groups()))));
  }

  /**
   * The attributes a review asks about. kubectl sends {@code can-i pause statefulsets/web} as the
   * verb pause on statefulsets named web: Ordinal's rollout verbs only exist on statefulsets/rollout,
   * so that is what it is asked about.
   */
  static RequestAttributes attributes(AccessSpec spec) {
    if (spec.nonResourceAttributes() != null) {
      NonResourceAttributes a = spec.nonResourceAttributes();
      return new RequestAttributes(false, text(a.verb()), text(a.path()), "", "", "", "", "", "");
    }
    ResourceAttributes a = spec.resourceAttributes();
    String subresource = text(a.subresource());
    String name = text(a.name());
    if (text(a.resource()).equals("statefulsets") && subresource.isEmpty()
        && Bootstrap.ROLLOUT_ACTIONS.contains(text(a.verb()))) {
      subresource = "rollout";
      name = name.equals("rollout") ? "" : name;
    }
    return new RequestAttributes(true, text(a.verb()), "", text(a.group()), text(a.version()), text(a.namespace()),
        text(a.resource()), subresource, name);
  }

  private static void metadataMustBeEmpty(ObjectMeta meta, List<FieldError> errors) {
    // Protobuf clients send empty strings for the fields they leave unset.
    if (meta != null && (!text(meta.getName()).isEmpty() || !text(meta.getNamespace()).isEmpty()
        || !text(meta.getGenerateName()).isEmpty() || (meta.getLabels() != null && !meta.getLabels().isEmpty())
        || (meta.getAnnotations() != null && !meta.getAnnotations().isEmpty()))) {
      errors.add(new FieldError("FieldValueInvalid", "metadata", "Invalid value: \"\": must be empty"));
    }
  }

  private static User user(HttpRequest<?> request) {
    return User.of(request).orElse(User.ANONYMOUS);
  }

  private static String text(String value) {
    return value == null ? "" : value;
  }

  private static List<String> list(List<String> values) {
    return values == null ? List.of() : values;
  }
}
