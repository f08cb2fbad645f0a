package io.ordinal.driver.local;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabric8.kubernetes.api.model.PodDNSConfigBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PodDnsTest {
  @Test
  void clusterFirstNamesTheClusterDnsWithTheKubeletsSearchesAndNdots() {
    assertEquals(Optional.of("nameserver 10.224.0.1\nsearch team.svc.cluster.local svc.cluster.local cluster.local\n"
        + "options ndots:5\n"), PodDns.resolvConf("team", new PodSpec(), "10.224.0.1"));
  }

  @Test
  void dnsConfigIsAppendedAndItsOptionsReplaceThoseOfTheirName() {
    PodSpec spec = new PodSpecBuilder().withDnsConfig(new PodDNSConfigBuilder().withNameservers("1.1.1.1")
        .withSearches("example.org", "svc.cluster.local").addNewOption().withName("ndots").withValue("2").endOption()
        .addNewOption().withName("edns0").endOption().build()).build();
    assertEquals(Optional.of("nameserver 10.224.0.1\nnameserver 1.1.1.1\n"
        + "search team.svc.cluster.local svc.cluster.local cluster.local example.org\noptions ndots:2 edns0\n"),
        PodDns.resolvConf("team", spec, "10.224.0.1"));
  }

  @Test
  void noneTakesOnlyTheDnsConfigAndDefaultOrHostNetworkTakeTheMachines() {
    PodSpec none = new PodSpecBuilder().withDnsPolicy("None")
        .withDnsConfig(new PodDNSConfigBuilder().withNameservers("9.9.9.9").build()).build();
    assertEquals(Optional.of("nameserver 9.9.9.9\n"), PodDns.resolvConf("team", none, "10.224.0.1"));
    assertEquals(Optional.empty(), PodDns.resolvConf("team", new PodSpecBuilder().withDnsPolicy("Default").build(), "10.224.0.1"));
    assertEquals(Optional.empty(), PodDns.resolvConf("team", new PodSpecBuilder().withHostNetwork(true).build(), "10.224.0.1"));
    assertEquals("nameserver 10.224.0.1", PodDns.resolvConf("team", new PodSpecBuilder().withHostNetwork(true)
        .withDnsPolicy("ClusterFirstWithHostNet").build(), "10.224.0.1").orElseThrow().lines().findFirst().orElseThrow());
  }
}
