package io.ordinal.driver.local;

import io.fabric8.kubernetes.api.model.PodSpec;
import java.io.IOException;
import java.nio.file.Path;

/**
 * A pod's sandbox, as upstream's pause container: a runc container of its own whose only process
 * ({@value #PAUSE} in pause mode, as podman's infra container) holds the pod's pid, ipc and uts
 * namespaces, which its containers join, and a named network namespace on the pod network
 * (hostNetwork, hostPID, hostIPC: the machine's, which only a privileged namespace admits). It
 * outlives the service like the containers; a container that starts finds it, or makes it again.
 */
final class PodSandbox {
  static final String PAUSE = "/usr/bin/catatonit";

  private final Runc runc;
  private final PodNetwork network;
  private final String id;
  private final String podUid;
  private final Path bundle;
  private final boolean hostNetwork;
  private final boolean hostPid;
  private final boolean hostIpc;

  PodSandbox(Runc runc, PodNetwork network, String id, String podUid, Path bundle, PodSpec spec) {
    this.runc = runc;
    this.network = network;
    this.id = id;
    this.podUid = podUid;
    this.bundle = bundle;
    this.hostNetwork = Boolean.TRUE.equals(spec.getHostNetwork());
    this.hostPid = Boolean.TRUE.equals(spec.getHostPID());
    this.hostIpc = Boolean.TRUE.equals(spec.getHostIPC());
  }

  boolean hostNetwork() {
    return hostNetwork;
  }

  /** The running sandbox, started (with its network attached at {@code ip}) if it is not running. */
  synchronized OciSpec.Sandbox ensure(String hostname, String ip, String cgroupsPath) throws IOException {
    Path netns = hostNetwork ? null : network.attach(podUid, ip);
    var state = runc.state(id);
    if (state.isEmpty() || !state.get().running()) {
      runc.delete(id); // a stopped one of an earlier run
      Rootfs.remove(bundle.resolve("rootfs"));
      Runc.writeBundle(bundle, OciSpec.sandbox(hostname, netns, hostPid, hostIpc, cgroupsPath));
      runc.runDetached(bundle, id);
      state = runc.state(id);
      if (state.isEmpty() || !state.get().running()) {
        throw new IOException("the pod's sandbox " + id + " did not start");
      }
    }
    return new OciSpec.Sandbox(netns, state.get().pid(), hostPid, hostIpc);
  }

  /** Stops the sandbox (its pid namespace ends with it, and any process left in it) and removes its network. */
  synchronized void destroy() throws IOException {
    try {
      runc.delete(id);
    } finally {
      // Even when the runtime fails: a namespace left with the pod's address and MAC on the bridge
      // would answer for the pod that replaces it.
      if (!hostNetwork) {
        network.detach(podUid);
      }
    }
  }
}
