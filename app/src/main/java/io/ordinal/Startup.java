package io.ordinal;

import io.micronaut.context.event.ApplicationEventListener;
import io.micronaut.runtime.server.event.ServerStartupEvent;
import io.ordinal.driver.DriverRegistry;
import io.ordinal.node.ThisNode;
import io.ordinal.nodeagent.NodeAgent;
import io.ordinal.store.NodeStore;
import io.ordinal.store.ObjectStore;
import io.ordinal.store.ObjectTable;
import io.ordinal.temporal.ControllerOutboxDrain;
import io.ordinal.temporal.SetSignals;
import io.ordinal.temporal.TemporalPreflight;
import io.ordinal.temporal.Workers;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The service's start, once the HTTP server is up, in order: this node registered (and what was made
 * before nodes placed on it), Secrets sealed with a key rotated out sealed again, the Temporal workers started, the drivers' pods re-adopted and the node
 * agent watching them, the controllers' outbox drained, and every set's controller nudged so that
 * work a crash interrupted resumes.
 */
@Singleton
public class Startup implements ApplicationEventListener<ServerStartupEvent> {
  private static final Logger log = LoggerFactory.getLogger(Startup.class);
  private final Workers workers;
  private final DriverRegistry drivers;
  private final SetSignals signals;
  private final ControllerOutboxDrain outbox;
  private final ThisNode node;
  private final NodeStore nodes;
  private final NodeAgent agent;
  private final ObjectStore objects;
  private final TemporalPreflight preflight;
  private volatile boolean started;

  public Startup(Workers workers, DriverRegistry drivers, SetSignals signals, ControllerOutboxDrain outbox, ThisNode node,
      NodeStore nodes, NodeAgent agent, ObjectStore objects, TemporalPreflight preflight) {
    this.preflight = preflight;
    this.objects = objects;
    this.workers = workers;
    this.drivers = drivers;
    this.signals = signals;
    this.outbox = outbox;
    this.node = node;
    this.nodes = nodes;
    this.agent = agent;
  }

  @Override
  public void onApplicationEvent(ServerStartupEvent event) {
    long start = System.nanoTime();
    preflight.checkNamespace();
    workers.registerSearchAttributes();
    nodes.register(node.name(), event.getSource().getURL().toString());
    int adopted = nodes.adoptUnplaced(node.name(), drivers.nodeBoundDrivers(), drivers.defaultDriver());
    int resealed = objects.reseal(ObjectTable.SECRETS);
    if (resealed > 0) {
      log.info("sealed {} Secrets again with the encryption key file's first key", resealed);
    }
    if (adopted > 0) {
      log.info("placed {} sets, pods and claims made before nodes existed on node {}", adopted, node.name());
    }
    long attributes = System.nanoTime();
    workers.start();
    preflight.probe();
    long workerStarted = System.nanoTime();
    drivers.recoverAll();
    agent.start();
    long recovered = System.nanoTime();
    outbox.start();
    // A signal per set, which nothing waits for: the service is ready while they go out.
    Thread.ofVirtual().name("nudge-all").start(() -> {
      try {
        signals.nudgeAll();
      } catch (RuntimeException e) {
        log.warn("start-up nudges stopped (the resync catches up): {}", e.toString());
      }
    });
    started = true;
    long end = System.nanoTime();
    // What a start spends where: search attributes, worker, drivers' re-adoption.
    log.info("worker of node {} ready in {} ms (search attributes and node {} ms, worker {} ms (with the probe of an external Temporal), drivers {} ms)",
        node.name(), (end - start) / 1_000_000, (attributes - start) / 1_000_000, (workerStarted - attributes) / 1_000_000,
        (recovered - workerStarted) / 1_000_000);
  }

  /** True once the workers run and the drivers have re-adopted their pods. */
  public boolean started() {
    return started;
  }
}
