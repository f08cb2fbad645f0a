package io.ordinal.api.statefulset;

import static io.ordinal.kube.StatefulSetFields.nullSafe;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvFromSource;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetSpec;
import io.ordinal.apimachinery.FieldError;
import io.ordinal.apimachinery.ObjectMetaValidation;
import io.ordinal.apimachinery.UnknownFields;
import io.ordinal.kube.ClaimSizes;
import io.ordinal.kube.Drivers;
import io.ordinal.kube.GoJson;
import io.ordinal.kube.GoTypes;
import io.ordinal.kube.LabelSelectors;
import io.ordinal.kube.Labels;
import io.ordinal.kube.LeaderLabel;
import io.ordinal.kube.MemberHookSpec;
import io.ordinal.kube.MemberOverrides;
import io.ordinal.kube.ParallelConcurrency;
import io.ordinal.pods.MemberTemplates;
import io.ordinal.pods.PodUpdatePolicy;
import io.ordinal.model.InPlaceUpdates;
import io.ordinal.kube.ReservedOrdinals;
import io.ordinal.kube.RoleProbe;
import io.ordinal.kube.StatefulSetFields;
import io.ordinal.podsecurity.PodSecurity;
import io.ordinal.podsecurity.PodSecurityAdmission;
import io.ordinal.store.KubeJson;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * The apps/v1 validation rules for a StatefulSet ({@code ValidateStatefulSet},
 * {@code ValidateStatefulSetUpdate}), reporting every failure with its field path. Run on a
 * defaulted object. Pure: the known drivers are passed in. The rules for names, labels and annotations
 * are {@link ObjectMetaValidation}'s.
 */
public final class StatefulSetValidation {
  private static final Pattern PERCENT = Pattern.compile("[0-9]+%");
  private static final Pattern POSITIVE_SECONDS = Pattern.compile("0*[1-9][0-9]{0,8}");
  private static final Set<String> SELECTOR_OPERATORS = Set.of("In", "NotIn", "Exists", "DoesNotExist");
  private static final Set<String> PROTOCOLS = Set.of("TCP", "UDP", "SCTP");
  private static final Set<String> ACCESS_MODES =
      Set.of("ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany", "ReadWriteOncePod");

  private final Drivers drivers;
  private final List<FieldError> errors = new ArrayList<>();
  /** The stored set, on an update. */
  private StatefulSet old;

  private StatefulSetValidation(Drivers drivers) {
    this.drivers = drivers;
  }

  /** Validates a new set. */
  public static List<FieldError> validateCreate(StatefulSet set, Drivers drivers) {
    StatefulSetValidation v = new StatefulSetValidation(drivers);
    v.validate(set);
    return v.errors;
  }

  /**
   * Validates a changed set: every create rule plus immutability against {@code old}, except what a
   * set stored before a rule existed must keep to be scaled or deleted: its pod template's node rules
   * (validatePodSpec) when the template is unchanged, and its claim template names, which cannot change.
   */
  public static List<FieldError> validateUpdate(StatefulSet set, StatefulSet old, Drivers drivers) {
    StatefulSetValidation v = new StatefulSetValidation(drivers);
    v.old = old;
    v.validate(set);
    if (set.getSpec() != null && old.getSpec() != null) {
      v.immutable("spec.selector", set.getSpec().getSelector(), old.getSpec().getSelector());
      // Go's zero: a GET writes "" for a set made without one, and a PUT of it is no change.
      v.immutable("spec.serviceName", Objects.requireNonNullElse(set.getSpec().getServiceName(), ""),
          Objects.requireNonNullElse(old.getSpec().getServiceName(), ""));
      v.immutable("spec.podManagementPolicy",
          set.getSpec().getPodManagementPolicy(), old.getSpec().getPodManagementPolicy());
      v.claimTemplatesUpdate(nullSafe(set.getSpec().getVolumeClaimTemplates()),
          nullSafe(old.getSpec().getVolumeClaimTemplates()));
    }
    v.immutable("metadata.annotations[" + Labels.DRIVER_ANNOTATION + "]",
        annotation(set, Labels.DRIVER_ANNOTATION), annotation(old, Labels.DRIVER_ANNOTATION));
    v.onlyInPlaceChanges(set, old);
    return v.errors;
  }

  /**
   * Under the pod update policy InPlaceOnly a template may change only where a pod can follow in
   * place (its containers' images and resources), as OpenKruise's InPlaceOnly refuses the rest.
   */
  private void onlyInPlaceChanges(StatefulSet set, StatefulSet old) {
    if (set.getMetadata() == null || !InPlaceUpdates.ONLY.equals(PodUpdatePolicy.of(set.getMetadata()))
        || set.getSpec() == null || old.getSpec() == null || set.getSpec().getTemplate() == null
        || old.getSpec().getTemplate() == null) {
      return;
    }
    String overridesPath = "metadata.annotations[" + MemberOverrides.ANNOTATION + "]";
    if (errors.stream().anyMatch(e -> e.field().startsWith(overridesPath))) {
      return; // overrides that cannot make a template were refused already
    }
    String oldOverrides = MemberOverrides.canonical(old.getMetadata());
    String newOverrides = MemberOverrides.canonical(set.getMetadata());
    // With member overrides a pod's template is its ordinal's: one check for each pair of overrides an ordinal has.
    Map<String, Integer> ordinalOfPair = new java.util.LinkedHashMap<>();
    ordinalOfPair.put("/", -1);
    long start = StatefulSetFields.ordinalStart(set);
    ordinalOfPair.putAll(MemberOverrides.representatives(MemberOverrides.parse(oldOverrides),
        MemberOverrides.parse(newOverrides), start, start + Objects.requireNonNullElse(set.getSpec().getReplicas(), 0)
            + ReservedOrdinals.of(set.getMetadata()).size()));
    Set<String> said = new HashSet<>();
    ordinalOfPair.forEach((pair, ordinal) -> {
      String overridden = pair.substring(pair.indexOf('/') + 1);
      String at = overridden.isEmpty() ? "spec.template." : overridesPath + "[" + overridden + "].template.";
      Optional<PodUpdatePolicy.NotInPlace> notInPlace;
      try {
        notInPlace = PodUpdatePolicy.notInPlace(MemberTemplates.apply(old.getSpec().getTemplate(), oldOverrides, ordinal),
            MemberTemplates.apply(set.getSpec().getTemplate(), newOverrides, ordinal));
      } catch (IllegalArgumentException e) {
        return; // the stored set's overrides no longer apply to its template: nothing to compare with
      }
      notInPlace.filter(why -> said.add(at + why.field()))
          .ifPresent(why -> errors.add(FieldError.forbidden(at + why.field(), "may not change under "
              + PodUpdatePolicy.ANNOTATION + ": " + InPlaceUpdates.ONLY + ": " + why.detail() + " (only containers'"
              + " image and resources are updated in place; set the policy to InPlaceIfPossible to replace the pods)")));
    });
  }

  /**
   * A pod written through the API (PUT or PATCH): upstream's {@code ValidatePodUpdate} for what Ordinal
   * lets change, its labels, annotations and owners (a pod's spec changes only by replacing the pod,
   * so even an image is not updated in place). The stored spec is compared with what was sent.
   */
  public static List<FieldError> validatePodUpdate(io.fabric8.kubernetes.api.model.Pod pod,
      io.fabric8.kubernetes.api.model.Pod old) {
    StatefulSetValidation v = new StatefulSetValidation(new Drivers(Set.of(), ""));
    ObjectMeta meta = pod.getMetadata();
    v.errors.addAll(ObjectMetaValidation.validateLabelsAndAnnotations(meta));
    List<io.fabric8.kubernetes.api.model.OwnerReference> owners =
        meta.getOwnerReferences() == null ? List.of() : meta.getOwnerReferences();
    for (int i = 0; i < owners.size(); i++) {
      var owner = owners.get(i);
      String path = "metadata.ownerReferences[" + i + "]";
      if (owner.getApiVersion() == null || owner.getApiVersion().isEmpty()) {
        v.errors.add(FieldError.invalid(path + ".apiVersion", owner.getApiVersion(), "version must not be empty"));
      }
      if (owner.getKind() == null || owner.getKind().isEmpty()) {
        v.errors.add(FieldError.invalid(path + ".kind", owner.getKind(), "kind must not be empty"));
      }
      if (owner.getName() == null || owner.getName().isEmpty()) {
        v.errors.add(FieldError.invalid(path + ".name", owner.getName(), "name must not be empty"));
      }
      if (owner.getUid() == null || owner.getUid().isEmpty()) {
        v.errors.add(FieldError.invalid(path + ".uid", owner.getUid(), "uid must not be empty"));
      }
    }
    if (owners.stream().filter(o -> Boolean.TRUE.equals(o.getController())).count() > 1) {
      v.errors.add(FieldError.invalid("metadata.ownerReferences", owners.toString(),
          "Only one reference can have Controller set to true"));
    }
    if (!Objects.equals(meta.getFinalizers() == null ? List.of() : meta.getFinalizers(),
        old.getMetadata().getFinalizers() == null ? List.of() : old.getMetadata().getFinalizers())) {
      v.errors.add(FieldError.forbidden("metadata.finalizers", "Ordinal runs no finalizers of pods"));
    }
    // The controller sets it at creation: the uid:gid the local driver runs containers as without runAsUser.
    if (!Objects.equals(Labels.annotation(meta, PodSecurityAdmission.DEFAULT_USER_ANNOTATION),
        Labels.annotation(old.getMetadata(), PodSecurityAdmission.DEFAULT_USER_ANNOTATION))) {
      v.errors.add(FieldError.forbidden("metadata.annotations[" + PodSecurityAdmission.DEFAULT_USER_ANNOTATION + "]",
          "may not add, remove or update the default user annotation"));
    }
    // As upstream's ValidatePodUpdate, which validates the whole new pod (its spec cannot change here).
    if (pod.getSpec() != null) {
      v.validatePodSpec("spec", pod.getSpec());
    }
    if (!Objects.equals(pod.getSpec(), old.getSpec())) {
      v.errors.add(FieldError.forbidden("spec", "pod updates may not change fields other than `metadata.labels`,"
          + " `metadata.annotations` and `metadata.ownerReferences` (Ordinal changes a pod's spec by replacing the pod:"
          + " change the set's template)"));
    }
    return v.errors;
  }

  private void validate(StatefulSet set) {
    validateMetadata(set.getMetadata());
    StatefulSetSpec spec = set.getSpec();
    if (spec == null) {
      errors.add(FieldError.required("spec", ""));
      return;
    }
    nonNegative("spec.replicas", spec.getReplicas());
    nonNegative("spec.minReadySeconds", spec.getMinReadySeconds());
    nonNegative("spec.revisionHistoryLimit", spec.getRevisionHistoryLimit());
    String name = set.getMetadata() == null ? null : set.getMetadata().getName();
    // The format alone, not the length: a name too long for a subdomain still gets this error too.
    if (name != null && spec.getReplicas() != null && spec.getReplicas() > 0
        && ObjectMetaValidation.DNS1123_SUBDOMAIN.matcher(name).matches()) {
      String lastPod = name + "-" + (spec.getReplicas() - 1);
      if (!ObjectMetaValidation.isDns1123Label(lastPod)) {
        errors.add(FieldError.invalid("metadata.name", name,
            "pod name " + lastPod + " must be a valid DNS label (at most 63 characters, no dots)"));
      }
    }
    reservedOrdinalsReach(set);
    if (spec.getServiceName() != null && !spec.getServiceName().isEmpty()) {
      dnsLabel("spec.serviceName", spec.getServiceName());
    }
    String policy = spec.getPodManagementPolicy();
    if (!StatefulSetFields.ORDERED_READY.equals(policy) && !StatefulSetFields.PARALLEL.equals(policy)) {
      errors.add(FieldError.notSupported("spec.podManagementPolicy", policy,
          StatefulSetFields.ORDERED_READY, StatefulSetFields.PARALLEL));
    }
    validateUpdateStrategy(spec);
    var retention = spec.getPersistentVolumeClaimRetentionPolicy();
    if (retention != null) {
      retentionValue("spec.persistentVolumeClaimRetentionPolicy.whenDeleted", retention.getWhenDeleted());
      retentionValue("spec.persistentVolumeClaimRetentionPolicy.whenScaled", retention.getWhenScaled());
    }
    if (spec.getOrdinals() != null) {
      nonNegative("spec.ordinals.start", spec.getOrdinals().getStart());
    }
    validateSelector(spec);
    Set<String> claimNames = validateClaimTemplates(nullSafe(spec.getVolumeClaimTemplates()));
    validateTemplate(spec, claimNames);
    if (Drivers.LOCAL.equals(drivers.effective(annotation(set, Labels.DRIVER_ANNOTATION)))) {
      validateLocalCommands(spec);
    }
    validateMemberOverrides(set);
  }

  /**
   * Each member override's template is validated as the set's own (the selector must still match its
   * labels, a local container must still have a command), its errors reported at the override: what
   * the set's template alone gets wrong is said once, at spec.template. A field the pod template does
   * not have is refused, not dropped: a typo in an override would otherwise be a member left as it was.
   */
  private void validateMemberOverrides(StatefulSet set) {
    String overrides = MemberOverrides.canonical(set.getMetadata());
    if (overrides == null || set.getSpec().getTemplate() == null) {
      return;
    }
    String path = "metadata.annotations[" + MemberOverrides.ANNOTATION + "]";
    List<MemberOverrides.RangeOverride> all = MemberOverrides.parse(overrides);
    for (int i = 0; i < all.size(); i++) {
      for (String unknown : UnknownFields.strip(all.get(i).template().deepCopy(), PodTemplateSpec.class)) {
        if (!unknown.contains("$")) {
          errors.add(new FieldError("FieldValueInvalid", path + "[" + i + "].template." + unknown, "unknown field"));
        }
      }
    }
    List<PodTemplateSpec> templates;
    try {
      templates = MemberTemplates.eachOverride(set.getSpec().getTemplate(), overrides);
    } catch (IllegalArgumentException e) {
      errors.add(FieldError.invalid(path, Labels.annotation(set.getMetadata(), MemberOverrides.ANNOTATION), e.getMessage()));
      return;
    }
    Set<FieldError> ofTheSet = new HashSet<>(errors);
    for (int i = 0; i < templates.size(); i++) {
      StatefulSet member = KubeJson.copy(set, StatefulSet.class);
      member.getSpec().setTemplate(templates.get(i));
      member.getMetadata().getAnnotations().remove(MemberOverrides.ANNOTATION);
      StatefulSetValidation v = new StatefulSetValidation(drivers);
      v.validate(member);
      String at = path + "[" + i + "].template";
      for (FieldError error : v.errors) {
        if (error.field().startsWith("spec.template") && !ofTheSet.contains(error)) {
          errors.add(new FieldError(error.reason(), at + error.field().substring("spec.template".length()),
              error.message()));
        }
      }
    }
  }

  /** The local driver runs each container's command (it never pulls an image) and mounts over real paths. */
  private void validateLocalCommands(StatefulSetSpec spec) {
    if (spec.getTemplate() == null || spec.getTemplate().getSpec() == null) {
      return;
    }
    PodSpec pod = spec.getTemplate().getSpec();
    String[] bases = {"spec.template.spec.initContainers", "spec.template.spec.containers"};
    List<List<Container>> lists = List.of(nullSafe(pod.getInitContainers()), nullSafe(pod.getContainers()));
    for (int l = 0; l < 2; l++) {
      for (int i = 0; i < lists.get(l).size(); i++) {
        Container c = lists.get(l).get(i);
        if (nullSafe(c.getCommand()).isEmpty()) {
          errors.add(FieldError.required(bases[l] + "[" + i + "].command",
              "the local driver runs the container's command and never pulls its image"));
        }
        List<VolumeMount> mounts = nullSafe(c.getVolumeMounts());
        for (int m = 0; m < mounts.size(); m++) {
          String path = mounts.get(m).getMountPath();
          if (path != null && !path.isEmpty() && (!path.startsWith("/") || isRoot(path) || path.indexOf('\0') >= 0)) {
            errors.add(FieldError.invalid(bases[l] + "[" + i + "].volumeMounts[" + m + "].mountPath", path,
                "the local driver mounts volumes over this machine's paths: must be absolute, not /, without NUL"));
          }
        }
      }
    }
  }

  /** Whether an absolute path names / ("//", "/.", "/tmp/.." do). */
  private static boolean isRoot(String path) {
    int depth = 0;
    for (String part : path.split("/")) {
      if (part.equals("..")) {
        depth = Math.max(0, depth - 1);
      } else if (!part.isEmpty() && !part.equals(".")) {
        depth++;
      }
    }
    return depth == 0;
  }

  /**
   * An Ordinal annotation's value, if present, checked by {@code problem} (null when valid); an invalid
   * one is an error on its field path. False only for a value present and invalid.
   */
  private boolean checkAnnotation(ObjectMeta meta, String key, Function<String, String> problem) {
    String value = meta.getAnnotations().get(key);
    String wrong = value == null ? null : problem.apply(value);
    if (wrong != null) {
      errors.add(FieldError.invalid("metadata.annotations[" + key + "]", value, wrong));
    }
    return wrong == null;
  }

  /** With ordinals reserved, the set's highest ordinal is further up: its pod name must still be valid. */
  private void reservedOrdinalsReach(StatefulSet set) {
    String name = set.getMetadata() == null ? null : set.getMetadata().getName();
    List<Integer> reserved = set.getMetadata() == null ? List.of() : ReservedOrdinals.of(set.getMetadata());
    Integer replicas = set.getSpec().getReplicas();
    if (name == null || reserved.isEmpty() || replicas == null || replicas <= 0 || StatefulSetFields.ordinalStart(set) < 0) {
      return;
    }
    String path = "metadata.annotations[" + ReservedOrdinals.ANNOTATION + "]";
    int end = StatefulSetFields.ordinalRange(set).end();
    String highestPod = name + "-" + (end - 1);
    if (end == Integer.MAX_VALUE) {
      errors.add(FieldError.invalid(path, set.getMetadata().getAnnotations().get(ReservedOrdinals.ANNOTATION),
          "with these ordinals reserved the set's ordinals would pass " + Integer.MAX_VALUE));
    } else if (ObjectMetaValidation.DNS1123_SUBDOMAIN.matcher(name).matches()
        && !ObjectMetaValidation.isDns1123Label(highestPod)) {
      errors.add(FieldError.invalid(path, set.getMetadata().getAnnotations().get(ReservedOrdinals.ANNOTATION),
          "pod name " + highestPod + " must be a valid DNS label (at most 63 characters, no dots)"));
    }
  }

  private void validateMetadata(ObjectMeta meta) {
    if (meta == null || meta.getName() == null || meta.getName().isEmpty()) {
      errors.add(FieldError.required("metadata.name", "name is required"));
    } else {
      dnsSubdomain("metadata.name", meta.getName());
    }
    if (meta == null) {
      return;
    }
    errors.addAll(ObjectMetaValidation.validateLabelsAndAnnotations(meta));
    if (meta.getAnnotations() != null) {
      String deadline = meta.getAnnotations().get(Labels.PROGRESS_DEADLINE_ANNOTATION);
      if (deadline != null && !POSITIVE_SECONDS.matcher(deadline.trim()).matches()) {
        errors.add(FieldError.invalid("metadata.annotations[" + Labels.PROGRESS_DEADLINE_ANNOTATION + "]", deadline,
            "must be a whole number of seconds, at least 1 and at most 999999999"));
      }
      String autoRollback = meta.getAnnotations().get(Labels.AUTO_ROLLBACK_ANNOTATION);
      if (autoRollback != null && !autoRollback.equals("true") && !autoRollback.equals("false")) {
        errors.add(FieldError.notSupported("metadata.annotations[" + Labels.AUTO_ROLLBACK_ANNOTATION + "]",
            autoRollback, "true", "false"));
      }
      String hooks = meta.getAnnotations().get(MemberHookSpec.ANNOTATION);
      if (hooks != null) {
        for (String[] problem : MemberHookSpec.problems(hooks)) {
          errors.add(new FieldError("FieldValueInvalid", problem[0], "Invalid value: " + problem[1]));
        }
      }
      checkAnnotation(meta, ReservedOrdinals.ANNOTATION, ReservedOrdinals::problem);
      checkAnnotation(meta, ParallelConcurrency.ANNOTATION, ParallelConcurrency::problem);
      if (meta.getAnnotations().containsKey(RoleProbe.ANNOTATION)
          && checkAnnotation(meta, RoleProbe.ANNOTATION, RoleProbe::problem)
          && !meta.getAnnotations().containsKey(LeaderLabel.ANNOTATION)) {
        errors.add(FieldError.required("metadata.annotations[" + LeaderLabel.ANNOTATION + "]",
            "a role probe needs the leader label, whose key its output sets"));
      }
      String updatePolicy = meta.getAnnotations().get(PodUpdatePolicy.ANNOTATION);
      if (updatePolicy != null && PodUpdatePolicy.problem(updatePolicy) != null) {
        errors.add(FieldError.notSupported("metadata.annotations[" + PodUpdatePolicy.ANNOTATION + "]", updatePolicy,
            PodUpdatePolicy.VALUES.toArray(String[]::new)));
      }
      if (meta.getAnnotations().containsKey(LeaderLabel.ANNOTATION)
          && checkAnnotation(meta, LeaderLabel.ANNOTATION, LeaderLabel::problem)) {
        errors.addAll(ObjectMetaValidation.validateLabels("metadata.annotations[" + LeaderLabel.ANNOTATION + "]",
            LeaderLabel.of(meta).orElseThrow().asLabels()));
      }
      checkAnnotation(meta, MemberOverrides.ANNOTATION, MemberOverrides::problem);
      String driver = meta.getAnnotations().get(Labels.DRIVER_ANNOTATION);
      if (driver != null && !drivers.available().contains(driver)) {
        errors.add(FieldError.notSupported("metadata.annotations[" + Labels.DRIVER_ANNOTATION + "]", driver,
            drivers.available().stream().sorted().toArray(String[]::new)));
      }
    }
  }

  private void validateUpdateStrategy(StatefulSetSpec spec) {
    var strategy = spec.getUpdateStrategy();
    String type = strategy.getType();
    if (StatefulSetFields.ON_DELETE.equals(type)) {
      if (strategy.getRollingUpdate() != null) {
        errors.add(FieldError.invalid("spec.updateStrategy.rollingUpdate", "rollingUpdate",
            "only allowed for updateStrategy '" + StatefulSetFields.ROLLING_UPDATE + "'"));
      }
    } else if (StatefulSetFields.ROLLING_UPDATE.equals(type)) {
      var rolling = strategy.getRollingUpdate();
      if (rolling != null) {
        nonNegative("spec.updateStrategy.rollingUpdate.partition", rolling.getPartition());
        validateMaxUnavailable(rolling.getMaxUnavailable());
        Object paused = rolling.getAdditionalProperties().get(Labels.PAUSED_FIELD);
        if (paused != null && !(paused instanceof Boolean)) {
          errors.add(FieldError.invalid("spec.updateStrategy.rollingUpdate." + Labels.PAUSED_FIELD, paused,
              "must be a boolean"));
        }
      }
    } else {
      errors.add(FieldError.notSupported("spec.updateStrategy.type", type,
          StatefulSetFields.ON_DELETE, StatefulSetFields.ROLLING_UPDATE));
    }
  }

  private void validateMaxUnavailable(IntOrString value) {
    String field = "spec.updateStrategy.rollingUpdate.maxUnavailable";
    if (value == null) {
      return;
    }
    if (value.getIntVal() != null) {
      if (value.getIntVal() < 1) {
        errors.add(FieldError.invalid(field, value.getIntVal(), "must be greater than 0"));
      }
    } else if (value.getStrVal() == null || !PERCENT.matcher(value.getStrVal()).matches()) {
      errors.add(FieldError.invalid(field, value.getStrVal(), "a valid percent string must be a numeric string followed by an ending '%'"));
    } else {
      int percent = Integer.parseInt(value.getStrVal().substring(0, value.getStrVal().length() - 1));
      if (percent < 1 || percent > 100) {
        errors.add(FieldError.invalid(field, value.getStrVal(), "must be greater than 0% and at most 100%"));
      }
    }
  }

  private void validateSelector(StatefulSetSpec spec) {
    LabelSelector selector = spec.getSelector();
    if (selector == null) {
      errors.add(FieldError.required("spec.selector", ""));
      return;
    }
    labels("spec.selector.matchLabels", selector.getMatchLabels());
    List<LabelSelectorRequirement> expressions = nullSafe(selector.getMatchExpressions());
    for (int i = 0; i < expressions.size(); i++) {
      LabelSelectorRequirement r = expressions.get(i);
      String path = "spec.selector.matchExpressions[" + i + "]";
      qualifiedName(path + ".key", r.getKey());
      if (!SELECTOR_OPERATORS.contains(r.getOperator())) {
        errors.add(FieldError.notSupported(path + ".operator", r.getOperator(), "DoesNotExist", "Exists", "In", "NotIn"));
      } else if (Set.of("In", "NotIn").contains(r.getOperator()) && nullSafe(r.getValues()).isEmpty()) {
        errors.add(FieldError.required(path + ".values", "must be specified when `operator` is 'In' or 'NotIn'"));
      } else if (Set.of("Exists", "DoesNotExist").contains(r.getOperator()) && !nullSafe(r.getValues()).isEmpty()) {
        errors.add(FieldError.forbidden(path + ".values", "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      }
    }
    if (nullSafe(expressions).isEmpty() && (selector.getMatchLabels() == null || selector.getMatchLabels().isEmpty())) {
      errors.add(FieldError.invalid("spec.selector", "{}", "empty selector is invalid for statefulset"));
      return;
    }
    Map<String, String> templateLabels = spec.getTemplate() == null || spec.getTemplate().getMetadata() == null
        ? Map.of() : nullSafeMap(spec.getTemplate().getMetadata().getLabels());
    if (!LabelSelectors.matches(selector, templateLabels)) {
      errors.add(FieldError.invalid("spec.template.metadata.labels", templateLabels,
          "`selector` does not match template `labels`"));
    }
  }

  private Set<String> validateClaimTemplates(List<PersistentVolumeClaim> claims) {
    Set<String> names = new HashSet<>();
    for (int i = 0; i < claims.size(); i++) {
      PersistentVolumeClaim claim = claims.get(i);
      String path = "spec.volumeClaimTemplates[" + i + "]";
      String name = claim.getMetadata() == null ? null : claim.getMetadata().getName();
      if (name == null || name.isEmpty()) {
        errors.add(FieldError.required(path + ".metadata.name", "name is required"));
      } else {
        // Each pod gets a volume of this name (upstream's ValidateVolumes: a DNS label) for its claim
        // <name>-<set>-<ordinal> (ValidatePersistentVolumeName: a DNS subdomain, which a label and a
        // pod name make); upstream v1.32 refuses those when the controller creates them.
        if (old == null) {
          dnsLabel(path + ".metadata.name", name);
        } else {
          dnsSubdomain(path + ".metadata.name", name); // what was checked when it was stored
        }
        if (!names.add(name)) {
          errors.add(FieldError.duplicate(path + ".metadata.name", name));
        }
      }
      if (claim.getSpec() == null) {
        errors.add(FieldError.required(path + ".spec", ""));
        continue;
      }
      List<String> modes = nullSafe(claim.getSpec().getAccessModes());
      if (modes.isEmpty()) {
        errors.add(FieldError.required(path + ".spec.accessModes", "at least 1 access mode is required"));
      }
      for (int m = 0; m < modes.size(); m++) {
        if (!ACCESS_MODES.contains(modes.get(m))) {
          errors.add(FieldError.notSupported(path + ".spec.accessModes[" + m + "]", modes.get(m),
              "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"));
        }
      }
      Quantity storage = claim.getSpec().getResources() == null || claim.getSpec().getResources().getRequests() == null
          ? null : claim.getSpec().getResources().getRequests().get("storage");
      String storagePath = path + ".spec.resources.requests[storage]";
      if (storage == null) {
        errors.add(FieldError.required(storagePath, ""));
      } else {
        quantity(storagePath, storage, true);
      }
    }
    return names;
  }

  private void validateTemplate(StatefulSetSpec spec, Set<String> claimNames) {
    if (spec.getTemplate() == null) {
      errors.add(FieldError.required("spec.template", ""));
      return;
    }
    if (spec.getTemplate().getMetadata() != null) {
      labels("spec.template.metadata.labels", spec.getTemplate().getMetadata().getLabels());
    }
    PodSpec pod = spec.getTemplate().getSpec();
    if (pod == null) {
      errors.add(FieldError.required("spec.template.spec", ""));
      return;
    }
    if (!"Always".equals(pod.getRestartPolicy())) {
      errors.add(FieldError.notSupported("spec.template.spec.restartPolicy", pod.getRestartPolicy(), "Always"));
    }
    if (pod.getActiveDeadlineSeconds() != null) {
      errors.add(FieldError.forbidden("spec.template.spec.activeDeadlineSeconds", "activeDeadlineSeconds in StatefulSet is not Supported"));
    }
    nonNegative("spec.template.spec.terminationGracePeriodSeconds", pod.getTerminationGracePeriodSeconds());
    Set<String> volumeNames = new HashSet<>(claimNames);
    List<Volume> volumes = nullSafe(pod.getVolumes());
    for (int i = 0; i < volumes.size(); i++) {
      String path = "spec.template.spec.volumes[" + i + "].name";
      String name = volumes.get(i).getName();
      if (name == null || name.isEmpty()) {
        errors.add(FieldError.required(path, ""));
      } else {
        dnsLabel(path, name);
        var hostPath = volumes.get(i).getHostPath();
        if (hostPath != null) {
          String hostPathField = "spec.template.spec.volumes[" + i + "].hostPath.path";
          if (hostPath.getPath() == null || !hostPath.getPath().startsWith("/")) {
            errors.add(FieldError.invalid(hostPathField, hostPath.getPath(), "must be an absolute path"));
          } else if (hasBacksteps(hostPath.getPath())) {
            errors.add(FieldError.invalid(hostPathField, hostPath.getPath(), "must not contain '..'"));
          }
        }
        if (!volumeNames.add(name) && !claimNames.contains(name)) {
          errors.add(FieldError.duplicate(path, name));
        }
      }
    }
    List<Container> containers = nullSafe(pod.getContainers());
    if (containers.isEmpty()) {
      errors.add(FieldError.required("spec.template.spec.containers", ""));
    }
    Set<String> containerNames = new HashSet<>();
    validateContainers("spec.template.spec.initContainers", nullSafe(pod.getInitContainers()), containerNames, volumeNames);
    validateContainers("spec.template.spec.containers", containers, containerNames, volumeNames);
    if (old == null || old.getSpec() == null || !Objects.equals(spec.getTemplate(), old.getSpec().getTemplate())) {
      validatePodSpec("spec.template.spec", pod);
    }
  }

  /**
   * The rules of upstream's {@code ValidatePodSpec} that stand between a pod and this machine: user and
   * group ids, env names, volume paths and claim names, run on a set's template ({@code
   * spec.template.spec}) and on a pod written through the API ({@code spec}). Upstream v1.32 checks a
   * StatefulSet's template only when the controller creates its pods (the API server refuses the pod);
   * Ordinal creates pods itself, so it refuses the set.
   */
  private void validatePodSpec(String base, PodSpec pod) {
    var context = pod.getSecurityContext();
    if (context != null) {
      // validatePodSpecSecurityContext
      id(base + ".securityContext.fsGroup", context.getFsGroup());
      id(base + ".securityContext.runAsUser", context.getRunAsUser());
      id(base + ".securityContext.runAsGroup", context.getRunAsGroup());
      List<Long> groups = nullSafe(context.getSupplementalGroups());
      for (int g = 0; g < groups.size(); g++) {
        Long gid = groups.get(g);
        if (gid == null || !PodSecurity.validId(gid)) {
          errors.add(FieldError.invalid(base + ".securityContext.supplementalGroups[" + g + "]", gid, PodSecurity.ID_RANGE));
        }
      }
    }
    List<Volume> volumes = nullSafe(pod.getVolumes());
    errors.addAll(VolumeSourceValidation.validate(base + ".volumes", volumes));
    for (int i = 0; i < volumes.size(); i++) {
      var claim = volumes.get(i).getPersistentVolumeClaim();
      if (claim != null) {
        // validatePersistentClaimVolumeSource requires the name; Ordinal also wants the DNS subdomain
        // every claim's name is, because the local driver makes a directory of it.
        String path = base + ".volumes[" + i + "].persistentVolumeClaim.claimName";
        if (claim.getClaimName() == null || claim.getClaimName().isEmpty()) {
          errors.add(FieldError.required(path, ""));
        } else {
          dnsSubdomain(path, claim.getClaimName());
        }
      }
    }
    String[] lists = {".initContainers", ".containers"};
    List<List<Container>> containers = List.of(nullSafe(pod.getInitContainers()), nullSafe(pod.getContainers()));
    for (int l = 0; l < 2; l++) {
      for (int i = 0; i < containers.get(l).size(); i++) {
        validateContainer(base + lists[l] + "[" + i + "]", containers.get(l).get(i));
      }
    }
  }

  /** validateContainerCommon's env, envFrom, volumeMounts and securityContext (ValidateSecurityContext); workingDir. */
  private void validateContainer(String path, Container c) {
    List<EnvVar> env = nullSafe(c.getEnv());
    for (int e = 0; e < env.size(); e++) {
      String name = env.get(e).getName();
      if (name == null || name.isEmpty()) {
        errors.add(FieldError.required(path + ".env[" + e + "].name", ""));
      } else {
        envVarName(path + ".env[" + e + "].name", name);
      }
    }
    List<EnvFromSource> envFrom = nullSafe(c.getEnvFrom());
    for (int e = 0; e < envFrom.size(); e++) {
      String prefix = envFrom.get(e).getPrefix();
      if (prefix != null && !prefix.isEmpty()) {
        envVarName(path + ".envFrom[" + e + "].prefix", prefix);
      }
    }
    validateVolumeMounts(path + ".volumeMounts", nullSafe(c.getVolumeMounts()));
    if (c.getSecurityContext() != null) {
      id(path + ".securityContext.runAsUser", c.getSecurityContext().getRunAsUser());
      id(path + ".securityContext.runAsGroup", c.getSecurityContext().getRunAsGroup());
    }
    // Upstream checks nothing of workingDir; the local driver makes it a path, which cannot hold NUL.
    if (c.getWorkingDir() != null && c.getWorkingDir().indexOf('\0') >= 0) {
      errors.add(FieldError.invalid(path + ".workingDir", c.getWorkingDir(), "must not contain NUL"));
    }
  }

  /** A uid or gid: upstream's IsValidUserID and IsValidGroupID, 0 to 2147483647 in v1.32. */
  private void id(String path, Long value) {
    if (value != null && !PodSecurity.validId(value)) {
      errors.add(FieldError.invalid(path, value, PodSecurity.ID_RANGE));
    }
  }

  /**
   * Upstream's IsRelaxedEnvVarName: RelaxedEnvironmentVariableValidation is beta and on by default
   * since v1.32, so a name is any printable ASCII but '=' (BASH_ENV and LD_PRELOAD are valid names).
   */
  private void envVarName(String path, String name) {
    if (!name.chars().allMatch(ch -> ch >= ' ' && ch <= '~' && ch != '=')) {
      errors.add(FieldError.invalid(path, name,
          "a valid environment variable name must consist only of printable ASCII characters other than '='"));
    }
  }

  /**
   * Upstream's ValidateVolumeMounts but for the names (checked against the set's volumes by
   * validateContainers): mountPath required and unique in the container, compared as written; subPath
   * and subPathExpr as validateLocalDescendingPath, reported where upstream reports them, at {@code
   * volumeMounts.subPath} without the mount's index.
   */
  private void validateVolumeMounts(String path, List<VolumeMount> mounts) {
    Set<String> mountPoints = new HashSet<>();
    for (int m = 0; m < mounts.size(); m++) {
      VolumeMount mount = mounts.get(m);
      String at = path + "[" + m + "]";
      String mountPath = Objects.requireNonNullElse(mount.getMountPath(), "");
      if (mountPath.isEmpty()) {
        errors.add(FieldError.required(at + ".mountPath", ""));
      }
      if (!mountPoints.add(mountPath)) {
        errors.add(FieldError.invalid(at + ".mountPath", mountPath, "must be unique"));
      }
      String subPath = Objects.requireNonNullElse(mount.getSubPath(), "");
      String subPathExpr = Objects.requireNonNullElse(mount.getSubPathExpr(), "");
      if (!subPath.isEmpty()) {
        localDescendingPath(path + ".subPath", subPath);
      }
      if (!subPathExpr.isEmpty()) {
        if (!subPath.isEmpty()) {
          errors.add(FieldError.invalid(at + ".subPathExpr", subPathExpr, "subPathExpr and subPath are mutually exclusive"));
        }
        localDescendingPath(path + ".subPathExpr", subPathExpr);
        // No driver expands $(VAR) in it: accepted, the whole volume would be mounted instead.
        errors.add(FieldError.forbidden(at + ".subPathExpr", "not supported by Ordinal; use subPath"));
      }
    }
  }

  private void validateContainers(String base, List<Container> containers, Set<String> seen, Set<String> volumeNames) {
    for (int i = 0; i < containers.size(); i++) {
      Container c = containers.get(i);
      String path = base + "[" + i + "]";
      if (c.getName() == null || c.getName().isEmpty()) {
        errors.add(FieldError.required(path + ".name", ""));
      } else {
        dnsLabel(path + ".name", c.getName());
        if (!seen.add(c.getName())) {
          errors.add(FieldError.duplicate(path + ".name", c.getName()));
        }
      }
      if (c.getImage() == null || c.getImage().isBlank()) {
        errors.add(FieldError.required(path + ".image", ""));
      }
      Set<String> portNames = new HashSet<>();
      List<ContainerPort> ports = nullSafe(c.getPorts());
      for (int p = 0; p < ports.size(); p++) {
        ContainerPort port = ports.get(p);
        String portPath = path + ".ports[" + p + "]";
        if (port.getContainerPort() == null) {
          errors.add(FieldError.required(portPath + ".containerPort", ""));
        } else if (port.getContainerPort() < 1 || port.getContainerPort() > 65535) {
          errors.add(FieldError.invalid(portPath + ".containerPort", port.getContainerPort(), "must be between 1 and 65535, inclusive"));
        }
        if (port.getHostPort() != null && (port.getHostPort() < 0 || port.getHostPort() > 65535)) {
          errors.add(FieldError.invalid(portPath + ".hostPort", port.getHostPort(), "must be between 1 and 65535, inclusive"));
        }
        if (port.getProtocol() != null && !PROTOCOLS.contains(port.getProtocol())) {
          errors.add(FieldError.notSupported(portPath + ".protocol", port.getProtocol(), "SCTP", "TCP", "UDP"));
        }
        if (port.getName() != null && !port.getName().isEmpty()) {
          if (port.getName().length() > 15 || !ObjectMetaValidation.isDns1123Label(port.getName())) {
            errors.add(FieldError.invalid(portPath + ".name", port.getName(), "must be no more than 15 characters, lower case alphanumeric or '-'"));
          } else if (!portNames.add(port.getName())) {
            errors.add(FieldError.duplicate(portPath + ".name", port.getName()));
          }
        }
      }
      List<VolumeMount> mounts = nullSafe(c.getVolumeMounts());
      for (int m = 0; m < mounts.size(); m++) {
        VolumeMount mount = mounts.get(m);
        String mountPath = path + ".volumeMounts[" + m + "]";
        if (mount.getName() == null || mount.getName().isEmpty()) {
          errors.add(FieldError.required(mountPath + ".name", ""));
        } else if (!volumeNames.contains(mount.getName())) {
          errors.add(FieldError.notFound(mountPath + ".name", mount.getName()));
        }
      }
      if (c.getResources() != null) {
        resources(path + ".resources.limits", c.getResources().getLimits());
        resources(path + ".resources.requests", c.getResources().getRequests());
      }
    }
  }

  /**
   * A path below a volume's root, as upstream's validateLocalDescendingPath: relative, no '..' element
   * (each reported). Ordinal also refuses NUL, which no path can hold.
   */
  private void localDescendingPath(String path, String value) {
    if (value.startsWith("/")) {
      errors.add(FieldError.invalid(path, value, "must be a relative path"));
    }
    if (hasBacksteps(value)) {
      errors.add(FieldError.invalid(path, value, "must not contain '..'"));
    }
    if (value.indexOf('\0') >= 0) {
      errors.add(FieldError.invalid(path, value, "must not contain NUL"));
    }
  }

  private static boolean hasBacksteps(String value) {
    for (String part : value.split("/")) {
      if (part.equals("..")) {
        return true;
      }
    }
    return false;
  }

  private void resources(String path, Map<String, Quantity> values) {
    if (values != null) {
      values.forEach((name, quantity) -> quantity(path + "[" + name + "]", quantity, false));
    }
  }

  private void quantity(String path, Quantity quantity, boolean positive) {
    try {
      var amount = quantity.getNumericalAmount();
      if (amount.signum() < 0 || (positive && amount.signum() == 0)) {
        errors.add(FieldError.invalid(path, quantity.toString(), positive ? "must be greater than zero" : "must be greater than or equal to 0"));
      }
    } catch (RuntimeException e) {
      errors.add(FieldError.invalid(path, quantity.toString(), "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"));
    }
  }

  private void retentionValue(String path, String value) {
    if (!StatefulSetFields.RETAIN.equals(value) && !StatefulSetFields.DELETE.equals(value)) {
      errors.add(FieldError.notSupported(path, value, StatefulSetFields.DELETE, StatefulSetFields.RETAIN));
    }
  }

  private void labels(String path, Map<String, String> labels) {
    errors.addAll(ObjectMetaValidation.validateLabels(path, labels));
  }

  private void qualifiedName(String path, String key) {
    errors.addAll(ObjectMetaValidation.validateQualifiedName(path, key));
  }

  private void dnsLabel(String path, String value) {
    errors.addAll(ObjectMetaValidation.validateDnsLabel(path, value));
  }

  private void dnsSubdomain(String path, String value) {
    errors.addAll(ObjectMetaValidation.validateDnsSubdomain(path, value));
  }

  private void nonNegative(String path, Number value) {
    if (value != null && value.longValue() < 0) {
      errors.add(FieldError.invalid(path, value, "must be greater than or equal to 0"));
    }
  }

  /**
   * volumeClaimTemplates are immutable but for their storage request, which may grow (Ordinal's volume
   * expansion; upstream's KEP-4650 is still open) and never shrink.
   */
  private void claimTemplatesUpdate(List<PersistentVolumeClaim> templates, List<PersistentVolumeClaim> old) {
    if (templates.size() != old.size()) {
      immutable("spec.volumeClaimTemplates", templates, old);
      return;
    }
    for (int i = 0; i < templates.size(); i++) {
      PersistentVolumeClaim template = templates.get(i);
      Optional<Quantity> wanted = ClaimSizes.storage(template);
      Optional<Quantity> had = ClaimSizes.storage(old.get(i));
      if (wanted.isPresent() && had.isPresent()
          && ClaimSizes.bytes(wanted.get()).compareTo(ClaimSizes.bytes(had.get())) < 0) {
        errors.add(FieldError.forbidden("spec.volumeClaimTemplates[" + i + "].spec.resources.requests.storage",
            "may not be decreased (from " + had.get() + " to " + wanted.get() + "); only an increase is applied to the claims"));
        continue;
      }
      PersistentVolumeClaim sameSize = KubeJson.read(KubeJson.write(template), PersistentVolumeClaim.class);
      if (had.isPresent() && sameSize.getSpec() != null && sameSize.getSpec().getResources() != null
          && sameSize.getSpec().getResources().getRequests() != null) {
        sameSize.getSpec().getResources().getRequests().put("storage", had.get());
      }
      if (!GoJson.same(KubeJson.JSON.valueToTree(sameSize), KubeJson.JSON.valueToTree(old.get(i)),
          GoTypes.PERSISTENT_VOLUME_CLAIM)) {
        errors.add(FieldError.forbidden("spec.volumeClaimTemplates[" + i + "]", "field is immutable but for "
            + "spec.resources.requests.storage, which may grow"));
      }
    }
  }

  private void immutable(String path, Object value, Object old) {
    if (!Objects.equals(value, old)) {
      errors.add(FieldError.forbidden(path, "field is immutable; updates to statefulset spec for fields other than"
          + " 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit',"
          + " 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"));
    }
  }

  private static String annotation(StatefulSet set, String key) {
    return Labels.annotation(set.getMetadata(), key);
  }

  private static Map<String, String> nullSafeMap(Map<String, String> map) {
    return map == null ? Map.of() : map;
  }
}
