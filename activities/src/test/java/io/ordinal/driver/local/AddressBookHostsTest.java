package io.ordinal.driver.local;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.ordinal.kube.PodHostname;
import io.ordinal.store.PodAddressRow;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The hosts file each local pod gets over its /etc/hosts. */
class AddressBookHostsTest {
  static final PodAddressRow WEB_0 = new PodAddressRow("prod/web-0", "prod", "web", "web-0", "127.0.1.1");
  static final PodAddressRow WEB_1 = new PodAddressRow("prod/web-1", "prod", "web", "web-1", "127.0.1.2");
  static final PodAddressRow SOLO_0 = new PodAddressRow("prod/solo-0", "prod", "solo", "solo-0", "127.0.1.3");
  static final List<PodAddressRow> MEMBERS = List.of(SOLO_0, WEB_0, WEB_1);
  static final Map<String, String> SERVICES = Map.of("web", "nginx");

  @Test
  void aPodsOwnLineComesFirstWithItsFqdnAsCanonicalNameAsTheKubeletWritesIt() {
    assertEquals("""
        127.0.0.1\tlocalhost
        ::1\tlocalhost ip6-localhost ip6-loopback
        127.0.1.2\tweb-1.nginx.prod.svc.cluster.local\tweb-1\tweb-1.nginx
        127.0.1.3\tsolo-0
        127.0.1.1\tweb-0 web-0.nginx web-0.nginx.prod.svc.cluster.local
        """, AddressBook.hostsFile("prod", MEMBERS, SERVICES, WEB_1, PodHostname.of("prod", "web-1", "web-1", "nginx")));
  }

  @Test
  void withoutAGoverningServiceTheOwnLineIsTheHostnameAlone() {
    assertEquals("""
        127.0.0.1\tlocalhost
        ::1\tlocalhost ip6-localhost ip6-loopback
        127.0.1.3\tsolo-0
        127.0.1.1\tweb-0 web-0.nginx web-0.nginx.prod.svc.cluster.local
        127.0.1.2\tweb-1 web-1.nginx web-1.nginx.prod.svc.cluster.local
        """, AddressBook.hostsFile("prod", MEMBERS, SERVICES, SOLO_0, PodHostname.of("prod", "solo-0", null, null)));
  }

  @Test
  void aCutHostnameLeadsTheOwnLineAndThePodsFullNamesStay() {
    String pod = "l".repeat(62) + "-0";
    PodAddressRow self = new PodAddressRow("prod/" + pod, "prod", "web", pod, "127.0.1.9");
    PodHostname name = PodHostname.of("prod", pod, pod, "nginx");
    assertEquals("127.0.1.9\t" + "l".repeat(62) + ".nginx.prod.svc.cluster.local\t" + "l".repeat(62) + "\t" + pod
            + "\t" + pod + ".nginx\t" + pod + ".nginx.prod.svc.cluster.local",
        AddressBook.hostsFile("prod", List.of(self), SERVICES, self, name).lines().toList().get(2));
  }
}
