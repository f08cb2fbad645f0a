package io.ordinal.api.table;

import io.fabric8.kubernetes.api.model.ListMeta;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import java.util.List;

/**
 * A {@code meta.k8s.io} Table, the server-side rendering that {@code kubectl get} asks for: the
 * shape of upstream's {@code metav1.Table} (apis/meta/v1/types.go). The fabric8 model has no such
 * type. Field order is the JSON order; absent (null) fields are left out by the mapper, as
 * upstream's {@code omitempty} does for {@code conditions} and {@code object}.
 */
public record Table(
    String kind,
    String apiVersion,
    ListMeta metadata,
    List<Column> columnDefinitions,
    List<Row> rows) {

  /** One column: an OpenAPI type and format, and priority 0 (always shown) or 1 ({@code -o wide}). */
  public record Column(String name, String type, String format, String description, int priority) {}

  /**
   * One object's cells, in column order (strings and integers), conditions (pods that have
   * finished), and the object itself, its metadata only, or nothing, as {@code includeObject} asks.
   */
  public record Row(List<Object> cells, List<RowCondition> conditions, Object object) {}

  /** Upstream's TableRowCondition; the only type is {@code Completed}, which kubectl uses to hide finished pods. */
  public record RowCondition(String type, String status, String reason, String message) {}

  /** The object's metadata alone, the row object for {@code includeObject=Metadata} (the default). */
  public record PartialObjectMetadata(String kind, String apiVersion, ObjectMeta metadata) {}
}
