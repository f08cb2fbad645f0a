package io.ordinal.tracing;

import io.micronaut.core.propagation.PropagatedContext;
import io.micronaut.core.propagation.ThreadPropagatedContextElement;
import io.micronaut.http.BasicHttpAttributes;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.Filter;
import io.micronaut.http.filter.HttpServerFilter;
import io.micronaut.http.filter.ServerFilterChain;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.ordinal.request.RequestAttributes;
import io.ordinal.request.RequestFilters;
import io.ordinal.request.User;
import java.util.Set;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;

/**
 * A server span for each API request (when tracing is on), a child of the caller's trace when the
 * request carries a W3C {@code traceparent}. The span is the current context wherever Micronaut runs
 * the request (the blocking pool included), so the Temporal client's interceptor and the controller
 * outbox carry it on into the workflows. Named as OpenTelemetry's HTTP conventions say
 * ({@code METHOD route}) with the Kubernetes verb, resource and user as attributes, like the audit log.
 * A watch's or a stream's span ends when its response starts: it covers the request, not the hours
 * the connection may stay open.
 */
@Filter(Filter.MATCH_ALL_PATTERN)
public class TracingFilter implements HttpServerFilter {
  private static final TextMapGetter<HttpHeaders> HEADERS = new TextMapGetter<>() {
    @Override
    public Iterable<String> keys(HttpHeaders carrier) {
      return carrier.names();
    }

    @Override
    public String get(HttpHeaders carrier, String key) {
      return carrier == null ? null : carrier.get(key);
    }
  };

  /** Probes and scrapes: a trace each, every few seconds, would bury the requests worth tracing. */
  private static final Set<String> UNTRACED = Set.of("/health", "/livez", "/readyz", "/metrics");
  private final Tracing tracing;

  public TracingFilter(Tracing tracing) {
    this.tracing = tracing;
  }

  @Override
  public int getOrder() {
    return RequestFilters.TRACING;
  }

  @Override
  public Publisher<MutableHttpResponse<?>> doFilter(HttpRequest<?> request, ServerFilterChain chain) {
    if (!Tracing.enabled() || UNTRACED.contains(request.getPath())) {
      return chain.proceed(request);
    }
    Context parent = tracing.openTelemetry().getPropagators().getTextMapPropagator()
        .extract(Context.root(), request.getHeaders(), HEADERS);
    Span span = tracing.tracer().spanBuilder(request.getMethodName()).setParent(parent).setSpanKind(SpanKind.SERVER)
        .setAttribute("http.request.method", request.getMethodName())
        .setAttribute("url.path", request.getPath())
        .startSpan();
    Context context = parent.with(span);
    Publisher<MutableHttpResponse<?>> response;
    // The chain takes the propagated context as it is called, here, not when the response is subscribed to.
    try (PropagatedContext.Scope ignored = PropagatedContext.getOrEmpty().plus(new CurrentContext(context)).propagate()) {
      response = chain.proceed(request);
    } catch (RuntimeException e) {
      failed(span, e);
      span.end();
      throw e;
    }
    return Flux.from(response)
        .doOnNext(reply -> describe(span, request, reply.code()))
        .doOnError(error -> failed(span, error))
        .doFinally(signal -> span.end());
  }

  private static void failed(Span span, Throwable error) {
    span.recordException(error);
    span.setStatus(StatusCode.ERROR);
  }

  /** What the request turned out to be, once the router and authentication have said. */
  private static void describe(Span span, HttpRequest<?> request, int code) {
    RequestAttributes attributes = RequestAttributes.of(request);
    BasicHttpAttributes.getUriTemplate(request).ifPresent(template -> {
      // The generic routes name the group, version and resource as variables; the route of a span is the resource's.
      String route = template.replace("{group}", attributes.apiGroup()).replace("{version}", attributes.apiVersion())
          .replace("{resource}", attributes.resource());
      span.updateName(request.getMethodName() + " " + route);
      span.setAttribute("http.route", route);
    });
    span.setAttribute("http.response.status_code", code);
    if (code >= 500) {
      span.setStatus(StatusCode.ERROR);
    }
    span.setAttribute("k8s.verb", attributes.verb());
    if (attributes.resourceRequest()) {
      setUnlessEmpty(span, "k8s.resource", attributes.resource());
      setUnlessEmpty(span, "k8s.subresource", attributes.subresource());
      setUnlessEmpty(span, "k8s.namespace.name", attributes.namespace());
      setUnlessEmpty(span, "k8s.object.name", attributes.name());
    }
    User.of(request).ifPresent(user -> span.setAttribute("enduser.id", user.name()));
  }

  private static void setUnlessEmpty(Span span, String key, String value) {
    if (!value.isEmpty()) {
      span.setAttribute(key, value);
    }
  }

  /** Makes the request's span current on each thread Micronaut runs the request on. */
  private record CurrentContext(Context context) implements ThreadPropagatedContextElement<Scope> {
    @Override
    public Scope updateThreadContext() {
      return context.makeCurrent();
    }

    @Override
    public void restoreThreadContext(Scope scope) {
      scope.close();
    }
  }
}
