package io.ordinal.api.exec;

import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpMethod;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.Filter;
import io.micronaut.http.filter.HttpServerFilter;
import io.micronaut.http.filter.ServerFilterChain;
import io.micronaut.http.server.netty.NettyHttpRequest;
import io.micronaut.scheduling.TaskExecutors;
import io.ordinal.api.PodService;
import io.ordinal.apimachinery.ApiException;
import io.ordinal.apimachinery.KubeCodec;
import io.ordinal.request.RequestFilters;
import jakarta.inject.Named;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Answers a bad exec with a Status before the WebSocket upgrade, as the API server does (an unknown
 * pod 404, an unknown container or a container that is not running 400): after the upgrade kubectl
 * would only see a broken stream. A GET without the upgrade is answered here too (its route is the
 * WebSocket's); a POST goes on to {@code CoreApi}.
 */
@Filter(value = "/api/v1/namespaces/*/pods/*/exec", methods = HttpMethod.GET)
public class ExecUpgradeFilter implements HttpServerFilter {
  /** Upstream's answer to an exec that is not an upgrade request. */
  public static final String UPGRADE_REQUIRED = "Upgrade request required";

  private final PodService pods;
  private final ExecutorService blocking;

  public ExecUpgradeFilter(PodService pods, @Named(TaskExecutors.BLOCKING) ExecutorService blocking) {
    this.pods = pods;
    this.blocking = blocking;
  }

  /** After authentication and authorization: who may not exec learns nothing of the pod (not even 404). */
  @Override
  public int getOrder() {
    return RequestFilters.EXEC_UPGRADE;
  }

  /**
   * The check reads the store, so it runs on the blocking pool; the upgrade then goes on on the
   * connection's event loop. That matters: Micronaut upgrades the connection on the thread the
   * filters finish on, and off the event loop the 101 can reach kubectl before the WebSocket handler
   * is in place, so kubectl's first frames (its stdin) would land in the HTTP handler and be lost.
   */
  @Override
  public Publisher<MutableHttpResponse<?>> doFilter(HttpRequest<?> request, ServerFilterChain chain) {
    String[] path = request.getPath().split("/"); // "", api, v1, namespaces, {namespace}, pods, {name}, exec
    if (path.length != 8 || !(request instanceof NettyHttpRequest<?> netty)) {
      return chain.proceed(request);
    }
    boolean upgrade = "websocket".equalsIgnoreCase(request.getHeaders().get(HttpHeaders.UPGRADE));
    return Mono.fromCallable(() -> refusal(request, path[4], path[6], upgrade))
        .subscribeOn(Schedulers.fromExecutorService(blocking))
        .publishOn(Schedulers.fromExecutor(netty.getChannelHandlerContext().executor()))
        .flatMap(refusal -> refusal.isPresent() ? Mono.just(refusal.get()) : Mono.from(chain.proceed(request)));
  }

  /** The Status that answers this exec instead of an upgrade, if it cannot run (or is not an upgrade). */
  private Optional<MutableHttpResponse<?>> refusal(HttpRequest<?> request, String namespace, String name,
      boolean upgrade) {
    try {
      pods.execTarget(namespace, name, ExecOptions.parse(request.getParameters()).container());
      if (!upgrade) {
        throw ApiException.badRequest(UPGRADE_REQUIRED);
      }
      return Optional.empty();
    } catch (ApiException e) {
      return Optional.of(KubeCodec.respond(request, e.code(), e.status()));
    }
  }
}
