package io.ordinal.e2e;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Sets a test class's static {@link Api} and {@link OrdinalService} fields to the shared service
 * (started on first use; a class with neither field starts nothing), and gives each
 * {@link Namespace} parameter a fresh namespace named after its test.
 */
final class OrdinalServiceExtension implements BeforeAllCallback, AfterAllCallback, ParameterResolver {
  private static final AtomicInteger NAMESPACES = new AtomicInteger();

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    for (Field field : sharedServiceFields(context)) {
      field.setAccessible(true);
      field.set(null, field.getType() == Api.class ? OrdinalService.shared().api() : OrdinalService.shared());
    }
  }

  private static List<Field> sharedServiceFields(ExtensionContext context) {
    return Arrays.stream(context.getRequiredTestClass().getDeclaredFields()).filter(field -> Modifier.isStatic(
        field.getModifiers()) && (field.getType() == Api.class || field.getType() == OrdinalService.class)).toList();
  }

  /** The shared service's log says so when a workflow's incremental readings missed a change. */
  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    if (!sharedServiceFields(context).isEmpty()) {
      OrdinalService.shared().assertNoIncrementalReadingMissed();
    }
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.isAnnotated(Namespace.class) && parameter.getParameter().getType() == String.class;
  }

  /** The test's name in kebab case, cut to fit a DNS label, and a number unique in this JVM (one shared service). */
  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    String test = context.getRequiredTestMethod().getName().replaceAll("([A-Z])", "-$1").toLowerCase(Locale.ROOT);
    return test.substring(0, Math.min(40, test.length())).replaceAll("-+$", "") + "-" + NAMESPACES.incrementAndGet();
  }
}
