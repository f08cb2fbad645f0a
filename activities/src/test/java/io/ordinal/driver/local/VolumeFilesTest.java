package io.ordinal.driver.local;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The downward API's files read as upstream's: labels and annotations one key="value" line each, by key. */
class VolumeFilesTest {
  @Test
  void aMapIsOneQuotedLinePerKeyInKeyOrder() {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put("zone", "b");
    labels.put("app", "web");
    assertEquals("app=\"web\"\nzone=\"b\"", VolumeFiles.formatMap(labels));
  }

  @Test
  void valuesAreQuotedAsGoQuotesThem() {
    assertEquals("\"a\\\"b\\\\c\\nd\\te\\x01é\"", VolumeFiles.goQuote("a\"b\\c\nd\te\u0001é"));
  }

  @Test
  void spacesAndFormatCharactersBeyondAsciiAreEscapedAsGoEscapesThem() {
    assertEquals("\"a\\u00a0b\\u200bc\"", VolumeFiles.goQuote("a\u00a0b\u200bc"));
  }

  @Test
  void anEmptyMapIsAnEmptyFile() {
    assertEquals("", VolumeFiles.formatMap(Map.of()));
  }
}
