package io.ordinal.kube;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A resource quantity as upstream's {@code resource.Quantity} writes it back after reading it
 * (apimachinery's quantity.go: ParseQuantity, then MarshalJSON): "0.5" becomes "500m", "1024Mi"
 * "1Gi", "1.5Gi" "1536Mi". A string already in canonical form is kept as written, as Go keeps it
 * ("1E3" stays, though Go's own canonical form is "1e3"). Values finer than a nano are rounded up.
 */
public final class GoQuantity {
  private static final Pattern SYNTAX = Pattern.compile("([+-]?)(\\d*)(?:\\.(\\d*))?([a-zA-Z]*|[eE][+-]?\\d+)");
  private static final Map<String, Integer> DECIMAL = Map.of("n", -9, "u", -6, "m", -3, "", 0, "k", 3, "M", 6,
      "G", 9, "T", 12, "P", 15, "E", 18);
  private static final List<String> BINARY = List.of("", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei");
  private static final BigInteger KIBI = BigInteger.valueOf(1024);

  private enum Format { DECIMAL_SI, BINARY_SI, DECIMAL_EXPONENT }

  private GoQuantity() {}

  /** A parsed quantity: its value (finer than a nano rounded up), format and int64 scale, if Go keeps one. */
  private record Parsed(BigDecimal value, Format format, Integer int64Scale, boolean canonicalAsWritten) {}

  /** The JSON string Go writes for {@code written}; empty when Go would refuse it as a quantity. */
  public static Optional<String> canonical(String written) {
    String text = written.strip();
    return parse(text).map(q -> q.canonicalAsWritten() ? text : render(q.value(), q.format()));
  }

  /**
   * {@link #canonical} after SetDefaults_ResourceList, which rounds every quantity of a pod's
   * resources up to a milli ("1500u" becomes "2m"), keeping what is already that coarse as written.
   */
  public static Optional<String> roundedUpToMilli(String written) {
    String text = written.strip();
    return parse(text).map(q -> {
      if (q.int64Scale() != null && q.int64Scale() >= -3) {
        return q.canonicalAsWritten() ? text : render(q.value(), q.format());
      }
      BigDecimal value = q.value().scale() > 3 ? q.value().setScale(3, RoundingMode.UP) : q.value();
      return render(value, q.format());
    });
  }

  private static Optional<Parsed> parse(String text) {
    Matcher m = SYNTAX.matcher(text);
    if (!m.matches() || (m.group(2).isEmpty() && (m.group(3) == null || m.group(3).isEmpty()))) {
      return Optional.empty();
    }
    boolean negative = m.group(1).equals("-");
    String num = m.group(2).replaceFirst("^0+", "");
    num = num.isEmpty() ? "0" : num; // parseQuantityString strips leading zeros
    String denom = m.group(3) == null ? "" : m.group(3);
    String suffix = m.group(4);
    Format format;
    int exponent;
    if (DECIMAL.containsKey(suffix)) {
      format = Format.DECIMAL_SI;
      exponent = DECIMAL.get(suffix);
    } else if (BINARY.contains(suffix)) {
      format = Format.BINARY_SI;
      exponent = BINARY.indexOf(suffix) * 10;
    } else if (suffix.length() > 1 && (suffix.charAt(0) == 'e' || suffix.charAt(0) == 'E')) {
      format = Format.DECIMAL_EXPONENT;
      exponent = Integer.parseInt(suffix.substring(1).replace("+", ""));
    } else {
      return Optional.empty();
    }
    BigDecimal value = new BigDecimal(num + (denom.isEmpty() ? "" : "." + denom));
    value = format == Format.BINARY_SI
        ? value.multiply(new BigDecimal(BigInteger.TWO.pow(exponent)))
        : value.scaleByPowerOfTen(exponent);
    if (negative) {
      value = value.negate();
    }
    Integer int64Scale = int64Scale(format, exponent, num, denom);
    if (int64Scale == null && value.signum() != 0 && value.scale() > 9) {
      value = value.setScale(9, RoundingMode.UP);
    }
    boolean kept = int64Scale != null && keptAsWritten(format, exponent, num + denom, int64Scale);
    if (format == Format.BINARY_SI && value.abs().compareTo(BigDecimal.ONE) < 0) {
      format = Format.DECIMAL_SI;
    }
    return Optional.of(new Parsed(value, format, int64Scale, kept));
  }

  /** ParseQuantity's int64 fast path: the scale it keeps the number at, or null when it takes the slow one. */
  private static Integer int64Scale(Format format, int exponent, String num, String denom) {
    String shifted = num + denom;
    if (shifted.isEmpty() || shifted.length() > 18) {
      return null;
    }
    long value = Long.parseLong(shifted);
    if (format == Format.BINARY_SI) {
      boolean precise = exponent >= 0 && denom.isEmpty()
          && 15 - num.length() - (int) ((float) exponent * 3 / 10) - 1 >= 0;
      return precise && fitsInt64(value, exponent) ? 0 : null;
    }
    int scale = exponent - denom.length();
    return scale >= -9 ? scale : null;
  }

  /** The fast path keeps the string when it is canonical already. */
  private static boolean keptAsWritten(Format format, int exponent, String shifted, int scale) {
    if (format == Format.BINARY_SI) {
      return exponent % 10 == 0 && (Long.parseLong(shifted) & 0x07) != 0;
    }
    return scale % 3 == 0 && !shifted.endsWith("000") && shifted.charAt(0) != '0';
  }

  private static boolean fitsInt64(long value, int exponent) {
    try {
      Math.multiplyExact(value, 1L << exponent);
      return true;
    } catch (ArithmeticException e) {
      return false;
    }
  }

  /** CanonicalizeBytes: the largest suffix that keeps the number whole. */
  private static String render(BigDecimal value, Format format) {
    if (value.signum() == 0) {
      return "0";
    }
    if (format == Format.BINARY_SI) {
      boolean small = value.abs().compareTo(BigDecimal.valueOf(1024)) < 0;
      if (small || value.stripTrailingZeros().scale() > 0) {
        format = Format.DECIMAL_SI;
      } else {
        BigInteger amount = value.toBigIntegerExact();
        int power = 0;
        while (power < BINARY.size() - 1 && amount.mod(KIBI).signum() == 0) {
          amount = amount.divide(KIBI);
          power++;
        }
        return amount + BINARY.get(power);
      }
    }
    BigDecimal stripped = value.stripTrailingZeros();
    BigInteger amount = stripped.unscaledValue();
    int down = Math.floorMod(-stripped.scale(), 3);
    amount = amount.multiply(BigInteger.TEN.pow(down));
    int exponent = -stripped.scale() - down;
    if (format == Format.DECIMAL_EXPONENT) {
      return amount + (exponent == 0 ? "" : "e" + exponent);
    }
    String suffix = DECIMAL.entrySet().stream().filter(e -> e.getValue() == exponent).map(Map.Entry::getKey)
        .findFirst().orElse(null);
    return suffix != null ? amount + suffix : amount + "e" + exponent;
  }
}
