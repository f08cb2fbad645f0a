package io.ordinal.pods;

import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.ordinal.kube.MemberOverrides;
import io.ordinal.kube.PodTemplateDefaults;
import io.ordinal.patch.StrategicMergePatch;
import io.ordinal.store.ControllerRevisionRow;
import io.ordinal.store.KubeJson;
import io.ordinal.store.RevisionStore;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A member's pod template: its revision's template with the revision's member override for its
 * ordinal applied ({@link MemberOverrides}), defaulted as a set's template is.
 */
public final class MemberTemplates {
  /** {@link RevisionStore#data} of each revision's template for an override (by revision uid and override index). */
  private static final Map<String, String> DATA = new LinkedHashMap<>(256, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
      return size() > 4096;
    }
  };

  private MemberTemplates() {}

  /** The template of {@code revision}'s pod {@code ordinal}. */
  public static PodTemplateSpec of(ControllerRevisionRow revision, int ordinal) {
    return apply(KubeJson.read(revision.template(), PodTemplateSpec.class), revision.memberOverrides(), ordinal);
  }

  /**
   * {@code template} with the override of {@code overrides} ({@link MemberOverrides#canonical}) for
   * {@code ordinal} applied, defaulted; {@code template} is left as it is.
   *
   * @throws IllegalArgumentException if the override's patch cannot apply to the template
   */
  public static PodTemplateSpec apply(PodTemplateSpec template, String overrides, int ordinal) {
    List<MemberOverrides.RangeOverride> all = MemberOverrides.parse(overrides);
    Optional<Integer> index = MemberOverrides.indexFor(all, ordinal);
    PodTemplateSpec defaulted = PodTemplateDefaults.apply(KubeJson.copy(template, PodTemplateSpec.class));
    if (index.isEmpty()) {
      return defaulted;
    }
    return merged(defaulted, all.get(index.get()));
  }

  /**
   * {@code template} with each override of {@code overrides} applied, in their order: what the set's
   * validation and Pod Security admission check beside the template itself.
   *
   * @throws IllegalArgumentException if an override's patch cannot apply to the template (its message
   *     starts with the override's index)
   */
  public static List<PodTemplateSpec> eachOverride(PodTemplateSpec template, String overrides) {
    PodTemplateSpec defaulted = PodTemplateDefaults.apply(KubeJson.copy(template, PodTemplateSpec.class));
    List<MemberOverrides.RangeOverride> all = MemberOverrides.parse(overrides);
    List<PodTemplateSpec> out = new ArrayList<>();
    for (int i = 0; i < all.size(); i++) {
      try {
        out.add(merged(defaulted, all.get(i)));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("[" + i + "].template: " + e.getMessage(), e);
      }
    }
    return out;
  }

  private static PodTemplateSpec merged(PodTemplateSpec defaulted, MemberOverrides.RangeOverride override) {
    var merged = StrategicMergePatch.apply(KubeJson.JSON.valueToTree(defaulted), override.template(), PodTemplateSpec.class);
    return PodTemplateDefaults.apply(KubeJson.JSON.convertValue(merged, PodTemplateSpec.class));
  }

  /**
   * Whether pod {@code ordinal} of revision {@code a} and of revision {@code b} have the same template:
   * a pod at one needs no change to be at the other.
   */
  public static boolean same(ControllerRevisionRow a, ControllerRevisionRow b, int ordinal) {
    return a.name().equals(b.name()) || data(a, ordinal).equals(data(b, ordinal));
  }

  private static String data(ControllerRevisionRow revision, int ordinal) {
    String key = revision.uid() + "#" + MemberOverrides.indexFor(MemberOverrides.parse(revision.memberOverrides()), ordinal)
        .map(String::valueOf).orElse("");
    synchronized (DATA) {
      String cached = DATA.get(key);
      if (cached != null) {
        return cached;
      }
    }
    String data = RevisionStore.data(of(revision, ordinal));
    synchronized (DATA) {
      DATA.put(key, data);
    }
    return data;
  }
}
