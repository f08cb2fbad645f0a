package io.ordinal.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** Quantities as upstream's Go code writes them back, from a table Go itself wrote (deploy/kube/go-fields/quantities). */
class GoQuantityTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private record Row(JsonNode written, String canonical, String rounded) {}

  private static List<Row> table() throws IOException {
    try (InputStream in = GoQuantityTest.class.getResourceAsStream("go-quantities.tsv")) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().map(line -> line.split("\t")).map(f -> {
        try {
          return new Row(JSON.readTree(f[0]), f[1], f[2]);
        } catch (IOException e) {
          throw new IllegalStateException(e);
        }
      }).toList();
    }
  }

  private static String asGoWrites(Optional<String> rendered) {
    return rendered.map(s -> '"' + s + '"').orElse("invalid");
  }

  private static void check(Function<String, Optional<String>> render, Function<Row, String> expected) throws IOException {
    List<Row> rows = table();
    List<String> wrong = rows.stream()
        .filter(row -> !asGoWrites(render.apply(row.written().isTextual() ? row.written().asText()
            : row.written().decimalValue().toString())).equals(expected.apply(row)))
        .map(row -> row.written() + ": Go " + expected.apply(row) + ", Ordinal "
            + asGoWrites(render.apply(row.written().isTextual() ? row.written().asText() : row.written().decimalValue().toString())))
        .toList();
    assertEquals(List.of(), wrong);
    assertEquals(true, rows.size() > 50, "the table was read");
  }

  @Test
  void aQuantityIsWrittenBackAsGoWritesIt() throws IOException {
    check(GoQuantity::canonical, Row::canonical);
  }

  @Test
  void aResourceListsQuantityIsRoundedUpToAMilliAsTheApiserverDefaultsIt() throws IOException {
    check(GoQuantity::roundedUpToMilli, Row::rounded);
  }
}
