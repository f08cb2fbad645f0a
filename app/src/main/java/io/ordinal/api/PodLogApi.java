package io.ordinal.api;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.http.server.types.files.StreamedFile;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import io.ordinal.api.log.LogOptions;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.io.IOException;
import java.time.Instant;

/** {@code pods/log}: a container's log, as text or followed. */
@Controller("/api/v1")
@ExecuteOn(TaskExecutors.BLOCKING)
@Tag(name = "v1")
public class PodLogApi {
  private static final String NS = "/namespaces/{namespace}";

  private final PodService podService;

  public PodLogApi(PodService podService) {
    this.podService = podService;
  }

  @Get(value = NS + "/pods/{name}/log", produces = MediaType.TEXT_PLAIN)
  @Operation(summary = "A container's log (local driver): container, previous, follow, sinceSeconds, sinceTime, "
      + "tailLines, limitBytes, timestamps")
  public HttpResponse<?> podLog(String namespace, String name, @Nullable @QueryValue String container,
      @Nullable @QueryValue Integer tailLines, @Nullable @QueryValue Boolean previous,
      @Nullable @QueryValue Boolean follow, @Nullable @QueryValue Long sinceSeconds,
      @Nullable @QueryValue String sinceTime, @Nullable @QueryValue Long limitBytes,
      @Nullable @QueryValue Boolean timestamps) throws IOException {
    LogOptions options = LogOptions.of(name, sinceSeconds, sinceTime, tailLines, limitBytes, timestamps, Instant.now());
    return switch (podService.log(namespace, name, container, options, Boolean.TRUE.equals(previous),
        Boolean.TRUE.equals(follow))) {
      case PodService.PodLog.Following following ->
          HttpResponse.ok(new StreamedFile(following.stream(), MediaType.TEXT_PLAIN_TYPE));
      case PodService.PodLog.Text text -> HttpResponse.ok(text.text()).contentType(MediaType.TEXT_PLAIN);
    };
  }
}
