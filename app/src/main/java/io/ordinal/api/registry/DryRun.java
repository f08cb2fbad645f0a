package io.ordinal.api.registry;

import io.micronaut.http.HttpRequest;
import io.ordinal.apimachinery.ApiException;
import java.util.List;

/**
 * {@code ?dryRun=All}: the write is defaulted, validated and checked against the stored object, and
 * answered as if done, but nothing is stored, started or signalled.
 */
public final class DryRun {
  private DryRun() {}

  public static boolean requested(HttpRequest<?> request) {
    List<String> values = request.getParameters().getAll("dryRun");
    for (String value : values) {
      if (!value.equals("All")) {
        throw ApiException.badRequest("dryRun: Unsupported value: \"" + value + "\": supported values: \"All\"");
      }
    }
    return !values.isEmpty();
  }
}
