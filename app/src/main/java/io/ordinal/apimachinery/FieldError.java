package io.ordinal.apimachinery;

/**
 * One validation failure, in the shape of a Kubernetes {@code StatusCause}.
 *
 * @param reason {@code FieldValueInvalid}, {@code FieldValueRequired}, {@code FieldValueNotSupported},
 *     {@code FieldValueDuplicate}, {@code FieldValueForbidden}, {@code FieldValueTooLong} or {@code FieldValueNotFound}
 * @param field the field path, e.g. {@code spec.template.spec.containers[0].name}
 */
public record FieldError(String reason, String field, String message) {

  public static FieldError invalid(String field, Object value, String detail) {
    return new FieldError("FieldValueInvalid", field, "Invalid value: " + render(value) + ": " + detail);
  }

  public static FieldError required(String field, String detail) {
    return new FieldError("FieldValueRequired", field, "Required value" + (detail.isEmpty() ? "" : ": " + detail));
  }

  public static FieldError notSupported(String field, Object value, String... supported) {
    return new FieldError("FieldValueNotSupported", field,
        "Unsupported value: " + render(value) + ": supported values: \"" + String.join("\", \"", supported) + "\"");
  }

  public static FieldError duplicate(String field, Object value) {
    return new FieldError("FieldValueDuplicate", field, "Duplicate value: " + render(value));
  }

  public static FieldError forbidden(String field, String detail) {
    return new FieldError("FieldValueForbidden", field, "Forbidden: " + detail);
  }

  /** Upstream's TooLong: the value itself is not repeated (it may be a Secret's data). */
  public static FieldError tooLong(String field, int maxBytes) {
    return new FieldError("FieldValueTooLong", field, "Too long: may not be more than " + maxBytes + " bytes");
  }

  public static FieldError notFound(String field, Object value) {
    return new FieldError("FieldValueNotFound", field, "Not found: " + render(value));
  }

  /** Kubernetes renders the full message as {@code <field>: <detail>}. */
  public String describe() {
    return field + ": " + message;
  }

  private static String render(Object value) {
    return value instanceof String s ? "\"" + s + "\"" : String.valueOf(value);
  }
}
