package io.ordinal.temporal;

import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Value;
import io.ordinal.workflow.LargePayloadCodec;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerFactoryOptions;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;

@Factory
public class TemporalFactory {

  @Singleton
  WorkflowServiceStubs serviceStubs(@Value("${temporal.address}") String address) {
    return WorkflowServiceStubs.newServiceStubs(WorkflowServiceStubsOptions.newBuilder().setTarget(address).build());
  }

  @Singleton
  WorkflowClient workflowClient(WorkflowServiceStubs stubs, @Value("${temporal.namespace:default}") String namespace) {
    return WorkflowClient.newInstance(stubs, WorkflowClientOptions.newBuilder().setNamespace(namespace)
        .setDataConverter(LargePayloadCodec.dataConverter()).build());
  }

  @Singleton
  WorkerFactory workerFactory(WorkflowClient client) {
    return WorkerFactory.newInstance(client,
        WorkerFactoryOptions.newBuilder().setUsingVirtualWorkflowThreads(true).build());
  }
}
