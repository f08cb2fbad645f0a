package io.ordinal.driver.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Which blocks of the pod network this machine already uses, from what {@code ip} says. */
class PodNetworkTest {
  private static final String ADDRESSES = """
      1: lo    inet 127.0.0.1/8 scope host lo\\       valid_lft forever preferred_lft forever
      4: eth0    inet 192.0.2.2/24 brd 192.0.2.255 scope global eth0\\       valid_lft forever preferred_lft forever
      9: ordinal0    inet 10.224.0.1/22 scope global ordinal0\\       valid_lft forever preferred_lft forever
      12: wg0    inet 10.224.9.7/32 scope global wg0\\       valid_lft forever preferred_lft forever
      """;
  private static final String ROUTES = """
      default via 192.0.2.1 dev eth0
      192.0.2.0/24 dev eth0 proto kernel scope link src 192.0.2.2
      10.224.0.0/22 dev ordinal0 proto kernel scope link src 10.224.0.1
      10.224.16.0/21 via 192.0.2.9 dev eth0
      blackhole 10.224.40.0/24
      10.224.50.3 via 192.0.2.9 dev eth0
      """;

  private static int base(String ip) {
    return PodNetwork.parse(ip);
  }

  @Test
  void readsEveryAddressAndRouteButTheDefault() {
    List<String> networks = PodNetwork.machineNetworks(ADDRESSES, ROUTES).stream()
        .map(r -> r.network() + " " + r.dev()).toList();
    assertEquals(List.of("127.0.0.1 lo", "192.0.2.2 eth0", "10.224.0.1 ordinal0", "10.224.9.7 wg0",
        "192.0.2.0/24 eth0", "10.224.0.0/22 ordinal0", "10.224.16.0/21 eth0", "10.224.40.0/24 ", "10.224.50.3 eth0"),
        networks);
  }

  @Test
  void aBlockThatTheMachineUsesIsSkippedButForItsOwnBridge() {
    List<PodNetwork.Route> machine = PodNetwork.machineNetworks(ADDRESSES, ROUTES);
    // Slot 0's own bridge is no obstacle to slot 0, but is to another slot at the same addresses
    // (an installation with another ORDINAL_POD_NETWORK).
    assertNull(PodNetwork.overlapping(machine, 0, base("10.224.0.0"), 22));
    assertEquals("ordinal0", PodNetwork.overlapping(machine, 7, base("10.224.0.0"), 22).dev());
    assertNull(PodNetwork.overlapping(machine, 1, base("10.224.4.0"), 22));
    assertEquals("wg0", PodNetwork.overlapping(machine, 2, base("10.224.8.0"), 22).dev()); // one address in it
    assertEquals("10.224.16.0/21", PodNetwork.overlapping(machine, 4, base("10.224.16.0"), 22).network()); // a wider route
    assertEquals("10.224.16.0/21", PodNetwork.overlapping(machine, 5, base("10.224.20.0"), 22).network());
    assertNull(PodNetwork.overlapping(machine, 6, base("10.224.24.0"), 22));
    assertEquals("10.224.40.0/24", PodNetwork.overlapping(machine, 10, base("10.224.40.0"), 22).network()); // blackhole
    assertEquals("10.224.50.3", PodNetwork.overlapping(machine, 12, base("10.224.48.0"), 22).network()); // a host route
    // A pod network wider than a route of the machine's overlaps it too.
    assertEquals("192.0.2.2", PodNetwork.overlapping(machine, 0, base("192.0.0.0"), 8).network());
  }

  @Test
  void anAddressInUseOnTheMachineIsSkippedButNotForAWiderRoute() {
    List<PodNetwork.Route> machine = PodNetwork.machineNetworks(ADDRESSES, ROUTES + "10.0.0.0/8 via 192.0.2.7 dev tun0\n");
    PodNetwork.Block block8 = new PodNetwork.Block(2, base("10.224.8.0"), 22);
    assertTrue(PodNetwork.inUse(machine, block8, "10.224.9.7")); // wg0's address
    assertFalse(PodNetwork.inUse(machine, block8, "10.224.9.8")); // only in the VPN's 10.0.0.0/8
    PodNetwork.Block block0 = new PodNetwork.Block(0, base("10.224.0.0"), 22);
    assertFalse(PodNetwork.inUse(machine, block0, "10.224.0.2")); // its own bridge's subnet
    assertFalse(PodNetwork.inUse(machine, block0, "10.224.0.1")); // the gateway, on its own bridge
    PodNetwork.Block block48 = new PodNetwork.Block(12, base("10.224.48.0"), 22);
    assertTrue(PodNetwork.inUse(machine, block48, "10.224.50.3")); // a host route elsewhere
    assertFalse(PodNetwork.inUse(machine, block48, "10.224.50.4"));
  }
}
