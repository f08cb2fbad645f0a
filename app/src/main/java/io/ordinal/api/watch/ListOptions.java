package io.ordinal.api.watch;

import io.micronaut.http.HttpRequest;
import io.ordinal.apimachinery.ApiException;
import java.util.List;

/**
 * The query parameters of a list or watch ({@code metav1.ListOptions}), checked as the API server
 * checks them.
 */
public record ListOptions(String labelSelector, String fieldSelector, boolean watch, String resourceVersion,
    String resourceVersionMatch, Long timeoutSeconds, boolean allowWatchBookmarks, Boolean sendInitialEvents,
    Integer limit, String continueToken) {

  public static ListOptions of(HttpRequest<?> request) {
    var p = request.getParameters();
    Long limit = number(p.get("limit"), "limit");
    ListOptions options = new ListOptions(p.get("labelSelector"), p.get("fieldSelector"),
        bool(p.get("watch"), "watch"), p.get("resourceVersion"), p.get("resourceVersionMatch"),
        number(p.get("timeoutSeconds"), "timeoutSeconds"), bool(p.get("allowWatchBookmarks"), "allowWatchBookmarks"),
        p.get("sendInitialEvents") == null ? null : bool(p.get("sendInitialEvents"), "sendInitialEvents"),
        limit == null ? null : (int) Math.clamp(limit, Integer.MIN_VALUE, Integer.MAX_VALUE),
        p.get("continue"));
    options.check();
    return options;
  }

  private void check() {
    if (resourceVersionMatch != null && !resourceVersionMatch.isEmpty()) {
      if (!List.of("NotOlderThan", "Exact").contains(resourceVersionMatch)) {
        throw ApiException.badRequest("resourceVersionMatch: Unsupported value: \"" + resourceVersionMatch
            + "\": supported values: \"Exact\", \"NotOlderThan\"");
      }
      if (watch && !(resourceVersionMatch.equals("NotOlderThan") && Boolean.TRUE.equals(sendInitialEvents))) {
        throw ApiException.badRequest("resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch"
            + " unless sendInitialEvents is provided");
      }
      if (!watch && (resourceVersion == null || resourceVersion.isEmpty())) {
        throw ApiException.badRequest("resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden"
            + " unless resourceVersion is provided");
      }
    }
    if (sendInitialEvents != null) {
      if (!watch) {
        throw ApiException.badRequest("sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list");
      }
      if (sendInitialEvents && !allowWatchBookmarks) {
        throw ApiException.badRequest("allowWatchBookmarks: Forbidden: allowWatchBookmarks required when"
            + " sendInitialEvents is true");
      }
      if (!"NotOlderThan".equals(resourceVersionMatch)) {
        throw ApiException.badRequest("resourceVersionMatch: Forbidden: sendInitialEvents requires setting"
            + " resourceVersionMatch to NotOlderThan");
      }
    }
    if (resourceVersion != null && !resourceVersion.isEmpty()) {
      resourceVersionNumber();
    }
    if (limit != null && limit < 0) {
      throw ApiException.badRequest("limit: Invalid value: " + limit + ": must be greater than or equal to 0");
    }
    if (timeoutSeconds != null && timeoutSeconds < 0) {
      throw ApiException.badRequest("timeoutSeconds: Invalid value: " + timeoutSeconds + ": must be greater than or equal to 0");
    }
  }

  /** Whether a watch starts with the current objects as ADDED (no resourceVersion, "0", or sendInitialEvents). */
  public boolean sendsInitialEvents() {
    if (sendInitialEvents != null) {
      return sendInitialEvents;
    }
    return resourceVersion == null || resourceVersion.isEmpty() || resourceVersion.equals("0");
  }

  public long resourceVersionNumber() {
    try {
      long version = Long.parseLong(resourceVersion);
      if (version < 0) {
        throw new NumberFormatException();
      }
      return version;
    } catch (NumberFormatException e) {
      throw ApiException.badRequest("resourceVersion: Invalid value: \"" + resourceVersion
          + "\": must be a non-negative integer");
    }
  }

  private static boolean bool(String value, String name) {
    if (value == null || value.isEmpty()) {
      return false;
    }
    return switch (value) {
      case "true", "1" -> true;
      case "false", "0" -> false;
      default -> throw ApiException.badRequest(name + ": Invalid value: \"" + value + "\": must be true or false");
    };
  }

  private static Long number(String value, String name) {
    if (value == null || value.isEmpty()) {
      return null;
    }
    try {
      return Long.parseLong(value);
    } catch (NumberFormatException e) {
      throw ApiException.badRequest(name + ": Invalid value: \"" + value + "\": must be an integer");
    }
  }
}
