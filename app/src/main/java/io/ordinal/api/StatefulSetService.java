package io.ordinal.api;

import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.autoscaling.v1.Scale;
import io.fabric8.kubernetes.api.model.autoscaling.v1.ScaleBuilder;
import io.micronaut.transaction.TransactionOperations;
import io.ordinal.api.registry.Deletion;
import io.ordinal.api.registry.GenericStore;
import io.ordinal.api.registry.NamespaceLifecycle;
import io.ordinal.api.registry.Update;
import io.ordinal.api.registry.WriteOptions;
import io.ordinal.api.statefulset.NodePlacement;
import io.ordinal.api.statefulset.StatefulSetStatusStrategy;
import io.ordinal.api.statefulset.StatefulSetStorage;
import io.ordinal.api.statefulset.StatefulSetStrategy;
import io.ordinal.apimachinery.ApiException;
import io.ordinal.apimachinery.FieldError;
import io.ordinal.auth.Authorization;
import io.ordinal.driver.DriverRegistry;
import io.ordinal.kube.LabelSelectors;
import io.ordinal.podsecurity.PodSecurityAdmission;
import io.ordinal.store.RevisionStore;
import io.ordinal.store.StatefulSetStore;
import io.ordinal.temporal.SetSignals;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * The StatefulSet resource and its status and scale subresources, on the generic store
 * ({@link StatefulSetStrategy}: defaults, validation, Pod Security, a signal to the set's
 * controller workflow committed with the change).
 */
@Singleton
public class StatefulSetService {
  static final String GROUP = "apps";

  private final StatefulSetStore store;
  private final SetSignals signals;
  private final RevisionStore revisions;
  private final TransactionOperations<Connection> tx;
  private final GenericStore<StatefulSet> sets;
  private final GenericStore<StatefulSet> statuses;
  private final GenericStore<StatefulSet> scales;

  public StatefulSetService(StatefulSetStore store, SetSignals signals, DriverRegistry drivers, RevisionStore revisions,
      PodSecurityAdmission podSecurity, TransactionOperations<Connection> tx, NodePlacement placement,
      NamespaceLifecycle lifecycle, Authorization authorization) {
    this.store = store;
    this.signals = signals;
    this.revisions = revisions;
    this.tx = tx;
    StatefulSetStorage storage = new StatefulSetStorage(store);
    this.sets = new GenericStore<>(new StatefulSetStrategy(signals, drivers, podSecurity, placement, null), storage, tx,
        lifecycle, authorization);
    this.scales = new GenericStore<>(new StatefulSetStrategy(signals, drivers, podSecurity, placement, "scale"), storage, tx, lifecycle,
        authorization);
    this.statuses = new GenericStore<>(new StatefulSetStatusStrategy(), storage.status(), tx, lifecycle, authorization);
  }

  /** The store of the main resource, which the generic routes write through. */
  public GenericStore<StatefulSet> store() {
    return sets;
  }

  public List<StatefulSet> list(String namespace) {
    return store.listVisible(namespace);
  }

  public StatefulSet get(String namespace, String name) {
    return sets.get(namespace, name);
  }

  public StatefulSet create(String namespace, StatefulSet set, WriteOptions options) {
    return sets.create(namespace, set, options);
  }

  /** PUT: replaces metadata and spec; status is ignored, as on the main resource upstream. */
  public StatefulSet replace(String namespace, String name, StatefulSet set, WriteOptions options) {
    return sets.update(namespace, name, Update.replacing(set), options);
  }

  /**
   * PATCH: applied to the stored object server-side. Unless the patch pins a resourceVersion of its
   * own, a concurrent write (for example a status update) makes it re-apply to the newer object, as
   * the Kubernetes API server does, instead of failing with 409.
   */
  public StatefulSet patch(String namespace, String name, WriteOptions options, UnaryOperator<StatefulSet> patch) {
    return sets.update(namespace, name, Update.patching(patch), options);
  }

  public StatefulSet delete(String namespace, String name, Deletion options) {
    return sets.delete(namespace, name, options);
  }

  /** PUT on /status: only the status changes (metadata and spec of the body are ignored, as upstream). */
  public StatefulSet replaceStatus(String namespace, String name, StatefulSet set, WriteOptions options) {
    return statuses.update(namespace, name, Update.replacing(set), options);
  }

  public StatefulSet patchStatus(String namespace, String name, WriteOptions options, UnaryOperator<StatefulSet> patch) {
    return statuses.update(namespace, name, Update.patching(patch), options);
  }

  public Scale scale(String namespace, String name) {
    return scaleOf(get(namespace, name));
  }

  /** PUT on /scale: only spec.replicas changes; resourceVersion is checked like on the set. */
  public Scale replaceScale(String namespace, String name, Scale scale, WriteOptions options) {
    return patchScale(namespace, name, current -> scale, options);
  }

  /**
   * PATCH (and PUT) on /scale, as upstream's scale subresource: the Scale made from the set now, changed,
   * carried back into the set's spec.replicas; re-applied to a newer set after a racing write unless
   * it names a resourceVersion.
   */
  public Scale patchScale(String namespace, String name, UnaryOperator<Scale> patch, WriteOptions options) {
    StatefulSet written = scales.update(namespace, name, Update.patching(set -> {
      Scale current = scaleOf(set);
      Scale changed = patch.apply(current);
      if (changed.getMetadata() != null && changed.getMetadata().getName() != null && !name.equals(changed.getMetadata().getName())) {
        throw ApiException.badRequest("the name of the object (" + changed.getMetadata().getName()
            + ") does not match the name on the URL (" + name + ")");
      }
      set.getSpec().setReplicas(replicas(name, changed));
      String version = changed.getMetadata() == null ? null : changed.getMetadata().getResourceVersion();
      if (version != null && !version.isEmpty()) {
        set.getMetadata().setResourceVersion(version);
      }
      return set;
    }), options);
    return options.dryRun() ? scaleOf(written) : scale(namespace, name);
  }

  private static int replicas(String name, Scale scale) {
    Integer replicas = scale.getSpec() == null ? null : scale.getSpec().getReplicas();
    List<FieldError> errors = new ArrayList<>();
    if (replicas == null) {
      errors.add(new FieldError("FieldValueRequired", "spec.replicas", "Required value"));
    } else if (replicas < 0) {
      errors.add(new FieldError("FieldValueInvalid", "spec.replicas",
          "Invalid value: " + replicas + ": must be greater than or equal to 0"));
    }
    if (!errors.isEmpty()) {
      throw ApiException.invalid("autoscaling", "Scale", name, errors);
    }
    return replicas;
  }

  private static Scale scaleOf(StatefulSet set) {
    String namespace = set.getMetadata().getNamespace();
    String name = set.getMetadata().getName();
    var selector = set.getSpec().getSelector();
    return new ScaleBuilder()
        .withApiVersion("autoscaling/v1").withKind("Scale")
        .withNewMetadata()
          .withName(name).withNamespace(namespace).withUid(set.getMetadata().getUid())
          .withResourceVersion(set.getMetadata().getResourceVersion())
          .withCreationTimestamp(set.getMetadata().getCreationTimestamp())
        .endMetadata()
        .withNewSpec().withReplicas(set.getSpec().getReplicas()).endSpec()
        .withNewStatus()
          .withReplicas(Objects.requireNonNullElse(set.getStatus().getReplicas(), 0))
          .withSelector(selector == null ? null : LabelSelectors.format(selector))
        .endStatus()
        .build();
  }
}
