package io.ordinal.api.registry;

import io.micronaut.http.HttpRequest;
import io.ordinal.apimachinery.ApiException;
import io.ordinal.apimachinery.FieldError;
import io.ordinal.apimachinery.KubeCodec;
import io.ordinal.request.User;
import java.util.ArrayList;
import java.util.List;

/**
 * The options of a create, update or patch (upstream's CreateOptions, UpdateOptions, PatchOptions):
 * {@code dryRun}, the field manager the write is recorded under in {@code metadata.managedFields},
 * and, for a server-side apply only, {@code force}.
 *
 * @param fieldManager {@code ?fieldManager=}, else the client's User-Agent up to its first "/"
 *     ("kubectl" for kubectl/v1.32.0 ...), as the API server names managers
 * @param user who writes (admission that depends on it: RBAC's escalation check)
 */
public record WriteOptions(boolean dryRun, String fieldManager, boolean force, User user) {
  static final int MAX_FIELD_MANAGER_LENGTH = 128;

  /** The options of a create or an update (PUT, a subresource write, one of Ordinal's rollout verbs). */
  public static WriteOptions of(HttpRequest<?> request) {
    return parse(request, false, false);
  }

  /** The options of a PATCH: {@code force} only with an apply patch, which needs a fieldManager. */
  public static WriteOptions ofPatch(HttpRequest<?> request) {
    return parse(request, true, KubeCodec.mediaType(request).equals(KubeCodec.APPLY_PATCH));
  }

  private static WriteOptions parse(HttpRequest<?> request, boolean patch, boolean apply) {
    boolean dryRun = DryRun.requested(request);
    String sent = request.getParameters().get("fieldManager");
    String force = request.getParameters().get("force");
    List<FieldError> errors = new ArrayList<>();
    if (patch && !apply && force != null) {
      errors.add(new FieldError("FieldValueForbidden", "force", "Forbidden: may not be specified for non-apply patch"));
    }
    if (apply && (sent == null || sent.isEmpty())) {
      // kubectl sends one; a controller has to name itself.
      errors.add(new FieldError("FieldValueRequired", "fieldManager", "Required value: is required for apply patch"));
    }
    if (sent != null) {
      if (sent.length() > MAX_FIELD_MANAGER_LENGTH) {
        errors.add(new FieldError("FieldValueTooLong", "fieldManager",
            "Too long: may not be more than " + MAX_FIELD_MANAGER_LENGTH + " bytes"));
      }
      sent.codePoints().filter(c -> !printable(c)).findFirst().ifPresent(c -> errors.add(new FieldError(
          "FieldValueInvalid", "fieldManager", "Invalid value: \"" + sent + "\": invalid character "
              + String.format("U+%04X", c) + " (at position " + sent.indexOf(c) + ")")));
    }
    if (!errors.isEmpty()) {
      throw ApiException.invalid("meta.k8s.io", patch ? "PatchOptions" : "UpdateOptions", "", errors);
    }
    String manager = sent == null || sent.isEmpty()
        ? fromUserAgent(request.getHeaders().get("User-Agent"))
        : sent;
    User user = User.of(request).orElse(User.ANONYMOUS);
    return new WriteOptions(dryRun, manager, apply && Boolean.parseBoolean(force), user);
  }

  /** Upstream's prefixFromUserAgent: up to the first "/", printable characters only, at most 128. */
  static String fromUserAgent(String userAgent) {
    if (userAgent == null) {
      return "";
    }
    StringBuilder manager = new StringBuilder();
    userAgent.split("/", -1)[0].codePoints().filter(WriteOptions::printable)
        .limit(MAX_FIELD_MANAGER_LENGTH).forEach(manager::appendCodePoint);
    return manager.toString();
  }

  private static boolean printable(int c) {
    return !Character.isISOControl(c) && Character.isDefined(c)
        && (c == ' ' || !Character.isWhitespace(c));
  }
}
