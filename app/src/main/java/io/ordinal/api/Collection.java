package io.ordinal.api;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.ordinal.api.watch.ListOptions;
import io.ordinal.api.watch.Watches;
import io.ordinal.kube.LabelSelectors;
import io.ordinal.store.KubeJson;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * One kind of object as a collection: list (selectors, paging, resourceVersion, Table) and watch,
 * the same for every resource, as the API server's generic registry serves them.
 *
 * @param resource the table its objects are stored in (what the watch log names)
 * @param plural the resource's name in URLs and field-selector rules
 */
public record Collection<T extends HasMetadata>(String resource, String plural, String apiVersion, String kind,
    Function<String, List<T>> lister) {

  /** Lists or watches the objects of {@code namespace} (all namespaces when null), as the request asks. */
  public HttpResponse<?> serve(HttpRequest<?> request, String namespace, Watches watches) {
    ListOptions options = ListOptions.of(request);
    Predicate<HasMetadata> selected = selection(options);
    if (options.watch()) {
      var target = new Watches.Target(resource, apiVersion, kind, namespace, selected,
          () -> lister.apply(namespace), Watches.AS_OBJECTS);
      return HttpResponse.ok(watches.watchBody(target, options));
    }
    if ("Exact".equals(options.resourceVersionMatch()) && !options.resourceVersion().equals("0")) {
      String current = watches.listVersion();
      if (!current.equals(options.resourceVersion())) {
        // Older states are not kept (only their changes, for watches).
        throw ApiException.of(410, "Expired", "too old resource version: " + options.resourceVersion() + " (" + current + ")");
      }
    }
    String listVersion = watches.listVersion();
    List<T> items = new ArrayList<>(lister.apply(namespace).stream().filter(selected).toList());
    items.sort(Comparator.comparing((T o) -> key(o)));
    Map<String, Object> metadata = new LinkedHashMap<>();
    metadata.put("resourceVersion", listVersion);
    List<T> page = page(items, options, metadata);
    Map<String, Object> list = new LinkedHashMap<>();
    list.put("apiVersion", apiVersion);
    list.put("kind", kind + "List");
    list.put("metadata", metadata);
    list.put("items", page);
    return KubeCodec.ok(request, list);
  }

  /** {@code limit} and {@code continue}: the page after the continue token's key, and the token for the next. */
  private static <T extends HasMetadata> List<T> page(List<T> items, ListOptions options, Map<String, Object> metadata) {
    List<T> rest = items;
    if (options.continueToken() != null && !options.continueToken().isEmpty()) {
      String after = decodeContinue(options.continueToken());
      rest = items.stream().filter(o -> key(o).compareTo(after) > 0).toList();
    }
    if (options.limit() == null || options.limit() == 0 || rest.size() <= options.limit()) {
      return rest;
    }
    List<T> page = rest.subList(0, options.limit());
    metadata.put("continue", encodeContinue(key(page.getLast())));
    metadata.put("remainingItemCount", (long) (rest.size() - page.size()));
    return page;
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

  /** The objects the request's labelSelector and fieldSelector let through. */
  Predicate<HasMetadata> selection(ListOptions options) {
    Predicate<HasMetadata> selected = o -> true;
    if (options.labelSelector() != null && !options.labelSelector().isBlank()) {
      LabelSelector selector;
      try {
        selector = LabelSelectors.parse(options.labelSelector());
      } catch (IllegalArgumentException e) {
        throw ApiException.badRequest("unable to parse requirement: " + e.getMessage());
      }
      selected = o -> LabelSelectors.matches(selector,
          o.getMetadata().getLabels() == null ? Map.of() : o.getMetadata().getLabels());
    }
    return selected.and(FieldSelection.of(plural, options.fieldSelector()));
  }
}
