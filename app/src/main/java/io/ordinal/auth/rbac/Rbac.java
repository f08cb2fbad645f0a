package io.ordinal.auth.rbac;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.micronaut.context.event.StartupEvent;
import io.micronaut.runtime.event.annotation.EventListener;
import io.micronaut.scheduling.annotation.Scheduled;
import io.ordinal.apimachinery.ChangeFeed;
import io.ordinal.store.ObjectStore;
import io.ordinal.store.ObjectTable;
import io.ordinal.store.StoreException;
import io.ordinal.store.WatchLog;
import jakarta.inject.Singleton;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The RBAC objects as the authorizer sees them: an in-memory {@link Policy} snapshot, made again
 * after every RBAC write through this instance, whenever the watch feed shows an RBAC change (another
 * instance's write), and every 30 seconds should both be missed. Writes go through here so that
 * aggregated ClusterRoles are worked out again whenever a ClusterRole changes. On start the default
 * roles and bindings are reconciled.
 */
@Singleton
public class Rbac {
  private static final Logger log = LoggerFactory.getLogger(Rbac.class);

  private final ObjectStore store;
  private final ChangeFeed feed;
  private volatile Policy policy = Policy.EMPTY;
  private final ExecutorService refresher = Executors.newSingleThreadExecutor(
      Thread.ofPlatform().daemon().name("rbac-refresh").factory());
  private final AtomicBoolean refreshQueued = new AtomicBoolean();

  public Rbac(ObjectStore store, ChangeFeed feed) {
    this.store = store;
    this.feed = feed;
  }

  @EventListener
  void onStartup(StartupEvent event) {
    reconcileDefaults(Instant.now());
    aggregate();
    refresh();
    feed.subscribe(new ChangeFeed.Subscriber() {
      @Override
      public void changed(List<WatchLog.Change> changes) {
        if (changes.stream().anyMatch(c -> ObjectTable.ofTable(c.resource()).filter(ObjectTable.RBAC::contains).isPresent())) {
          refreshSoon();
        }
      }

      @Override
      public void caughtUp(long resourceVersion) {}
    });
  }

  /** The snapshot to authorize against. */
  public Policy policy() {
    return policy;
  }

  @Scheduled(fixedDelay = "30s", initialDelay = "30s")
  void periodicRefresh() {
    refresh();
  }

  /** Reads every RBAC object again (four queries) and swaps the snapshot. */
  public synchronized void refresh() {
    policy = new Policy(store.list(ObjectTable.CLUSTER_ROLES, ClusterRole.class, null), store.list(ObjectTable.ROLES, Role.class, null),
        store.list(ObjectTable.CLUSTER_ROLE_BINDINGS, ClusterRoleBinding.class, null),
        store.list(ObjectTable.ROLE_BINDINGS, RoleBinding.class, null));
  }

  /** Off the feed's thread, and once for a burst of changes. */
  private void refreshSoon() {
    if (refreshQueued.compareAndSet(false, true)) {
      refresher.execute(() -> {
        refreshQueued.set(false);
        try {
          refresh();
        } catch (RuntimeException e) {
          log.warn("RBAC refresh failed, retried within 30s: {}", e.toString());
        }
      });
    }
  }

  public <T extends HasMetadata> List<T> list(ObjectTable kind, Class<T> type, String namespace) {
    return store.list(kind, type, namespace);
  }

  public <T extends HasMetadata> Optional<T> find(ObjectTable kind, Class<T> type, String namespace, String name) {
    return store.find(kind, type, namespace, name);
  }

  /** After a write of an RBAC object: ClusterRoles aggregated again, the policy renewed. */
  public void written(ObjectTable kind) {
    if (kind == ObjectTable.CLUSTER_ROLES) {
      aggregate();
    }
    refresh();
  }

  /** Rewrites the rules of aggregated ClusterRoles that no longer match their members. */
  synchronized void aggregate() {
    for (int attempt = 0; attempt < 3; attempt++) {
      List<ClusterRole> roles = store.list(ObjectTable.CLUSTER_ROLES, ClusterRole.class, null);
      Map<String, List<PolicyRule>> changes = Aggregation.changes(roles);
      try {
        for (ClusterRole role : roles) {
          List<PolicyRule> rules = changes.get(role.getMetadata().getName());
          if (rules != null) {
            role.setRules(new ArrayList<>(rules));
            store.update(ObjectTable.CLUSTER_ROLES, role, Long.parseLong(role.getMetadata().getResourceVersion()));
          }
        }
        return;
      } catch (StoreException e) {
        // Someone wrote a role meanwhile: work it out again from what is stored now.
      }
    }
  }

  /**
   * Upstream's reconciliation of the default roles: missing ones are created; existing ones keep what
   * was added to them but get back what they lack, unless annotated {@code autoupdate: "false"}.
   */
  private void reconcileDefaults(Instant now) {
    for (ClusterRole wanted : Bootstrap.clusterRoles()) {
      String name = wanted.getMetadata().getName();
      var existing = store.find(ObjectTable.CLUSTER_ROLES, ClusterRole.class, "", name);
      try {
        if (existing.isEmpty()) {
          store.create(ObjectTable.CLUSTER_ROLES, wanted, now);
        } else if (autoupdate(existing.get())) {
          ClusterRole role = existing.get();
          boolean changed = mergeMetadata(role, wanted);
          if (wanted.getAggregationRule() != null && !Objects.equals(role.getAggregationRule(), wanted.getAggregationRule())) {
            role.setAggregationRule(wanted.getAggregationRule());
            changed = true;
          }
          if (wanted.getAggregationRule() == null) {
            List<PolicyRule> rules = new ArrayList<>(role.getRules() == null ? List.of() : role.getRules());
            for (PolicyRule rule : wanted.getRules()) {
              if (rules.stream().noneMatch(r -> Aggregation.same(r, rule))) {
                rules.add(rule);
                changed = true;
              }
            }
            role.setRules(rules);
          }
          if (changed) {
            store.update(ObjectTable.CLUSTER_ROLES, role, Long.parseLong(role.getMetadata().getResourceVersion()));
          }
        }
      } catch (StoreException e) {
        log.info("default role {} was written by another instance meanwhile", name);
      }
    }
    for (ClusterRoleBinding wanted : Bootstrap.clusterRoleBindings()) {
      String name = wanted.getMetadata().getName();
      var existing = store.find(ObjectTable.CLUSTER_ROLE_BINDINGS, ClusterRoleBinding.class, "", name);
      try {
        if (existing.isEmpty()) {
          store.create(ObjectTable.CLUSTER_ROLE_BINDINGS, wanted, now);
        } else if (autoupdate(existing.get())) {
          ClusterRoleBinding binding = existing.get();
          boolean changed = mergeMetadata(binding, wanted);
          List<Subject> subjects = new ArrayList<>(binding.getSubjects() == null ? List.of() : binding.getSubjects());
          for (Subject subject : wanted.getSubjects()) {
            if (!subjects.contains(subject)) {
              subjects.add(subject);
              changed = true;
            }
          }
          binding.setSubjects(subjects);
          if (!Objects.equals(binding.getRoleRef(), wanted.getRoleRef())) {
            // A roleRef cannot change: upstream deletes the binding and creates it again.
            store.delete(ObjectTable.CLUSTER_ROLE_BINDINGS, "", name, Long.parseLong(binding.getMetadata().getResourceVersion()));
            binding.setRoleRef(wanted.getRoleRef());
            store.create(ObjectTable.CLUSTER_ROLE_BINDINGS, binding, now);
          } else if (changed) {
            store.update(ObjectTable.CLUSTER_ROLE_BINDINGS, binding, Long.parseLong(binding.getMetadata().getResourceVersion()));
          }
        }
      } catch (StoreException e) {
        log.info("default binding {} was written by another instance meanwhile", name);
      }
    }
  }

  private static boolean autoupdate(HasMetadata object) {
    Map<String, String> annotations = object.getMetadata().getAnnotations();
    return annotations == null || !"false".equals(annotations.get(Bootstrap.AUTOUPDATE));
  }

  private static boolean mergeMetadata(HasMetadata existing, HasMetadata wanted) {
    boolean changed = false;
    Map<String, String> labels = new LinkedHashMap<>(existing.getMetadata().getLabels() == null ? Map.of()
        : existing.getMetadata().getLabels());
    Map<String, String> annotations = new LinkedHashMap<>(existing.getMetadata().getAnnotations() == null ? Map.of()
        : existing.getMetadata().getAnnotations());
    for (var e : wanted.getMetadata().getLabels().entrySet()) {
      changed |= !e.getValue().equals(labels.put(e.getKey(), e.getValue()));
    }
    for (var e : wanted.getMetadata().getAnnotations().entrySet()) {
      changed |= !e.getValue().equals(annotations.put(e.getKey(), e.getValue()));
    }
    existing.getMetadata().setLabels(labels);
    existing.getMetadata().setAnnotations(annotations);
    return changed;
  }
}
