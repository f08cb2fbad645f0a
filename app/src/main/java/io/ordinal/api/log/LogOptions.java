package io.ordinal.api.log;

import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.StatusCause;
import io.ordinal.apimachinery.ApiException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;

/**
 * What a client asked of a log (the query of {@code GET .../pods/{name}/log}, upstream's
 * PodLogOptions), validated as the API server does.
 *
 * @param since lines written before it are left out (sinceSeconds or sinceTime); null for all
 * @param tailLines the last lines only, counted after {@code since}; null for all
 * @param limitBytes the answer stops after this many bytes; null for no limit
 * @param timestamps each line starts with its time (RFC3339, nine fraction digits) and a space
 */
public record LogOptions(Instant since, Integer tailLines, Long limitBytes, boolean timestamps) {

  public static final LogOptions ALL = new LogOptions(null, null, null, false);

  /**
   * Validates the query parameters: 422 Invalid as upstream's ValidatePodLogOptions for values out of
   * range or both since parameters, 400 for a sinceTime that is no RFC3339 time.
   */
  public static LogOptions of(String pod, Long sinceSeconds, String sinceTime, Integer tailLines, Long limitBytes,
      Boolean timestamps, Instant now) {
    List<StatusCause> errors = new ArrayList<>();
    if (tailLines != null && tailLines < 0) {
      errors.add(invalid("tailLines", tailLines, "must be greater than or equal to 0"));
    }
    if (limitBytes != null && limitBytes < 1) {
      errors.add(invalid("limitBytes", limitBytes, "must be greater than 0"));
    }
    if (sinceSeconds != null && sinceTime != null) {
      errors.add(new StatusCause("", "Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified",
          "FieldValueForbidden"));
    } else if (sinceSeconds != null && sinceSeconds < 1) {
      errors.add(invalid("sinceSeconds", sinceSeconds, "must be greater than 0"));
    }
    if (!errors.isEmpty()) {
      throw invalid(pod, errors);
    }
    Instant since = null;
    if (sinceSeconds != null) {
      // Far past values (up to Long.MAX_VALUE seconds) mean "everything", not an overflow.
      since = sinceSeconds >= now.getEpochSecond() ? Instant.EPOCH : now.minusSeconds(sinceSeconds);
    } else if (sinceTime != null) {
      since = parseTime(sinceTime);
    }
    return new LogOptions(since, tailLines, limitBytes, Boolean.TRUE.equals(timestamps));
  }

  /** An RFC3339 time, as {@code metav1.Time} reads a query parameter: an offset is required, fractions allowed. */
  static Instant parseTime(String value) {
    try {
      return OffsetDateTime.parse(value, DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant();
    } catch (DateTimeParseException e) {
      throw ApiException.badRequest("sinceTime: \"" + value + "\" is not an RFC3339 time (like 2006-01-02T15:04:05Z)");
    }
  }

  private static StatusCause invalid(String field, Object value, String detail) {
    return new StatusCause(field, "Invalid value: " + value + ": " + detail, "FieldValueInvalid");
  }

  /** 422 Invalid, with the kind upstream names: {@code PodLogOptions "web-0" is invalid: ...}. */
  private static ApiException invalid(String pod, List<StatusCause> causes) {
    String message = "PodLogOptions \"" + pod + "\" is invalid: " + String.join(", ",
        causes.stream().map(c -> c.getField().isEmpty() ? c.getMessage() : c.getField() + ": " + c.getMessage()).toList());
    return new ApiException(new StatusBuilder().withApiVersion("v1").withKind("Status")
        .withNewMetadata().endMetadata()
        .withStatus("Failure").withCode(422).withReason("Invalid").withMessage(message)
        .withNewDetails().withName(pod).withKind("PodLogOptions").withCauses(causes).endDetails()
        .build());
  }
}
