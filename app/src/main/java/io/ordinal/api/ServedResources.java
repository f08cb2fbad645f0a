package io.ordinal.api;

import io.fabric8.kubernetes.api.model.Endpoints;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.micronaut.transaction.TransactionOperations;
import io.ordinal.api.core.ConfigStrategies;
import io.ordinal.api.core.ServiceStrategy;
import io.ordinal.api.discovery.ApiResources;
import io.ordinal.api.rbac.RbacStrategy;
import io.ordinal.api.registry.GenericStore;
import io.ordinal.api.registry.NamespaceLifecycle;
import io.ordinal.api.registry.ObjectStorage;
import io.ordinal.api.registry.Strategy;
import io.ordinal.api.statefulset.RevisionStorage;
import io.ordinal.apimachinery.ApiException;
import io.ordinal.auth.Authorization;
import io.ordinal.auth.rbac.Rbac;
import io.ordinal.store.ClusterIps;
import io.ordinal.store.EventRecorder;
import io.ordinal.store.ObjectStore;
import io.ordinal.store.ObjectTable;
import io.ordinal.store.PodStore;
import io.ordinal.store.RevisionStore;
import io.ordinal.store.StatefulSetStore;
import io.ordinal.temporal.SetSignals;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Every resource the generic routes serve, keyed by group, version and plural name (upstream's
 * storage map of {@code endpoints/installer.go}). Each entry names its description in
 * {@link ApiResources}, from which discovery, the OpenAPI documents and the metrics' labels come too;
 * the service does not start while a described resource has no entry here or an entry lists a
 * write verb without a store.
 */
@Singleton
public class ServedResources {
  private final Map<String, ServedResource<?>> served = new LinkedHashMap<>();

  public ServedResources(StatefulSetService sets, PodService podService, NamespaceService namespaces, PodStore pods,
      EventRecorder events, RevisionStore revisions, StatefulSetStore setStore, SetSignals signals, Rbac rbac,
      ObjectStore objects, ClusterIps clusterIps, ServiceEndpoints endpoints,
      TransactionOperations<Connection> tx, NamespaceLifecycle lifecycle, Authorization authorization) {
    add(ServedResource.written(sets.store(),
        new Collection<>("statefulsets", StatefulSet.class, "apps/v1", "StatefulSet", sets::list)));
    add(ServedResource.written(
        new GenericStore<>(RevisionStorage.strategy(setStore, signals), new RevisionStorage(revisions), tx, lifecycle,
            authorization),
        new Collection<>("controller_revisions", ControllerRevision.class, "apps/v1", "ControllerRevision",
            revisions::list)));
    add(ServedResource.written(podService.pods(),
        new Collection<>("pods", Pod.class, "v1", "Pod", (Collection.Lister<Pod>) pods::list)));
    add(ServedResource.written(podService.claims(), new Collection<>("persistent_volume_claims",
        PersistentVolumeClaim.class, "v1", "PersistentVolumeClaim", pods::listClaims)));
    add(ServedResource.readOnly(ApiResources.EVENTS, new Collection<>("events", Event.class, "v1", "Event", events::list),
        (namespace, name) -> events.find(namespace, name).orElseThrow(() -> ApiException.notFound("events", name))));
    add(ServedResource.readOnly(ApiResources.ENDPOINTS,
        new Collection<>("endpoints", Endpoints.class, "v1", "Endpoints", namespace -> List.of()),
        endpoints::get));
    // Written by EndpointSliceController only; read as any stored kind, watched through the watch log.
    add(ServedResource.readOnly(ApiResources.ENDPOINT_SLICES,
        new Collection<>(ObjectTable.ENDPOINT_SLICES.table(), EndpointSlice.class, "discovery.k8s.io/v1", "EndpointSlice",
            namespace -> objects.list(ObjectTable.ENDPOINT_SLICES, EndpointSlice.class, namespace)),
        (namespace, name) -> objects.find(ObjectTable.ENDPOINT_SLICES, EndpointSlice.class, namespace, name)
            .orElseThrow(() -> ApiException.notFound("endpointslices.discovery.k8s.io", name))));
    add(ServedResource.written(namespaces.store(),
        new Collection<>("namespaces", Namespace.class, "v1", "Namespace", namespace -> namespaces.list())));
    for (ObjectTable kind : ObjectTable.RBAC) {
      add(rbacResource(kind, objects, rbac, tx, lifecycle, authorization));
    }
    add(objectResource(ConfigStrategies.configMaps(), ObjectTable.CONFIG_MAPS, objects, tx, lifecycle, authorization));
    add(objectResource(ConfigStrategies.secrets(), ObjectTable.SECRETS, objects, tx, lifecycle, authorization));
    add(objectResource(ConfigStrategies.serviceAccounts(), ObjectTable.SERVICE_ACCOUNTS, objects, tx, lifecycle,
        authorization));
    add(objectResource(new ServiceStrategy(clusterIps), ObjectTable.SERVICES, objects, tx, lifecycle, authorization));
    check();
  }

  /** The resource {@code plural} of the group version, if served. */
  public Optional<ServedResource<?>> find(String group, String version, String plural) {
    return Optional.ofNullable(served.get(key(group, version, plural)));
  }

  /** A kind kept whole in its table, with a strategy of its own. */
  private static <T extends HasMetadata> ServedResource<T> objectResource(Strategy<T> strategy, ObjectTable table,
      ObjectStore objects, TransactionOperations<Connection> tx, NamespaceLifecycle lifecycle, Authorization authorization) {
    Class<T> type = strategy.resource().type();
    var store = new GenericStore<>(strategy, new ObjectStorage<>(objects, table, type), tx, lifecycle, authorization);
    return ServedResource.written(store, new Collection<>(table.table(), type, store.resource().apiVersion(),
        table.kind(), namespace -> objects.list(table, type, namespace)));
  }

  private static <T extends HasMetadata> ServedResource<T> rbacResource(ObjectTable kind, ObjectStore objects, Rbac rbac,
      TransactionOperations<Connection> tx, NamespaceLifecycle lifecycle, Authorization authorization) {
    @SuppressWarnings("unchecked")
    Class<T> type = (Class<T>) kind.type();
    var store = new GenericStore<>(new RbacStrategy<>(kind, type, rbac), new ObjectStorage<>(objects, kind, type, rbac::written),
        tx, lifecycle, authorization);
    var collection = new Collection<>(kind.table(), type, store.resource().apiVersion(), kind.kind(),
        namespace -> rbac.list(kind, type, namespace));
    // Upstream answers the deletion of an RBAC object with a Status.
    return new ServedResource<>(store.resource().description(), collection, store::get, store, true);
  }

  private void add(ServedResource<?> resource) {
    var d = resource.description();
    served.put(key(d.group(), d.version(), d.plural()), resource);
  }

  /** Every described resource is served (the reviews have routes of their own), and every write verb has a store. */
  private void check() {
    Stream.concat(Stream.of(ApiResources.CORE), ApiResources.GROUPS.stream())
        .flatMap(group -> group.resources().stream())
        .filter(d -> !served.containsKey(key(d.group(), d.version(), d.plural())))
        .findFirst().ifPresent(d -> {
          throw new IllegalStateException("described but not served: " + d.plural() + " of " + d.groupVersion());
        });
    for (ServedResource<?> resource : served.values()) {
      boolean writes = resource.description().verbs().stream()
          .anyMatch(v -> List.of("create", "update", "patch", "delete", "deletecollection").contains(v));
      if (writes) {
        resource.writer();
      }
    }
  }

  private static String key(String group, String version, String plural) {
    return group + "/" + version + "/" + plural;
  }
}
