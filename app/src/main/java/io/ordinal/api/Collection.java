package io.ordinal.api;

import io.ordinal.apimachinery.KubeCodec;
import io.ordinal.apimachinery.ApiException;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.ListMeta;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.ordinal.api.table.Table;
import io.ordinal.api.table.Tables;
import io.ordinal.api.watch.ListOptions;
import io.ordinal.api.watch.Watches;
import io.ordinal.kube.FieldSelectors;
import io.ordinal.kube.LabelSelectors;
import io.ordinal.store.KubeJson;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * One kind of object as a collection: list (selectors, paging, resourceVersion, Table) and watch,
 * the same for every resource, as the API server's generic registry serves them.
 *
 * @param resource the table its objects are stored in (what the watch log names)
 * @param type the class of its objects (which field selectors and Table columns apply)
 */
public record Collection<T extends HasMetadata>(String resource, Class<T> type, String apiVersion, String kind,
    Lister<T> lister) {

  /**
   * The objects of a namespace (all when null); it may leave out those without {@code requiredLabels}
   * (the selector is applied to what it returns in any case).
   */
  @FunctionalInterface
  public interface Lister<T> {
    List<T> list(String namespace, Map<String, String> requiredLabels);
  }

  /** A collection whose store lists a whole namespace. */
  public Collection(String resource, Class<T> type, String apiVersion, String kind, Function<String, List<T>> lister) {
    this(resource, type, apiVersion, kind, (namespace, requiredLabels) -> lister.apply(namespace));
  }

  /** Lists or watches the objects of {@code namespace} (all namespaces when null), as the request asks. */
  public HttpResponse<?> serve(HttpRequest<?> request, String namespace, Watches watches) {
    ListOptions options = ListOptions.of(request);
    Predicate<HasMetadata> selected = selection(options);
    Map<String, String> requiredLabels = requiredLabels(options);
    Optional<Tables.Version> table = tableRequested(request);
    Tables.IncludeObject include = includeObject(request);
    if (options.watch()) {
      Watches.Encoder encoder = table.isEmpty() ? Watches.AS_OBJECTS : (object, first) -> {
        Table rows = Tables.table(type, List.of(type.cast(object)), Instant.now(), include, table.get(),
            new ListMeta(null, null, object.getMetadata().getResourceVersion(), null));
        // Headers come with the first event only, as upstream's watch sends them.
        return first ? rows : new Table(rows.kind(), rows.apiVersion(), rows.metadata(), null, rows.rows());
      };
      var target = new Watches.Target(resource, apiVersion, kind, namespace, selected,
          () -> lister.list(namespace, requiredLabels), encoder);
      // Not the file caching headers a streamed body would get by default: a watch is never cached.
      return HttpResponse.ok(watches.watchBody(target, options)).header(HttpHeaders.CACHE_CONTROL, "no-cache, private");
    }
    String listVersion = watches.listVersion();
    if ("Exact".equals(options.resourceVersionMatch()) && !options.resourceVersion().equals("0")
        && !listVersion.equals(options.resourceVersion())) {
      // Older states are not kept (only their changes, for watches).
      throw ApiException.of(410, "Expired", "too old resource version: " + options.resourceVersion() + " (" + listVersion + ")");
    }
    List<T> items = new ArrayList<>(selected(namespace, selected, requiredLabels));
    items.sort(Comparator.comparing((T o) -> key(o)));
    Page<T> page = page(items, options);
    ListMeta metadata = new ListMeta(page.continueToken(), page.remainingItemCount(), listVersion, null);
    if (table.isPresent()) {
      return KubeCodec.ok(request, Tables.table(type, page.items(), Instant.now(), include, table.get(), metadata));
    }
    Map<String, Object> list = new LinkedHashMap<>();
    list.put("apiVersion", apiVersion);
    list.put("kind", kind + "List");
    list.put("metadata", metadata);
    list.put("items", page.items());
    return KubeCodec.ok(request, list);
  }

  /** One object, as itself or, when the client asks for it, as a Table of one row. */
  public HttpResponse<String> one(HttpRequest<?> request, T object) {
    Optional<Tables.Version> table = tableRequested(request);
    if (table.isEmpty()) {
      return KubeCodec.ok(request, object);
    }
    return KubeCodec.ok(request, Tables.table(type, List.of(object), Instant.now(), includeObject(request), table.get(),
        new ListMeta(null, null, object.getMetadata().getResourceVersion(), null)));
  }

  private static Optional<Tables.Version> tableRequested(HttpRequest<?> request) {
    return Tables.requestedTable(String.join(",", request.getHeaders().getAll("Accept")));
  }

  private static Tables.IncludeObject includeObject(HttpRequest<?> request) {
    try {
      return Tables.IncludeObject.parse(request.getParameters().get("includeObject"));
    } catch (IllegalArgumentException e) {
      throw ApiException.badRequest(e.getMessage());
    }
  }

  /** {@code limit} and {@code continue}: the page after the continue token's key, and the token for the next. */
  private record Page<T>(List<T> items, String continueToken, Long remainingItemCount) {}

  private static <T extends HasMetadata> Page<T> page(List<T> items, ListOptions options) {
    List<T> rest = items;
    if (options.continueToken() != null && !options.continueToken().isEmpty()) {
      String after = decodeContinue(options.continueToken());
      rest = items.stream().filter(o -> key(o).compareTo(after) > 0).toList();
    }
    if (options.limit() == null || options.limit() == 0 || rest.size() <= options.limit()) {
      return new Page<>(rest, null, null);
    }
    List<T> page = rest.subList(0, options.limit());
    return new Page<>(page, encodeContinue(key(page.getLast())), (long) (rest.size() - page.size()));
  }

  private static String encodeContinue(String lastKey) {
    String token = KubeJson.write(Map.of("v", "meta.k8s.io/v1", "start", lastKey));
    return Base64.getUrlEncoder().withoutPadding().encodeToString(token.getBytes(StandardCharsets.UTF_8));
  }

  private static String decodeContinue(String token) {
    try {
      String json = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
      Object start = KubeJson.read(json, Map.class).get("start");
      if (start instanceof String key) {
        return key;
      }
    } catch (RuntimeException e) {
      // answered below
    }
    throw ApiException.badRequest("continue key is not valid: the token was not issued by this server");
  }

  private static String key(HasMetadata object) {
    return object.getMetadata().getNamespace() + "/" + object.getMetadata().getName();
  }

  /** The objects of a namespace (all when null) that the request's labelSelector and fieldSelector let through. */
  public List<T> selected(String namespace, ListOptions options) {
    return selected(namespace, selection(options), requiredLabels(options));
  }

  private List<T> selected(String namespace, Predicate<HasMetadata> selection, Map<String, String> requiredLabels) {
    return lister.list(namespace, requiredLabels).stream().filter(selection).toList();
  }

  /** What every object the labelSelector lets through carries (validated by {@link #selection}). */
  private static Map<String, String> requiredLabels(ListOptions options) {
    if (options.labelSelector() == null || options.labelSelector().isBlank()) {
      return Map.of();
    }
    return LabelSelectors.requiredLabels(LabelSelectors.parse(options.labelSelector()));
  }

  /** The objects the request's labelSelector and fieldSelector let through. */
  public Predicate<HasMetadata> selection(ListOptions options) {
    Predicate<HasMetadata> selected = o -> true;
    try {
      if (options.labelSelector() != null && !options.labelSelector().isBlank()) {
        LabelSelector labels = LabelSelectors.parse(options.labelSelector());
        selected = o -> LabelSelectors.matches(labels,
            o.getMetadata().getLabels() == null ? Map.of() : o.getMetadata().getLabels());
      }
      if (options.fieldSelector() != null && !options.fieldSelector().isBlank()) {
        FieldSelectors.Selector fields = FieldSelectors.parse(options.fieldSelector(), type);
        selected = selected.and(o -> FieldSelectors.matches(fields, o));
      }
    } catch (IllegalArgumentException e) {
      throw ApiException.badRequest(e.getMessage());
    }
    return selected;
  }
}
