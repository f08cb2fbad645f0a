package io.ordinal.cluster;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.annotation.Value;
import jakarta.inject.Singleton;
import java.io.File;

/**
 * The connection to a Kubernetes cluster, made when {@code ordinal.kubernetes.enabled} is true: from
 * {@code ordinal.kubernetes.kubeconfig} when given, else as kubectl finds one ({@code KUBECONFIG},
 * {@code ~/.kube/config}) or, inside a pod, from its service account.
 */
@Factory
@Requires(property = "ordinal.kubernetes.enabled", value = "true")
public class ClusterClientFactory {

  @Singleton
  @Bean(preDestroy = "close")
  KubernetesClient kubernetesClient(@Value("${ordinal.kubernetes.kubeconfig:}") String kubeconfig) {
    Config config = kubeconfig.isEmpty() ? Config.autoConfigure(null) : Config.fromKubeconfig(new File(kubeconfig));
    return new KubernetesClientBuilder().withConfig(config).build();
  }
}
