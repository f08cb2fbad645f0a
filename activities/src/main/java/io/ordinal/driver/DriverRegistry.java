package io.ordinal.driver;

import io.micronaut.context.annotation.Value;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.ordinal.kube.Drivers;
import io.ordinal.kube.Labels;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/** The drivers of this service, by name, and the default one (configuration {@code ordinal.driver}). */
@Singleton
public class DriverRegistry {
  private final Map<String, PodDriver> drivers;
  private final String defaultDriver;

  public DriverRegistry(List<PodDriver> drivers, @Value("${ordinal.driver:local}") String defaultDriver) {
    this.drivers = drivers.stream().collect(Collectors.toMap(PodDriver::name, Function.identity()));
    if (!this.drivers.containsKey(defaultDriver)) {
      throw new IllegalStateException("ordinal.driver=" + defaultDriver + " is not one of " + this.drivers.keySet());
    }
    this.defaultDriver = defaultDriver;
  }

  public Drivers policy() {
    return new Drivers(Set.copyOf(drivers.keySet()), defaultDriver);
  }

  /** The driver of that name, if this service has it. */
  public Optional<PodDriver> find(String name) {
    return Optional.ofNullable(drivers.get(name));
  }

  /** The name of the driver that runs {@code set}'s pods: its {@code ordinal.io/driver}, else the default. */
  public String nameFor(StatefulSet set) {
    return policy().effective(Labels.annotation(set.getMetadata(), Labels.DRIVER_ANNOTATION));
  }

  /** The drivers of this service whose pods live on one node. */
  public List<String> nodeBoundDrivers() {
    return drivers.values().stream().filter(PodDriver::nodeBound).map(PodDriver::name).sorted().toList();
  }

  public String defaultDriver() {
    return defaultDriver;
  }

  /** True when {@code driverName}'s pods live on one node (an unknown driver counts as one that does). */
  public boolean nodeBound(String driverName) {
    return find(driverName).map(PodDriver::nodeBound).orElse(true);
  }

  /** The node {@code set}'s pods live on ({@code ordinal.io/node}); empty when its driver is not node-bound. */
  public Optional<String> nodeOf(StatefulSet set) {
    return nodeBound(nameFor(set))
        ? Optional.ofNullable(Labels.annotation(set.getMetadata(), Labels.NODE_ANNOTATION)) : Optional.empty();
  }

  public PodDriver get(String name) {
    PodDriver driver = drivers.get(name);
    if (driver == null) {
      throw new IllegalArgumentException("no driver named " + name);
    }
    return driver;
  }

  /** Tells every driver that a set is gone. */
  public void setRemoved(String namespace, String setName) {
    drivers.values().forEach(driver -> driver.setRemoved(namespace, setName));
  }

  /** Removes a deleted claim's volume wherever a driver keeps it (a claim does not record its driver). */
  public void deleteVolume(String namespace, String claimName) throws IOException {
    for (PodDriver driver : drivers.values()) {
      driver.deleteVolume(namespace, claimName);
    }
  }

  public void recoverAll() {
    drivers.values().forEach(PodDriver::recover);
  }
}
