package io.ordinal.store;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import java.util.List;
import java.util.Optional;

/**
 * A kind kept whole as JSON in a table of its own ({@link ObjectStore}): RBAC objects (V6), the
 * core objects charts carry (V15), the EndpointSlices the endpoint slice controller writes (V17). Sealed tables hold their objects encrypted ({@link SecretSealer}).
 *
 * @param table the table, also what the watch log names
 * @param namespaced cluster-scoped objects have namespace '' in their rows
 */
public record ObjectTable(String table, String kind, Class<? extends HasMetadata> type, boolean namespaced,
    boolean sealed) {

  public static final ObjectTable ROLES = new ObjectTable("roles", "Role", Role.class, true, false);
  public static final ObjectTable ROLE_BINDINGS = new ObjectTable("role_bindings", "RoleBinding", RoleBinding.class, true, false);
  public static final ObjectTable CLUSTER_ROLES = new ObjectTable("cluster_roles", "ClusterRole", ClusterRole.class, false, false);
  public static final ObjectTable CLUSTER_ROLE_BINDINGS =
      new ObjectTable("cluster_role_bindings", "ClusterRoleBinding", ClusterRoleBinding.class, false, false);
  public static final ObjectTable CONFIG_MAPS = new ObjectTable("config_maps", "ConfigMap", ConfigMap.class, true, false);
  public static final ObjectTable SECRETS = new ObjectTable("secrets", "Secret", Secret.class, true, true);
  public static final ObjectTable SERVICE_ACCOUNTS =
      new ObjectTable("service_accounts", "ServiceAccount", ServiceAccount.class, true, false);
  public static final ObjectTable SERVICES = new ObjectTable("services", "Service", Service.class, true, false);
  public static final ObjectTable ENDPOINT_SLICES =
      new ObjectTable("endpoint_slices", "EndpointSlice", EndpointSlice.class, true, false);

  public static final List<ObjectTable> RBAC = List.of(ROLES, ROLE_BINDINGS, CLUSTER_ROLES, CLUSTER_ROLE_BINDINGS);
  public static final List<ObjectTable> ALL = List.of(ROLES, ROLE_BINDINGS, CLUSTER_ROLES, CLUSTER_ROLE_BINDINGS,
      CONFIG_MAPS, SECRETS, SERVICE_ACCOUNTS, SERVICES, ENDPOINT_SLICES);

  public static Optional<ObjectTable> ofTable(String table) {
    return ALL.stream().filter(t -> t.table.equals(table)).findFirst();
  }
}
