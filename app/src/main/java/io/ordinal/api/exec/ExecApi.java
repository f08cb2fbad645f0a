package io.ordinal.api.exec;

import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Post;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import io.ordinal.api.PodService;
import io.ordinal.apimachinery.ApiException;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.Locale;

/** The POST of {@code pods/exec}; its GET is the WebSocket of {@link ExecSocket}. */
@Controller
@ExecuteOn(TaskExecutors.BLOCKING)
@Tag(name = "v1")
public class ExecApi {
  private final PodService pods;

  public ExecApi(PodService pods) {
    this.pods = pods;
  }

  /**
   * Exec as a POST: kubectl's SPDY fallback, which it tries only when the WebSocket upgrade (a GET,
   * served by {@code ExecSocket}) failed. Checked like the upgrade, so kubectl shows the real reason
   * (say, an unknown container); a valid one is refused, since the streams need the WebSocket protocol.
   */
  @Post(value = "/api/v1/namespaces/{namespace}/pods/{name}/exec", consumes = MediaType.ALL, produces = MediaType.APPLICATION_JSON)
  @Operation(summary = "Run a command in a container: WebSocket only (GET with v5.channel.k8s.io); "
      + "a POST (SPDY) is checked, then refused")
  public HttpResponse<String> execWithoutWebSocket(HttpRequest<?> request, String namespace, String name) {
    pods.execTarget(namespace, name, ExecOptions.parse(request.getParameters()).container());
    String upgrade = request.getHeaders().get(HttpHeaders.UPGRADE);
    if (upgrade != null && upgrade.toLowerCase(Locale.ROOT).startsWith("spdy")) {
      throw ApiException.badRequest("exec needs the WebSocket protocol (kubectl 1.31+); SPDY is not supported");
    }
    throw ApiException.badRequest(ExecUpgradeFilter.UPGRADE_REQUIRED);
  }
}
