package io.ordinal.kube;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.ordinal.model.MemberHooks;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The {@code ordinal.io/member-hooks} annotation of a set: steps run when a member joins or leaves
 * (etcd {@code member add/remove}, {@code nodetool decommission}). An annotation, so Kubernetes
 * ignores it and the manifest stays portable; on the set, not its template, so changing a hook rolls
 * out nothing. YAML or JSON:
 *
 * <pre>
 * preCreate:                 # before the pod of a new ordinal is created (scale up)
 *   exec:
 *     command: [sh, -c, 'etcdctl member add "$ORDINAL_MEMBER_POD" ...']
 *     pod: AnyOtherMember    # the lowest Running and Ready member but this one (default; for the last
 *                            # member's preDelete, itself); Self; or a pod name
 *     container: etcd        # default: the pod's first container
 *   timeoutSeconds: 60       # one attempt's answer (default 60)
 *   maxAttempts: 3           # then the hook has failed and membership changes are held (default 3)
 *   backoffSeconds: 2        # before the first retry, doubled each time (default 2)
 *   completionDeadlineSeconds: 3600  # the hook may answer "accepted" (HTTP 202, or an exec that prints
 *                            # a line ordinal:accepted); the member reports its completion through
 *                            # POST .../statefulsets/NAME/rollout/complete within this (default: may not)
 * preDelete:                 # before the pod of a condemned member is deleted (scale down, set deletion)
 *   http: {url: 'http://.../leave', method: POST}
 * preUpdate:                 # before a member's pod is replaced by a rolling update: hand leadership away
 *   exec: {command: [...], pod: Self}
 * </pre>
 */
public record MemberHookSpec(Hook preCreate, Hook preDelete, Hook preUpdate) {
  public static final String ANNOTATION = "ordinal.io/member-hooks";
  public static final String ANY_OTHER_MEMBER = "AnyOtherMember";
  public static final String SELF = "Self";
  private static final ObjectMapper READER = YAMLMapper.builder()
      .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();

  @JsonIgnoreProperties(ignoreUnknown = false)
  public record Hook(Exec exec, Http http, Integer timeoutSeconds, Integer maxAttempts, Integer backoffSeconds,
      Integer completionDeadlineSeconds) {
    public int timeout() {
      return timeoutSeconds == null ? 60 : timeoutSeconds;
    }

    /** How long an attempt that answered "accepted" waits for its member's completion; 0 when it may not. */
    public int completionDeadline() {
      return completionDeadlineSeconds == null ? 0 : completionDeadlineSeconds;
    }

    MemberHooks.Timing timing() {
      return new MemberHooks.Timing(timeout(), maxAttempts == null ? 3 : maxAttempts,
          backoffSeconds == null ? 2 : backoffSeconds, completionDeadline());
    }
  }

  public record Exec(List<String> command, String pod, String container) {
    public String target() {
      return pod == null || pod.isEmpty() ? ANY_OTHER_MEMBER : pod;
    }
  }

  public record Http(String url, String method) {
    public String verb() {
      return method == null || method.isEmpty() ? "POST" : method;
    }
  }

  /** The hooks of a set with a valid annotation; empty without one (an invalid one was refused at admission). */
  public static Optional<MemberHookSpec> of(ObjectMeta meta) {
    String text = Labels.annotation(meta, ANNOTATION);
    if (text == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(READER.readValue(text, MemberHookSpec.class));
    } catch (JsonProcessingException e) {
      return Optional.empty();
    }
  }

  public MemberHooks timings() {
    return new MemberHooks(preCreate == null ? null : preCreate.timing(), preDelete == null ? null : preDelete.timing(),
        preUpdate == null ? null : preUpdate.timing());
  }

  public Hook hook(String name) {
    return switch (name) {
      case MemberHooks.PRE_CREATE -> preCreate;
      case MemberHooks.PRE_UPDATE -> preUpdate;
      default -> preDelete;
    };
  }

  /**
   * What is wrong with an annotation's value, as {@code (field path, message)} pairs under
   * {@code metadata.annotations[ordinal.io/member-hooks]}; empty when it is valid.
   */
  public static List<String[]> problems(String text) {
    String base = "metadata.annotations[" + ANNOTATION + "]";
    List<String[]> out = new ArrayList<>();
    MemberHookSpec spec;
    try {
      spec = READER.readValue(text, MemberHookSpec.class);
    } catch (UnrecognizedPropertyException e) {
      out.add(new String[] {base, "unknown field \"" + e.getPropertyName() + "\"; a hook has preCreate, preDelete and preUpdate,"
          + " each with exec (command, pod, container) or http (url, method), timeoutSeconds, maxAttempts, backoffSeconds,"
          + " completionDeadlineSeconds"});
      return out;
    } catch (JsonProcessingException e) {
      out.add(new String[] {base, "not valid YAML or JSON for member hooks: " + e.getOriginalMessage()});
      return out;
    }
    if (spec == null || (spec.preCreate == null && spec.preDelete == null && spec.preUpdate == null)) {
      out.add(new String[] {base, "must name a preCreate, a preDelete or a preUpdate hook"});
      return out;
    }
    check(out, base + ".preCreate", spec.preCreate, false);
    check(out, base + ".preDelete", spec.preDelete, true);
    check(out, base + ".preUpdate", spec.preUpdate, true);
    return out;
  }

  private static void check(List<String[]> out, String path, Hook hook, boolean selfAllowed) {
    if (hook == null) {
      return;
    }
    if ((hook.exec == null) == (hook.http == null)) {
      out.add(new String[] {path, "must have exactly one of exec and http"});
    }
    if (hook.exec != null) {
      if (hook.exec.command == null || hook.exec.command.isEmpty()) {
        out.add(new String[] {path + ".exec.command", "Required value"});
      }
      if (!selfAllowed && SELF.equals(hook.exec.target())) {
        out.add(new String[] {path + ".exec.pod", "Self is not possible before the pod exists; use "
            + ANY_OTHER_MEMBER + " or a pod name"});
      }
    }
    if (hook.http != null) {
      try {
        URI uri = URI.create(hook.http.url == null ? "" : hook.http.url);
        if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme()) || uri.getHost() == null) {
          out.add(new String[] {path + ".http.url", "must be an http or https URL"});
        }
      } catch (IllegalArgumentException e) {
        out.add(new String[] {path + ".http.url", "must be an http or https URL"});
      }
    }
    range(out, path + ".timeoutSeconds", hook.timeoutSeconds, 1, 86_400);
    range(out, path + ".maxAttempts", hook.maxAttempts, 1, 1_000);
    range(out, path + ".backoffSeconds", hook.backoffSeconds, 0, 3_600);
    range(out, path + ".completionDeadlineSeconds", hook.completionDeadlineSeconds, 1, 7 * 86_400);
  }

  private static void range(List<String[]> out, String path, Integer value, int min, int max) {
    if (value != null && (value < min || value > max)) {
      out.add(new String[] {path, "must be between " + min + " and " + max});
    }
  }
}
