package io.ordinal.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.Filter;
import io.micronaut.http.filter.HttpServerFilter;
import io.micronaut.http.filter.ServerFilterChain;
import io.ordinal.api.discovery.ApiResources;
import io.ordinal.request.RequestAttributes;
import io.ordinal.request.RequestFilters;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;

/**
 * The API server's request metrics, by Kubernetes verb, resource and subresource, as kube-apiserver
 * labels its {@code apiserver_request_total} and {@code apiserver_request_duration_seconds}: every
 * request is counted with its code; the duration (until the response starts) leaves out watches and
 * the streaming subresources, whose length is the client's choice.
 */
@Filter(Filter.MATCH_ALL_PATTERN)
public class ApiMetricsFilter implements HttpServerFilter {
  static final Set<String> STREAMING = Set.of("exec", "attach", "portforward", "log");
  /**
   * Resources and subresources served; any other name a client puts in a path is {@code other}, so
   * that requests for made-up resources cannot grow the series without bound.
   */
  static final Set<String> RESOURCES = served(false);
  static final Set<String> SUBRESOURCES = served(true);

  private final MeterRegistry registry;

  public ApiMetricsFilter(MeterRegistry registry) {
    this.registry = registry;
  }

  @Override
  public int getOrder() {
    return RequestFilters.METRICS;
  }

  @Override
  public Publisher<MutableHttpResponse<?>> doFilter(HttpRequest<?> request, ServerFilterChain chain) {
    long start = System.nanoTime();
    return Flux.from(chain.proceed(request)).doOnNext(response -> {
      RequestAttributes attributes = RequestAttributes.of(request);
      String verb = attributes.verb().isEmpty() ? "other" : attributes.verb();
      String resource = label(attributes.resource(), RESOURCES);
      String subresource = label(attributes.subresource(), SUBRESOURCES);
      Counter.builder("ordinal.api.requests").description("API requests by verb, resource, subresource and code")
          .tags("verb", verb, "resource", resource, "subresource", subresource, "code", Integer.toString(response.code()))
          .register(registry).increment();
      if (!"watch".equals(verb) && !STREAMING.contains(subresource)) {
        Timer.builder("ordinal.api.request.duration").description("API request latency until the response starts")
            .tags("verb", verb, "resource", resource, "subresource", subresource)
            .register(registry).record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
      }
    });
  }

  private static String label(String name, Set<String> served) {
    return name.isEmpty() || served.contains(name) ? name : "other";
  }

  private static Set<String> served(boolean subresources) {
    Set<String> names = new HashSet<>(subresources ? Set.of("rollout", "attach", "portforward") : Set.of("tokens"));
    for (ApiResources.Group group : Stream.concat(Stream.of(ApiResources.CORE), ApiResources.DISCOVERED_GROUPS.stream()).toList()) {
      for (ApiResources.Resource resource : group.resources()) {
        if (subresources) {
          resource.subresources().forEach(sub -> names.add(sub.name()));
        } else {
          names.add(resource.plural());
        }
      }
    }
    return Set.copyOf(names);
  }
}
