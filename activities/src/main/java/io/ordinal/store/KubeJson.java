package io.ordinal.store;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.module.blackbird.BlackbirdModule;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/** JSON and YAML for Kubernetes objects (the fabric8 model), and Kubernetes timestamps. */
public final class KubeJson {
  public static final ObjectMapper JSON = JsonMapper.builder()
      .serializationInclusion(JsonInclude.Include.NON_NULL)
      .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
      .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
      .addModule(new BlackbirdModule())
      .build();
  public static final ObjectMapper YAML = YAMLMapper.builder(YAMLFactory.builder()
          .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
          .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
          .build())
      .serializationInclusion(JsonInclude.Include.NON_NULL)
      .addModule(new BlackbirdModule())
      .build();

  /** RFC 3339 with exactly three fractional digits, as the API promises. */
  private static final DateTimeFormatter TIMESTAMP =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

  private KubeJson() {}

  public static String write(Object value) {
    try {
      return JSON.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static <T> T read(String json, Class<T> type) {
    try {
      return JSON.readValue(json, type);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static <T> T copy(T value, Class<T> type) {
    return read(write(value), type);
  }

  /** A deep copy of {@code value}, of its own class. */
  @SuppressWarnings("unchecked")
  public static <T> T copy(T value) {
    return (T) read(write(value), value.getClass());
  }

  /** A timestamp of the Kubernetes API (RFC 3339) as an instant. */
  public static Instant instant(String timestamp) {
    return OffsetDateTime.parse(timestamp).toInstant();
  }

  public static String timestamp(Instant instant) {
    return instant == null ? null : TIMESTAMP.format(instant);
  }
}
