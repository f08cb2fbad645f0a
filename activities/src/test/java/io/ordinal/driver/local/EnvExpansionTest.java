package io.ordinal.driver.local;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class EnvExpansionTest {
  static final Map<String, String> ENV = Map.of("POD_NAME", "web-0", "PORT", "80", "EMPTY", "");

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource(delimiter = '|', value = {
      "plain|plain",
      "$(POD_NAME)|web-0",
      "http://$(POD_NAME):$(PORT)/|http://web-0:80/",
      "$(UNDEFINED)|$(UNDEFINED)",
      "$$(POD_NAME)|$(POD_NAME)",
      "$$$(PORT)|$80",
      "cost: $5|cost: $5",
      "$(EMPTY)x|x",
      "unclosed $(POD_NAME|unclosed $(POD_NAME",
      "trailing $|trailing $"})
  void expandsLikeKubernetes(String input, String expected) {
    assertEquals(expected, EnvExpansion.expand(input, ENV));
  }
}
