package io.ordinal.api.statefulset;

import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetStatus;
import io.ordinal.api.discovery.ApiResources;
import io.ordinal.api.registry.Resource;
import io.ordinal.api.registry.Strategy;
import io.ordinal.api.registry.WriteOptions;
import io.ordinal.apimachinery.ApiException;
import io.ordinal.apimachinery.FieldError;
import io.ordinal.apimachinery.KubeCodec;
import io.ordinal.driver.DriverRegistry;
import io.ordinal.kube.MemberOverrides;
import io.ordinal.kube.RolloutControls;
import io.ordinal.model.SetKey;
import io.ordinal.pods.MemberTemplates;
import io.ordinal.podsecurity.PodSecurity;
import io.ordinal.podsecurity.PodSecurityAdmission;
import io.ordinal.temporal.SetSignals;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * StatefulSets (upstream's pkg/registry/apps/statefulset/strategy.go): defaults, validation and node
 * placement, Pod Security admission of the template, and the news of a spec change for the set's
 * controller workflow, committed with the change (the outbox). The main resource and its scale
 * subresource differ only in the name managedFields record.
 */
public final class StatefulSetStrategy implements Strategy<StatefulSet> {
  public static final Resource<StatefulSet> RESOURCE =
      new Resource<>(ApiResources.STATEFULSETS, StatefulSet.class);

  private final SetSignals signals;
  private final DriverRegistry drivers;
  private final PodSecurityAdmission podSecurity;
  private final NodePlacement placement;
  private final String subresource;

  public StatefulSetStrategy(SetSignals signals, DriverRegistry drivers, PodSecurityAdmission podSecurity,
      NodePlacement placement, String subresource) {
    this.signals = signals;
    this.drivers = drivers;
    this.podSecurity = podSecurity;
    this.placement = placement;
    this.subresource = subresource;
  }

  @Override
  public Resource<StatefulSet> resource() {
    return RESOURCE;
  }

  @Override
  public String subresource() {
    return subresource;
  }

  @Override
  public void prepareForCreate(StatefulSet set) {
    set.setStatus(new StatefulSetStatus());
    StatefulSetDefaults.apply(set);
  }

  @Override
  public void prepareForUpdate(StatefulSet set, StatefulSet old) {
    if (old.getMetadata().getDeletionTimestamp() != null) {
      throw ApiException.of(409, "Conflict", RESOURCE.qualified() + " \"" + old.getMetadata().getName() + "\" is being deleted");
    }
    set.setStatus(old.getStatus()); // the status is the /status subresource's
    StatefulSetDefaults.apply(set);
  }

  @Override
  public List<FieldError> validate(StatefulSet set) {
    List<FieldError> errors = new ArrayList<>(StatefulSetValidation.validateCreate(set, drivers.policy()));
    errors.addAll(placement.place(set, null));
    return errors;
  }

  @Override
  public List<FieldError> validateUpdate(StatefulSet set, StatefulSet old) {
    List<FieldError> errors = new ArrayList<>(StatefulSetValidation.validateUpdate(set, old, drivers.policy()));
    errors.addAll(placement.place(set, old));
    return errors;
  }

  /**
   * Pod Security admission of the pod template: 403 when it violates the level the namespace
   * enforces (upstream only warns for workloads and refuses their pods later; refusing the set
   * itself says so at once, where the user is), Warning headers for the warn level. An update that
   * leaves the template alone is exempt, as upstream's: scaling or labelling a set is not refused
   * because its namespace became stricter (its next pods are, by the controller).
   */
  @Override
  public void admit(StatefulSet set, StatefulSet old, WriteOptions options) {
    var template = set.getSpec().getTemplate();
    String overrides = MemberOverrides.canonical(set.getMetadata());
    if (old != null && Objects.equals(template, old.getSpec().getTemplate())
        && Objects.equals(overrides, MemberOverrides.canonical(old.getMetadata()))) {
      return;
    }
    // The template, and each member override's (validation has seen that they apply).
    List<PodTemplateSpec> templates = new ArrayList<>(List.of(template));
    templates.addAll(MemberTemplates.eachOverride(template, overrides));
    for (int i = 0; i < templates.size(); i++) {
      var decision = podSecurity.evaluate(set.getMetadata().getNamespace(), templates.get(i).getMetadata(),
          templates.get(i).getSpec(), i == 0 ? "spec.template.spec"
              : "metadata.annotations[" + MemberOverrides.ANNOTATION + "][" + (i - 1) + "].template.spec");
      if (!decision.allowed()) {
        throw ApiException.forbidden(RESOURCE.qualified() + " \"" + set.getMetadata().getName() + "\" is forbidden: violates "
            + PodSecurity.describe(decision.enforce(), decision.forbidden()), RESOURCE.group(), RESOURCE.plural(),
            set.getMetadata().getName());
      }
      if (!decision.warnings().isEmpty()) {
        KubeCodec.warn("would violate " + PodSecurity.describe(decision.warn(), decision.warnings()));
      }
    }
  }

  @Override
  public void afterCreate(StatefulSet stored) {
    signals.queueSpecChange(key(stored), stored.getMetadata().getGeneration());
  }

  @Override
  public void afterUpdate(StatefulSet stored, StatefulSet old) {
    if (!Objects.equals(stored.getMetadata().getGeneration(), old.getMetadata().getGeneration())) {
      signals.queueSpecChange(key(stored), stored.getMetadata().getGeneration());
    }
  }

  @Override
  public void afterUpdateCommitted(StatefulSet stored, StatefulSet old) {
    if (RolloutControls.paused(stored) && !RolloutControls.paused(old)) {
      signals.pauseRollout(key(stored)); // returns once the running rollout touches no further pod
    }
  }

  @Override
  public void afterDelete(StatefulSet deleting) {
    signals.queueSpecChange(key(deleting), deleting.getMetadata().getGeneration());
  }

  static SetKey key(StatefulSet set) {
    return new SetKey(set.getMetadata().getNamespace(), set.getMetadata().getName());
  }
}
