package io.ordinal.apimachinery;

import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.StatusCause;
import java.util.List;

/** An API error, answered as a Kubernetes {@code Status} object. */
public class ApiException extends RuntimeException {
  private final transient Status status;

  public ApiException(Status status) {
    super(status.getMessage());
    this.status = status;
  }

  public Status status() {
    return status;
  }

  public int code() {
    return status.getCode();
  }

  /** 409: a write named a resourceVersion the object has moved past (upstream's words). */
  public static ApiException modified(String resource, String name) {
    return of(409, "Conflict", "Operation cannot be fulfilled on " + resource + " \"" + name
        + "\": the object has been modified; please apply your changes to the latest version and try again");
  }

  public static ApiException of(int code, String reason, String message) {
    return new ApiException(new StatusBuilder().withApiVersion("v1").withKind("Status")
        .withNewMetadata().endMetadata()
        .withStatus("Failure").withCode(code).withReason(reason).withMessage(message).build());
  }

  public static ApiException badRequest(String message) {
    return of(400, "BadRequest", message);
  }

  public static ApiException notFound(String resource, String name) {
    return of(404, "NotFound", resource + " \"" + name + "\" not found");
  }

  /**
   * 403 Forbidden with upstream's details: the resource (plural, without subresource), its group
   * and the object's name, each left out when empty.
   */
  public static ApiException forbidden(String message, String group, String resource, String name) {
    StatusBuilder status = new StatusBuilder().withApiVersion("v1").withKind("Status")
        .withNewMetadata().endMetadata()
        .withStatus("Failure").withCode(403).withReason("Forbidden").withMessage(message);
    if (!resource.isEmpty()) {
      status.withNewDetails().withGroup(group.isEmpty() ? null : group).withKind(resource)
          .withName(name.isEmpty() ? null : name).endDetails();
    }
    return new ApiException(status.build());
  }

  public static ApiException unsupportedMediaType(String contentType, List<String> supported) {
    return of(415, "UnsupportedMediaType",
        "the body of the request was in an unknown format - accepted media types include: " + String.join(", ", supported)
            + (contentType == null ? "" : " (got " + contentType + ")"));
  }

  /** 422 Invalid, one cause per field error, as the Kubernetes API reports validation failures. */
  public static ApiException invalid(String group, String kind, String name, List<FieldError> errors) {
    String qualified = group.isEmpty() ? kind : kind + "." + group;
    String message = qualified + " \"" + name + "\" is invalid: "
        + String.join(", ", errors.stream().map(FieldError::describe).toList());
    List<StatusCause> causes = errors.stream()
        .map(e -> new StatusCause(e.field(), e.message(), e.reason())).toList();
    return new ApiException(new StatusBuilder().withApiVersion("v1").withKind("Status")
        .withNewMetadata().endMetadata()
        .withStatus("Failure").withCode(422).withReason("Invalid").withMessage(message)
        .withNewDetails().withName(name).withGroup(group.isEmpty() ? null : group).withKind(kind.toLowerCase() + "s")
          .withCauses(causes).endDetails()
        .build());
  }
}
