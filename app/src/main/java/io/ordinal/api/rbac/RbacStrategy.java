package io.ordinal.api.rbac;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.ordinal.api.discovery.ApiResources;
import io.ordinal.api.registry.Resource;
import io.ordinal.api.registry.Strategy;
import io.ordinal.api.registry.WriteOptions;
import io.ordinal.apimachinery.ApiException;
import io.ordinal.apimachinery.FieldError;
import io.ordinal.auth.rbac.Escalation;
import io.ordinal.auth.rbac.Rbac;
import io.ordinal.auth.rbac.RbacValidation;
import io.ordinal.store.KubeJson;
import io.ordinal.store.ObjectTable;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Roles, RoleBindings, ClusterRoles and ClusterRoleBindings (upstream's pkg/registry/rbac): validated
 * as upstream, defaulted (a binding's roleRef and User/Group subjects in the RBAC group), and guarded
 * against privilege escalation: a user may grant only what it holds, unless it may escalate or bind.
 */
public final class RbacStrategy<T extends HasMetadata> implements Strategy<T> {
  private final Resource<T> resource;
  private final Rbac rbac;

  public RbacStrategy(ObjectTable kind, Class<T> type, Rbac rbac) {
    this.resource = new Resource<>(ApiResources.RBAC.resource(resourceOf(kind)).orElseThrow(), type);
    this.rbac = rbac;
  }

  /** The plural resource name of a kind: "roles", "clusterrolebindings". */
  public static String resourceOf(ObjectTable kind) {
    return kind.kind().toLowerCase(Locale.ROOT) + "s";
  }

  @Override
  public Resource<T> resource() {
    return resource;
  }

  @Override
  public void prepareForCreate(T object) {
    RbacValidation.defaults(object);
  }

  @Override
  public void prepareForUpdate(T object, T old) {
    RbacValidation.defaults(object);
  }

  @Override
  public List<FieldError> validate(T object) {
    return RbacValidation.validate(object);
  }

  @Override
  public List<FieldError> validateUpdate(T object, T old) {
    return RbacValidation.validateUpdate(object, old);
  }

  /**
   * Only an update that changes nothing but what the garbage collector and the field manager own
   * (ownerReferences, finalizers, managedFields) skips the escalation check, as upstream's
   * IsOnlyMutatingGCFields: labels decide ClusterRole aggregation, so a label is a grant too.
   */
  @Override
  public void admit(T object, T old, WriteOptions options) {
    if (old != null && sameGrant(object, old)) {
      return;
    }
    Optional<String> refused = Escalation.check(rbac.policy(), options.user(), object);
    if (refused.isPresent()) {
      throw ApiException.forbidden(resource.qualified() + " \"" + object.getMetadata().getName() + "\" is forbidden: "
          + refused.get(), resource.group(), resource.plural(), object.getMetadata().getName());
    }
  }

  private static boolean sameGrant(HasMetadata updated, HasMetadata current) {
    return KubeJson.write(withoutGcFields(updated)).equals(KubeJson.write(withoutGcFields(current)));
  }

  private static HasMetadata withoutGcFields(HasMetadata object) {
    HasMetadata copy = KubeJson.copy(object);
    copy.getMetadata().setOwnerReferences(null);
    copy.getMetadata().setFinalizers(null);
    copy.getMetadata().setManagedFields(null);
    copy.getMetadata().setResourceVersion(null);
    return copy;
  }
}
