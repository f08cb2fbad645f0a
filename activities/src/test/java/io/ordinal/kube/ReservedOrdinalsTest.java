package io.ordinal.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReservedOrdinalsTest {

  @Test
  void ordinalsAndRangesInAnyOrderWithSpacesReadSortedAndDistinct() {
    var meta = new ObjectMetaBuilder().addToAnnotations(ReservedOrdinals.ANNOTATION, " 7-9, 2 ,8,0").build();
    assertEquals(List.of(0, 2, 7, 8, 9), ReservedOrdinals.of(meta));
    assertEquals(List.of(), ReservedOrdinals.of(new ObjectMetaBuilder().build()));
    assertNull(ReservedOrdinals.problem(""), "an empty value reserves nothing");
  }

  @Test
  void whatIsNotAListOfOrdinalsSaysWhy() {
    assertTrue(ReservedOrdinals.problem("1,x").contains("\"x\" is not an ordinal"));
    assertTrue(ReservedOrdinals.problem("1,,2").contains("\"\" is not an ordinal"));
    assertTrue(ReservedOrdinals.problem("-1").contains("is not an ordinal"));
    assertTrue(ReservedOrdinals.problem("5-3").contains("ends before it starts"));
    assertTrue(ReservedOrdinals.problem("3000000000").contains("more than 2147483647"));
    assertTrue(ReservedOrdinals.problem("0-999,1000").contains("at most 1000"));
    assertNull(ReservedOrdinals.problem("0-999"));
    // An invalid value was refused at admission; read anyway, it reserves nothing.
    assertEquals(List.of(), ReservedOrdinals.of(new ObjectMetaBuilder().addToAnnotations(ReservedOrdinals.ANNOTATION, "x").build()));
  }
}
