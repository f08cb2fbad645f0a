package io.ordinal.api;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads the one protobuf body Ordinal takes: a v1 Namespace, as {@code kubectl create namespace}
 * sends it ({@code application/vnd.kubernetes.protobuf}, with no JSON fallback on 415). Only what a
 * namespace can carry here is read: name, generateName, labels, annotations; the rest is skipped.
 * The envelope is upstream's: the magic {@code k8s\0}, then a runtime.Unknown whose field 2 is the
 * object's bytes.
 */
final class NamespaceProtobuf {
  static final String MEDIA_TYPE = "application/vnd.kubernetes.protobuf";
  private static final byte[] MAGIC = {'k', '8', 's', 0};

  private NamespaceProtobuf() {}

  static Namespace read(byte[] body) {
    if (body == null || body.length < MAGIC.length || !Arrays.equals(Arrays.copyOf(body, MAGIC.length), MAGIC)) {
      throw ApiException.badRequest("the protobuf body does not start with the Kubernetes magic number");
    }
    try {
      Reader unknown = new Reader(Arrays.copyOfRange(body, MAGIC.length, body.length));
      byte[] raw = null;
      while (unknown.more()) {
        int tag = unknown.varint32();
        if (tag >>> 3 == 2 && (tag & 7) == 2) {
          raw = unknown.bytes();
        } else {
          unknown.skip(tag);
        }
      }
      if (raw == null) {
        throw ApiException.badRequest("the protobuf body holds no object");
      }
      Namespace namespace = new Namespace();
      namespace.setApiVersion("v1");
      namespace.setKind("Namespace");
      ObjectMeta meta = new ObjectMeta();
      namespace.setMetadata(meta);
      Reader object = new Reader(raw);
      while (object.more()) {
        int tag = object.varint32();
        if (tag >>> 3 == 1 && (tag & 7) == 2) {
          readMeta(new Reader(object.bytes()), meta);
        } else {
          object.skip(tag); // spec (finalizers) and status are the server's
        }
      }
      return namespace;
    } catch (IndexOutOfBoundsException e) {
      throw ApiException.badRequest("the protobuf body is truncated");
    }
  }

  private static void readMeta(Reader in, ObjectMeta meta) {
    Map<String, String> labels = new LinkedHashMap<>();
    Map<String, String> annotations = new LinkedHashMap<>();
    while (in.more()) {
      int tag = in.varint32();
      int field = tag >>> 3;
      if ((tag & 7) != 2 || !(field == 1 || field == 2 || field == 11 || field == 12)) {
        in.skip(tag);
        continue;
      }
      byte[] value = in.bytes();
      switch (field) {
        case 1 -> meta.setName(new String(value, StandardCharsets.UTF_8));
        case 2 -> meta.setGenerateName(new String(value, StandardCharsets.UTF_8));
        default -> readEntry(new Reader(value), field == 11 ? labels : annotations);
      }
    }
    meta.setLabels(labels.isEmpty() ? null : labels);
    meta.setAnnotations(annotations.isEmpty() ? null : annotations);
  }

  /** A map entry: key (1) and value (2), both strings. */
  private static void readEntry(Reader in, Map<String, String> into) {
    String key = "";
    String value = "";
    while (in.more()) {
      int tag = in.varint32();
      if ((tag & 7) == 2 && (tag >>> 3 == 1 || tag >>> 3 == 2)) {
        String text = new String(in.bytes(), StandardCharsets.UTF_8);
        if (tag >>> 3 == 1) {
          key = text;
        } else {
          value = text;
        }
      } else {
        in.skip(tag);
      }
    }
    into.put(key, value);
  }

  /** The protobuf wire format, as far as reading it needs. */
  private static final class Reader {
    private final byte[] data;
    private int at;

    Reader(byte[] data) {
      this.data = data;
    }

    boolean more() {
      return at < data.length;
    }

    long varint() {
      long value = 0;
      for (int shift = 0; shift < 64; shift += 7) {
        byte b = data[at++];
        value |= (long) (b & 0x7f) << shift;
        if ((b & 0x80) == 0) {
          return value;
        }
      }
      throw ApiException.badRequest("the protobuf body has a malformed varint");
    }

    int varint32() {
      return (int) varint();
    }

    byte[] bytes() {
      long length = varint();
      if (length < 0 || length > data.length - at) {
        throw new IndexOutOfBoundsException();
      }
      byte[] out = Arrays.copyOfRange(data, at, at + (int) length);
      at += (int) length;
      return out;
    }

    void skip(int tag) {
      switch (tag & 7) {
        case 0 -> varint();
        case 1 -> at += 8;
        case 2 -> bytes();
        case 5 -> at += 4;
        default -> throw ApiException.badRequest("the protobuf body has an unsupported wire type " + (tag & 7));
      }
      if (at > data.length) {
        throw new IndexOutOfBoundsException();
      }
    }
  }

  /** For tests: a Namespace as kubectl encodes it. */
  static byte[] write(String name, Map<String, String> labels) {
    ByteArrayOutputStream meta = new ByteArrayOutputStream();
    field(meta, 1, name.getBytes(StandardCharsets.UTF_8));
    labels.forEach((k, v) -> {
      ByteArrayOutputStream entry = new ByteArrayOutputStream();
      field(entry, 1, k.getBytes(StandardCharsets.UTF_8));
      field(entry, 2, v.getBytes(StandardCharsets.UTF_8));
      field(meta, 11, entry.toByteArray());
    });
    ByteArrayOutputStream object = new ByteArrayOutputStream();
    field(object, 1, meta.toByteArray());
    ByteArrayOutputStream unknown = new ByteArrayOutputStream();
    unknown.writeBytes(MAGIC);
    ByteArrayOutputStream typeMeta = new ByteArrayOutputStream();
    field(typeMeta, 1, "v1".getBytes(StandardCharsets.UTF_8));
    field(typeMeta, 2, "Namespace".getBytes(StandardCharsets.UTF_8));
    field(unknown, 1, typeMeta.toByteArray());
    field(unknown, 2, object.toByteArray());
    return unknown.toByteArray();
  }

  private static void field(ByteArrayOutputStream out, int number, byte[] value) {
    varint(out, (number << 3) | 2);
    varint(out, value.length);
    out.writeBytes(value);
  }

  private static void varint(ByteArrayOutputStream out, long value) {
    while ((value & ~0x7fL) != 0) {
      out.write((int) ((value & 0x7f) | 0x80));
      value >>>= 7;
    }
    out.write((int) value);
  }
}
