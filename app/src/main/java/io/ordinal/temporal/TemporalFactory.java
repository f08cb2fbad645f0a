package io.ordinal.temporal;

import com.uber.m3.tally.RootScopeBuilder;
import com.uber.m3.tally.Scope;
import com.uber.m3.tally.ScopeCloseException;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Value;
import io.micronaut.core.annotation.Nullable;
import io.opentelemetry.opentracingshim.OpenTracingShim;
import io.ordinal.node.ThisNode;
import io.ordinal.runtime.ServingTls;
import io.ordinal.tracing.Tracing;
import io.ordinal.workflow.LargePayloadCodec;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.common.interceptors.WorkerInterceptor;
import io.temporal.common.reporter.MicrometerClientStatsReporter;
import io.temporal.opentracing.OpenTracingClientInterceptor;
import io.temporal.opentracing.OpenTracingOptions;
import io.temporal.opentracing.OpenTracingWorkerInterceptor;
import io.temporal.serviceclient.SimpleSslContextBuilder;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerFactoryOptions;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.List;
import javax.net.ssl.TrustManagerFactory;

@Factory
public class TemporalFactory {
  private Scope metricsScope;

  /**
   * The connection to Temporal: plain gRPC to the embedded dev server (loopback); to an external
   * one (Temporal Cloud, a self-hosted cluster) TLS and mTLS, and an API key, with the temporal
   * CLI's own variables ({@code TEMPORAL_TLS}, {@code TEMPORAL_TLS_CA}, {@code TEMPORAL_TLS_CERT},
   * {@code TEMPORAL_TLS_KEY} (PKCS#8 PEM), {@code TEMPORAL_TLS_SERVER_NAME}, {@code TEMPORAL_API_KEY}).
   */
  @Singleton
  WorkflowServiceStubs serviceStubs(@Value("${temporal.address}") String address,
      @Value("${ordinal.temporal.tls.enabled:false}") boolean tls,
      @Nullable @Value("${ordinal.temporal.tls.ca:}") String ca,
      @Nullable @Value("${ordinal.temporal.tls.cert:}") String cert,
      @Nullable @Value("${ordinal.temporal.tls.key:}") String key,
      @Nullable @Value("${ordinal.temporal.tls.server-name:}") String serverName,
      @Nullable @Value("${ordinal.temporal.api-key:}") String apiKey, MeterRegistry registry)
      throws IOException, GeneralSecurityException {
    WorkflowServiceStubsOptions.Builder options = WorkflowServiceStubsOptions.newBuilder().setTarget(address)
        .setMetricsScope(metricsScope(registry)).setHealthCheckAttemptTimeout(TemporalHealthIndicator.TIMEOUT);
    boolean withCa = ca != null && !ca.isBlank();
    boolean withCert = cert != null && !cert.isBlank();
    boolean withApiKey = apiKey != null && !apiKey.isBlank();
    if (tls || withCa || withCert || withApiKey) {
      SimpleSslContextBuilder ssl;
      if (withCert) {
        // Read at build(), not here: streams over the files' bytes, not open files.
        ssl = SimpleSslContextBuilder.forPKCS8(new ByteArrayInputStream(Files.readAllBytes(Path.of(cert))),
            new ByteArrayInputStream(Files.readAllBytes(Path.of(key))));
      } else {
        ssl = SimpleSslContextBuilder.noKeyOrCertChain();
      }
      if (withCa) {
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(ServingTls.trustStore(Path.of(ca)));
        ssl.setTrustManager(trust.getTrustManagers()[0]);
      }
      options.setSslContext(ssl.build());
      if (serverName != null && !serverName.isBlank()) {
        options.setChannelInitializer(channel -> channel.overrideAuthority(serverName));
      }
    }
    if (withApiKey) {
      options.addApiKey(() -> apiKey);
    }
    return WorkflowServiceStubs.newServiceStubs(options.build());
  }

  /**
   * The SDK's metrics (client, worker, and what workflows record through {@code Workflow.getMetricsScope()})
   * in the service's registry, reported every second so that {@code /metrics} lags them by at most that.
   */
  private Scope metricsScope(MeterRegistry registry) {
    metricsScope = new RootScopeBuilder().reporter(new MicrometerClientStatsReporter(registry))
        .reportEvery(com.uber.m3.util.Duration.ofSeconds(1));
    return metricsScope;
  }

  @PreDestroy
  void flushMetrics() throws ScopeCloseException {
    if (metricsScope != null) {
      metricsScope.close();
    }
  }

  @Singleton
  WorkflowClient workflowClient(WorkflowServiceStubs stubs, @Value("${temporal.namespace:default}") String namespace,
      ThisNode node, Tracing tracing) {
    // The SDK's default, pid@host, with the node's name: the Web UI then says which instance ran each task.
    WorkflowClientOptions.Builder options = WorkflowClientOptions.newBuilder().setNamespace(namespace)
        .setIdentity(ProcessHandle.current().pid() + "@" + node.name())
        .setDataConverter(LargePayloadCodec.dataConverter());
    if (Tracing.enabled()) {
      options.setInterceptors(new OpenTracingClientInterceptor(openTracing(tracing)));
    }
    return WorkflowClient.newInstance(stubs, options.build());
  }

  @Singleton
  WorkerFactory workerFactory(WorkflowClient client, Tracing tracing, DatabaseGate databaseGate) {
    // The last interceptor is the outermost: the tracing one opens a signal's span before ControllerTraces reads it.
    List<WorkerInterceptor> interceptors = List.of(databaseGate, new LogContext());
    if (Tracing.enabled()) {
      OpenTracingOptions options = openTracing(tracing);
      interceptors = List.of(databaseGate, new LogContext(), new ControllerTraces(options.getTracer()),
          new OpenTracingWorkerInterceptor(options));
    }
    return WorkerFactory.newInstance(client, WorkerFactoryOptions.newBuilder().setUsingVirtualWorkflowThreads(true)
        .setWorkerInterceptors(interceptors.toArray(WorkerInterceptor[]::new)).build());
  }

  /**
   * The Temporal SDK's tracing interceptors speak OpenTracing: OpenTelemetry's shim carries their
   * spans (StartWorkflow, SignalWithStartWorkflow, RunWorkflow, StartActivity, RunActivity...) into
   * the same traces as the API's, their context travelling in each call's Temporal headers.
   */
  private static OpenTracingOptions openTracing(Tracing tracing) {
    return OpenTracingOptions.newBuilder().setTracer(OpenTracingShim.createTracerShim(tracing.openTelemetry())).build();
  }
}
