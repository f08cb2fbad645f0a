package io.ordinal.api.registry;

import io.fabric8.kubernetes.api.model.DeleteOptions;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.micronaut.http.HttpRequest;
import io.ordinal.apimachinery.ApiException;
import io.ordinal.apimachinery.KubeProtobuf;
import io.ordinal.store.StatefulSetStore.Propagation;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;

/**
 * A DELETE's options ({@code metav1.DeleteOptions}), from the body kubectl sends or the query:
 * propagationPolicy (Background when none is given, as upstream's default for apps/v1; the
 * deprecated orphanDependents still says Orphan), preconditions, dryRun.
 */
public record Deletion(Propagation propagation, boolean dryRun, String uid, String resourceVersion) {

  /** From a body sent as JSON, YAML or protobuf (client-go's typed clients send protobuf: Helm's release store). */
  public static Deletion of(HttpRequest<?> request, byte[] body) {
    DeleteOptions options = body == null || new String(body, StandardCharsets.UTF_8).isBlank() ? new DeleteOptions()
        : KubeProtobuf.read(request, body, DeleteOptions.class);
    String policy = request.getParameters().get("propagationPolicy");
    if (policy == null) {
      policy = options.getPropagationPolicy();
    }
    if (policy != null && !List.of("Orphan", "Background", "Foreground").contains(policy)) {
      throw ApiException.badRequest("propagationPolicy: Unsupported value: \"" + policy
          + "\": supported values: \"Foreground\", \"Background\", \"Orphan\"");
    }
    Propagation propagation = policy != null ? Propagation.valueOf(policy.toUpperCase(Locale.ROOT))
        : Boolean.TRUE.equals(options.getOrphanDependents()) ? Propagation.ORPHAN : Propagation.BACKGROUND;
    boolean dryRun = DryRun.requested(request);
    if (options.getDryRun() != null && !options.getDryRun().isEmpty()) {
      if (!options.getDryRun().equals(List.of("All"))) {
        throw ApiException.badRequest("dryRun: Unsupported value: " + options.getDryRun() + ": supported values: \"All\"");
      }
      dryRun = true;
    }
    var preconditions = options.getPreconditions();
    return new Deletion(propagation, dryRun, preconditions == null ? null : preconditions.getUid(),
        preconditions == null ? null : preconditions.getResourceVersion());
  }

  /** 409 when the object is not the one the preconditions name. */
  public void check(HasMetadata object, String resource) {
    String name = object.getMetadata().getName();
    if (uid != null && !uid.equals(object.getMetadata().getUid())) {
      throw ApiException.of(409, "Conflict", "Operation cannot be fulfilled on " + resource + " \"" + name
          + "\": Precondition failed: UID in precondition: " + uid + ", UID in object meta: " + object.getMetadata().getUid());
    }
    if (resourceVersion != null && !resourceVersion.equals(object.getMetadata().getResourceVersion())) {
      throw ApiException.of(409, "Conflict", "Operation cannot be fulfilled on " + resource + " \"" + name
          + "\": Precondition failed: ResourceVersion in precondition: " + resourceVersion
          + ", ResourceVersion in object meta: " + object.getMetadata().getResourceVersion());
    }
  }
}
