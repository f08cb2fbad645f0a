package io.ordinal.api.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.micronaut.transaction.TransactionCallback;
import io.micronaut.transaction.TransactionDefinition;
import io.micronaut.transaction.TransactionOperations;
import io.micronaut.transaction.TransactionStatus;
import io.ordinal.api.discovery.ApiResources;
import io.ordinal.apimachinery.ApiException;
import io.ordinal.apimachinery.FieldError;
import io.ordinal.auth.Authorization;
import io.ordinal.request.RequestAttributes;
import io.ordinal.request.User;
import io.ordinal.store.KubeJson;
import io.ordinal.store.StatefulSetStore;
import io.ordinal.store.StoreException;
import java.sql.Connection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The write path every kind shares, on an in-memory storage: what upstream's generic store does once for all. */
class GenericStoreTest {
  private static final WriteOptions WRITE = new WriteOptions(false, "test", false, User.ANONYMOUS);
  private static final WriteOptions DRY_RUN = new WriteOptions(true, "test", false, User.ANONYMOUS);

  private final MemoryStorage storage = new MemoryStorage();
  /** Whether the writer may create configmaps: an apply that creates needs it. */
  private boolean mayCreate = true;
  private final GenericStore<ConfigMap> store = new GenericStore<>(new ConfigMapStrategy(), storage, new NoTransactions(),
      new NamespaceLifecycle(null) {
        @Override
        public void admitCreate(String namespace, String group, String resource, String name) {}
      },
      new Authorization(null) {
        @Override
        public boolean allows(User user, RequestAttributes request) {
          return !request.verb().equals("create") || mayCreate;
        }
      });

  @Test
  void generateNameTakesUpstreamsAlphabetAndTriesAnotherNameWhenOneIsTaken() {
    storage.refuseCreates.set(2);
    ConfigMap created = store.create("ns", configMap(null, Map.of()).edit().editMetadata().withGenerateName("web-").endMetadata().build(), WRITE);
    String name = created.getMetadata().getName();
    assertTrue(name.matches("web-[bcdfghjklmnpqrstvwxz2456789]{5}"), name);
    assertEquals(3, storage.createAttempts.get());
  }

  @Test
  void aPatchIsAppliedAgainToTheNewerObjectAfterARacingWrite() {
    store.create("ns", configMap("a", Map.of("k", "1")), WRITE);
    storage.raceNextUpdate = true;
    AtomicInteger applied = new AtomicInteger();
    ConfigMap patched = store.update("ns", "a", Update.patching(current -> {
      applied.incrementAndGet();
      current.getData().put("mine", "yes");
      return current;
    }), WRITE);
    assertEquals(2, applied.get(), "applied to the object the racing write left");
    assertEquals("yes", patched.getData().get("mine"));
    assertEquals("racer", patched.getData().get("race"), "the racing write is kept");
  }

  @Test
  void anUpdateNamingItsResourceVersionIsAConflictAfterARacingWriteNotRetried() {
    ConfigMap created = store.create("ns", configMap("a", Map.of()), WRITE);
    storage.raceNextUpdate = true;
    ConfigMap body = configMap("a", Map.of("k", "2"));
    body.getMetadata().setResourceVersion(created.getMetadata().getResourceVersion());
    ApiException conflict = assertThrows(ApiException.class, () -> store.update("ns", "a", Update.replacing(body), WRITE));
    assertEquals(409, conflict.code());
    assertEquals("Operation cannot be fulfilled on configmaps \"a\": the object has been modified; please apply your"
        + " changes to the latest version and try again", conflict.status().getMessage());
  }

  @Test
  void aPutWithoutTheNameOfItsUrlIsRefused() {
    store.create("ns", configMap("a", Map.of()), WRITE);
    ApiException refused = assertThrows(ApiException.class,
        () -> store.update("ns", "a", Update.replacing(configMap(null, Map.of())), WRITE));
    assertEquals(400, refused.code());
    assertEquals("the name of the object () does not match the name on the URL (a)", refused.status().getMessage());
  }

  @Test
  void aDryRunIsValidatedAndAnsweredButNeverStored() {
    ConfigMap answered = store.create("ns", configMap("a", Map.of("k", "1")), DRY_RUN);
    assertTrue(answered.getMetadata().getUid() != null && answered.getMetadata().getCreationTimestamp() != null);
    assertTrue(storage.objects.isEmpty());
    assertEquals(422, assertThrows(ApiException.class, () -> store.create("ns", configMap("a", Map.of("bad", "x")), DRY_RUN)).code());

    store.create("ns", configMap("a", Map.of("k", "1")), WRITE);
    assertEquals(409, assertThrows(ApiException.class, () -> store.create("ns", configMap("a", Map.of()), DRY_RUN)).code());
    ConfigMap updated = store.update("ns", "a", Update.patching(c -> {
      c.getData().put("k", "2");
      return c;
    }), DRY_RUN);
    assertEquals("2", updated.getData().get("k"));
    assertEquals("1", store.get("ns", "a").getData().get("k"));
    store.delete("ns", "a", new Deletion(StatefulSetStore.Propagation.BACKGROUND, true, null, null));
    assertTrue(storage.objects.containsKey("ns/a"));
  }

  @Test
  void deleteCollectionChecksThePreconditionsOfEachObject() {
    store.create("ns", configMap("a", Map.of()), WRITE);
    store.create("ns", configMap("b", Map.of()), WRITE);
    Deletion wrongUid = new Deletion(StatefulSetStore.Propagation.BACKGROUND, false, "not-the-uid", null);
    assertEquals(409, assertThrows(ApiException.class,
        () -> store.deleteCollection(List.of(store.get("ns", "a"), store.get("ns", "b")), wrongUid)).code());
    assertEquals(2, storage.objects.size());
    store.deleteCollection(List.of(store.get("ns", "a"), store.get("ns", "b")),
        new Deletion(StatefulSetStore.Propagation.BACKGROUND, false, null, null));
    assertTrue(storage.objects.isEmpty());
  }

  @Test
  void serverSideApplyCreatesThenMergesAndRefusesToTakeAnotherManagersFieldUnlessForced() {
    GenericStore.Applied<ConfigMap> first = store.apply("ns", "a", configMap("a", Map.of("k", "1")), WRITE);
    assertTrue(first.created());
    assertEquals("Apply", first.object().getMetadata().getManagedFields().getFirst().getOperation());
    WriteOptions other = new WriteOptions(false, "other", false, User.ANONYMOUS);
    ApiException conflict = assertThrows(ApiException.class, () -> store.apply("ns", "a", configMap("a", Map.of("k", "2")), other));
    assertEquals(409, conflict.code());
    assertTrue(FieldOwnership.isApplyConflict(conflict));
    GenericStore.Applied<ConfigMap> forced = store.apply("ns", "a", configMap("a", Map.of("k", "2")),
        new WriteOptions(false, "other", true, User.ANONYMOUS));
    assertFalse(forced.created());
    assertEquals("2", forced.object().getData().get("k"));
  }

  @Test
  void anApplyThatWouldCreateNeedsTheCreateVerbNotOnlyPatch() {
    mayCreate = false;
    ApiException forbidden = assertThrows(ApiException.class, () -> store.apply("ns", "a", configMap("a", Map.of()), WRITE));
    assertEquals(403, forbidden.code());
    assertTrue(storage.objects.isEmpty());
    mayCreate = true;
    store.apply("ns", "a", configMap("a", Map.of()), WRITE);
    mayCreate = false;
    assertFalse(store.apply("ns", "a", configMap("a", Map.of("k", "1")), WRITE).created(), "an apply that updates needs no create");
  }

  @Test
  void aPutRetriedAfterARacingWriteStartsFromTheBodyAsSent() {
    store.create("ns", configMap("a", Map.of()), WRITE);
    storage.raceNextUpdate = true;
    ConfigMap body = configMap("a", Map.of("k", "2"));
    String sent = KubeJson.write(body);
    ConfigMap written = store.update("ns", "a", Update.replacing(body), WRITE);
    assertEquals("2", written.getData().get("k"));
    assertEquals(sent, KubeJson.write(body), "each attempt starts from the body as sent (its managedFields untouched)");
  }

  @Test
  void aWrongKindOrNamespaceInTheBodyIsABadRequest() {
    ConfigMap elsewhere = configMap("a", Map.of());
    elsewhere.getMetadata().setNamespace("other");
    assertEquals(400, assertThrows(ApiException.class, () -> store.create("ns", elsewhere, WRITE)).code());
    ConfigMap wrongKind = configMap("b", Map.of());
    wrongKind.setKind("Secret");
    assertEquals(400, assertThrows(ApiException.class, () -> store.create("ns", wrongKind, WRITE)).code());
  }

  private static ConfigMap configMap(String name, Map<String, String> data) {
    return new ConfigMapBuilder().withNewMetadata().withName(name).endMetadata().withData(new LinkedHashMap<>(data)).build();
  }

  /** Refuses a key named "bad", so that validation has something to refuse. */
  private static final class ConfigMapStrategy implements Strategy<ConfigMap> {
    @Override
    public Resource<ConfigMap> resource() {
      return new Resource<>(new ApiResources.Resource("", "v1", "configmaps", "configmap", "ConfigMap", true,
          List.of("create", "get"), List.of(), List.of(), List.of()), ConfigMap.class);
    }

    @Override
    public List<FieldError> validate(ConfigMap object) {
      return object.getData() != null && object.getData().containsKey("bad")
          ? List.of(new FieldError("FieldValueInvalid", "data[bad]", "Invalid value")) : List.of();
    }

    @Override
    public List<FieldError> validateUpdate(ConfigMap object, ConfigMap old) {
      return validate(object);
    }
  }

  /** Objects by namespace/name with a resourceVersion counter; can refuse creates or race an update. */
  private static final class MemoryStorage implements Storage<ConfigMap> {
    final Map<String, ConfigMap> objects = new LinkedHashMap<>();
    final AtomicInteger createAttempts = new AtomicInteger();
    final AtomicInteger refuseCreates = new AtomicInteger();
    boolean raceNextUpdate;
    private long version;

    @Override
    public Optional<ConfigMap> get(String namespace, String name) {
      return Optional.ofNullable(objects.get(namespace + "/" + name)).map(KubeJson::copy);
    }

    @Override
    public ConfigMap create(ConfigMap object) {
      createAttempts.incrementAndGet();
      String key = object.getMetadata().getNamespace() + "/" + object.getMetadata().getName();
      if (refuseCreates.getAndDecrement() > 0 || objects.containsKey(key)) {
        throw new StoreException(StoreException.Reason.ALREADY_EXISTS, key);
      }
      ConfigMap stored = KubeJson.copy(object);
      stored.getMetadata().setUid(UUID.randomUUID().toString());
      stored.getMetadata().setResourceVersion(Long.toString(++version));
      objects.put(key, stored);
      return KubeJson.copy(stored);
    }

    @Override
    public ConfigMap update(ConfigMap object, long expectedVersion) {
      String key = object.getMetadata().getNamespace() + "/" + object.getMetadata().getName();
      if (raceNextUpdate) {
        raceNextUpdate = false;
        ConfigMap raced = objects.get(key);
        raced.getData().put("race", "racer");
        raced.getMetadata().setResourceVersion(Long.toString(++version));
      }
      ConfigMap current = objects.get(key);
      if (Long.parseLong(current.getMetadata().getResourceVersion()) != expectedVersion) {
        throw new StoreException(StoreException.Reason.CONFLICT, key);
      }
      ConfigMap stored = KubeJson.copy(object);
      stored.getMetadata().setUid(current.getMetadata().getUid());
      stored.getMetadata().setResourceVersion(Long.toString(++version));
      objects.put(key, stored);
      return KubeJson.copy(stored);
    }

    @Override
    public ConfigMap delete(ConfigMap current, Deletion options) {
      objects.remove(current.getMetadata().getNamespace() + "/" + current.getMetadata().getName());
      return current;
    }
  }

  /** Runs each callback as it is: the in-memory storage has nothing to commit. */
  private static final class NoTransactions implements TransactionOperations<Connection> {
    @Override
    public Connection getConnection() {
      throw new UnsupportedOperationException();
    }

    @Override
    public boolean hasConnection() {
      return false;
    }

    @Override
    public Optional<? extends TransactionStatus<?>> findTransactionStatus() {
      return Optional.empty();
    }

    @Override
    public <R> R execute(TransactionDefinition definition, TransactionCallback<Connection, R> callback) {
      return callback.apply(null);
    }
  }
}
