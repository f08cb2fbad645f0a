package io.ordinal.api;

import io.ordinal.api.registry.WriteOptions;
import io.ordinal.api.registry.Deletion;
import io.fabric8.kubernetes.api.model.Endpoints;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventList;
import io.fabric8.kubernetes.api.model.ListMeta;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceList;
import io.fabric8.kubernetes.api.model.NamespaceListBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimList;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodList;
import io.fabric8.kubernetes.api.model.PodListBuilder;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Delete;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Patch;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.annotation.Put;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.http.server.types.files.StreamedFile;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import io.ordinal.api.log.LogOptions;
import io.ordinal.api.registry.Update;
import io.ordinal.api.watch.ListOptions;
import io.ordinal.api.watch.Watches;
import io.ordinal.apimachinery.ApiException;
import io.ordinal.apimachinery.KubeCodec;
import io.ordinal.apimachinery.KubeProtobuf;
import io.ordinal.store.EventRecorder;
import io.ordinal.store.PodStore;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.parameters.RequestBody;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.io.IOException;
import java.time.Instant;
import java.util.List;

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
